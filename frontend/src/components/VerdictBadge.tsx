import { VERDICT_LABELS, type Verdict } from "../api/types";

export function VerdictBadge({ verdict }: { verdict: Verdict }) {
  return <span className={`badge verdict verdict-${verdict}`}>{VERDICT_LABELS[verdict]}</span>;
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status status-${status}`}>{status}</span>;
}
