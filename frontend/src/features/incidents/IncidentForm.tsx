import { useId, useState } from "react";
import type { ApiError } from "../../api/client";
import type { Incident } from "../../api/types";
import { Modal } from "../../components/Modal";
import { ErrorMessage } from "../../components/States";
import { TimeZoneList } from "../../components/TimeZoneList";
import { browserTimeZone, isValidTimeZone } from "../../lib/time";

export interface IncidentFormValues {
  title: string;
  summary: string;
  timezone: string;
  status?: Incident["status"];
}

/** Create or edit an incident's title, summary and timezone (and status when editing). */
export function IncidentFormDialog({
  incident,
  onSubmit,
  onClose,
  pending,
  error,
}: {
  incident?: Incident;
  onSubmit: (values: IncidentFormValues) => void;
  onClose: () => void;
  pending: boolean;
  error: ApiError | null;
}) {
  const [title, setTitle] = useState(incident?.title ?? "");
  const [summary, setSummary] = useState(incident?.summary ?? "");
  const [timezone, setTimezone] = useState(incident?.timezone ?? browserTimeZone());
  const [status, setStatus] = useState<Incident["status"]>(incident?.status ?? "draft");
  const id = useId();
  const zoneOk = isValidTimeZone(timezone.trim());

  return (
    <Modal title={incident ? "Edit incident" : "New incident"} onClose={onClose}>
      <form
        className="stacked-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (!title.trim() || !zoneOk) return;
          onSubmit({
            title: title.trim(),
            summary,
            timezone: timezone.trim(),
            ...(incident ? { status } : {}),
          });
        }}
      >
        <label htmlFor={`${id}-title`}>Title</label>
        <input
          id={`${id}-title`}
          required
          maxLength={300}
          value={title}
          onChange={(event) => setTitle(event.target.value)}
        />
        <label htmlFor={`${id}-summary`}>Summary</label>
        <textarea id={`${id}-summary`} rows={4} value={summary} onChange={(event) => setSummary(event.target.value)} />
        <label htmlFor={`${id}-timezone`}>Timezone</label>
        <input
          id={`${id}-timezone`}
          list={`${id}-zones`}
          required
          value={timezone}
          aria-invalid={!zoneOk}
          aria-describedby={`${id}-tz-hint`}
          onChange={(event) => setTimezone(event.target.value)}
        />
        <TimeZoneList id={`${id}-zones`} />
        <p id={`${id}-tz-hint`} className={zoneOk ? "hint" : "state-error-inline"}>
          {zoneOk
            ? "IANA zone: times are shown in it, and files without a zone are read in it."
            : "Not a timezone this browser knows (e.g. UTC, Europe/Berlin, Asia/Shanghai)."}
        </p>
        {incident && (
          <>
            <label htmlFor={`${id}-status`}>Status</label>
            <select id={`${id}-status`} value={status} onChange={(event) => setStatus(event.target.value as Incident["status"])}>
              <option value="draft">Draft</option>
              <option value="published">Published</option>
            </select>
          </>
        )}
        {error && <ErrorMessage error={error} />}
        <div className="form-actions">
          <button type="submit" className="button-primary" disabled={pending || !title.trim() || !zoneOk}>
            {pending ? "Saving…" : incident ? "Save changes" : "Create incident"}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}
