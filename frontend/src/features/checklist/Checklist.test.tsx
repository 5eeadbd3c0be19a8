import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ArtifactStatus, Symptom } from "../../api/types";
import { artifact, finding, HOSTILE, renderWithData } from "../../test/fixtures";
import { formatValue } from "../../timeline/format";
import { Checklist, evidenceValue, ParseProgress, thresholdOperator } from "./Checklist";

afterEach(cleanup);

const base = "/api/incidents/i1";

function renderChecklist(
  findings: ReturnType<typeof finding>[],
  props: Partial<Parameters<typeof Checklist>[0]> = {},
  symptom: Symptom | null = null,
) {
  const onSelectEvidence = vi.fn();
  const utils = renderWithData(
    <Checklist
      apiBase={base}
      timezone="UTC"
      readOnly={false}
      selectedFinding={null}
      selectedEvidence={null}
      onSelectEvidence={onSelectEvidence}
      {...props}
    />,
    [[[base, "checklist"], { incident_id: "i1", rules_version: "abc123def456", findings, symptom }]],
  );
  return { onSelectEvidence, ...utils };
}

const SYMPTOM: Symptom = {
  series: "app.checkout_latency.p99_ms",
  labels: {},
  host: null,
  unit: "ms",
  kind: "latency",
  start_ms: 1_795_247_532_000, // 2026-11-21 07:52:12 UTC
  end_ms: 1_795_247_554_000,
  baseline: 12,
  threshold: 18,
  peak: 490,
  summary: "app.checkout_latency.p99_ms rose from 12 ms to 490 ms",
  overlapping: ["gc_pauses"],
};

describe("Checklist symptom line", () => {
  const gc = finding({
    id: "gc_pauses",
    title: "Long GC pauses",
    overlaps_symptom: true,
    symptom_overlap: "Its evidence (2026-11-21T07:52:11Z to 2026-11-21T07:52:34Z) overlaps the symptom window.",
  });
  const early = finding({
    id: "time_wait_storm",
    verdict: "likely",
    effective_verdict: "likely",
    overlaps_symptom: false,
    symptom_overlap: "Its evidence (…) ends 9.0 min before the symptom starts.",
  });

  it("names the window and the overlapping cause, and moves the timeline there", async () => {
    const onShowRange = vi.fn();
    renderChecklist([gc, early], { onShowRange }, SYMPTOM);
    const line = await screen.findByTestId("symptom");
    expect(line.textContent).toBe(
      "Symptom: app latency checkout_latency.p99_ms rose from 12 ms to 490 ms at 2026-11-21 07:52:12 UTC for 22 s" +
        " Show on the timeline; overlaps: Long GC pauses (confirmed)",
    );
    await userEvent.click(within(line).getByRole("button", { name: "Show on the timeline" }));
    // The window with a fifth of it (at least 5 s) on each side.
    expect(onShowRange).toHaveBeenCalledWith({ from: 1_795_247_527_000, to: 1_795_247_559_000 });
    const cards = screen.getAllByTestId("finding");
    expect(within(cards[0]!).getByTestId("symptom-overlap").textContent).toMatch(/^Overlaps the application's symptom\./);
    expect(within(cards[1]!).getByTestId("symptom-overlap").textContent).toMatch(/^Not during the application's symptom\./);
  });

  it("says when no confirmed or likely cause overlaps, and is absent without a symptom", async () => {
    renderChecklist([early], {}, { ...SYMPTOM, overlapping: [] });
    expect((await screen.findByTestId("symptom")).textContent).toMatch(/overlaps: no confirmed or likely cause$/);
    cleanup();
    renderChecklist([early]);
    await screen.findAllByTestId("finding");
    expect(screen.queryByTestId("symptom")).toBeNull();
  });
});

describe("Checklist", () => {
  it("renders hostile text from users and files as text, never as HTML", () => {
    const { container } = renderChecklist([
      finding({
        title: HOSTILE,
        summary: HOSTILE,
        explanation: HOSTILE,
        remedies: [HOSTILE],
        evidence: [{ ...finding().evidence[0]!, summary: HOSTILE, host: HOSTILE }],
        review: { verdict_override: "ruled_out", note: HOSTILE, author: HOSTILE, updated_at_ms: 1_795_251_037_645 },
        effective_verdict: "ruled_out",
      }),
    ]);
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("script")).toBeNull();
    expect(screen.getByRole("heading", { name: HOSTILE })).toBeTruthy();
    expect(screen.getAllByText(HOSTILE).length).toBeGreaterThanOrEqual(4);
    expect((window as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it("marks each finding with its effective verdict and shows the team's note", () => {
    renderChecklist([
      finding({
        effective_verdict: "likely",
        review: { verdict_override: "likely", note: "Seen on the LB too.", author: "ana", updated_at_ms: Date.UTC(2026, 10, 21, 9, 0) },
      }),
    ]);
    const article = screen.getByTestId("finding");
    expect(article.dataset.finding).toBe("time_wait_storm");
    expect(article.dataset.verdict).toBe("likely");
    expect(within(article).getByText("Likely")).toBeTruthy();
    expect(within(article).getByText("Seen on the LB too.")).toBeTruthy();
    expect(within(article).getByText(/by ana, 2026-11-21 09:00 UTC/)).toBeTruthy();
  });

  it("selects evidence on click", async () => {
    const { onSelectEvidence } = renderChecklist([finding()]);
    await userEvent.click(screen.getByTestId("evidence"));
    expect(onSelectEvidence).toHaveBeenCalledTimes(1);
    expect(onSelectEvidence.mock.calls[0]![1]).toBe(0);
  });

  it("shows the command that collects missing data, with a copy button", () => {
    renderChecklist([
      finding({
        id: "small_send_buffer",
        verdict: "insufficient_data",
        effective_verdict: "insufficient_data",
        evidence: [],
        missing: [{ artifact: "sysctl dump", command: "sysctl -a > sysctl.txt" }],
      }),
    ]);
    expect(screen.getByText("sysctl -a > sysctl.txt").tagName).toBe("CODE");
    expect(screen.getByRole("button", { name: "Copy command" })).toBeTruthy();
  });

  it("has no edit controls when read-only", () => {
    renderChecklist([finding()], { readOnly: true });
    expect(screen.queryByRole("button", { name: /review/i })).toBeNull();
    renderChecklist([finding({ id: "other" })], { readOnly: false });
    expect(screen.getByRole("button", { name: /review/i })).toBeTruthy();
  });
});

describe("differential diagnosis and versions", () => {
  it("says which cause explains a finding and moves to it", async () => {
    renderChecklist([
      finding({ id: "small_send_buffer", title: "Send buffer smaller than the BDP" }),
      finding({
        id: "single_connection_bottleneck",
        title: "One long connection carries the load",
        verdict: "ruled_out",
        effective_verdict: "ruled_out",
        explained_by: ["small_send_buffer"],
      }),
    ]);
    const note = screen.getByTestId("explained-by");
    expect(note.textContent).toContain("Explained by Send buffer smaller than the BDP");
    await userEvent.click(within(note).getByRole("button", { name: "Send buffer smaller than the BDP" }));
    expect(document.activeElement?.textContent).toBe("Send buffer smaller than the BDP");
  });

  it("marks observations past and short of their thresholds, and names the rules version", () => {
    const evidence = finding().evidence[0]!;
    renderChecklist([
      finding({
        evidence: [evidence, { ...evidence, summary: "short of it", met: false }],
        rules_version: "0ld0ld0ld0ld",
      }),
    ]);
    expect(screen.getAllByLabelText("past threshold:")).toHaveLength(1);
    expect(screen.getAllByLabelText("below threshold:")).toHaveLength(1);
    const version = screen.getByTestId("rules-version");
    expect(version.textContent).toContain("abc123def456");
    expect(version.textContent).toContain("older version");
  });
});

describe("assumed times", () => {
  it("marks evidence whose time was assumed, with the reason in words, and leaves measured times alone", () => {
    const evidence = finding().evidence[0]!;
    renderChecklist([
      finding({
        evidence: [
          { ...evidence, summary: "undated ss listing", from_ms: 1_795_300_976_000, to_ms: 1_795_300_976_000, time_assumed: "placed_at_upload" },
          { ...evidence, summary: "log without dates", time_assumed: "app_log.date_assumed" },
          { ...evidence, summary: "uptime-only GC log", time_assumed: "unanchored, placed_at_upload" },
          { ...evidence, summary: "measured", time_assumed: null },
        ],
      }),
    ]);
    const rows = screen.getAllByTestId("evidence");
    const marker = (row: HTMLElement) => within(row).queryByTestId("evidence-time-assumed")?.textContent ?? null;
    expect(marker(rows[0]!)).toBe("time assumed: no timestamp in the file, placed at its upload");
    // the time is still shown, with the marker beside it
    expect(rows[0]!.textContent).toContain("2026-11-21 22:42:56 UTC");
    expect(marker(rows[1]!)).toBe("time assumed: date assumed: no date on the log lines, put on the upload's date");
    expect(marker(rows[2]!)).toBe(
      "time assumed: no start time: relative times (JVM uptimes) only; no timestamp in the file, placed at its upload",
    );
    expect(marker(rows[3]!)).toBeNull();
  });

  it("marks a symptom whose time was assumed, and not one read from its file", async () => {
    renderChecklist([finding()], {}, { ...SYMPTOM, overlapping: [], time_assumed: "app_log.date_assumed" });
    const line = await screen.findByTestId("symptom");
    expect(within(line).getByTestId("symptom-time-assumed").textContent).toBe(
      "time assumed: date assumed: no date on the log lines, put on the upload's date",
    );
    cleanup();
    renderChecklist([finding()], {}, SYMPTOM);
    expect(within(await screen.findByTestId("symptom")).queryByTestId("symptom-time-assumed")).toBeNull();
  });
});

describe("parse progress above the checklist", () => {
  function renderProgress(statuses: ArtifactStatus[]) {
    return renderWithData(<ParseProgress apiBase={base} />, [
      [[base, "artifacts"], statuses.map((status, index) => artifact({ id: `a${index}`, status }))],
    ]);
  }

  it("counts the files still pending or parsing", () => {
    renderProgress(["pending", "parsing", "parsed", "failed"]);
    expect(screen.getByRole("status").textContent).toBe("2 files still parsing — verdicts will update");
  });

  it("says one file", () => {
    renderProgress(["parsed", "pending"]);
    expect(screen.getByTestId("parse-progress").textContent).toBe("1 file still parsing — verdicts will update");
  });

  it("is not shown when nothing is queued", () => {
    const { container } = renderProgress(["parsed", "partial", "failed"]);
    expect(container.textContent).toBe("");
  });
});

describe("evidence values", () => {
  it("reads a share as a percentage, a ratio with x, a flag as yes or no", () => {
    expect(evidenceValue(0.5, "share of snapshots")).toBe("50 % of snapshots");
    expect(evidenceValue(0.0123, "share")).toBe("1.23 %");
    expect(evidenceValue(2.5, "ratio")).toBe("2.5x");
    expect(evidenceValue(12_500, "ms")).toBe(formatValue(12_500, "ms")); // as the timeline reads it
    expect(evidenceValue(3 * 1024 * 1024, "bytes")).toMatch(/MiB/);
    expect(evidenceValue(false, null)).toBe("no");
    expect(evidenceValue("cubic", null)).toBe("cubic");
  });

  it("says how an observation meets its threshold", () => {
    const evidence = finding().evidence[0]!;
    renderChecklist([
      finding({
        evidence: [
          { ...evidence, summary: "deadlock", observed: 1, threshold: 0, unit: "deadlocks", operator: ">" },
          { ...evidence, summary: "old row", observed: 5, threshold: 3, unit: "threads", operator: undefined },
        ],
      }),
    ]);
    expect(screen.getByText("1 deadlock (threshold > 0 deadlocks)")).toBeTruthy();
    expect(screen.getByText("5 threads (threshold 3 threads)")).toBeTruthy();
    expect(thresholdOperator(">=")).toBe("≥ ");
    expect(thresholdOperator(null)).toBe("");
  });

  it("counts one thing in the singular, in the chip and its threshold alike", () => {
    expect(evidenceValue(1, "lines")).toBe("1 line");
    expect(evidenceValue(0, "lines")).toBe("0 lines");
    expect(evidenceValue(2, "lines")).toBe("2 lines");
    expect(evidenceValue(1, "snapshots in a row")).toBe("1 snapshot in a row");
    expect(evidenceValue(1, "runnable threads per core")).toBe("1 runnable thread per core");
    expect(evidenceValue(1, "families")).toBe("1 family");
    expect(evidenceValue(1, "RTO events")).toBe("1 RTO event");
    // rates, non-count units and shares keep their unit
    expect(evidenceValue(1, "connections/s")).toBe("1 connections/s");
    expect(evidenceValue(1, "autocorrelation")).toBe("1 autocorrelation");
    expect(evidenceValue(1, "status")).toBe("1 status");
    expect(evidenceValue(1, "share of snapshots")).toBe("100 % of snapshots");
  });
});
