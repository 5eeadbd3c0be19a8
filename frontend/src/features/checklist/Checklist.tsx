import { useEffect, useId, useRef, useState } from "react";
import { useArtifacts, useChecklist, useCreateActionItem, useReviewFinding } from "../../api/queries";
import { VERDICTS, VERDICT_LABELS, isQueued, type Evidence, type Finding, type Symptom, type Verdict } from "../../api/types";
import { CopyButton } from "../../components/CopyButton";
import { Empty, ErrorMessage, Loading } from "../../components/States";
import { VerdictBadge } from "../../components/VerdictBadge";
import { formatDuration, formatInstant, formatNumber, formatRange } from "../../lib/time";
import { paddedRange, type TimeRange } from "../../lib/urlState";
import { formatValue } from "../../timeline/format";
import { timeAssumedLabel } from "./timeAssumed";

export interface ChecklistProps {
  apiBase: string;
  timezone: string;
  readOnly: boolean;
  selectedFinding: string | null;
  selectedEvidence: number | null;
  onSelectEvidence: (finding: Finding, index: number, evidence: Evidence) => void;
  /** Name recorded with a review (the server uses the signed-in user's once auth is on). */
  author?: string;
  /** Move the timeline to a range (the symptom window). */
  onShowRange?: (range: TimeRange) => void;
}

/** The root-cause checklist: verdicts, evidence that drives the timeline, reviews. */
export function Checklist(props: ChecklistProps) {
  const checklist = useChecklist(props.apiBase);
  if (checklist.isPending) return <Loading label="Loading the checklist…" />;
  if (checklist.isError)
    return <ErrorMessage error={checklist.error} title="Checklist" onRetry={() => void checklist.refetch()} />;
  return (
    <ChecklistView
      findings={checklist.data.findings}
      rulesVersion={checklist.data.rules_version}
      symptom={checklist.data.symptom ?? null}
      {...props}
    />
  );
}

/**
 * Shown above the checklist while files wait for or are in the parse workers: the verdicts are
 * recomputed once they are done, so the ones on screen may still change.
 */
export function ParseProgress({ apiBase }: { apiBase: string }) {
  const artifacts = useArtifacts(apiBase);
  const queued = artifacts.data?.filter(isQueued).length ?? 0;
  if (queued === 0) return null;
  return (
    <p className="parse-progress" role="status" data-testid="parse-progress">
      <span className="spinner" aria-hidden="true" />
      {queued === 1 ? "1 file" : `${formatNumber(queued)} files`} still parsing — verdicts will update
    </p>
  );
}

export function ChecklistView({
  findings,
  rulesVersion,
  symptom = null,
  ...props
}: ChecklistProps & { findings: Finding[]; rulesVersion?: string; symptom?: Symptom | null }) {
  if (findings.length === 0)
    return <Empty>No findings yet: upload artifacts and the checklist is computed from them.</Empty>;
  const counts = VERDICTS.map((verdict) => [
    verdict,
    findings.filter((finding) => finding.effective_verdict === verdict).length,
  ] as const).filter(([, count]) => count > 0);
  const titles = new Map(findings.map((finding) => [finding.id, finding.title]));
  return (
    <div className="checklist">
      {symptom && (
        <SymptomLine symptom={symptom} titles={titles} findings={findings} timezone={props.timezone} onShowRange={props.onShowRange} />
      )}
      <p className="checklist-counts">
        {counts.map(([verdict, count]) => (
          <span key={verdict} className={`count verdict-text-${verdict}`}>
            {count} {VERDICT_LABELS[verdict].toLowerCase()}
          </span>
        ))}
      </p>
      {findings.map((finding) => (
        <FindingCard key={finding.id} finding={finding} titles={titles} {...props} />
      ))}
      {rulesVersion && (
        <p className="muted small rules-version" data-testid="rules-version">
          Verdicts by rules version <code>{rulesVersion}</code>
          {findings.some((f) => f.rules_version && f.rules_version !== rulesVersion) &&
            " (some were computed by an older version and are being recomputed)"}
          . The thresholds and their reasons are in docs/checklist.md.
        </p>
      )}
    </div>
  );
}

/** The series' name as a person reads it: without `app.`, with the labels that tell it apart. */
export function symptomSeriesName(symptom: Symptom): string {
  const labels = Object.entries(symptom.labels)
    .filter(([key]) => key !== "host")
    .map(([, value]) => value);
  return [symptom.series.replace(/^app\./, ""), ...labels].join(" ") + (symptom.host ? ` on ${symptom.host}` : "");
}

/**
 * The application's symptom above the checklist: when its latency (or errors) rose, which
 * confirmed or likely causes overlap that window, and a link that moves the timeline there.
 */
export function SymptomLine({
  symptom,
  findings,
  titles,
  timezone,
  onShowRange,
}: {
  symptom: Symptom;
  findings: Finding[];
  titles: Map<string, string>;
  timezone: string;
  onShowRange?: (range: TimeRange) => void;
}) {
  const verdicts = new Map(findings.map((finding) => [finding.id, finding.effective_verdict]));
  const what = symptom.kind === "latency" ? "latency" : "errors";
  const range = paddedRange(symptom.start_ms, symptom.end_ms);
  return (
    <p className="symptom-line" data-testid="symptom" data-series={symptom.series} title={symptom.summary}>
      <strong>Symptom:</strong> app {what} <span className="mono">{symptomSeriesName(symptom)}</span> rose from{" "}
      {formatValue(symptom.baseline, symptom.unit)} to {formatValue(symptom.peak, symptom.unit)} at{" "}
      <span data-testid="symptom-start">{formatInstant(symptom.start_ms, timezone)}</span> for{" "}
      {formatDuration(symptom.end_ms - symptom.start_ms)}
      {symptom.time_assumed && (
        <>
          {" "}
          <TimeAssumed value={symptom.time_assumed} testId="symptom-time-assumed" />
        </>
      )}
      {onShowRange && range && (
        <>
          {" "}
          <button type="button" className="link-button" onClick={() => onShowRange(range)}>
            Show on the timeline
          </button>
        </>
      )}
      ; overlaps:{" "}
      {symptom.overlapping.length === 0 ? (
        <span className="muted">no confirmed or likely cause</span>
      ) : (
        symptom.overlapping.map((id, index) => (
          <span key={id} data-testid="symptom-cause" data-finding={id}>
            {index > 0 && ", "}
            <button type="button" className="link-button" onClick={() => showFinding(id)}>
              {titles.get(id) ?? id}
            </button>{" "}
            ({VERDICT_LABELS[verdicts.get(id) ?? "likely"].toLowerCase()})
          </span>
        ))
      )}
    </p>
  );
}

/** Scroll a finding of the checklist into view and move the focus to its title. */
function showFinding(findingId: string) {
  const article = document.querySelector<HTMLElement>(`[data-finding="${findingId}"]`);
  if (!article) return;
  article.scrollIntoView?.({ block: "nearest" });
  article.querySelector<HTMLElement>("h3")?.focus();
}

function FindingCard({
  finding,
  apiBase,
  timezone,
  readOnly,
  selectedFinding,
  selectedEvidence,
  onSelectEvidence,
  author,
  titles,
}: ChecklistProps & { finding: Finding; titles: Map<string, string> }) {
  const selected = selectedFinding === finding.id;
  const titleId = useId();
  const ref = useRef<HTMLElement>(null);
  const overridden = finding.effective_verdict !== finding.verdict;

  // A link that names a finding opens with it in view inside the checklist's own scroll area
  // (wide layout); the page itself is not scrolled, so the timeline stays on screen.
  useEffect(() => {
    const article = ref.current;
    if (!selected || !article) return;
    const scroller = article.closest<HTMLElement>(".workspace-side");
    if (scroller && scroller.scrollHeight > scroller.clientHeight && getComputedStyle(scroller).overflowY !== "visible") {
      scroller.scrollTop += article.getBoundingClientRect().top - scroller.getBoundingClientRect().top - 8;
    }
    // Only on first render with the selection: not on every later click.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, on mount: later selections scroll by their own click
  }, []);

  return (
    <article
      ref={ref}
      className={selected ? "finding finding-selected" : "finding"}
      data-testid="finding"
      data-finding={finding.id}
      data-verdict={finding.effective_verdict}
      aria-labelledby={titleId}
    >
      <header className="finding-header">
        <VerdictBadge verdict={finding.effective_verdict} />
        <h3 id={titleId} tabIndex={-1}>
          {finding.title}
        </h3>
      </header>
      {(finding.explained_by ?? []).length > 0 && (
        <p className="explained-by" data-testid="explained-by">
          Explained by{" "}
          {(finding.explained_by ?? []).map((cause, index) => (
            <span key={cause}>
              {index > 0 && ", "}
              <button type="button" className="link-button" onClick={() => showFinding(cause)}>
                {titles.get(cause) ?? cause}
              </button>
            </span>
          ))}
          : its symptom is that cause's, not a second cause.
        </p>
      )}
      {finding.overlaps_symptom === true && (
        <p className="symptom-overlap" data-testid="symptom-overlap">
          Overlaps the application's symptom. {finding.symptom_overlap}
        </p>
      )}
      {finding.overlaps_symptom === false && finding.symptom_overlap && (
        <p className="muted small" data-testid="symptom-overlap">
          Not during the application's symptom. {finding.symptom_overlap}
        </p>
      )}
      {overridden && (
        <p className="muted small">
          Set by the team; the detectors said <strong>{VERDICT_LABELS[finding.verdict].toLowerCase()}</strong>.
        </p>
      )}
      <Summary text={finding.summary} clamp={finding.evidence.length > 0} />

      {finding.evidence.length > 0 && (
        <ul className="evidence-list" aria-label={`Evidence for ${finding.title}`}>
          {finding.evidence.map((evidence, index) => (
            <li key={index}>
              <button
                type="button"
                className={
                  selected && selectedEvidence === index ? "evidence evidence-selected" : "evidence"
                }
                data-testid="evidence"
                aria-pressed={selected && selectedEvidence === index}
                onClick={() => onSelectEvidence(finding, index, evidence)}
              >
                <span className="evidence-summary">
                  {evidence.met === true && (
                    <span className="evidence-met" title="At or past its threshold" aria-label="past threshold:">
                      ●{" "}
                    </span>
                  )}
                  {evidence.met === false && (
                    <span className="evidence-unmet" title="Short of its threshold" aria-label="below threshold:">
                      ○{" "}
                    </span>
                  )}
                  {evidence.summary}
                </span>
                <EvidenceMeta evidence={evidence} timezone={timezone} />
              </button>
            </li>
          ))}
        </ul>
      )}

      {finding.missing.length > 0 && (
        <div className="missing">
          <p className="missing-title">To decide, collect:</p>
          <ul>
            {finding.missing.map((missing, index) => (
              <li key={index}>
                <span>{missing.artifact}</span>
                <div className="command">
                  <code>{missing.command}</code>
                  <CopyButton text={missing.command} label="Copy command" />
                </div>
              </li>
            ))}
          </ul>
        </div>
      )}

      {finding.explanation && (
        <details className="finding-more">
          <summary>Explanation</summary>
          <p>{finding.explanation}</p>
        </details>
      )}
      {finding.remedies.length > 0 && (
        <details className="finding-more">
          <summary>Remedies ({finding.remedies.length})</summary>
          <ul className="remedies">
            {finding.remedies.map((remedy, index) => (
              <li key={index} data-testid="remedy">
                {remedy}
                {!readOnly && <CreateActionItem apiBase={apiBase} finding={finding} index={index} />}
              </li>
            ))}
          </ul>
        </details>
      )}

      {(finding.references ?? []).length > 0 && (
        <details className="finding-more">
          <summary>References ({(finding.references ?? []).length})</summary>
          <ul>
            {(finding.references ?? []).map((reference, index) => (
              <li key={index}>
                {reference.url ? (
                  <a href={reference.url} target="_blank" rel="noreferrer noopener">
                    {reference.title}
                  </a>
                ) : (
                  reference.title
                )}
                {reference.source && <span className="muted"> ({reference.source})</span>}
              </li>
            ))}
          </ul>
        </details>
      )}

      {finding.review && (finding.review.note || finding.review.verdict_override) && (
        <div className="review-note">
          {finding.review.note && <p className="note-text">{finding.review.note}</p>}
          <p className="muted small">
            {finding.review.verdict_override
              ? `Verdict set to ${VERDICT_LABELS[finding.review.verdict_override].toLowerCase()}`
              : "Note"}{" "}
            by {finding.review.author || "someone"}, {formatInstant(finding.review.updated_at_ms, timezone, false)}
          </p>
        </div>
      )}

      {!readOnly && <ReviewForm finding={finding} apiBase={apiBase} author={author} />}
    </article>
  );
}

/** One click: an action item made from this remedy (its setting or command copied in). */
function CreateActionItem({ apiBase, finding, index }: { apiBase: string; finding: Finding; index: number }) {
  const create = useCreateActionItem(apiBase);
  if (create.isSuccess)
    return (
      <p className="small action-created" role="status">
        ✓ Action item created: <strong>{create.data.title}</strong>
        {create.data.command && <code className="mono block">{create.data.command}</code>}
      </p>
    );
  return (
    <div className="remedy-actions">
      <button
        type="button"
        className="button-small"
        disabled={create.isPending}
        onClick={() => create.mutate({ finding_id: finding.id, remedy_index: index })}
      >
        {create.isPending ? "Creating…" : "Create action item"}
        <span className="visually-hidden"> from remedy {index + 1} of {finding.title}</span>
      </button>
      {create.isError && <ErrorMessage error={create.error} />}
    </div>
  );
}

/**
 * A summary states every observation the verdict rests on (for the API, the CLI and exports);
 * beside the evidence list that repeats them, the card shows its first lines and the rest on
 * request.
 */
function Summary({ text, clamp }: { text: string; clamp: boolean }) {
  const [open, setOpen] = useState(false);
  const long = clamp && text.length > 280;
  return (
    <>
      <p className={long && !open ? "finding-summary finding-summary-clamped" : "finding-summary"}>{text}</p>
      {long && (
        <button type="button" className="link-button small" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "Show less" : "Show the whole summary"}
        </button>
      )}
    </>
  );
}

/**
 * An observed value or threshold with its unit, as a person reads it: a share (0..1) as a
 * percentage ("50 % of snapshots", not "0.5 share of snapshots"), a ratio as "2.5x", the
 * rest as the timeline's values read (formatValue: bytes in KiB/MiB, long ms in s).
 */
export function evidenceValue(v: number | string | boolean | null, unit: string | null): string {
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v !== "number") return `${v}${unit ? ` ${unit}` : ""}`;
  if (unit === "share" || unit?.startsWith("share of ")) {
    const pct = new Intl.NumberFormat("en-US", { maximumFractionDigits: Math.abs(v) < 0.1 ? 2 : 1 }).format(v * 100);
    return unit === "share" ? `${pct} %` : `${pct} %${unit.slice("share".length)}`;
  }
  if (unit === "ratio") return `${formatNumber(v)}x`;
  return formatValue(v, unit ?? "");
}

const OPERATORS: Record<string, string> = { ">=": "≥ ", ">": "> ", "<=": "≤ ", "<": "< ", "==": "= ", "!=": "≠ " };

/** How the observation meets its threshold, before the threshold: "> 0 deadlocks" reads
 * "any deadlock", where "0 deadlocks" read as if none were wanted. Nothing for findings stored
 * before the operator was recorded. */
export function thresholdOperator(operator: string | null | undefined): string {
  return (operator && OPERATORS[operator]) ?? "";
}

/** A chip beside a time that was assumed rather than read from its file, saying why. */
function TimeAssumed({ value, testId }: { value: string | null | undefined; testId: string }) {
  const label = timeAssumedLabel(value);
  if (!label) return null;
  return (
    <span
      className="time-assumed"
      data-testid={testId}
      data-time-assumed={value ?? undefined}
      title="Its file carries no such time: where it sits on the timeline is a guess. A clock offset on the file (Artifacts) moves it."
    >
      {label}
    </span>
  );
}

function EvidenceMeta({ evidence, timezone }: { evidence: Evidence; timezone: string }) {
  return (
    <span className="evidence-meta">
      {evidence.observed !== null && (
        <span className="mono">
          {evidenceValue(evidence.observed, evidence.unit)}
          {evidence.threshold !== null &&
            typeof evidence.threshold !== "boolean" &&
            ` (threshold ${thresholdOperator(evidence.operator)}${evidenceValue(evidence.threshold, evidence.unit)})`}
        </span>
      )}
      {evidence.host && <span>host {evidence.host}</span>}
      {evidence.from_ms !== null && <span>{formatRange(evidence.from_ms, evidence.to_ms, timezone)}</span>}
      <TimeAssumed value={evidence.time_assumed} testId="evidence-time-assumed" />
      {evidence.series && <span className="mono">{evidence.series}</span>}
    </span>
  );
}

function ReviewForm({ finding, apiBase, author }: { finding: Finding; apiBase: string; author?: string }) {
  const [open, setOpen] = useState(false);
  const [override, setOverride] = useState<Verdict | "">(finding.review?.verdict_override ?? "");
  const [note, setNote] = useState(finding.review?.note ?? "");
  const review = useReviewFinding(apiBase);
  const formId = useId();

  if (!open) {
    return (
      <button
        type="button"
        className="button-small"
        onClick={() => {
          setOverride(finding.review?.verdict_override ?? "");
          setNote(finding.review?.note ?? "");
          review.reset();
          setOpen(true);
        }}
      >
        {finding.review ? "Edit review" : "Review"}
        <span className="visually-hidden"> {finding.title}</span>
      </button>
    );
  }

  return (
    <form
      className="review-form"
      aria-label={`Review of ${finding.title}`}
      onSubmit={(event) => {
        event.preventDefault();
        review.mutate(
          { findingId: finding.id, verdict_override: override || null, note, author: author ?? "" },
          { onSuccess: () => setOpen(false) },
        );
      }}
    >
      <label htmlFor={`${formId}-verdict`}>Verdict override</label>
      <select
        id={`${formId}-verdict`}
        value={override}
        onChange={(event) => setOverride(event.target.value as Verdict | "")}
      >
        <option value="">None (use the computed verdict: {VERDICT_LABELS[finding.verdict].toLowerCase()})</option>
        {VERDICTS.map((verdict) => (
          <option key={verdict} value={verdict}>
            {VERDICT_LABELS[verdict]}
          </option>
        ))}
      </select>
      <label htmlFor={`${formId}-note`}>Note</label>
      <textarea id={`${formId}-note`} rows={3} value={note} onChange={(event) => setNote(event.target.value)} />
      {review.isError && <ErrorMessage error={review.error} />}
      <div className="form-actions">
        <button type="submit" className="button-primary" disabled={review.isPending}>
          {review.isPending ? "Saving…" : "Save review"}
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
