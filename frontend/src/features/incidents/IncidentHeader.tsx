import type { ReactNode } from "react";
import type { Incident } from "../../api/types";
import { StatusBadge } from "../../components/VerdictBadge";
import { formatDuration, formatNumber, formatRange } from "../../lib/time";

export function IncidentHeader({ incident, children }: { incident: Incident; children?: ReactNode }) {
  return (
    <header className="incident-header">
      <div className="incident-heading">
        <h1>{incident.title}</h1>
        {children && <div className="incident-actions">{children}</div>}
      </div>
      <p className="incident-meta">
        <StatusBadge status={incident.status} />
        <span>
          {incident.window_start_ms !== null
            ? formatRange(incident.window_start_ms, incident.window_end_ms, incident.timezone)
            : "No data yet"}
          {incident.window_start_ms !== null && incident.window_end_ms !== null &&
            ` (${formatDuration(incident.window_end_ms - incident.window_start_ms)})`}
        </span>
        <span>Timezone <span className="mono">{incident.timezone}</span></span>
        <span>{incident.artifact_count === 1 ? "1 artifact" : `${formatNumber(incident.artifact_count)} artifacts`}</span>
      </p>
      {incident.summary && <p className="incident-summary">{incident.summary}</p>}
    </header>
  );
}
