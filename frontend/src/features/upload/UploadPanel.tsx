import { useId, useRef, useState, type DragEvent } from "react";
import { TimeZoneList } from "../../components/TimeZoneList";
import { StatusBadge } from "../../components/VerdictBadge";
import { formatBytes } from "../../lib/time";
import { totals, type UploadItem } from "./uploadQueue";
import { useUploadQueue } from "./useUploadQueue";

/** Drag-and-drop (or pick) many files and bundles; per-file fields, progress and results. */
export function UploadPanel({ apiBase, timezone }: { apiBase: string; timezone: string }) {
  const { items, addFiles, dispatch } = useUploadQueue(apiBase);
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
    <section className="panel upload" aria-labelledby="upload-title">
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
          Drop files or collector bundles (<span className="mono">.tar.gz</span>,{" "}
          <span className="mono">.zip</span>) here, or
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
          <ul className="upload-list">
            {items.map((item) => (
              <UploadRow
                key={item.id}
                item={item}
                zonesId={zonesId}
                incidentTimezone={timezone}
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
}

const STATE_TEXT: Record<UploadItem["state"], string> = {
  staged: "Ready",
  queued: "Waiting",
  uploading: "Uploading",
  processing: "Parsing on the server…",
  done: "Uploaded",
  error: "Failed",
  cancelled: "Cancelled",
};

function UploadRow({
  item,
  zonesId,
  incidentTimezone,
  dispatch,
}: {
  item: UploadItem;
  zonesId: string;
  incidentTimezone: string;
  dispatch: ReturnType<typeof useUploadQueue>["dispatch"];
}) {
  const editable = item.state === "staged" || item.state === "error" || item.state === "cancelled";
  const percent = item.total > 0 ? Math.floor((item.loaded / item.total) * 100) : 0;
  const name = item.file.name;
  return (
    <li className="upload-row" data-testid="upload-row" data-state={item.state}>
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
      {item.result && <UploadOutcome item={item} />}
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

function UploadOutcome({ item }: { item: UploadItem }) {
  const result = item.result!;
  const top = result.artifacts.filter((artifact) => artifact.parent_id === null);
  const members = result.artifacts.length - top.length;
  return (
    <ul className="upload-outcome">
      {top.map((artifact) => {
        const index = result.artifacts.indexOf(artifact);
        return (
          <li key={artifact.id}>
            <span className="mono">{artifact.kind}</span> <StatusBadge status={artifact.status} />
            {result.created[index] === false && <span className="hint"> already in this incident</span>}
            {artifact.diagnostics.length > 0 && (
              <span className="hint">
                {" "}
                {artifact.diagnostics.length + artifact.diagnostics_dropped} diagnostics (see the artifacts table)
              </span>
            )}
            {!artifact.anchored && <span className="warning"> unanchored: no JVM start time</span>}
          </li>
        );
      })}
      {members > 0 && (
        <li>
          {members} bundle members:{" "}
          {summariseStatuses(result.artifacts.filter((artifact) => artifact.parent_id !== null))}
        </li>
      )}
    </ul>
  );
}

function summariseStatuses(artifacts: { status: string }[]): string {
  const counts = new Map<string, number>();
  for (const artifact of artifacts) counts.set(artifact.status, (counts.get(artifact.status) ?? 0) + 1);
  return Array.from(counts, ([status, count]) => `${count} ${status}`).join(", ");
}
