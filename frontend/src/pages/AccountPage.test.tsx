import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ME_KEY } from "../api/queries";
import { renderWithData } from "../test/fixtures";
import { AccountPage } from "./AccountPage";

const recent = Array.from({ length: 50 }, (_, n) => ({ id: `r${n}`, title: `recent incident ${n}` }));
const old = { id: "old", title: "payments outage, last year" };

// The server's incident search, as far as the token form uses it: one page, by title.
function incidents(url: URL) {
  const q = url.searchParams.get("q") ?? "";
  const items = q ? [...recent, old].filter((incident) => incident.title.includes(q)) : recent;
  return { items, total: q ? items.length : 51 };
}

afterEach(() => vi.unstubAllGlobals());

describe("the API token form", () => {
  it("finds an incident beyond the first page by title and keeps it chosen", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL) => {
        const url = new URL(input instanceof Request ? input.url : String(input), "http://rootline.test");
        if (url.pathname === "/api/incidents") return Response.json(incidents(url));
        if (url.pathname === "/api/tokens") return Response.json([]);
        return Response.json({ code: "not_found", message: "no" }, { status: 404 });
      }),
    );
    const me = { user: { username: "li.wei", is_admin: false, has_password: true }, csrf_token: "c" };
    renderWithData(<AccountPage />, [[[...ME_KEY], me]]);

    const picker = (await screen.findByRole("combobox", { name: "Incident" })) as HTMLSelectElement;
    await waitFor(() => expect(within(picker).getAllByRole("option")).toHaveLength(51));
    expect(within(picker).queryByText(old.title)).toBeNull();

    await userEvent.type(screen.getByRole("searchbox", { name: "Find incident" }), "payments");
    await waitFor(() => expect(within(picker).getAllByRole("option")).toHaveLength(2), { timeout: 3000 });
    // Asked when typing pauses, not once per key.
    const searched = vi
      .mocked(fetch)
      .mock.calls.map(([input]) =>
        new URL(input instanceof Request ? input.url : String(input), "http://rootline.test").searchParams.get("q"),
      )
      .filter((q) => q);
    expect(searched.at(-1)).toBe("payments");
    expect(searched.length).toBeLessThan("payments".length);
    await userEvent.selectOptions(picker, old.id);
    expect(picker.value).toBe(old.id);

    await userEvent.clear(screen.getByRole("searchbox", { name: "Find incident" }));
    await waitFor(() => expect(within(picker).getAllByRole("option")).toHaveLength(52), { timeout: 3000 });
    expect(picker.value).toBe(old.id);
  });
});
