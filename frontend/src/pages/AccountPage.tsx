import { useState } from "react";
import { useChangePassword, useCreateToken, useIncidents, useMe, useRevokeToken, useTokens } from "../api/queries";
import type { Incident, TokenCreated, TokenScope } from "../api/types";
import { OneTimeSecret } from "../components/OneTimeSecret";
import { Empty, ErrorMessage, Loading } from "../components/States";
import { Table } from "../components/Table";
import { browserTimeZone, formatInstant } from "../lib/time";
import { useDebounced } from "../lib/useDebounced";
import { useDocumentTitle } from "../lib/useDocumentTitle";

export function AccountPage() {
  useDocumentTitle("Account");
  const me = useMe();
  if (me.isPending) return <main className="page"><Loading /></main>;
  if (me.isError) return <main className="page"><ErrorMessage error={me.error} /></main>;
  return (
    <main className="page">
      <h1>Account</h1>
      <p>
        Signed in as <strong>{me.data.user.username}</strong>
        {me.data.user.is_admin ? " (admin)" : ""}.
      </p>
      <PasswordSection hasPassword={me.data.user.has_password} />
      <TokensSection />
    </main>
  );
}

function PasswordSection({ hasPassword }: { hasPassword: boolean }) {
  const change = useChangePassword();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  const mismatch = confirm !== "" && next !== confirm;
  const tooShort = next !== "" && next.length < 8;
  return (
    <section className="panel" aria-labelledby="password-title">
      <h2 id="password-title">{hasPassword ? "Change password" : "Set a password"}</h2>
      {!hasPassword && <p>You signed in with a one-time link. Set a password to sign in again later.</p>}
      <form
        className="stacked-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (mismatch || tooShort) return;
          change.mutate(
            { current_password: hasPassword ? current : null, new_password: next },
            {
              onSuccess: () => {
                setCurrent("");
                setNext("");
                setConfirm("");
              },
            },
          );
        }}
      >
        {hasPassword && (
          <>
            <label htmlFor="current-password">Current password</label>
            <input id="current-password" type="password" autoComplete="current-password" required value={current} onChange={(event) => setCurrent(event.target.value)} />
          </>
        )}
        <label htmlFor="new-password">New password</label>
        <input id="new-password" type="password" autoComplete="new-password" required minLength={8} value={next} aria-describedby="new-password-hint" onChange={(event) => setNext(event.target.value)} />
        <p id="new-password-hint" className={tooShort ? "state-error-inline" : "hint"}>At least 8 characters.</p>
        <label htmlFor="confirm-password">Repeat the new password</label>
        <input id="confirm-password" type="password" autoComplete="new-password" required value={confirm} onChange={(event) => setConfirm(event.target.value)} />
        {mismatch && <p className="state-error-inline">The two passwords differ.</p>}
        {change.isError && <ErrorMessage error={change.error} />}
        {change.isSuccess && <p className="state state-ok" role="status">Password saved.</p>}
        <div className="form-actions">
          <button type="submit" className="button-primary" disabled={change.isPending || mismatch || tooShort}>
            {change.isPending ? "Saving…" : hasPassword ? "Change password" : "Set password"}
          </button>
        </div>
      </form>
    </section>
  );
}

function TokensSection() {
  const tokens = useTokens();
  const incidents = useIncidents("", 0);
  const create = useCreateToken();
  const revoke = useRevokeToken();
  const [name, setName] = useState("");
  const [scope, setScope] = useState<TokenScope>("ingest");
  const [created, setCreated] = useState<TokenCreated | null>(null);
  // The picker lists one page of incidents: past that, the title search finds the others (asked
  // once typing pauses). The chosen one is kept, with its title, while the search changes.
  const [find, setFind] = useState("");
  const found = useIncidents(useDebounced(find.trim(), 300), 0);
  const [chosen, setChosen] = useState<Incident | null>(null);
  const choices = found.data?.items ?? [];
  const titles = new Map((incidents.data?.items ?? []).map((incident) => [incident.id, incident.title]));
  const zone = browserTimeZone();

  return (
    <section className="panel" aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      <p className="hint">
        For scripts and the collector: <span className="mono">Authorization: Bearer rl_…</span>. An ingest token may
        only upload artifacts; a read-write token acts as you (on one incident when scoped).
      </p>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate(
            { name: name.trim(), scope, incident_id: chosen?.id ?? null },
            { onSuccess: (token) => { setCreated(token); setName(""); } },
          );
        }}
      >
        <label>
          Name
          <input required maxLength={200} value={name} placeholder="e.g. collector on web-01" onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          Scope
          <select value={scope} onChange={(event) => setScope(event.target.value as TokenScope)}>
            <option value="ingest">ingest (upload only)</option>
            <option value="read-write">read-write</option>
          </select>
        </label>
        <label>
          Find incident
          <input type="search" value={find} placeholder="title contains…" onChange={(event) => setFind(event.target.value)} />
        </label>
        <label>
          Incident
          <select
            value={chosen?.id ?? ""}
            onChange={(event) => setChosen(choices.find((incident) => incident.id === event.target.value) ?? null)}
          >
            <option value="">All incidents</option>
            {chosen && !choices.some((incident) => incident.id === chosen.id) && (
              <option value={chosen.id}>{chosen.title}</option>
            )}
            {choices.map((incident) => (
              <option key={incident.id} value={incident.id}>{incident.title}</option>
            ))}
          </select>
        </label>
        <button type="submit" className="button-primary" disabled={create.isPending || !name.trim()}>
          {create.isPending ? "Creating…" : "Create token"}
        </button>
      </form>
      {create.isError && <ErrorMessage error={create.error} />}
      {created && (
        <OneTimeSecret value={created.token} name="New API token" copyLabel="Copy token">
          <strong>Copy this token now:</strong> it is shown only once.
        </OneTimeSecret>
      )}

      {tokens.isPending && <Loading label="Loading tokens…" />}
      {tokens.isError && <ErrorMessage error={tokens.error} onRetry={() => void tokens.refetch()} />}
      {revoke.isError && <ErrorMessage error={revoke.error} title="Revoke" />}
      {tokens.data && tokens.data.length === 0 && <Empty>No tokens yet.</Empty>}
      {tokens.data && tokens.data.length > 0 && (
        <Table className="tokens" columns={["Name", "Scope", "Incident", "Created", "Last used", "Status"]}>
          {tokens.data.map((token) => (
            <tr key={token.id} data-testid="token-row" data-status={token.revoked ? "revoked" : "active"}>
              <th scope="row">{token.name}<div className="mono muted">{token.prefix}…</div></th>
              <td className="mono">{token.scope}</td>
              <td>{token.incident_id ? (titles.get(token.incident_id) ?? <span className="mono">{token.incident_id.slice(0, 8)}</span>) : "all"}</td>
              <td className="small">{formatInstant(token.created_at_ms, zone, false)}</td>
              <td className="small">{token.last_used_at_ms ? formatInstant(token.last_used_at_ms, zone, false) : "never"}</td>
              <td><span className={`badge share-${token.revoked ? "revoked" : "active"}`}>{token.revoked ? "revoked" : "active"}</span></td>
              <td>
                {!token.revoked && (
                  <button type="button" className="button-small button-danger" disabled={revoke.isPending} onClick={() => revoke.mutate(token.id)}>
                    Revoke<span className="visually-hidden"> token {token.name}</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
