import { forwardRef, useId, useMemo, useRef, useState, type DragEvent } from "react";
import { useArtifacts } from "../../api/queries";
import { ARTIFACT_STATUS_LABELS, isQueued, type Artifact, type UploadResult } from "../../api/types";
import { TimeZoneList } from "../../components/TimeZoneList";
import { ArtifactStatusBadge } from "../../components/VerdictBadge";
import { formatBytes } from "../../lib/time";
import { timeAssumptionNotes } from "../artifacts/timeAssumptions";
import { isEditable, totals, type EditableField, type UploadItem } from "./uploadQueue";
import type { useUploadQueue } from "./useUploadQueue";

export type UploadQueue = ReturnType<typeof useUploadQueue>;

/**
 * Drag-and-drop (or pick) many files and bundles; fields for all of them at once (one host, zone,
 * clock offset, JVM start for a whole drop), each still editable per file; progress and results.
 * The queue belongs to the page, so that the header's Upload button and a drop anywhere feed it.
 */
export const UploadPanel = forwardRef<HTMLElement, { apiBase: string; timezone: string; queue: UploadQueue }>(function UploadPanel(
  { apiBase, timezone, queue },
  ref,
) {
  const { items, addFiles, dispatch } = queue;
  // The polled list (see useArtifacts): each upload's artifacts as the parse workers move them on.
  const artifacts = useArtifacts(apiBase);
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const zonesId = useId();
  const staged = items.filter((item) => item.state === "staged");
  const sum = totals(items);

  function onDrop(event: DragEvent) {
    event.preventDefault();
    setDragging(false);
    addFiles(event.dataTransfer.files);
  }

  return (
    <section className="panel upload" aria-labelledby="upload-title" ref={ref} tabIndex={-1}>
      <h2 id="upload-title">Upload artifacts</h2>
      <div
        className={dragging ? "dropzone dropzone-active" : "dropzone"}
        onDragOver={(event) => {
          event.preventDefault();
          event.dataTransfer.dropEffect = "copy";
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        data-testid="dropzone"
      >
        <p>
          Drop files, collector bundles (<span className="mono">.tar.gz</span>,{" "}
          <span className="mono">.zip</span>) or compressed logs (<span className="mono">.gz</span>,{" "}
          <span className="mono">.bz2</span>, <span className="mono">.xz</span>,{" "}
          <span className="mono">.zst</span>) here, or
        </p>
        <button type="button" onClick={() => input.current?.click()}>
          Choose files…
        </button>
        <input
          ref={input}
          type="file"
          multiple
          className="visually-hidden"
          tabIndex={-1}
          aria-label="Files to upload"
          onChange={(event) => {
            if (event.target.files) addFiles(event.target.files);
            event.target.value = "";
          }}
        />
        <p className="hint">
          Kinds are detected from the content. Files without a zone are read in the incident's
          timezone ({timezone}) unless you set one.
        </p>
      </div>

      <TimeZoneList id={zonesId} />

      {items.length > 0 && (
        <>
          {staged.length > 1 && <AllFilesFields staged={staged} zonesId={zonesId} incidentTimezone={timezone} dispatch={dispatch} />}
          <ul className="upload-list">
            {items.map((item) => (
              <UploadRow
                key={item.id}
                item={item}
                zonesId={zonesId}
                incidentTimezone={timezone}
                artifacts={artifacts.data}
                dispatch={dispatch}
              />
            ))}
          </ul>
          <div className="upload-actions">
            <button
              type="button"
              className="button-primary"
              disabled={staged.length === 0}
              onClick={() => dispatch({ type: "queueAll" })}
            >
              {staged.length === 0 ? "Upload" : staged.length === 1 ? "Upload 1 file" : `Upload ${staged.length} files`}
            </button>
            {sum.active > 0 && (
              <span className="mono" role="status">
                {formatBytes(sum.loaded)} of {formatBytes(sum.total)} sent, {sum.active} in progress
              </span>
            )}
            {items.some((item) => item.state === "done") && (
              <button type="button" onClick={() => dispatch({ type: "clearFinished" })}>
                Clear finished
              </button>
            )}
          </div>
        </>
      )}
    </section>
  );
});

const ALL_FIELDS: { field: EditableField; label: string; placeholder?: string; mono?: boolean }[] = [
  { field: "host", label: "Host", placeholder: "from each file" },
  { field: "timezone", label: "Timezone" },
  { field: "clockOffset", label: "Clock offset (s)", mono: true },
  { field: "jvmStart", label: "JVM start", placeholder: "for uptime-only GC logs", mono: true },
];

/** One value for every staged file (shown when they all share it); each row stays editable. */
function AllFilesFields({
  staged,
  zonesId,
  incidentTimezone,
  dispatch,
}: {
  staged: UploadItem[];
  zonesId: string;
  incidentTimezone: string;
  dispatch: UploadQueue["dispatch"];
}) {
  const common = (field: EditableField) => {
    const values = new Set(staged.map((item) => item[field]));
    return values.size === 1 ? [...values][0]! : "";
  };
  return (
    <fieldset className="upload-all upload-fields" data-testid="upload-all">
      <legend>All {staged.length} files</legend>
      {ALL_FIELDS.map(({ field, label, placeholder, mono }) => (
        <label key={field}>
          {label}
          <input
            className={mono ? "mono" : undefined}
            value={common(field)}
            placeholder={field === "timezone" ? incidentTimezone : (placeholder ?? "differs per file")}
            list={field === "timezone" ? zonesId : undefined}
            aria-label={`${label} for all files`}
            onChange={(event) => dispatch({ type: "editAll", changes: { [field]: event.target.value } })}
          />
        </label>
      ))}
    </fieldset>
  );
}

const STATE_TEXT: Record<UploadItem["state"], string> = {
  staged: "Ready",
  queued: "Waiting",
  uploading: "Uploading",
  processing: "Storing on the server…",
  done: "Uploaded",
  error: "Failed",
  cancelled: "Cancelled",
};

function UploadRow({
  item,
  zonesId,
  incidentTimezone,
  artifacts,
  dispatch,
}: {
  item: UploadItem;
  zonesId: string;
  incidentTimezone: string;
  artifacts: Artifact[] | undefined;
  dispatch: UploadQueue["dispatch"];
}) {
  const outcome = useMemo(() => item.result && uploadOutcome(item.result, artifacts), [item.result, artifacts]);
  const editable = isEditable(item);
  const percent = item.total > 0 ? Math.floor((item.loaded / item.total) * 100) : 0;
  const name = item.file.name;
  return (
    <li
      className="upload-row"
      data-testid="upload-row"
      data-state={item.state}
      data-parse={outcome ? (outcome.queued ? "queued" : "done") : undefined}
    >
      <div className="upload-file">
        <span className="filename" title={name}>
          {name}
        </span>
        <span className="mono muted">{formatBytes(item.file.size)}</span>
        <span className={`upload-state upload-state-${item.state}`}>{STATE_TEXT[item.state]}</span>
      </div>
      <div className="upload-fields">
        <label>
          Host
          <input
            value={item.host}
            disabled={!editable}
            placeholder="from the file"
            aria-label={`Host for ${name}`}
            onChange={(event) => dispatch({ type: "edit", id: item.id, changes: { host: event.target.value } })}
          />
          {item.hostGuessed && <span className="hint"> guessed</span>}
        </label>
        <label>
          Timezone
          <input
            value={item.timezone}
            disabled={!editable}
            list={zonesId}
            placeholder={incidentTimezone}
            aria-label={`Timezone for ${name}`}
            onChange={(event) =>
              dispatch({ type: "edit", id: item.id, changes: { timezone: event.target.value } })
            }
          />
        </label>
        <label>
          Clock offset (s)
          <input
            className="mono input-narrow"
            inputMode="decimal"
            value={item.clockOffset}
            disabled={!editable}
            aria-label={`Clock offset in seconds for ${name}`}
            onChange={(event) =>
              dispatch({ type: "edit", id: item.id, changes: { clockOffset: event.target.value } })
            }
          />
        </label>
        <label>
          JVM start
          <input
            className="mono"
            value={item.jvmStart}
            disabled={!editable}
            placeholder="uptime-only GC logs"
            aria-label={`JVM start for ${name}`}
            onChange={(event) => dispatch({ type: "edit", id: item.id, changes: { jvmStart: event.target.value } })}
          />
        </label>
      </div>
      {item.state !== "staged" && (
        <div className="upload-progress">
          <progress
            max={Math.max(item.total, 1)}
            value={item.loaded}
            aria-label={`Upload progress of ${name}`}
          />
          <span className="mono">
            {percent}% ({formatBytes(item.loaded)} of {formatBytes(item.total)})
          </span>
        </div>
      )}
      {item.error && (
        <p className="state-error-inline" role="alert">
          {item.error}
        </p>
      )}
      {outcome && <UploadOutcome outcome={outcome} />}
      <div className="upload-row-actions">
        {item.state === "staged" && (
          <button type="button" className="button-small" onClick={() => dispatch({ type: "remove", id: item.id })}>
            Remove <span className="visually-hidden">{name}</span>
          </button>
        )}
        {(item.state === "queued" || item.state === "uploading" || item.state === "processing") && (
          <button type="button" className="button-small" onClick={() => dispatch({ type: "cancel", id: item.id })}>
            Cancel <span className="visually-hidden">{name}</span>
          </button>
        )}
        {(item.state === "error" || item.state === "cancelled") && (
          <>
            <button type="button" className="button-small" onClick={() => dispatch({ type: "retry", id: item.id })}>
              Retry <span className="visually-hidden">{name}</span>
            </button>
            <button type="button" className="button-small" onClick={() => dispatch({ type: "remove", id: item.id })}>
              Remove <span className="visually-hidden">{name}</span>
            </button>
          </>
        )}
      </div>
    </li>
  );
}

export interface UploadOutcomeData {
  /** The uploaded files' artifacts, and whether each is new to the incident. */
  files: { artifact: Artifact; created: boolean }[];
  /** Their bundle members, at any depth. */
  members: Artifact[];
  /** Whether any of them is still waiting for, or being parsed by, a parse worker. */
  queued: boolean;
}

/**
 * What one upload made, as the artifacts list has it now: the upload's answer only says
 * `pending`, and a bundle's members appear in the list once the bundle is unpacked. An artifact
 * the list does not hold yet (its read is on the way) is shown as the answer had it.
 */
export function uploadOutcome(result: UploadResult, list: readonly Artifact[] | undefined): UploadOutcomeData {
  const live = new Map((list ?? []).map((artifact) => [artifact.id, artifact]));
  const current = (artifact: Artifact) => live.get(artifact.id) ?? artifact;
  const files = result.artifacts.flatMap((artifact, index) =>
    artifact.parent_id === null ? [{ artifact: current(artifact), created: result.created[index] !== false }] : [],
  );
  const members = new Map<string, Artifact>();
  for (const artifact of result.artifacts) if (artifact.parent_id !== null) members.set(artifact.id, current(artifact));
  // Members of members too: a bundle inside a bundle is unpacked as well.
  let parents = new Set(files.map((file) => file.artifact.id));
  const seen = new Set(parents);
  while (parents.size > 0) {
    const found = (list ?? []).filter(
      (artifact) => artifact.parent_id !== null && parents.has(artifact.parent_id) && !seen.has(artifact.id),
    );
    for (const artifact of found) {
      seen.add(artifact.id);
      members.set(artifact.id, artifact);
    }
    parents = new Set(found.map((artifact) => artifact.id));
  }
  const memberList = [...members.values()];
  const queued = files.some((file) => isQueued(file.artifact)) || memberList.some(isQueued);
  return { files, members: memberList, queued };
}

function UploadOutcome({ outcome }: { outcome: UploadOutcomeData }) {
  const { files, members } = outcome;
  return (
    <ul className="upload-outcome">
      {files.map(({ artifact, created }) => (
        <li key={artifact.id}>
          {!isQueued(artifact) && <span className="mono">{artifact.kind} </span>}
          <ArtifactStatusBadge status={artifact.status} />
          {!created && <span className="hint"> already in this incident</span>}
          {artifact.diagnostics.length > 0 && (
            <span className="hint">
              {" "}
              {artifact.diagnostics.length + artifact.diagnostics_dropped} diagnostics (see the artifacts table)
            </span>
          )}
          {!artifact.anchored && <span className="warning"> unanchored: no JVM start time</span>}
          {artifact.placed_at_upload && <span className="warning"> no timestamp in the file: placed at the upload time</span>}
          {timeAssumptionNotes(artifact).map((note) => (
            <span key={note.key} className="warning" data-testid="upload-time-assumed">
              {" "}
              {note.short}
            </span>
          ))}
        </li>
      ))}
      {members.length > 0 && (
        <li>
          {members.length} bundle members: {summariseStatuses(members)}
        </li>
      )}
    </ul>
  );
}

function summariseStatuses(artifacts: Artifact[]): string {
  const counts = new Map<Artifact["status"], number>();
  for (const artifact of artifacts) counts.set(artifact.status, (counts.get(artifact.status) ?? 0) + 1);
  return Array.from(counts, ([status, count]) => `${count} ${ARTIFACT_STATUS_LABELS[status]}`).join(", ");
}
