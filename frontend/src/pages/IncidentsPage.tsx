import { useEffect, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { useCreateIncident, useIncidents } from "../api/queries";
import type { Incident } from "../api/types";
import { Empty, ErrorMessage, Loading } from "../components/States";
import { Table } from "../components/Table";
import { StatusBadge } from "../components/VerdictBadge";
import { DeleteIncidentDialog, EditIncidentDialog } from "../features/incidents/IncidentDialogs";
import { IncidentFormDialog } from "../features/incidents/IncidentForm";
import { formatNumber, formatRange, formatSpan } from "../lib/time";
import { useDocumentTitle } from "../lib/useDocumentTitle";

export function IncidentsPage() {
  useDocumentTitle("Incidents");
  const [params, setParams] = useSearchParams();
  const q = params.get("q") ?? "";
  const page = Math.max(0, Number(params.get("page") ?? "0") || 0);
  const [search, setSearch] = useState(q);
  const incidents = useIncidents(q, page);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Incident | null>(null);
  const [deleting, setDeleting] = useState<Incident | null>(null);
  const navigate = useNavigate();
  const create = useCreateIncident();

  useEffect(() => setSearch(q), [q]);
  // Search as you type, without a history entry per key.
  useEffect(() => {
    if (search === q) return;
    const timer = window.setTimeout(() => {
      setParams((current) => {
        const next = new URLSearchParams(current);
        if (search.trim()) next.set("q", search.trim());
        else next.delete("q");
        next.delete("page");
        return next;
      }, { replace: true });
    }, 300);
    return () => window.clearTimeout(timer);
  }, [search, q, setParams]);

  function goToPage(target: number) {
    setParams((current) => {
      const next = new URLSearchParams(current);
      if (target > 0) next.set("page", String(target));
      else next.delete("page");
      return next;
    });
  }

  const data = incidents.data;
  return (
    <main className="page">
      <div className="page-title-row">
        <h1>Incidents</h1>
        <button type="button" className="button-primary" onClick={() => { create.reset(); setCreating(true); }}>
          New incident
        </button>
      </div>
      <form className="search" role="search" onSubmit={(event) => event.preventDefault()}>
        <label htmlFor="incident-search">Search incidents</label>
        <input
          id="incident-search"
          type="search"
          value={search}
          placeholder="Title or summary"
          onChange={(event) => setSearch(event.target.value)}
        />
        {incidents.isFetching && !incidents.isPending && <span className="spinner" aria-label="Searching" />}
      </form>

      {incidents.isPending && <Loading label="Loading incidents…" />}
      {incidents.isError && <ErrorMessage error={incidents.error} onRetry={() => void incidents.refetch()} />}
      {data && data.items.length === 0 &&
        (page > 0 ? (
          // Past the end (the last one on this page was deleted, or an old link).
          <Empty>
            Nothing on this page.{" "}
            <button type="button" className="button-link" onClick={() => goToPage(0)}>Back to the first page</button>
          </Empty>
        ) : (
          <Empty>{q ? `No incidents match “${q}”.` : "No incidents yet. Create one, then upload what you collected."}</Empty>
        ))}
      {data && data.items.length > 0 && (
        <>
          <Table
            className="incidents"
            caption="Incidents"
            columns={["Title", "Status", "Time window", { name: "Artifacts", numeric: true }, "Confirmed causes"]}
          >
            {data.items.map((incident) => (
              <tr key={incident.id} data-testid="incident-row" data-incident={incident.id}>
                <th scope="row">
                  <Link to={`/incidents/${incident.id}`}>{incident.title}</Link>
                  {incident.summary && <p className="muted small clamp">{incident.summary}</p>}
                </th>
                <td><StatusBadge status={incident.status} /></td>
                <td className="small">
                  {incident.window_start_ms !== null ? (
                    <>
                      {formatRange(incident.window_start_ms, incident.window_end_ms, incident.timezone)}
                      {incident.window_end_ms !== null && (
                        <div className="muted">{formatSpan(incident.window_start_ms, incident.window_end_ms)}</div>
                      )}
                    </>
                  ) : (
                    <span className="muted">no data yet</span>
                  )}
                </td>
                <td className="num mono">{formatNumber(incident.artifact_count)}</td>
                <td>
                  {incident.top_causes && incident.top_causes.length > 0 ? (
                    <ul className="cause-list">
                      {incident.top_causes.map((cause) => (
                        <li key={cause.id}>
                          <Link to={`/incidents/${incident.id}?finding=${encodeURIComponent(cause.id)}`} className="badge verdict verdict-confirmed">
                            {cause.title}
                          </Link>
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <span className="muted">none confirmed</span>
                  )}
                </td>
                <td className="actions">
                  <button type="button" className="button-small" onClick={() => setEditing(incident)}>
                    Edit<span className="visually-hidden"> {incident.title}</span>
                  </button>
                  <button type="button" className="button-small button-danger" onClick={() => setDeleting(incident)}>
                    Delete<span className="visually-hidden"> {incident.title}</span>
                  </button>
                </td>
              </tr>
            ))}
          </Table>
          <nav className="pager" aria-label="Pages">
            <button type="button" disabled={page === 0} onClick={() => goToPage(page - 1)}>Previous</button>
            <span className="mono">
              {data.offset + 1}–{data.offset + data.items.length} of {data.total}
            </span>
            <button type="button" disabled={data.offset + data.items.length >= data.total} onClick={() => goToPage(page + 1)}>
              Next
            </button>
          </nav>
        </>
      )}

      {creating && (
        <IncidentFormDialog
          pending={create.isPending}
          error={create.error}
          onClose={() => setCreating(false)}
          onSubmit={(values) =>
            create.mutate(values, { onSuccess: (incident) => void navigate(`/incidents/${incident.id}`) })
          }
        />
      )}
      {editing && <EditIncidentDialog incident={editing} onClose={() => setEditing(null)} />}
      {deleting && (
        <DeleteIncidentDialog incident={deleting} onClose={() => setDeleting(null)} onDeleted={() => setDeleting(null)} />
      )}
    </main>
  );
}

