import { fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { Modal } from "./Modal";

function Creator({ onClose }: { onClose: () => void }) {
  const [created, setCreated] = useState(false);
  return (
    <Modal title="Share" onClose={onClose}>
      {created ? <p>the link</p> : <button onClick={() => setCreated(true)}>Create link</button>}
    </Modal>
  );
}

describe("Modal", () => {
  it("closes on Escape after the focused button was replaced by its result", async () => {
    const onClose = vi.fn();
    render(<Creator onClose={onClose} />);
    await userEvent.click(screen.getByRole("button", { name: "Create link" }));
    expect(document.activeElement).toBe(document.body);
    fireEvent.keyDown(document.body, { key: "Escape" });
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it("closes only the topmost of two dialogs", () => {
    const outer = vi.fn();
    const inner = vi.fn();
    render(
      <Modal title="Outer" onClose={outer}>
        <Modal title="Inner" onClose={inner}>
          <button>ok</button>
        </Modal>
      </Modal>,
    );
    fireEvent.keyDown(screen.getByRole("button", { name: "ok" }), { key: "Escape" });
    expect(inner).toHaveBeenCalledTimes(1);
    expect(outer).not.toHaveBeenCalled();
  });
});
