import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { incidentBase, useIncident, useMe } from "../api/queries";
import { ErrorMessage, Loading } from "../components/States";
import { DeleteIncidentDialog, EditIncidentDialog } from "../features/incidents/IncidentDialogs";
import { IncidentHeader } from "../features/incidents/IncidentHeader";
import { IncidentWorkspace } from "../features/incidents/IncidentWorkspace";
import { ShareDialog } from "../features/share/ShareDialog";
import { useViewState } from "../lib/useViewState";

export function IncidentPage() {
  const { id = "" } = useParams();
  const apiBase = incidentBase(id);
  const incident = useIncident(apiBase);
  const me = useMe();
  const navigate = useNavigate();
  const [dialog, setDialog] = useState<"share" | "edit" | "delete" | null>(null);
  const [view] = useViewState();

  if (incident.isPending) return <main className="page"><Loading label="Loading the incident…" /></main>;
  if (incident.isError)
    return (
      <main className="page">
        <p><Link to="/">← All incidents</Link></p>
        <ErrorMessage error={incident.error} title="This incident could not be loaded" onRetry={() => void incident.refetch()} />
      </main>
    );
  const data = incident.data;
  return (
    <main className="page page-wide">
      <p className="breadcrumb"><Link to="/">← All incidents</Link></p>
      <IncidentHeader incident={data}>
        <Link className="button-small button-like" to={`/incidents/${encodeURIComponent(data.id)}/postmortem`}>Postmortem</Link>
        <button type="button" className="button-primary" onClick={() => setDialog("share")}>Share…</button>
        <button type="button" onClick={() => setDialog("edit")}>Edit</button>
        <button type="button" className="button-danger" onClick={() => setDialog("delete")}>Delete</button>
      </IncidentHeader>
      <IncidentWorkspace
        apiBase={apiBase}
        incident={data}
        readOnly={false}
        allowRaw
        author={me.data?.user.username}
      />
      {dialog === "share" && (
        <ShareDialog incidentId={data.id} timezone={data.timezone} view={view} onClose={() => setDialog(null)} />
      )}
      {dialog === "edit" && <EditIncidentDialog incident={data} onClose={() => setDialog(null)} />}
      {dialog === "delete" && (
        <DeleteIncidentDialog
          incident={data}
          onClose={() => setDialog(null)}
          onDeleted={() => void navigate("/", { replace: true })}
        />
      )}
    </main>
  );
}
