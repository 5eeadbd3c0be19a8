import { cleanup, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { artifact, HOSTILE, renderWithData } from "../../test/fixtures";
import { ArtifactsTable, groupArtifacts } from "./ArtifactsTable";

afterEach(cleanup);

const base = "/api/incidents/i1";

describe("artifacts", () => {
  it("puts bundle members under their bundle", () => {
    const groups = groupArtifacts([
      artifact({ id: "m2", parent_id: "b", filename: "b/z.txt", uploaded_at_ms: 5 }),
      artifact({ id: "b", kind: "bundle", filename: "b.tar.gz", uploaded_at_ms: 3 }),
      artifact({ id: "solo", uploaded_at_ms: 1 }),
      artifact({ id: "m1", parent_id: "b", filename: "b/a.txt", uploaded_at_ms: 4 }),
      artifact({ id: "orphan", parent_id: "gone", uploaded_at_ms: 9 }),
    ]);
    expect(groups.map((group) => [group.artifact.id, group.members.map((m) => m.id)])).toEqual([
      ["solo", []],
      ["b", ["m1", "m2"]],
      ["orphan", []],
    ]);
  });

  it("shows status, diagnostics with line numbers, unanchored GC logs, and text only", () => {
    const { container } = renderWithData(
      <ArtifactsTable apiBase={base} timezone="UTC" readOnly={false} allowRaw />,
      [[[base, "artifacts"], [
        artifact({
          id: "gc",
          filename: HOSTILE,
          kind: "gc_unified",
          status: "partial",
          anchored: false,
          diagnostics: [{ line: 12, message: HOSTILE }, { line: 0, message: "no data rows" }],
          diagnostics_dropped: 3,
        }),
      ]]],
    );
    const row = screen.getByTestId("artifact-row");
    expect(row.dataset.status).toBe("partial");
    expect(within(row).getByText("5 diagnostics")).toBeTruthy();
    expect(within(row).getByText("line 12")).toBeTruthy();
    expect(within(row).getByText(/and 3 more not listed/)).toBeTruthy();
    expect(within(row).getByText(/Unanchored/)).toBeTruthy();
    expect(container.querySelector("img, script")).toBeNull();
    const link = within(row).getByRole("link", { name: /download/i });
    expect(link.getAttribute("href")).toBe(`${base}/artifacts/gc/raw`);
    expect(within(row).getByRole("button", { name: /re-parse/i })).toBeTruthy();
  });

  it("read-only: no re-parse, and no download unless the share allows it", () => {
    renderWithData(<ArtifactsTable apiBase="/api/shared/t" timezone="UTC" readOnly allowRaw={false} />, [
      [["/api/shared/t", "artifacts"], [artifact()]],
    ]);
    expect(screen.queryByRole("button", { name: /re-parse/i })).toBeNull();
    expect(screen.queryByRole("link", { name: /download/i })).toBeNull();
  });
});
