import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { artifact, HOSTILE, renderWithData } from "../../test/fixtures";
import { ArtifactsTable, groupArtifacts } from "./ArtifactsTable";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const base = "/api/incidents/i1";

describe("artifacts", () => {
  it("puts bundle members under their bundle, a nested bundle's under it", () => {
    const groups = groupArtifacts([
      artifact({ id: "m2", parent_id: "b", filename: "b/z.txt", uploaded_at_ms: 5 }),
      artifact({ id: "deep", parent_id: "inner", filename: "x.txt", uploaded_at_ms: 7 }),
      artifact({ id: "b", kind: "bundle", filename: "b.tar.gz", uploaded_at_ms: 3 }),
      artifact({ id: "solo", uploaded_at_ms: 1 }),
      artifact({ id: "m1", parent_id: "b", filename: "b/a.txt", uploaded_at_ms: 4 }),
      artifact({ id: "inner", parent_id: "b", kind: "bundle", filename: "b/inner.zip", uploaded_at_ms: 6 }),
      artifact({ id: "orphan", parent_id: "gone", uploaded_at_ms: 9 }),
    ]);
    expect(groups.map((group) => [group.artifact.id, group.members.map((m) => m.id)])).toEqual([
      ["solo", []],
      ["b", ["m1", "inner", "deep", "m2"]],
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

  it("says when a file's data sits at the upload time, and offers the clock offset", async () => {
    renderWithData(<ArtifactsTable apiBase={base} timezone="UTC" readOnly={false} allowRaw />, [
      [[base, "artifacts"], [artifact({ id: "ss", placed_at_upload: true }), artifact({ id: "other", filename: "t.txt" })]],
    ]);
    const notes = screen.getAllByTestId("placed-at-upload");
    expect(notes).toHaveLength(1);
    expect(notes[0]!.textContent).toMatch(/No timestamp in this file/);
    await userEvent.click(within(notes[0]!).getByRole("button", { name: /clock offset/i }));
    expect(screen.getByLabelText(/clock offset/i)).toBeTruthy();
  });

  it("says when log lines without a date were put on the upload's date, and offers the clock offset", async () => {
    renderWithData(<ArtifactsTable apiBase={base} timezone="UTC" readOnly={false} allowRaw />, [
      [[base, "artifacts"], [
        artifact({
          id: "log",
          filename: "app.log",
          kind: "app_log",
          time_assumptions: [{ key: "app_log.date_assumed", value: "2026-11-21" }],
        }),
        artifact({ id: "dated", filename: "dated.log", kind: "app_log" }),
      ]],
    ]);
    const notes = screen.getAllByTestId("time-assumed");
    expect(notes).toHaveLength(1);
    expect(notes[0]!.textContent).toMatch(/time of day but no date: they were put on 2026-11-21, the upload's date\./);
    expect(notes[0]!.textContent).toMatch(/upload the log again with its dates/);
    expect(screen.queryByTestId("placed-at-upload")).toBeNull();
    await userEvent.click(within(notes[0]!).getByRole("button", { name: /clock offset/i }));
    expect(screen.getByLabelText(/clock offset/i)).toBeTruthy();
  });

  it("words a time assumption it does not know, and none on a share's read-only table offers a button", () => {
    renderWithData(<ArtifactsTable apiBase="/api/shared/t" timezone="UTC" readOnly allowRaw={false} />, [
      [["/api/shared/t", "artifacts"], [
        artifact({ time_assumptions: [{ key: "nmon.year_assumed", value: "2026" }], clock_offset_s: 60 }),
      ]],
    ]);
    const note = screen.getByTestId("time-assumed");
    expect(note.textContent).toMatch(/nmon\.year_assumed: 2026\), then shifted by its clock offset\./);
    expect(within(note).queryByRole("button")).toBeNull();
  });

  it("read-only: no re-parse, and no download unless the share allows it", () => {
    renderWithData(<ArtifactsTable apiBase="/api/shared/t" timezone="UTC" readOnly allowRaw={false} />, [
      [["/api/shared/t", "artifacts"], [artifact()]],
    ]);
    expect(screen.queryByRole("button", { name: /re-parse/i })).toBeNull();
    expect(screen.queryByRole("link", { name: /download/i })).toBeNull();
  });

  it("shows the parse queue: queued and parsing rows, with no kind or counts before the first parse", () => {
    renderWithData(<ArtifactsTable apiBase={base} timezone="UTC" readOnly={false} allowRaw />, [
      [[base, "artifacts"], [
        artifact({ id: "new", filename: "new.txt", status: "pending", kind: "unknown", parsed_at_ms: null, series_count: 0, uploaded_at_ms: 1 }),
        artifact({ id: "again", filename: "again.txt", status: "parsing", kind: "nstat", series_count: 7, event_count: 2, uploaded_at_ms: 2 }),
        artifact({ id: "done", filename: "done.txt", uploaded_at_ms: 3 }),
      ]],
    ]);
    const [fresh, again, done] = screen.getAllByTestId("artifact-row") as [HTMLElement, HTMLElement, HTMLElement];
    expect(fresh.dataset.status).toBe("pending");
    expect(within(fresh).getByText("queued").className).toContain("status-pending");
    expect(within(fresh).queryByText("unknown")).toBeNull();
    expect(within(fresh).queryByText(/0 \/ 0/)).toBeNull();
    expect(within(again).getByText("parsing…").className).toContain("status-parsing");
    // A re-parse keeps what the last parse found on screen until the new one lands.
    expect(within(again).getByText("nstat")).toBeTruthy();
    expect(within(again).getByText("7 / 2")).toBeTruthy();
    for (const row of [fresh, again]) {
      expect((within(row).getByRole("button", { name: /re-parse/i }) as HTMLButtonElement).disabled).toBe(true);
    }
    expect(within(done).getByText("parsed")).toBeTruthy();
    expect((within(done).getByRole("button", { name: /re-parse/i }) as HTMLButtonElement).disabled).toBe(false);
  });

  it("re-parse: the row shows queued as soon as the server has queued it", async () => {
    const queued = artifact({ status: "pending" });
    vi.stubGlobal(
      "fetch",
      vi.fn(async (request: Request) =>
        request.method === "POST"
          ? Response.json({ artifacts: [queued], created: [false] }, { status: 202 })
          : Response.json([queued]),
      ),
    );
    renderWithData(<ArtifactsTable apiBase={base} timezone="UTC" readOnly={false} allowRaw />, [
      [[base, "artifacts"], [artifact()]],
    ]);
    const row = screen.getByTestId("artifact-row");
    expect(within(row).getByText("parsed")).toBeTruthy();
    await userEvent.click(within(row).getByRole("button", { name: /re-parse/i }));
    expect(await within(row).findByText("queued")).toBeTruthy();
    expect(row.dataset.status).toBe("pending");
    const sent = vi.mocked(fetch).mock.calls[0]![0] as Request;
    expect(new URL(sent.url).pathname).toBe(`${base}/artifacts/a1/reparse`);
  });
});
