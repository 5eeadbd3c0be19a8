import { ARTIFACT_STATUS_LABELS, VERDICT_LABELS, type ArtifactStatus, type Verdict } from "../api/types";

export function VerdictBadge({ verdict }: { verdict: Verdict }) {
  return <span className={`badge verdict verdict-${verdict}`}>{VERDICT_LABELS[verdict]}</span>;
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status status-${status}`}>{status}</span>;
}

/** An artifact's parse status; `pending` reads "queued" (waiting for a parse worker). */
export function ArtifactStatusBadge({ status }: { status: ArtifactStatus }) {
  return <span className={`badge status status-${status}`}>{ARTIFACT_STATUS_LABELS[status]}</span>;
}
