import { useCallback, useRef, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { incidentBase, useIncident, useMe } from "../api/queries";
import { ErrorMessage, Loading } from "../components/States";
import { DeleteIncidentDialog, EditIncidentDialog } from "../features/incidents/IncidentDialogs";
import { IncidentHeader } from "../features/incidents/IncidentHeader";
import { IncidentWorkspace } from "../features/incidents/IncidentWorkspace";
import { ShareDialog } from "../features/share/ShareDialog";
import { useViewState } from "../lib/useViewState";
import { PageDropOverlay, UploadButton, usePageDrop } from "../features/upload/PageUpload";
import { useUploadQueue } from "../features/upload/useUploadQueue";
import { useDocumentTitle } from "../lib/useDocumentTitle";

/** The API's answers that mean "there is no incident here" (unknown id, or not an id at all). */
function isMissing(status: number): boolean {
  return status === 404 || status === 422;
}

export function IncidentPage() {
  const { id = "" } = useParams();
  const apiBase = incidentBase(id);
  const incident = useIncident(apiBase);
  const me = useMe();
  const navigate = useNavigate();
  const [dialog, setDialog] = useState<"share" | "edit" | "delete" | null>(null);
  const [view] = useViewState();
  const queue = useUploadQueue(apiBase);
  const panel = useRef<HTMLElement | null>(null);
  const { addFiles } = queue;
  const stage = useCallback(
    (files: File[]) => {
      addFiles(files);
      // Bring the staged rows into view: their fields (one host for all ...) come before Upload.
      requestAnimationFrame(() => {
        panel.current?.scrollIntoView?.({ block: "start", behavior: "smooth" });
        panel.current?.focus({ preventScroll: true });
      });
    },
    [addFiles],
  );
  const dragging = usePageDrop(stage, incident.isSuccess);
  useDocumentTitle(incident.data?.title ?? (incident.isError && isMissing(incident.error.status) ? "Incident not found" : null));

  if (incident.isPending) return <main className="page"><Loading label="Loading the incident…" /></main>;
  if (incident.isError)
    return isMissing(incident.error.status) ? (
      <main className="page">
        <h1>Incident not found</h1>
        <p>
          There is no incident <span className="mono filename">{id}</span>: it may have been deleted, or the link is
          mistyped.
        </p>
        <p><Link to="/">Go to the incidents</Link></p>
      </main>
    ) : (
      <main className="page">
        <p><Link to="/">← All incidents</Link></p>
        <ErrorMessage error={incident.error} title="This incident could not be loaded" onRetry={() => void incident.refetch()} />
      </main>
    );
  const data = incident.data;
  return (
    <main className="page page-wide">
      {dragging && <PageDropOverlay />}
      <p className="breadcrumb"><Link to="/">← All incidents</Link></p>
      <IncidentHeader incident={data}>
        <UploadButton onFiles={stage} />
        <Link className="button-small button-like" to={`/incidents/${encodeURIComponent(data.id)}/postmortem`}>Postmortem</Link>
        <button type="button" onClick={() => setDialog("share")}>Share…</button>
        <button type="button" onClick={() => setDialog("edit")}>Edit</button>
        <button type="button" className="button-danger" onClick={() => setDialog("delete")}>Delete</button>
      </IncidentHeader>
      <IncidentWorkspace
        apiBase={apiBase}
        incident={data}
        readOnly={false}
        allowRaw
        author={me.data?.user.username}
        upload={{ queue, panel }}
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
