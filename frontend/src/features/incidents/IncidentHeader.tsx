import type { ReactNode } from "react";
import type { Incident } from "../../api/types";
import { StatusBadge } from "../../components/VerdictBadge";
import { formatNumber, formatWindow } from "../../lib/time";

export function IncidentHeader({ incident, children }: { incident: Incident; children?: ReactNode }) {
  return (
    <header className="incident-header">
      <div className="incident-heading">
        <h1>{incident.title}</h1>
        {children && <div className="incident-actions">{children}</div>}
      </div>
      <p className="incident-meta">
        <StatusBadge status={incident.status} />
        <span data-testid="incident-window">
          {formatWindow(incident.window_start_ms, incident.window_end_ms, incident.timezone)}
        </span>
        <span>Timezone <span className="mono">{incident.timezone}</span></span>
        <span>{incident.artifact_count === 1 ? "1 artifact" : `${formatNumber(incident.artifact_count)} artifacts`}</span>
      </p>
      {incident.summary && <p className="incident-summary">{incident.summary}</p>}
    </header>
  );
}
