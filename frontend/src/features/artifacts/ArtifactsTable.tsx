import { Fragment, useMemo, useState, type ReactNode } from "react";
import { useArtifacts, useReparse } from "../../api/queries";
import { isQueued, type Artifact } from "../../api/types";
import { Empty, ErrorMessage, Loading } from "../../components/States";
import { Table } from "../../components/Table";
import { ArtifactStatusBadge } from "../../components/VerdictBadge";
import { formatBytes, formatNumber, formatRange } from "../../lib/time";
import { ReparseDialog } from "./ReparseDialog";
import { timeAssumptionNotes } from "./timeAssumptions";

export interface ArtifactGroup {
  artifact: Artifact;
  members: Artifact[];
}

/**
 * Top-level artifacts in upload order, each bundle with its members under it (by parent_id): at
 * any depth, a bundle inside a bundle followed by its own members.
 */
export function groupArtifacts(artifacts: Artifact[]): ArtifactGroup[] {
  const ids = new Set(artifacts.map((artifact) => artifact.id));
  const children = new Map<string, Artifact[]>();
  const top: Artifact[] = [];
  for (const artifact of artifacts) {
    if (artifact.parent_id && ids.has(artifact.parent_id)) {
      const list = children.get(artifact.parent_id) ?? [];
      list.push(artifact);
      children.set(artifact.parent_id, list);
    } else {
      top.push(artifact);
    }
  }
  const members = (id: string): Artifact[] =>
    (children.get(id) ?? [])
      .sort((a, b) => a.filename.localeCompare(b.filename))
      .flatMap((member) => [member, ...members(member.id)]);
  top.sort((a, b) => a.uploaded_at_ms - b.uploaded_at_ms);
  return top.map((artifact) => ({ artifact, members: members(artifact.id) }));
}

/** The incident's artifacts; edit controls (re-parse) only when not read-only. */
export function ArtifactsTable({
  apiBase,
  timezone,
  readOnly,
  allowRaw,
}: {
  apiBase: string;
  timezone: string;
  readOnly: boolean;
  allowRaw: boolean;
}) {
  const artifacts = useArtifacts(apiBase);
  const groups = useMemo(() => groupArtifacts(artifacts.data ?? []), [artifacts.data]);
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());

  if (artifacts.isPending) return <Loading label="Loading artifacts…" />;
  if (artifacts.isError)
    return <ErrorMessage error={artifacts.error} title="Artifacts" onRetry={() => void artifacts.refetch()} />;
  if (groups.length === 0)
    return <Empty>No artifacts yet.{readOnly ? "" : " Upload files or a collector bundle above."}</Empty>;

  function toggle(id: string) {
    setCollapsed((previous) => {
      const next = new Set(previous);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }

  return (
    <Table
      className="artifacts"
      caption="Artifacts"
      columns={["File", "Host", "Kind", "Status", "Diagnostics", "Time range", { name: "Series / events", numeric: true }]}
    >
      {groups.map(({ artifact, members }) => (
        <Fragment key={artifact.id}>
          <ArtifactRow
            artifact={artifact}
            apiBase={apiBase}
            timezone={timezone}
            readOnly={readOnly}
            allowRaw={allowRaw}
            memberCount={members.length}
            expanded={!collapsed.has(artifact.id)}
            onToggle={() => toggle(artifact.id)}
          />
          {!collapsed.has(artifact.id) &&
            members.map((member) => (
              <ArtifactRow
                key={member.id}
                artifact={member}
                apiBase={apiBase}
                timezone={timezone}
                readOnly={readOnly}
                allowRaw={allowRaw}
                member
              />
            ))}
        </Fragment>
      ))}
    </Table>
  );
}

function ArtifactRow({
  artifact,
  apiBase,
  timezone,
  readOnly,
  allowRaw,
  member = false,
  memberCount = 0,
  expanded = true,
  onToggle,
}: {
  artifact: Artifact;
  apiBase: string;
  timezone: string;
  readOnly: boolean;
  allowRaw: boolean;
  member?: boolean;
  memberCount?: number;
  expanded?: boolean;
  onToggle?: () => void;
}) {
  const reparse = useReparse(apiBase);
  const [editing, setEditing] = useState(false);
  const queued = isQueued(artifact);
  // Never parsed yet (just uploaded): kind and counts are not known. A re-parse keeps the old ones.
  const unread = queued && artifact.parsed_at_ms === null;
  const rawHref = `${apiBase}/artifacts/${encodeURIComponent(artifact.id)}/raw`;
  return (
    <tr
      data-testid="artifact-row"
      data-status={artifact.status}
      data-artifact={artifact.id}
      className={member ? "artifact-member" : undefined}
    >
      <th scope="row" className="artifact-file">
        <span className="filename" title={artifact.filename}>
          {member ? <span aria-hidden="true">↳ </span> : null}
          {artifact.filename}
        </span>
        <span className="mono muted"> {formatBytes(artifact.size_bytes)}</span>
        {memberCount > 0 && (
          <button
            type="button"
            className="button-link"
            aria-expanded={expanded}
            onClick={onToggle}
          >
            {`${expanded ? "Hide" : "Show"} ${memberCount} ${memberCount === 1 ? "file" : "files"}`}
          </button>
        )}
        {artifact.placed_at_upload && (
          <TimeNote testId="placed-at-upload" action={readOnly ? null : "Set a clock offset…"} onAction={() => setEditing(true)}>
            No timestamp in this file: its data sits at the upload time
            {artifact.clock_offset_s ? ", shifted by its clock offset" : ""}. If it was captured at
            another time, shift it with a clock offset.
          </TimeNote>
        )}
        {timeAssumptionNotes(artifact).map((note) => (
          <TimeNote
            key={note.key}
            testId="time-assumed"
            dataKey={note.key}
            action={readOnly ? null : "Set a clock offset…"}
            onAction={() => setEditing(true)}
          >
            {note.text}
          </TimeNote>
        ))}
        {!artifact.anchored && (
          <TimeNote action={readOnly ? null : "Set the JVM start…"} onAction={() => setEditing(true)}>
            Unanchored: this GC log has only JVM uptimes and no start time, so its times are not
            placed on the clock.
          </TimeNote>
        )}
      </th>
      <td>{artifact.host ?? <span className="muted">—</span>}</td>
      <td className="mono">
        {unread ? <span className="muted">—</span> : artifact.kind}
        {artifact.clock_offset_s !== 0 && (
          <div className="muted">offset {formatNumber(artifact.clock_offset_s)} s</div>
        )}
      </td>
      <td>
        <ArtifactStatusBadge status={artifact.status} />
        {artifact.parser_version && (
          <div className="muted small mono" title="Version of the parsers that read this file">
            parser {artifact.parser_version.slice(0, 7)}
          </div>
        )}
      </td>
      <td>
        <Diagnostics artifact={artifact} />
      </td>
      <td className="nowrap-sm">{formatRange(artifact.time_start_ms, artifact.time_end_ms, timezone)}</td>
      <td className="num mono">
        {artifact.kind === "bundle" || unread ? (
          <span className="muted">—</span>
        ) : (
          <>
            {formatNumber(artifact.series_count)} / {formatNumber(artifact.event_count)}
          </>
        )}
      </td>
      <td className="actions">
        {(!readOnly || allowRaw) && (
          <a href={rawHref} download={artifact.filename.split("/").pop()} className="button-small">
            Download <span className="visually-hidden">original of {artifact.filename}</span>
          </a>
        )}
        {!readOnly && (
          <button
            type="button"
            className="button-small"
            disabled={reparse.isPending || queued}
            onClick={() => reparse.mutate({ artifactId: artifact.id })}
          >
            {reparse.isPending ? "Re-parsing…" : "Re-parse"}
            <span className="visually-hidden"> {artifact.filename}</span>
          </button>
        )}
        {!readOnly && (
          <button type="button" className="button-small" disabled={queued} onClick={() => setEditing(true)}>
            Options…<span className="visually-hidden"> for parsing {artifact.filename}</span>
          </button>
        )}
        {editing && (
          <ReparseDialog apiBase={apiBase} artifact={artifact} incidentTimezone={timezone} onClose={() => setEditing(false)} />
        )}
        {reparse.isError && <p className="state-error-inline" role="alert">{reparse.error.message}</p>}
      </td>
    </tr>
  );
}

function Diagnostics({ artifact }: { artifact: Artifact }) {
  const total = artifact.diagnostics.length + artifact.diagnostics_dropped;
  if (total === 0) return <span className="muted">none</span>;
  return (
    <details className="diagnostics">
      <summary>
        {total} {total === 1 ? "diagnostic" : "diagnostics"}
      </summary>
      <ul>
        {artifact.diagnostics.map((diagnostic, index) => (
          <li key={index}>
            <span className="mono">{diagnostic.line === 0 ? "file" : `line ${diagnostic.line}`}</span>:{" "}
            {diagnostic.message}
          </li>
        ))}
      </ul>
      {artifact.diagnostics_dropped > 0 && (
        <p className="muted">and {formatNumber(artifact.diagnostics_dropped)} more not listed</p>
      )}
    </details>
  );
}

/** A warning under a file's name about how its times were placed, with the edit that mends it. */
function TimeNote({
  testId,
  dataKey,
  action,
  onAction,
  children,
}: {
  testId?: string;
  dataKey?: string;
  action: string | null;
  onAction: () => void;
  children: ReactNode;
}) {
  return (
    <p className="warning" data-testid={testId} data-key={dataKey}>
      {children}
      {action && (
        <>
          {" "}
          <button type="button" className="button-link" onClick={onAction}>
            {action}
          </button>
        </>
      )}
    </p>
  );
}
