import { lazy, Suspense, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { useComparison, useIncidents, type CompareParams } from "../api/queries";
import { VERDICT_LABELS, type CompareRow, type CompareSide } from "../api/types";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Empty, ErrorMessage, Loading } from "../components/States";
import { VerdictBadge } from "../components/VerdictBadge";
import { CHANGE_LABELS } from "../features/compare/overlay";
import { formatNumber, formatRange } from "../lib/time";
import { parseInstant } from "../lib/urlState";

// Recharts only here: kept out of the main bundle.
const OverlayCharts = lazy(() =>
  import("../features/compare/OverlayCharts").then((module) => ({ default: module.OverlayCharts })),
);

const RANGE_KEYS = ["a_from", "a_to", "b_from", "b_to"] as const;

/** The comparison the URL asks for (null until both sides are chosen). */
export function compareParams(params: URLSearchParams): CompareParams | null {
  const a = params.get("a");
  const b = params.get("b");
  if (!a || !b) return null;
  const out: CompareParams = { a, b };
  for (const key of RANGE_KEYS) {
    const value = parseInstant(params.get(key));
    if (value !== null) out[key] = value;
  }
  return out;
}

function KeyNumbers({ row, side }: { row: CompareRow; side: "a" | "b" }) {
  const verdict = row[side];
  return (
    <td className={`compare-side compare-${side}`}>
      <VerdictBadge verdict={verdict.verdict} />
      <ul className="key-numbers">
        {verdict.key_numbers.map((number, index) => (
          <li key={index} className="small">
            <span className="mono">
              {typeof number.observed === "number" ? formatNumber(number.observed) : number.observed}
              {number.unit ? ` ${number.unit}` : ""}
            </span>
            {number.threshold !== null && (
              <span className="muted">
                {" "}
                (threshold {typeof number.threshold === "number" ? formatNumber(number.threshold) : number.threshold})
              </span>
            )}
            <div className="muted clamp">{number.summary}</div>
          </li>
        ))}
      </ul>
    </td>
  );
}

function SideHeading({ side, label }: { side: CompareSide; label: string }) {
  return (
    <div className="compare-heading">
      <strong>{label}</strong>{" "}
      <Link to={`/incidents/${side.incident_id}`}>{side.title}</Link>
      <div className="muted small">
        {side.from_ms !== null ? formatRange(side.from_ms, side.to_ms, side.timezone) : "no data yet"}
        {side.windowed && " (checklist of this range)"}
      </div>
    </div>
  );
}

/** `/compare?a=<incident>&b=<incident>[&a_from&a_to&b_from&b_to]`: before and after. */
export function ComparePage() {
  const [params, setParams] = useSearchParams();
  const chosen = compareParams(params);
  const comparison = useComparison(chosen);
  const incidents = useIncidents("", 0);
  const [form, setForm] = useState(() => ({
    a: params.get("a") ?? "",
    b: params.get("b") ?? "",
    ...Object.fromEntries(RANGE_KEYS.map((key) => [key, params.get(key) ?? ""])),
  }) as Record<"a" | "b" | (typeof RANGE_KEYS)[number], string>);
  const changed = comparison.data?.rows.filter((row) => row.change !== "same").length ?? 0;

  return (
    <main className="page page-wide">
      <h1>Before and after</h1>
      <form
        className="compare-form"
        aria-label="What to compare"
        onSubmit={(event) => {
          event.preventDefault();
          const next = new URLSearchParams();
          for (const [key, value] of Object.entries(form)) if (value.trim()) next.set(key, value.trim());
          setParams(next);
        }}
      >
        {(["a", "b"] as const).map((side) => (
          <fieldset key={side}>
            <legend>{side === "a" ? "A: before" : "B: after"}</legend>
            <label htmlFor={`compare-${side}`}>Incident {side.toUpperCase()}</label>
            <select id={`compare-${side}`} value={form[side]} onChange={(event) => setForm({ ...form, [side]: event.target.value })}>
              <option value="">Choose an incident</option>
              {(incidents.data?.items ?? []).map((incident) => (
                <option key={incident.id} value={incident.id}>
                  {incident.title}
                </option>
              ))}
            </select>
            <label htmlFor={`compare-${side}-from`}>From (optional; ISO time or epoch ms)</label>
            <input id={`compare-${side}-from`} value={form[`${side}_from`]} onChange={(event) => setForm({ ...form, [`${side}_from`]: event.target.value })} />
            <label htmlFor={`compare-${side}-to`}>To</label>
            <input id={`compare-${side}-to`} value={form[`${side}_to`]} onChange={(event) => setForm({ ...form, [`${side}_to`]: event.target.value })} />
          </fieldset>
        ))}
        <div className="form-actions">
          <button type="submit" className="button-primary" disabled={!form.a || !form.b}>
            Compare
          </button>
        </div>
      </form>

      {!chosen && <Empty>Choose two incidents (or one twice, with two ranges) to compare their checklists.</Empty>}
      {chosen && comparison.isPending && <Loading label="Computing both checklists…" />}
      {comparison.isError && <ErrorMessage error={comparison.error} onRetry={() => void comparison.refetch()} />}
      {comparison.data && (
        <>
          <section className="panel" aria-labelledby="verdicts-title">
            <h2 id="verdicts-title">
              Verdicts <span className="muted small">({changed} changed)</span>
            </h2>
            <div className="table-scroll">
              <table className="compare">
                <thead>
                  <tr>
                    <th scope="col">Checklist item</th>
                    <th scope="col">
                      <SideHeading side={comparison.data.a} label="A" />
                    </th>
                    <th scope="col">
                      <SideHeading side={comparison.data.b} label="B" />
                    </th>
                    <th scope="col">Change</th>
                  </tr>
                </thead>
                <tbody>
                  {comparison.data.rows.map((row) => (
                    <tr key={row.id} data-testid="compare-row" data-finding={row.id} data-change={row.change}>
                      <th scope="row">{row.title}</th>
                      <KeyNumbers row={row} side="a" />
                      <KeyNumbers row={row} side="b" />
                      <td className={`change change-${row.change}`} title={`${VERDICT_LABELS[row.a.verdict]} → ${VERDICT_LABELS[row.b.verdict]}`}>
                        {CHANGE_LABELS[row.change]}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
          <section className="panel" aria-labelledby="overlay-title">
            <h2 id="overlay-title">Lanes overlaid</h2>
            <ErrorBoundary label="The overlay charts">
              <Suspense fallback={<Loading label="Loading charts…" />}>
                <OverlayCharts a={comparison.data.a} b={comparison.data.b} />
              </Suspense>
            </ErrorBoundary>
          </section>
        </>
      )}
    </main>
  );
}
