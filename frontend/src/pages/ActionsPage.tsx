import { useMemo, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { useAllActionItems } from "../api/queries";
import { ACTION_STATUSES, ACTION_STATUS_LABELS, type ActionItem, type ActionStatus } from "../api/types";
import { Empty, ErrorMessage, Loading } from "../components/States";
import { Table } from "../components/Table";
import { ActionItemDialog, ActionSource, isOverdue, StatusBadge, TicketLink, today } from "../features/actions/ActionItems";

const OPEN: ActionStatus[] = ["open", "in_progress"];

/** Items grouped by owner, in the order the API sorts them (owner, then due date). */
export function groupByOwner(items: readonly ActionItem[]): [string, ActionItem[]][] {
  const groups = new Map<string, ActionItem[]>();
  for (const item of items) {
    const list = groups.get(item.owner) ?? [];
    list.push(item);
    groups.set(item.owner, list);
  }
  return [...groups];
}

/** `/actions`: action items across incidents, by owner and due date (open ones by default). */
export function ActionsPage() {
  const [params, setParams] = useSearchParams();
  const owner = params.get("owner") ?? "";
  const dueBefore = params.get("due_before") ?? "";
  const chosen = params.getAll("status").filter((s): s is ActionStatus => (ACTION_STATUSES as string[]).includes(s));
  const statuses = params.has("status") ? chosen : OPEN;
  const [ownerText, setOwnerText] = useState(owner);
  const items = useAllActionItems({ owner, status: statuses, due_before: dueBefore });
  const [editing, setEditing] = useState<ActionItem | null>(null);
  const groups = useMemo(() => groupByOwner(items.data?.items ?? []), [items.data]);
  const now = today();

  function set(changes: Record<string, string | string[] | null>) {
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          next.delete(key);
          if (Array.isArray(value)) value.forEach((v) => next.append(key, v));
          else if (value) next.set(key, value);
        }
        return next;
      },
      { replace: true },
    );
  }

  return (
    <main className="page">
      <div className="page-title-row">
        <h1>Action items</h1>
      </div>
      <form
        className="filters"
        aria-label="Filter action items"
        onSubmit={(event) => {
          event.preventDefault();
          set({ owner: ownerText.trim() || null });
        }}
      >
        <label htmlFor="actions-owner">Owner</label>
        <input
          id="actions-owner"
          value={ownerText}
          placeholder="everyone"
          onChange={(event) => setOwnerText(event.target.value)}
          onBlur={() => set({ owner: ownerText.trim() || null })}
        />
        <label htmlFor="actions-due">Due before</label>
        <input id="actions-due" type="date" value={dueBefore} onChange={(event) => set({ due_before: event.target.value || null })} />
        <fieldset className="status-filter">
          <legend>Status</legend>
          {ACTION_STATUSES.map((status) => (
            <label key={status} className="checkbox">
              <input
                type="checkbox"
                checked={statuses.includes(status)}
                onChange={(event) =>
                  set({ status: event.target.checked ? [...statuses, status] : statuses.filter((s) => s !== status) })
                }
              />
              {ACTION_STATUS_LABELS[status]}
            </label>
          ))}
        </fieldset>
      </form>

      {items.isPending && <Loading label="Loading action items…" />}
      {items.isError && <ErrorMessage error={items.error} onRetry={() => void items.refetch()} />}
      {items.data && items.data.items.length === 0 && (
        <Empty>No action items match. Create them from a remedy in an incident's checklist.</Empty>
      )}
      {groups.map(([name, list]) => (
        <section key={name} className="panel owner-group" aria-labelledby={`owner-${name || "none"}`} data-testid="owner-group" data-owner={name}>
          <h2 id={`owner-${name || "none"}`}>
            {name || "Unassigned"} <span className="muted small">({list.length})</span>
          </h2>
          <Table className="action-items" caption={`Action items of ${name || "nobody"}`} columns={["Due", "Action", "Incident", "Status", "Ticket"]}>
            {list.map((item) => (
              <tr key={item.id} data-testid="action-item" data-status={item.status} data-verified={item.verified_incident_id ? "yes" : "no"}>
                <td className={isOverdue(item, now) ? "overdue mono" : "mono"}>
                  {item.due_date ?? "—"}
                  {isOverdue(item, now) && <div className="small">overdue</div>}
                </td>
                <th scope="row">
                  {item.title}
                  <ActionSource item={item} />
                </th>
                <td>
                  <Link to={`/incidents/${item.incident_id}${item.finding_id ? `?finding=${encodeURIComponent(item.finding_id)}` : ""}`}>
                    {item.incident_title}
                  </Link>
                </td>
                <td>
                  <StatusBadge status={item.status} />
                </td>
                <td>
                  <TicketLink url={item.ticket_url} />
                </td>
                <td className="actions">
                  <button type="button" className="button-small" onClick={() => setEditing(item)}>
                    Edit<span className="visually-hidden"> {item.title}</span>
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        </section>
      ))}
      {items.data && items.data.total > items.data.items.length && (
        <p className="muted small">Showing the first {items.data.items.length} of {items.data.total}.</p>
      )}
      {editing && <ActionItemDialog item={editing} onClose={() => setEditing(null)} />}
    </main>
  );
}
