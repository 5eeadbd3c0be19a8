import { useId, useState } from "react";
import { Link } from "react-router";
import {
  useActionItems,
  useCreateActionItem,
  useDeleteActionItem,
  useIncidents,
  useUpdateActionItem,
} from "../../api/queries";
import { ACTION_STATUSES, ACTION_STATUS_LABELS, type ActionItem, type ActionStatus } from "../../api/types";
import { ConfirmDialog, Modal } from "../../components/Modal";
import { Empty, ErrorMessage, Loading } from "../../components/States";
import { Table } from "../../components/Table";

/** Today as YYYY-MM-DD in the browser's zone (due dates are dates, not instants). */
export function today(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** Still to do and past its due date. */
export function isOverdue(item: Pick<ActionItem, "status" | "due_date">, on = today()): boolean {
  return (item.status === "open" || item.status === "in_progress") && !!item.due_date && item.due_date < on;
}

export function StatusBadge({ status }: { status: ActionStatus }) {
  return <span className={`badge action-${status}`}>{ACTION_STATUS_LABELS[status]}</span>;
}

/** Where the item came from and whether a later capture showed it fixed. */
export function ActionSource({ item }: { item: ActionItem }) {
  return (
    <>
      {item.command && <code className="mono block action-command">{item.command}</code>}
      {item.finding_id && (
        <div className="muted small">
          from {item.finding_id}
          {item.remedy_index !== null && `, remedy ${item.remedy_index + 1}`}
        </div>
      )}
      {item.verified_incident_id && (
        <div className="small verified" data-testid="verified">
          ✓ Verified fixed by{" "}
          <Link to={`/incidents/${item.verified_incident_id}?finding=${encodeURIComponent(item.finding_id ?? "")}`}>
            {item.verified_incident_title ?? item.verified_incident_id}
          </Link>
        </div>
      )}
    </>
  );
}

export function TicketLink({ url }: { url: string | null }) {
  if (!url) return <span className="muted">—</span>;
  // Only http(s) links are stored (the API refuses others).
  return (
    <a href={url} target="_blank" rel="noreferrer noopener">
      ticket
    </a>
  );
}

/** Edit one item: owner, due date, status, ticket, and the verified-fixed mark. */
export function ActionItemDialog({ item, onClose }: { item: ActionItem; onClose: () => void }) {
  const update = useUpdateActionItem();
  const incidents = useIncidents("", 0);
  const id = useId();
  const [title, setTitle] = useState(item.title);
  const [owner, setOwner] = useState(item.owner);
  const [due, setDue] = useState(item.due_date ?? "");
  const [status, setStatus] = useState<ActionStatus>(item.status);
  const [ticket, setTicket] = useState(item.ticket_url ?? "");
  const [command, setCommand] = useState(item.command);
  const [verifiedBy, setVerifiedBy] = useState(item.verified_incident_id ?? "");
  const others = (incidents.data?.items ?? []).filter((incident) => incident.id !== item.incident_id);

  return (
    <Modal title={`Action item: ${item.title}`} onClose={onClose} wide>
      <form
        className="action-form"
        onSubmit={(event) => {
          event.preventDefault();
          update.mutate(
            {
              item,
              changes: {
                title: title.trim() || item.title,
                owner: owner.trim(),
                due_date: due || null,
                status,
                ticket_url: ticket.trim() || null,
                command,
                ...(verifiedBy !== (item.verified_incident_id ?? "") ? { verified_incident_id: verifiedBy || null } : {}),
              },
            },
            { onSuccess: onClose },
          );
        }}
      >
        <label htmlFor={`${id}-title`}>Title</label>
        <input id={`${id}-title`} value={title} maxLength={500} onChange={(event) => setTitle(event.target.value)} />
        <label htmlFor={`${id}-owner`}>Owner</label>
        <input id={`${id}-owner`} value={owner} maxLength={255} onChange={(event) => setOwner(event.target.value)} />
        <label htmlFor={`${id}-due`}>Due date</label>
        <input id={`${id}-due`} type="date" value={due} onChange={(event) => setDue(event.target.value)} />
        <label htmlFor={`${id}-status`}>Status</label>
        <select id={`${id}-status`} value={status} onChange={(event) => setStatus(event.target.value as ActionStatus)}>
          {ACTION_STATUSES.map((value) => (
            <option key={value} value={value}>
              {ACTION_STATUS_LABELS[value]}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-ticket`}>Ticket link</label>
        <input
          id={`${id}-ticket`}
          type="url"
          value={ticket}
          placeholder="https://tickets.example.com/OPS-1"
          onChange={(event) => setTicket(event.target.value)}
        />
        <label htmlFor={`${id}-command`}>Setting or command</label>
        <textarea id={`${id}-command`} rows={2} className="mono" value={command} onChange={(event) => setCommand(event.target.value)} />
        {item.remedy && <p className="muted small">Remedy: {item.remedy}</p>}
        <label htmlFor={`${id}-verified`}>Verified fixed by (an incident captured after the change)</label>
        <select
          id={`${id}-verified`}
          value={verifiedBy}
          disabled={!item.finding_id}
          onChange={(event) => setVerifiedBy(event.target.value)}
        >
          <option value="">Not verified</option>
          {item.verified_incident_id && !others.some((incident) => incident.id === item.verified_incident_id) && (
            <option value={item.verified_incident_id}>{item.verified_incident_title ?? item.verified_incident_id}</option>
          )}
          {others.map((incident) => (
            <option key={incident.id} value={incident.id}>
              {incident.title}
            </option>
          ))}
        </select>
        <p className="muted small">
          {item.finding_id
            ? `Accepted only when that incident's checklist rules ${item.finding_id} out.`
            : "Only an item made for a checklist item can be verified by a capture."}
        </p>
        {update.isError && <ErrorMessage error={update.error} title="Not saved" />}
        <div className="form-actions">
          <button type="submit" className="button-primary" disabled={update.isPending}>
            {update.isPending ? "Saving…" : "Save"}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** A new item by hand (the checklist's remedies make them in one click). */
function NewActionItem({ apiBase }: { apiBase: string }) {
  const create = useCreateActionItem(apiBase);
  const id = useId();
  const [title, setTitle] = useState("");
  const [owner, setOwner] = useState("");
  const [due, setDue] = useState("");
  return (
    <form
      className="inline-form"
      aria-label="New action item"
      onSubmit={(event) => {
        event.preventDefault();
        if (!title.trim()) return;
        create.mutate(
          { title: title.trim(), owner: owner.trim(), due_date: due || null },
          {
            onSuccess: () => {
              setTitle("");
              setDue("");
            },
          },
        );
      }}
    >
      <label htmlFor={`${id}-title`}>New action item</label>
      <input id={`${id}-title`} value={title} maxLength={500} placeholder="What to do" onChange={(event) => setTitle(event.target.value)} />
      <label htmlFor={`${id}-owner`} className="visually-hidden">
        Owner
      </label>
      <input id={`${id}-owner`} value={owner} maxLength={255} placeholder="Owner" onChange={(event) => setOwner(event.target.value)} />
      <label htmlFor={`${id}-due`} className="visually-hidden">
        Due date
      </label>
      <input id={`${id}-due`} type="date" value={due} onChange={(event) => setDue(event.target.value)} />
      <button type="submit" className="button-small" disabled={create.isPending || !title.trim()}>
        Add
      </button>
      {create.isError && <ErrorMessage error={create.error} />}
    </form>
  );
}

/** The incident's action items (read-only on a shared link). */
export function ActionItemsPanel({ apiBase, readOnly }: { apiBase: string; readOnly: boolean }) {
  const items = useActionItems(apiBase);
  const remove = useDeleteActionItem();
  const [editing, setEditing] = useState<ActionItem | null>(null);
  const [deleting, setDeleting] = useState<ActionItem | null>(null);
  return (
    <>
      {items.isPending && <Loading label="Loading action items…" />}
      {items.isError && <ErrorMessage error={items.error} onRetry={() => void items.refetch()} />}
      {items.data && items.data.length === 0 && (
        <Empty>No action items yet{readOnly ? "." : ": create one from a remedy in the checklist, or below."}</Empty>
      )}
      {items.data && items.data.length > 0 && (
        <Table className="action-items" caption="Action items" columns={["Action", "Owner", "Due", "Status", "Ticket"]}>
          {items.data.map((item) => (
            <tr key={item.id} data-testid="action-item" data-status={item.status} data-verified={item.verified_incident_id ? "yes" : "no"}>
              <th scope="row">
                {item.title}
                <ActionSource item={item} />
              </th>
              <td>{item.owner || <span className="muted">unassigned</span>}</td>
              <td className={isOverdue(item) ? "overdue mono" : "mono"}>{item.due_date ?? "—"}</td>
              <td>
                <StatusBadge status={item.status} />
              </td>
              <td>
                <TicketLink url={item.ticket_url} />
              </td>
              <td className="actions">
                {!readOnly && (
                  <>
                    <button type="button" className="button-small" onClick={() => setEditing(item)}>
                      Edit<span className="visually-hidden"> {item.title}</span>
                    </button>
                    <button type="button" className="button-small button-danger" onClick={() => setDeleting(item)}>
                      Delete<span className="visually-hidden"> {item.title}</span>
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
      {!readOnly && <NewActionItem apiBase={apiBase} />}
      {editing && <ActionItemDialog item={editing} onClose={() => setEditing(null)} />}
      {deleting && (
        <ConfirmDialog
          title="Delete this action item?"
          confirmLabel="Delete"
          message={<p>{deleting.title}</p>}
          pending={remove.isPending}
          error={remove.isError ? <ErrorMessage error={remove.error} /> : null}
          onCancel={() => setDeleting(null)}
          onConfirm={() => remove.mutate(deleting, { onSuccess: () => setDeleting(null) })}
        />
      )}
    </>
  );
}
