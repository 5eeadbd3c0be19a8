import { useEffect, useRef, useState } from "react";
import { useArtifacts } from "../../api/queries";
import type { Finding } from "../../api/types";
import { dataFocus, timedArtifacts, type Focus } from "../../lib/focus";
import { clampToWindow, type TimeRange } from "../../lib/urlState";

/** The view fields the opening range depends on. */
export interface OpeningView {
  range: TimeRange | null;
  finding: string | null;
}

/**
 * Who holds the view: still as the page opened (whole incident), a range this hook chose (and
 * the range shown for it: the page clamps a range to the incident's window, which may lag the
 * files by a read), or the user.
 */
type Owner =
  | { kind: "opened" }
  // Opened from a link with a range: never moved, but when the range is the one this hook
  // would choose (the page reloaded on it), the view says so.
  | { kind: "linked"; range: TimeRange }
  | { kind: "focus"; range: TimeRange; shown: TimeRange | null }
  | { kind: "user" };

export function sameRange(a: TimeRange, b: TimeRange): boolean {
  // The URL keeps whole milliseconds.
  return Math.round(a.from) === Math.round(b.from) && Math.round(a.to) === Math.round(b.to);
}

function same(a: TimeRange | null, b: TimeRange | null): boolean {
  return a === null || b === null ? a === b : sameRange(a, b);
}

/**
 * Whether `view` is still what the page opened on, or what this hook last chose, as the page
 * shows it (the user has not zoomed, panned, picked a finding or asked for everything).
 */
function untouched(owner: Owner, view: OpeningView, extent: TimeRange | null): boolean {
  if (owner.kind === "user" || view.finding !== null) return false;
  if (owner.kind === "opened") return view.range === null;
  if (owner.kind === "linked") return same(view.range, owner.range);
  return same(view.range, owner.shown) || (owner.shown !== null && same(view.range, clampToWindow(owner.shown, extent)));
}

/**
 * On a page opened without a range or a finding, once the files and the checklist are read:
 * the part of the incident that holds its data, when the rest of its span is empty (see
 * `dataFocus`), shown instead of the whole span. Decided again whenever the files change
 * (uploaded through the page, or arriving while it is open) and none is still queued, as long
 * as the user has not zoomed, panned, picked a finding or asked for everything; what it chose
 * is returned, so the view can say so.
 */
export function useOpenOnTheData(
  apiBase: string,
  view: OpeningView,
  extent: TimeRange | null,
  findings: Finding[] | undefined,
  setView: (changes: { range: TimeRange | null }, options: { replace: boolean }) => void,
): Focus | null {
  const artifacts = useArtifacts(apiBase);
  const owner = useRef<Owner>(
    view.finding !== null
      ? { kind: "user" }
      : view.range === null
        ? { kind: "opened" }
        : { kind: "linked", range: view.range },
  );
  const [focus, setFocus] = useState<Focus | null>(null);
  useEffect(() => {
    if (!untouched(owner.current, view, extent)) {
      owner.current = { kind: "user" };
      return;
    }
    if (owner.current.kind === "focus") owner.current = { ...owner.current, shown: view.range };
    if (!artifacts.data || !findings) return;
    // A file still queued has no time range yet: decide on all of them.
    if (artifacts.data.some((artifact) => artifact.status === "pending" || artifact.status === "parsing")) return;
    const evidence = findings
      .filter((finding) => finding.verdict === "confirmed" || finding.verdict === "likely")
      // One vote per finding, however many evidence items it lists.
      .map((finding) =>
        finding.evidence.flatMap((item) =>
          item.from_ms !== null && item.to_ms !== null ? [{ from: item.from_ms, to: item.to_ms }] : [],
        ),
      );
    const found = dataFocus(
      timedArtifacts(artifacts.data).timed.map(({ artifact, range }) => ({
        from: range[0],
        to: range[1],
        assumed: artifact.placed_at_upload || (artifact.time_assumptions ?? []).length > 0,
      })),
      evidence,
    );
    const current = owner.current;
    if (found) {
      // Chosen already, and shown (or being held to the incident's window, which may lag the
      // files by a read: shown in full once the window reaches it).
      const shown = same(view.range, found.range) || same(view.range, clampToWindow(found.range, extent));
      if (current.kind === "focus" && sameRange(current.range, found.range) && shown) return;
      if (current.kind === "linked") {
        // A link's range is never moved; it is named as the data's part when it is that.
        if (shown) {
          owner.current = { kind: "focus", range: found.range, shown: view.range };
          setFocus(found);
        }
        return;
      }
      owner.current = { kind: "focus", range: found.range, shown: found.range };
      setFocus(found);
      setView({ range: found.range }, { replace: true });
    } else if (current.kind === "focus") {
      // The data is no longer that sparse: back to the whole incident.
      owner.current = { kind: "opened" };
      setFocus(null);
      setView({ range: null }, { replace: true });
    }
  }, [artifacts.data, findings, view, extent, setView]);
  return focus;
}
