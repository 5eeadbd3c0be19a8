import { useEffect, useRef } from "react";
import { useParams, useSearchParams } from "react-router";
import { sharedBase, usePostmortem, useSharedIncident } from "../api/queries";
import type { ShareView } from "../api/types";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { ErrorMessage, Loading } from "../components/States";
import { IncidentHeader } from "../features/incidents/IncidentHeader";
import { IncidentWorkspace } from "../features/incidents/IncidentWorkspace";
import { PostmortemDocument } from "../features/postmortem/Postmortem";
import { formatViewState, parseViewState, type ViewState } from "../lib/urlState";
import { useDocumentTitle } from "../lib/useDocumentTitle";

/** The page's view for a share's stored one. */
export function viewStateOf(view: ShareView): ViewState {
  const range = view.from_ms && view.to_ms && view.to_ms > view.from_ms ? { from: view.from_ms, to: view.to_ms } : null;
  return {
    range,
    host: view.host ?? null,
    finding: view.finding ?? null,
    evidence: view.finding ? (view.evidence ?? null) : null,
    lanes: view.lanes ?? [],
  };
}

/** Whether the URL already names a view (a link copied from the shared page itself). */
function namesAView(params: URLSearchParams): boolean {
  const view = parseViewState(params);
  return view.range !== null || view.host !== null || view.finding !== null || view.lanes.length > 0;
}

/** `/share/{token}`: the incident read-only, through the share's own API routes, opened at the
 * view the link was made from (unless the URL names one). */
export function SharePage() {
  const { token = "" } = useParams();
  const apiBase = sharedBase(token);
  const shared = useSharedIncident(apiBase);
  const [params, setParams] = useSearchParams();
  const applied = useRef(false);
  const stored = shared.data?.view ?? null;

  useEffect(() => {
    if (applied.current || !shared.data) return;
    applied.current = true;
    if (stored && !namesAView(params)) {
      setParams((current) => formatViewState(viewStateOf(stored), current), { replace: true });
    }
  }, [shared.data, stored, params, setParams]);

  const ready = shared.data && (applied.current || !stored || namesAView(params));
  useDocumentTitle(shared.data?.incident.title ?? (shared.isError ? "Link not working" : null));
  return (
    <>
      <header className="app-header app-header-shared">
        <span className="brand">Rootline</span>
        <span className="muted">Shared read-only view</span>
        {shared.data?.redacted && (
          <span className="badge share-redacted" data-testid="redacted-badge" title="IP addresses, host names and ports are replaced by pseudonyms">
            Redacted: addresses, host names and ports are pseudonyms
          </span>
        )}
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
        {shared.data && ready && (
          <>
            <IncidentHeader incident={shared.data.incident} />
            <ErrorBoundary label="The postmortem">
              <SharedPostmortem apiBase={apiBase} timezone={shared.data.incident.timezone} />
            </ErrorBoundary>
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

/** The published postmortem, above the timeline (nothing while it is a draft). */
function SharedPostmortem({ apiBase, timezone }: { apiBase: string; timezone: string }) {
  const postmortem = usePostmortem(apiBase);
  if (!postmortem.data) return null;
  return <PostmortemDocument apiBase={apiBase} postmortem={postmortem.data} timezone={timezone} />;
}
