import { useId, useState, type FormEvent } from "react";
import { ApiError } from "../../api/client";
import { type ReparseOptions, useReparse } from "../../api/queries";
import type { Artifact } from "../../api/types";
import { Modal } from "../../components/Modal";
import { TimeZoneList } from "../../components/TimeZoneList";
import { formatInstant } from "../../lib/time";

/** The dialog's fields as typed; what changed becomes the re-parse's options. */
export interface ReparseFields {
  host: string;
  kind: string;
  timezone: string;
  clockOffset: string;
  jvmStart: string;
}

export function fieldsOf(artifact: Artifact): ReparseFields {
  return {
    host: artifact.host ?? "",
    kind: artifact.requested_kind ?? "",
    timezone: artifact.timezone ?? "",
    clockOffset: String(artifact.clock_offset_s),
    jvmStart: artifact.jvm_start_ms === null ? "" : new Date(artifact.jvm_start_ms).toISOString(),
  };
}

/**
 * The options to send: only the fields that changed (left out, the server keeps a value; an
 * emptied field is sent as null, which clears it). The clock offset goes as typed when it is not
 * a number, so that the server's 422 names the field.
 */
export function changedOptions(before: ReparseFields, after: ReparseFields): ReparseOptions {
  const options: ReparseOptions = {};
  const text = (value: string) => (value.trim() === "" ? null : value.trim());
  if (after.host !== before.host) options.host = text(after.host);
  if (after.kind !== before.kind) options.kind = text(after.kind);
  if (after.timezone !== before.timezone) options.timezone = text(after.timezone);
  if (after.jvmStart !== before.jvmStart) options.jvm_start = text(after.jvmStart);
  if (after.clockOffset !== before.clockOffset) {
    const trimmed = after.clockOffset.trim();
    const seconds = trimmed === "" ? 0 : Number(trimmed);
    options.clock_offset_s = (Number.isFinite(seconds) ? seconds : trimmed) as number;
  }
  return options;
}

/** Re-parse one artifact with its upload options changed: JVM start, host, zone, offset, kind. */
export function ReparseDialog({
  apiBase,
  artifact,
  incidentTimezone,
  onClose,
}: {
  apiBase: string;
  artifact: Artifact;
  incidentTimezone: string;
  onClose: () => void;
}) {
  const reparse = useReparse(apiBase);
  const initial = fieldsOf(artifact);
  const [fields, setFields] = useState(initial);
  const zones = useId();
  const error = reparse.error instanceof ApiError ? reparse.error : null;

  function submit(event: FormEvent) {
    event.preventDefault();
    reparse.mutate({ artifactId: artifact.id, options: changedOptions(initial, fields) }, { onSuccess: onClose });
  }

  const field = (name: keyof ReparseFields, apiName: string, label: string, extra: Record<string, string> = {}) => {
    const problem = error?.problemWith(apiName);
    const id = `reparse-${name}`;
    return (
      <div className="form-field">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          value={fields[name]}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-problem` : undefined}
          onChange={(event) => setFields({ ...fields, [name]: event.target.value })}
          {...extra}
        />
        {problem && (
          <p id={`${id}-problem`} className="state-error-inline" role="alert">
            {apiName}: {problem}
          </p>
        )}
      </div>
    );
  };

  return (
    <Modal title={`Re-parse ${artifact.filename}`} onClose={onClose}>
      <form className="stacked-form" onSubmit={submit}>
        <p className="hint">
          Read the stored bytes again with these options. An emptied field goes back to what the file (or the
          incident) says.
        </p>
        {field("jvmStart", "jvm_start", "JVM start time", {
          placeholder: "2026-11-21T07:00:00Z or epoch seconds",
          className: "mono",
        })}
        {!artifact.anchored && (
          <p className="hint">This GC log has uptimes only: the JVM start places it on the clock.</p>
        )}
        {artifact.jvm_start_ms !== null && (
          <p className="hint">Now anchored at {formatInstant(artifact.jvm_start_ms, incidentTimezone)}.</p>
        )}
        {field("host", "host", "Host", { placeholder: "from the file" })}
        {field("timezone", "timezone", "Timezone", { placeholder: incidentTimezone, list: zones })}
        {field("clockOffset", "clock_offset_s", "Clock offset (s)", { inputMode: "decimal", className: "mono" })}
        {field("kind", "kind", "Kind", { placeholder: "detected from the content", className: "mono" })}
        <TimeZoneList id={zones} />
        {error && error.fields.length === 0 && (
          <p className="state-error-inline" role="alert">
            {error.message}
          </p>
        )}
        <div className="form-actions">
          <button type="submit" className="button-primary" disabled={reparse.isPending}>
            {reparse.isPending ? "Re-parsing…" : "Re-parse"}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}
