import { useState } from "react";
import { incidentBase, useChecklist, useCreateShare, useRevokeShare, useShares } from "../../api/queries";
import type { ShareCreated, ShareRead, ShareView } from "../../api/types";
import { Modal } from "../../components/Modal";
import { OneTimeSecret } from "../../components/OneTimeSecret";
import { Empty, ErrorMessage, Loading } from "../../components/States";
import { Table } from "../../components/Table";
import { formatInstant, formatRange } from "../../lib/time";
import type { ViewState } from "../../lib/urlState";

const EXPIRY_CHOICES: { label: string; hours: number | null }[] = [
  { label: "Never", hours: null },
  { label: "In 1 day", hours: 24 },
  { label: "In 7 days", hours: 24 * 7 },
  { label: "In 30 days", hours: 24 * 30 },
];

export function shareStatus(share: ShareRead): "active" | "expired" | "revoked" {
  if (share.revoked) return "revoked";
  if (share.expired) return "expired";
  return "active";
}

/** What a link stores of the page's view: it opens there. */
export function shareViewOf(view: ViewState): ShareView | null {
  const stored: ShareView = {
    from_ms: view.range ? Math.round(view.range.from) : null,
    to_ms: view.range ? Math.round(view.range.to) : null,
    host: view.host,
    finding: view.finding,
    evidence: view.finding ? view.evidence : null,
    lanes: view.lanes,
  };
  const empty = !stored.from_ms && !stored.host && !stored.finding && stored.lanes?.length === 0;
  return empty ? null : stored;
}

/**
 * The view a link opens, in words. `titles` maps finding ids to the checklist's titles, so the
 * finding reads as the user sees it ("Memory pressure"), not as its id ("memory_pressure").
 */
export function describeView(
  view: ShareView | null | undefined,
  timezone: string,
  titles: Readonly<Record<string, string>> = {},
): string {
  if (!view) return "the whole incident";
  const parts = [
    view.from_ms && view.to_ms ? formatRange(view.from_ms, view.to_ms, timezone) : "the whole incident",
  ];
  if (view.host) parts.push(`host ${view.host}`);
  if (view.finding) parts.push(`finding "${titles[view.finding] ?? view.finding}"`);
  if (view.lanes?.length) parts.push(`${view.lanes.length} added lane${view.lanes.length === 1 ? "" : "s"}`);
  return parts.join(", ");
}

/** Create read-only links (shown once) that open the current view, list them, revoke. */
export function ShareDialog({
  incidentId,
  timezone,
  view,
  onClose,
}: {
  incidentId: string;
  timezone: string;
  view: ViewState;
  onClose: () => void;
}) {
  const shares = useShares(incidentId);
  const create = useCreateShare(incidentId);
  const revoke = useRevokeShare(incidentId);
  const checklist = useChecklist(incidentBase(incidentId));
  const titles = Object.fromEntries((checklist.data?.findings ?? []).map((finding) => [finding.id, finding.title]));
  const [label, setLabel] = useState("");
  const [expiry, setExpiry] = useState(0);
  const [allowRaw, setAllowRaw] = useState(false);
  const [redacted, setRedacted] = useState(false);
  const [keepView, setKeepView] = useState(true);
  const current = shareViewOf(view);
  const [created, setCreated] = useState<ShareCreated | null>(null);

  const link = created ? new URL(created.url, window.location.origin).toString() : "";

  return (
    <Modal title="Share a read-only link" onClose={onClose} wide>
      <form
        className="share-form"
        onSubmit={(event) => {
          event.preventDefault();
          const hours = EXPIRY_CHOICES[expiry]?.hours ?? null;
          create.mutate(
            {
              label: label.trim(),
              expires_at_ms: hours === null ? null : Date.now() + hours * 3_600_000,
              allow_raw: allowRaw && !redacted,
              redacted,
              view: keepView ? current : null,
            },
            {
              onSuccess: (share) => {
                setCreated(share);
                setLabel("");
              },
            },
          );
        }}
      >
        <label htmlFor="share-label">Label (optional)</label>
        <input
          id="share-label"
          value={label}
          maxLength={200}
          placeholder="e.g. vendor support ticket 4711"
          onChange={(event) => setLabel(event.target.value)}
        />
        <label htmlFor="share-expiry">Expires</label>
        <select id="share-expiry" value={expiry} onChange={(event) => setExpiry(Number(event.target.value))}>
          {EXPIRY_CHOICES.map((choice, index) => (
            <option key={choice.label} value={index}>
              {choice.label}
            </option>
          ))}
        </select>
        <label className="checkbox">
          <input type="checkbox" checked={keepView} disabled={!current} onChange={(event) => setKeepView(event.target.checked)} />
          Open at this view ({describeView(current, timezone, titles)})
        </label>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={redacted}
            onChange={(event) => {
              setRedacted(event.target.checked);
              if (event.target.checked) setAllowRaw(false);
            }}
          />
          Redact IP addresses, host names and ports (shown as host-a, 10.0.0.1, port-1)
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={allowRaw} disabled={redacted} onChange={(event) => setAllowRaw(event.target.checked)} />
          Allow downloading the original files{redacted && " (not with a redacted link)"}
        </label>
        {create.isError && <ErrorMessage error={create.error} />}
        <div className="form-actions">
          <button type="submit" className="button-primary" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create link"}
          </button>
        </div>
      </form>

      {created && (
        <OneTimeSecret value={link} name="Share link" copyLabel="Copy link">
          <strong>Copy this link now:</strong> it is shown only once. Anyone with it can read this
          incident{created.allow_raw ? ", including the original files," : ""}
          {created.redacted ? " with addresses, host names and ports replaced by pseudonyms," : ""} until it is revoked
          {created.expires_at_ms ? ` or expires (${formatInstant(created.expires_at_ms, timezone, false)})` : ""}. It
          opens at {describeView(created.view, timezone, titles)}.
        </OneTimeSecret>
      )}

      <h3>Links</h3>
      {shares.isPending && <Loading label="Loading links…" />}
      {shares.isError && <ErrorMessage error={shares.error} onRetry={() => void shares.refetch()} />}
      {shares.data && shares.data.length === 0 && <Empty>No links yet.</Empty>}
      {revoke.isError && <ErrorMessage error={revoke.error} title="Revoke" />}
      {shares.data && shares.data.length > 0 && (
        <Table className="shares" columns={["Link", "Created", "Expires", "Originals", "Redacted", "Status"]}>
          {shares.data.map((share) => {
            const status = shareStatus(share);
            return (
              <tr key={share.id} data-testid="share-row" data-status={status}>
                <th scope="row">
                  {share.label || <span className="muted">(no label)</span>}
                  <div className="mono muted">{share.prefix}…</div>
                </th>
                <td>
                  {formatInstant(share.created_at_ms, timezone, false)}
                  {share.created_by && <div className="muted small">by {share.created_by}</div>}
                </td>
                <td>{share.expires_at_ms ? formatInstant(share.expires_at_ms, timezone, false) : "never"}</td>
                <td>{share.allow_raw ? "downloadable" : "no"}</td>
                <td>{share.redacted ? "yes" : "no"}</td>
                <td>
                  <span className={`badge share-${status}`}>{status}</span>
                </td>
                <td>
                  {status === "active" && (
                    <button
                      type="button"
                      className="button-small button-danger"
                      disabled={revoke.isPending}
                      onClick={() => revoke.mutate(share.id)}
                    >
                      Revoke<span className="visually-hidden"> link {share.label || share.prefix}</span>
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </Table>
      )}
    </Modal>
  );
}
