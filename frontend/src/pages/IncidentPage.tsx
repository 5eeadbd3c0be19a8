import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { incidentBase, useDeleteIncident, useIncident, useMe } from "../api/queries";
import { ConfirmDialog } from "../components/Modal";
import { ErrorMessage, Loading } from "../components/States";
import { IncidentHeader } from "../features/incidents/IncidentHeader";
import { IncidentWorkspace } from "../features/incidents/IncidentWorkspace";
import { ShareDialog } from "../features/share/ShareDialog";
import { EditIncident } from "./IncidentsPage";

export function IncidentPage() {
  const { id = "" } = useParams();
  const apiBase = incidentBase(id);
  const incident = useIncident(apiBase);
  const me = useMe();
  const navigate = useNavigate();
  const remove = useDeleteIncident();
  const [dialog, setDialog] = useState<"share" | "edit" | "delete" | null>(null);

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
        <button type="button" className="button-primary" onClick={() => setDialog("share")}>Share…</button>
        <button type="button" onClick={() => setDialog("edit")}>Edit</button>
        <button type="button" className="button-danger" onClick={() => { remove.reset(); setDialog("delete"); }}>Delete</button>
      </IncidentHeader>
      <IncidentWorkspace
        apiBase={apiBase}
        incident={data}
        readOnly={false}
        allowRaw
        author={me.data?.user.username}
      />
      {dialog === "share" && <ShareDialog incidentId={data.id} timezone={data.timezone} onClose={() => setDialog(null)} />}
      {dialog === "edit" && <EditIncident incident={data} onClose={() => setDialog(null)} />}
      {dialog === "delete" && (
        <ConfirmDialog
          title="Delete incident"
          message={<p>Delete “{data.title}” with its {data.artifact_count} artifacts, findings, notes and share links? This cannot be undone.</p>}
          confirmLabel="Delete incident"
          pending={remove.isPending}
          error={remove.isError ? <ErrorMessage error={remove.error} /> : undefined}
          onCancel={() => setDialog(null)}
          onConfirm={() => remove.mutate(data.id, { onSuccess: () => navigate("/", { replace: true }) })}
        />
      )}
    </main>
  );
}
