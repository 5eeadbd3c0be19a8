import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MarkerStrip, markerTiers, TIER_STEP, type Marker } from "./Markers";

afterEach(cleanup);

const range = { from: 0, to: 1_000_000 };
const width = 1000; // 1 px per second
const at = (kind: Marker["kind"], t: number, duration: number | null = null, text = ""): Marker => ({ kind, t, duration, text });

/** The triangle's box from its path "Mx,y l-4,-8 h8 z": x from x-4 to x+4, y from y-8 to y. */
function box(path: Element) {
  const [, x, y] = /^M([\d.-]+),([\d.-]+)/.exec(path.getAttribute("d") ?? "")!.map(Number);
  return { left: x! - 4, right: x! + 4, top: y! - 8, bottom: y! };
}

describe("marker strip: markers on one instant", () => {
  it("stacks a deadlock above its thread dump, so both are under the mouse and open their own details", async () => {
    const dump = at("dump", 500_000, null, "thread dump · host orders-1");
    const deadlock = at("deadlock", 500_000, null, "thread deadlock · host orders-1");
    const onSelect = vi.fn();
    const { container } = render(
      <MarkerStrip markers={[at("gc", 500_000, 300), dump, deadlock]} range={range} width={width} timezone="UTC" onSelect={onSelect} />,
    );
    const dumpButton = screen.getByRole("button", { name: /^Details of thread dumps: .*thread dump · host orders-1/ });
    const deadlockButton = screen.getByRole("button", { name: /^Details of thread deadlocks: .*thread deadlock · host orders-1/ });
    expect(dumpButton.getAttribute("d")).not.toBe(deadlockButton.getAttribute("d"));
    const [a, b] = [box(dumpButton), box(deadlockButton)];
    // Same instant (same x), one above the other with no pixel in common.
    expect(a.left).toBe(b.left);
    expect(b.bottom).toBeLessThan(a.top);
    expect(a.top - b.top).toBe(TIER_STEP);
    // The strip grew by that step: nothing is drawn above its top.
    expect(Number(container.querySelector("svg")!.getAttribute("height"))).toBe(26 + TIER_STEP);
    expect(b.top).toBeGreaterThanOrEqual(0);

    await userEvent.click(dumpButton);
    expect(onSelect).toHaveBeenLastCalledWith(dump);
    await userEvent.click(deadlockButton);
    expect(onSelect).toHaveBeenLastCalledWith(deadlock);
  });

  it("keeps the strip one row high when nothing is covered", () => {
    const { container } = render(
      <MarkerStrip markers={[at("dump", 100_000), at("deadlock", 300_000), at("gc", 100_000, 200)]} range={range} width={width} timezone="UTC" />,
    );
    expect(Number(container.querySelector("svg")!.getAttribute("height"))).toBe(26);
  });
});

describe("marker tiers", () => {
  it("stacks kinds that would cover each other, and only those", () => {
    const markers = [
      at("deadlock", 500_000),
      at("dump", 500_000),
      at("dump", 503_000), // same kind, overlapping: one row
      at("reset", 505_000), // 5 px from the dump at 500 s, 2 from the one at 503 s: covered
      at("rejection", 520_000), // clear of everything
      at("gc", 500_000, 1_000), // its own row
      at("annotation", 500_000, 10_000), // its own row
    ];
    expect(markerTiers(markers, range, width)).toEqual([2, 1, 1, 0, 0, 0, 0]);
  });

  it("stacks a span over the point markers inside it, and leaves markers a triangle apart side by side", () => {
    expect(markerTiers([at("rejection", 100_000, 50_000), at("dump", 120_000)], range, width)).toEqual([0, 1]);
    expect(markerTiers([at("dump", 100_000), at("deadlock", 109_000)], range, width)).toEqual([0, 0]);
    expect(markerTiers([at("dump", 100_000), at("deadlock", 107_000)], range, width)).toEqual([0, 1]);
  });
});
