/** The postmortem: the editor (incident's own page) and the read-only document (share links). */
import { useEffect, useId, useState } from "react";
import { useCreatePostmortem, useRevisions, useSetPostmortemStatus } from "../../api/queries";
import {
  POSTMORTEM_STATUS_LABELS,
  type Postmortem,
  type PostmortemSection,
  type PostmortemStatus,
} from "../../api/types";
import { ErrorMessage, Loading } from "../../components/States";
import { formatInstant } from "../../lib/time";
import { Markdown } from "./markdown";
import { type SaveState, useSectionAutosave } from "./useSectionAutosave";

/** "just now", "2 min ago", "3 h ago", "4 d ago". */
export function ago(ms: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  return `${Math.round(hours / 24)} d ago`;
}

/** The current time, again every `everyMs` (for "2 min ago"). */
function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(timer);
  }, [everyMs]);
  return now;
}

const chartUrlFor = (apiBase: string) => (findingId: string) =>
  `${apiBase}/postmortem/charts/${encodeURIComponent(findingId)}.svg`;

/** The published document, read-only (share links): no status badge, no editing. */
export function PostmortemDocument({
  apiBase,
  postmortem,
  timezone,
}: {
  apiBase: string;
  postmortem: Postmortem;
  timezone: string;
}) {
  const chartUrl = chartUrlFor(apiBase);
  return (
    <article className="panel postmortem postmortem-shared" aria-labelledby="postmortem-title" data-testid="postmortem">
      <h2 id="postmortem-title">Postmortem</h2>
      {postmortem.published_at_ms !== null && (
        <p className="muted small">Published {formatInstant(postmortem.published_at_ms, timezone)}</p>
      )}
      {postmortem.sections.map((section) => (
        <section key={section.key} className="pm-section" data-section={section.key} aria-label={section.title}>
          <h3>{section.title}</h3>
          <Markdown text={section.text} chartUrl={chartUrl} headingLevel={3} />
        </section>
      ))}
    </article>
  );
}

const SAVE_LABELS: Record<SaveState, string> = {
  saved: "Saved",
  unsaved: "Unsaved changes…",
  saving: "Saving…",
  error: "Not saved yet: retrying",
  conflict: "Not saved: edited elsewhere",
};

const NEXT_STATUS: Record<PostmortemStatus, { status: PostmortemStatus; label: string }[]> = {
  draft: [
    { status: "in_review", label: "Ask for review" },
    { status: "published", label: "Publish" },
  ],
  in_review: [
    { status: "published", label: "Publish" },
    { status: "draft", label: "Back to draft" },
  ],
  published: [{ status: "draft", label: "Unpublish (back to draft)" }],
};

/** The incident's postmortem, editable: draft it, edit its sections, move its status, export it. */
export function PostmortemEditor({
  apiBase,
  postmortem,
  timezone,
  me,
}: {
  apiBase: string;
  postmortem: Postmortem | null;
  timezone: string;
  me?: string;
}) {
  const create = useCreatePostmortem(apiBase);
  const status = useSetPostmortemStatus(apiBase);
  const now = useNow();
  if (postmortem === null) {
    return (
      <section className="panel postmortem" aria-label="Postmortem">
        <p>
          No postmortem yet. Rootline drafts one from what it knows: the checklist&apos;s confirmed, likely and
          ruled-out causes with their numbers and evidence charts, a timeline of key moments and the team&apos;s
          annotations. Every section is then yours to edit.
        </p>
        {create.isError && <ErrorMessage error={create.error} title="The postmortem could not be drafted" />}
        <button type="button" className="button-primary" disabled={create.isPending} onClick={() => create.mutate()}>
          {create.isPending ? "Drafting…" : "Draft the postmortem"}
        </button>
        {create.isPending && <Loading label="Reading the checklist and the series…" />}
      </section>
    );
  }
  const exportUrl = (format: string) => `${apiBase}/postmortem/export?format=${format}`;
  return (
    <>
      <div className="panel postmortem-bar" data-testid="postmortem-bar">
        <span className={`badge pm-status pm-status-${postmortem.status}`} data-testid="postmortem-status">
          {POSTMORTEM_STATUS_LABELS[postmortem.status]}
        </span>
        <span className="muted small">
          {postmortem.status === "published" && postmortem.published_at_ms !== null
            ? `published by ${postmortem.status_changed_by} ${ago(postmortem.published_at_ms, now)}`
            : `drafted by ${postmortem.created_by || "Rootline"} ${ago(postmortem.created_at_ms, now)}`}
        </span>
        <span className="pm-bar-actions">
          {NEXT_STATUS[postmortem.status].map((next) => (
            <button
              key={next.status}
              type="button"
              className={next.status === "published" ? "button-primary button-small" : "button-small"}
              disabled={status.isPending}
              onClick={() => status.mutate({ status: next.status, version: postmortem.version })}
            >
              {next.label}
            </button>
          ))}
        </span>
        <span className="pm-bar-actions" role="group" aria-label="Export">
          <a className="button-small" href={exportUrl("pdf")} download>
            Export PDF
          </a>
          <a className="button-small" href={exportUrl("html")} download>
            Export HTML
          </a>
          <a className="button-small" href={exportUrl("md")} download>
            Export Markdown (.zip)
          </a>
        </span>
        {status.isError && (
          <ErrorMessage
            error={status.error}
            title={status.error.status === 409 ? "Someone else changed the status: here is what it is now" : "The status did not change"}
          />
        )}
      </div>
      {postmortem.sections.map((section) => (
        <SectionEditor key={section.key} apiBase={apiBase} section={section} timezone={timezone} me={me} now={now} />
      ))}
    </>
  );
}

function SectionEditor({
  apiBase,
  section,
  timezone,
  me,
  now,
}: {
  apiBase: string;
  section: PostmortemSection;
  timezone: string;
  me?: string;
  now: number;
}) {
  const editor = useSectionAutosave({ apiBase, section, me });
  const [editing, setEditing] = useState(false);
  const [history, setHistory] = useState(false);
  const titleId = useId();
  const textId = useId();
  // Text restored from an earlier visit, or a conflict, opens the editor.
  const open = editing || editor.state === "conflict" || editor.text !== section.text;
  const rows = Math.min(30, Math.max(4, editor.text.split("\n").length + 1));
  return (
    <section className="panel pm-section" aria-labelledby={titleId} data-section={section.key} data-save={editor.state}>
      <div className="pm-section-head">
        <h2 id={titleId}>{section.title}</h2>
        <span className="muted small" data-testid="edited-by">
          {section.updated_by === "Rootline" && section.version === 1
            ? `drafted by Rootline ${ago(section.updated_at_ms, now)}`
            : `edited by ${section.updated_by}, ${ago(section.updated_at_ms, now)}`}
        </span>
        {open && (
          <span className={`small pm-save pm-save-${editor.state}`} role="status" aria-live="polite">
            {SAVE_LABELS[editor.state]}
          </span>
        )}
        <span className="pm-section-actions">
          <button
            type="button"
            className="button-small"
            onClick={() => {
              if (open) editor.flush();
              setEditing(!open);
            }}
            aria-expanded={open}
          >
            {open ? "Done" : `Edit ${section.title.toLowerCase()}`}
          </button>
          <button type="button" className="button-small button-link" aria-expanded={history} onClick={() => setHistory(!history)}>
            History
          </button>
        </span>
      </div>
      {editor.conflict && (
        <div className="state state-error pm-conflict" role="alert">
          <p>
            <strong>
              {editor.conflict.updated_by} saved this section {ago(editor.conflict.updated_at_ms, now)} (version{" "}
              {editor.conflict.version}) while you were editing.
            </strong>{" "}
            Your text is kept below and was not saved. Their text:
          </p>
          <pre className="pm-theirs">{editor.conflict.text}</pre>
          <div className="form-actions">
            <button type="button" className="button-primary button-small" onClick={editor.keepMine}>
              Keep mine (save it over theirs)
            </button>
            <button type="button" className="button-small" onClick={editor.takeTheirs}>
              Take theirs (drop mine)
            </button>
          </div>
        </div>
      )}
      {open ? (
        <div className="pm-editor">
          <label htmlFor={textId} className="visually-hidden">
            {section.title} (Markdown)
          </label>
          <textarea
            id={textId}
            className="mono"
            rows={rows}
            value={editor.text}
            spellCheck
            onChange={(event) => editor.setText(event.target.value)}
            onBlur={() => editor.flush()}
            autoFocus={editing}
          />
          <p className="hint small">
            Markdown: **bold**, _italic_, lists, | tables |, [links](https://…); <code>![caption](chart:checklist_id)</code> draws that finding&apos;s evidence chart. Saved as you type.
          </p>
          {editor.state === "error" && <ErrorMessage error={editor.error} />}
        </div>
      ) : (
        <Markdown text={editor.text} chartUrl={chartUrlFor(apiBase)} />
      )}
      {history && <History apiBase={apiBase} section={section} timezone={timezone} now={now} />}
    </section>
  );
}

function History({
  apiBase,
  section,
  timezone,
  now,
}: {
  apiBase: string;
  section: PostmortemSection;
  timezone: string;
  now: number;
}) {
  const revisions = useRevisions(apiBase, section.key, true);
  if (revisions.isPending) return <Loading label="Loading the history…" />;
  if (revisions.isError) return <ErrorMessage error={revisions.error} />;
  return (
    <div className="pm-history" aria-label={`History of ${section.title}`}>
      <h3 className="small">History</h3>
      {revisions.data.length === 0 ? (
        <p className="muted small">Not edited since Rootline drafted it.</p>
      ) : (
        <ol>
          {revisions.data.map((revision) => (
            <li key={revision.id}>
              <span>
                <strong>{revision.author}</strong> edited it {ago(revision.changed_at_ms, now)} (
                {formatInstant(revision.changed_at_ms, timezone)}, version {revision.version})
              </span>
              <details>
                <summary className="small">The text before</summary>
                <pre className="pm-theirs">{revision.previous_text || "(empty)"}</pre>
              </details>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
