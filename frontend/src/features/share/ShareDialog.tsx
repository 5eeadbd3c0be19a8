import { useState } from "react";
import { useCreateShare, useRevokeShare, useShares } from "../../api/queries";
import type { ShareCreated, ShareRead } from "../../api/types";
import { Modal } from "../../components/Modal";
import { OneTimeSecret } from "../../components/OneTimeSecret";
import { Empty, ErrorMessage, Loading } from "../../components/States";
import { Table } from "../../components/Table";
import { formatInstant } from "../../lib/time";

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

/** Create read-only links (shown once), list them with their status, revoke. */
export function ShareDialog({
  incidentId,
  timezone,
  onClose,
}: {
  incidentId: string;
  timezone: string;
  onClose: () => void;
}) {
  const shares = useShares(incidentId);
  const create = useCreateShare(incidentId);
  const revoke = useRevokeShare(incidentId);
  const [label, setLabel] = useState("");
  const [expiry, setExpiry] = useState(0);
  const [allowRaw, setAllowRaw] = useState(false);
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
              allow_raw: allowRaw,
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
          <input type="checkbox" checked={allowRaw} onChange={(event) => setAllowRaw(event.target.checked)} />
          Allow downloading the original files
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
          incident{created.allow_raw ? ", including the original files," : ""} until it is revoked
          {created.expires_at_ms ? ` or expires (${formatInstant(created.expires_at_ms, timezone, false)})` : ""}.
        </OneTimeSecret>
      )}

      <h3>Links</h3>
      {shares.isPending && <Loading label="Loading links…" />}
      {shares.isError && <ErrorMessage error={shares.error} onRetry={() => void shares.refetch()} />}
      {shares.data && shares.data.length === 0 && <Empty>No links yet.</Empty>}
      {revoke.isError && <ErrorMessage error={revoke.error} title="Revoke" />}
      {shares.data && shares.data.length > 0 && (
        <Table className="shares" columns={["Link", "Created", "Expires", "Originals", "Status"]}>
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
