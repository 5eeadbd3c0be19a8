import { useState } from "react";
import { useAnnotations, useCreateAnnotation, useDeleteAnnotation } from "../../api/queries";
import type { Annotation } from "../../api/types";
import { ConfirmDialog } from "../../components/Modal";
import { Empty, ErrorMessage, Loading } from "../../components/States";
import { formatRange } from "../../lib/time";
import type { TimeRange } from "../../lib/urlState";

/** The small form shown when the timeline asks to annotate a range. */
export function AnnotationForm({
  apiBase,
  range,
  timezone,
  author,
  host,
  onDone,
}: {
  apiBase: string;
  range: TimeRange;
  timezone: string;
  author?: string;
  host: string | null;
  onDone: () => void;
}) {
  const [text, setText] = useState("");
  const create = useCreateAnnotation(apiBase);
  const instant = range.to <= range.from;
  return (
    <form
      className="annotation-form panel"
      aria-label="New annotation"
      onSubmit={(event) => {
        event.preventDefault();
        if (!text.trim()) return;
        create.mutate(
          {
            text: text.trim(),
            from_ms: Math.round(range.from),
            to_ms: instant ? null : Math.round(range.to),
            author: author ?? "",
            host,
          },
          { onSuccess: onDone },
        );
      }}
    >
      <p>
        Annotate <span className="mono">{formatRange(range.from, instant ? null : range.to, timezone)}</span>
      </p>
      <label htmlFor="annotation-text">Annotation text</label>
      <textarea
        id="annotation-text"
        rows={2}
        required
        maxLength={10000}
        value={text}
        autoFocus
        onChange={(event) => setText(event.target.value)}
      />
      {create.isError && <ErrorMessage error={create.error} />}
      <div className="form-actions">
        <button type="submit" className="button-primary" disabled={create.isPending || !text.trim()}>
          {create.isPending ? "Adding…" : "Add annotation"}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Annotations in time order; a click shows their range on the timeline. */
export function AnnotationList({
  apiBase,
  timezone,
  readOnly,
  onShowRange,
}: {
  apiBase: string;
  timezone: string;
  readOnly: boolean;
  onShowRange: (range: TimeRange) => void;
}) {
  const annotations = useAnnotations(apiBase);
  const remove = useDeleteAnnotation(apiBase);
  const [confirming, setConfirming] = useState<Annotation | null>(null);
  if (annotations.isPending) return <Loading label="Loading annotations…" />;
  if (annotations.isError)
    return <ErrorMessage error={annotations.error} title="Annotations" onRetry={() => void annotations.refetch()} />;
  const items = [...annotations.data].sort((a, b) => a.from_ms - b.from_ms);
  if (items.length === 0)
    return <Empty>No annotations.{readOnly ? "" : " Select a range on the timeline to add one."}</Empty>;
  return (
    <>
      {remove.isError && <ErrorMessage error={remove.error} title="Delete" />}
      <ul className="annotation-list">
        {items.map((annotation) => (
          <li key={annotation.id} data-testid="annotation">
            <button
              type="button"
              className="button-link mono"
              onClick={() =>
                onShowRange({
                  from: annotation.from_ms - 5000,
                  to: (annotation.to_ms ?? annotation.from_ms) + 5000,
                })
              }
            >
              {formatRange(annotation.from_ms, annotation.to_ms, timezone)}
            </button>
            <p className="note-text">{annotation.text}</p>
            <span className="muted small">
              {annotation.author ? `${annotation.author}` : "anonymous"}
              {annotation.host ? ` · host ${annotation.host}` : ""}
            </span>
            {!readOnly && (
              <button
                type="button"
                className="button-small"
                disabled={remove.isPending}
                onClick={() => setConfirming(annotation)}
              >
                Delete<span className="visually-hidden"> annotation “{annotation.text.slice(0, 40)}”</span>
              </button>
            )}
          </li>
        ))}
      </ul>
      {confirming && (
        <ConfirmDialog
          title="Delete annotation"
          message={<p className="note-text">{confirming.text}</p>}
          confirmLabel="Delete annotation"
          pending={remove.isPending}
          onCancel={() => setConfirming(null)}
          onConfirm={() => remove.mutate(confirming.id, { onSuccess: () => setConfirming(null) })}
        />
      )}
    </>
  );
}
