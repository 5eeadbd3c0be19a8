import { useParams } from "react-router";
import { sharedBase, useSharedIncident } from "../api/queries";
import { ErrorMessage, Loading } from "../components/States";
import { IncidentHeader } from "../features/incidents/IncidentHeader";
import { IncidentWorkspace } from "../features/incidents/IncidentWorkspace";
import { useDocumentTitle } from "../lib/useDocumentTitle";

/** `/share/{token}`: the incident read-only, through the share's own API routes. */
export function SharePage() {
  const { token = "" } = useParams();
  const apiBase = sharedBase(token);
  const shared = useSharedIncident(apiBase);
  useDocumentTitle(shared.data?.incident.title ?? (shared.isError ? "Link not working" : null));
  return (
    <>
      <header className="app-header app-header-shared">
        <span className="brand">Rootline</span>
        <span className="muted">Shared read-only view</span>
      </header>
      <main className="page page-wide">
        {shared.isPending && <Loading label="Opening the shared incident…" />}
        {shared.isError &&
          (shared.error.status === 404 ? (
            <div className="state state-error" role="alert">
              <h1>This link does not work</h1>
              <p>It may be mistyped, revoked or expired. Ask whoever sent it for a new one.</p>
            </div>
          ) : (
            <ErrorMessage error={shared.error} title="The shared incident could not be loaded" onRetry={() => void shared.refetch()} />
          ))}
        {shared.data && (
          <>
            <IncidentHeader incident={shared.data.incident} />
            <IncidentWorkspace
              apiBase={apiBase}
              incident={shared.data.incident}
              readOnly
              allowRaw={shared.data.allow_raw}
            />
          </>
        )}
      </main>
    </>
  );
}
