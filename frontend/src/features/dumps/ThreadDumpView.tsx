/**
 * One thread dump, read like fastThread or Jifa: counts per state and pool, threads grouped by
 * identical stacks (biggest group first), every thread with its state, pool and stack; and the
 * difference with another dump of the same JVM (host).
 */
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import type { ApiError } from "../../api/client";
import { readGet } from "../../api/reads";
import { ErrorMessage, Loading } from "../../components/States";
import { formatInstant } from "../../lib/time";
import { attrText } from "../events/details";
import {
  countStates,
  diffDumps,
  groupByStack,
  headline,
  type DumpDiff,
  type StackGroup,
  type Thread,
  type ThreadDump,
} from "./threads";
import type { Schemas } from "../../api/client";

type EventRead = Schemas["EventRead"];

const STATE_LABELS: Record<string, string> = {
  blocked: "BLOCKED",
  runnable: "RUNNABLE",
  waiting: "WAITING",
  timed_waiting: "TIMED_WAITING",
  new: "NEW",
  terminated: "TERMINATED",
};

export function stateLabel(state: string): string {
  return STATE_LABELS[state] ?? state.toUpperCase();
}

function useDump(apiBase: string, eventId: number | null) {
  return useQuery<ThreadDump, ApiError>({
    queryKey: [apiBase, "dump-threads", eventId],
    queryFn: ({ signal }) => readGet(apiBase, "/events/{event_id}/threads", { path: { event_id: eventId! }, signal }),
    enabled: eventId !== null,
    staleTime: Infinity,
  });
}

/** The other dumps of this host (one JVM per host, as captured), for comparing. */
function useDumpsOfHost(apiBase: string, host: string | null) {
  return useQuery<EventRead[], ApiError>({
    queryKey: [apiBase, "dumps-of-host", host],
    queryFn: async ({ signal }) =>
      (
        await readGet(apiBase, "/events", {
          query: { kind: ["thread_dump"], host: host ?? undefined, limit: 1000 },
          signal,
        })
      ).items,
  });
}

type View = "stacks" | "threads" | "diff";

export function ThreadDumpView({ apiBase, event, timezone }: { apiBase: string; event: EventRead; timezone: string }) {
  const dump = useDump(apiBase, event.id);
  const others = useDumpsOfHost(apiBase, event.host);
  const [view, setView] = useState<View>("stacks");
  const candidates = useMemo(() => (others.data ?? []).filter((other) => other.id !== event.id), [others.data, event.id]);
  // By default: the dump before this one (else the next), the natural "what changed since".
  const fallback = useMemo(() => {
    const earlier = candidates.filter((other) => other.time_ms <= event.time_ms);
    return (earlier.at(-1) ?? candidates[0])?.id ?? null;
  }, [candidates, event.time_ms]);
  const [compareWith, setCompareWith] = useState<number | null>(null);
  const otherId = compareWith ?? fallback;

  if (dump.isPending) return <Loading label="Reading the thread dump…" />;
  if (dump.isError) return <ErrorMessage error={dump.error} title="The thread dump could not be read" onRetry={() => void dump.refetch()} />;
  const threads = dump.data.threads;
  const java = threads.filter((thread) => !thread.vm);
  return (
    <div className="dump" data-testid="thread-dump">
      <p className="dump-meta">
        <span className="mono">{formatInstant(dump.data.time_ms, timezone)}</span>
        {dump.data.host && <span> · host {dump.data.host}</span>}
        <span>
          {" "}
          · {java.length} threads{java.length < threads.length && ` (+${threads.length - java.length} VM threads)`}
        </span>
      </p>
      <ul className="dump-states" aria-label="Threads per state">
        {countStates(threads)
          .filter(({ count }) => count > 0)
          .map(({ state, count }) => (
            <li key={state} className={`thread-state thread-state-${state}`}>
              {stateLabel(state)} <strong>{count}</strong>
            </li>
          ))}
      </ul>
      <div className="dump-tabs" role="tablist" aria-label="Thread dump views">
        {(
          [
            ["stacks", "Stacks (grouped)"],
            ["threads", "Threads"],
            ["diff", "Compare"],
          ] as [View, string][]
        ).map(([key, label]) => (
          <button
            key={key}
            type="button"
            role="tab"
            aria-selected={view === key}
            className={view === key ? "dump-tab dump-tab-active" : "dump-tab"}
            onClick={() => setView(key)}
          >
            {label}
          </button>
        ))}
      </div>
      {view === "stacks" && <StackGroups groups={groupByStack(threads)} owners={lockOwners(threads)} />}
      {view === "threads" && <ThreadTable threads={java} />}
      {view === "diff" && (
        <div className="dump-compare">
          {candidates.length === 0 ? (
            <p className="muted">No other dump of {event.host ?? "this host"} to compare with.</p>
          ) : (
            <>
              <label>
                Compare with the dump of{" "}
                <select value={otherId ?? ""} onChange={(e) => setCompareWith(Number(e.target.value))}>
                  {candidates.map((other) => (
                    <option key={other.id} value={other.id}>
                      {formatInstant(other.time_ms, timezone)} ({attrText(other.attrs.total, "?")} threads)
                    </option>
                  ))}
                </select>
              </label>
              {otherId !== null && (
                <DumpComparison apiBase={apiBase} current={dump.data} otherId={otherId} timezone={timezone} />
              )}
            </>
          )}
        </div>
      )}
    </div>
  );
}

function Stack({ frames, total }: { frames: readonly string[]; total?: number }) {
  if (frames.length === 0) return <p className="muted small">No Java frames.</p>;
  return (
    <pre className="stack">
      {frames.map((frame) => `at ${frame}`).join("\n")}
      {total !== undefined && total > frames.length && `\n… ${total - frames.length} more frames`}
    </pre>
  );
}

const OPEN_GROUPS = 3;
const NAMES_SHOWN = 12;

/** Monitor -> the thread holding it, from the threads' "- locked" lines. */
function lockOwners(threads: readonly Thread[]): Map<string, string> {
  const owners = new Map<string, string>();
  for (const thread of threads) for (const lock of thread.locked) if (!owners.has(lock.monitor)) owners.set(lock.monitor, thread.name);
  return owners;
}

function StackGroups({ groups, owners }: { groups: StackGroup[]; owners: Map<string, string> }) {
  return (
    <ol className="stack-groups" aria-label="Threads grouped by identical stack">
      {groups.map((group, index) => (
        <li key={index} className="stack-group" data-testid="stack-group" data-count={group.threads.length}>
          <details open={index < OPEN_GROUPS}>
            <summary>
              <strong className="stack-count">{group.threads.length}</strong>{" "}
              {group.threads.length === 1 ? "thread" : "threads"}{" "}
              <span className={`thread-state thread-state-${group.state}`}>{stateLabel(group.state)}</span>{" "}
              <span className="mono">{headline(group.frames)}</span>
            </summary>
            <p className="stack-threads small">
              {group.threads
                .slice(0, NAMES_SHOWN)
                .map((thread) => thread.name)
                .join(", ")}
              {group.threads.length > NAMES_SHOWN && ` and ${group.threads.length - NAMES_SHOWN} more`}
            </p>
            <Locks thread={group.threads[0]!} owners={owners} />
            <Stack frames={group.frames} total={group.threads[0]!.frame_count} />
          </details>
        </li>
      ))}
    </ol>
  );
}

function Locks({ thread, owners }: { thread: Thread; owners?: Map<string, string> }) {
  const waiting = thread.waiting_to_lock ?? thread.parked_on;
  const owner = waiting && ("owner" in waiting && waiting.owner ? waiting.owner : owners?.get(waiting.monitor));
  if (!waiting && thread.locked.length === 0) return null;
  return (
    <p className="small">
      {waiting && (
        <>
          Waiting for <span className="mono">{waiting.class_name || "a lock"}</span>{" "}
          <span className="mono muted">&lt;{waiting.monitor}&gt;</span>
          {owner ? <> held by <strong>{owner}</strong></> : null}.{" "}
        </>
      )}
      {thread.locked.length > 0 && (
        <>
          Holds{" "}
          {thread.locked.map((lock) => (
            <span key={lock.monitor} className="mono">
              {lock.class_name || "a monitor"} &lt;{lock.monitor}&gt;{" "}
            </span>
          ))}
        </>
      )}
    </p>
  );
}

function ThreadTable({ threads }: { threads: Thread[] }) {
  const owners = useMemo(() => lockOwners(threads), [threads]);
  const [filter, setFilter] = useState("");
  const [open, setOpen] = useState<string | null>(null);
  const needle = filter.trim().toLowerCase();
  const shown = needle
    ? threads.filter(
        (thread) =>
          thread.name.toLowerCase().includes(needle) ||
          thread.state.includes(needle) ||
          thread.frames.some((frame) => frame.toLowerCase().includes(needle)),
      )
    : threads;
  return (
    <div>
      <input
        type="search"
        className="dump-filter"
        placeholder="Filter by name, state or frame"
        aria-label="Filter threads"
        value={filter}
        onChange={(event) => setFilter(event.target.value)}
      />
      <table className="dump-threads">
        <thead>
          <tr>
            <th scope="col">Thread</th>
            <th scope="col">Pool</th>
            <th scope="col">State</th>
            <th scope="col">Top frame</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((thread, index) => {
            const key = `${thread.name}#${index}`;
            return (
              <tr key={key} onClick={() => setOpen(open === key ? null : key)} className="dump-thread-row">
                <th scope="row">
                  <button type="button" className="button-link" aria-expanded={open === key}>
                    {thread.name}
                  </button>
                  {thread.daemon && <span className="muted small"> daemon</span>}
                  {open === key && (
                    <>
                      <Locks thread={thread} owners={owners} />
                      <Stack frames={thread.frames} total={thread.frame_count} />
                    </>
                  )}
                </th>
                <td className="mono">{thread.pool}</td>
                <td>
                  <span className={`thread-state thread-state-${thread.state}`}>{stateLabel(thread.state)}</span>
                </td>
                <td className="mono small">{thread.frames[0] ?? ""}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {shown.length === 0 && <p className="muted">No thread matches.</p>}
    </div>
  );
}

function DumpComparison({
  apiBase,
  current,
  otherId,
  timezone,
}: {
  apiBase: string;
  current: ThreadDump;
  otherId: number;
  timezone: string;
}) {
  const other = useDump(apiBase, otherId);
  if (other.isPending) return <Loading label="Reading the other dump…" />;
  if (other.isError) return <ErrorMessage error={other.error} title="The other dump could not be read" />;
  // Always earlier -> later, whichever was clicked.
  const [before, after] = other.data.time_ms <= current.time_ms ? [other.data, current] : [current, other.data];
  const diff = diffDumps(before.threads, after.threads);
  return <DiffView diff={diff} before={before} after={after} timezone={timezone} />;
}

function DiffView({ diff, before, after, timezone }: { diff: DumpDiff; before: ThreadDump; after: ThreadDump; timezone: string }) {
  const nothing =
    diff.appeared.length + diff.vanished.length + diff.changedState.length + diff.changedStack.length === 0;
  return (
    <div className="dump-diff" data-testid="dump-diff">
      <p className="small">
        From <span className="mono">{formatInstant(before.time_ms, timezone)}</span> to{" "}
        <span className="mono">{formatInstant(after.time_ms, timezone)}</span>: {diff.unchanged} threads unchanged
        (same state and stack{diff.unchanged > 0 ? ": stuck, if the dumps are seconds apart" : ""}).
      </p>
      {nothing && <p>Nothing changed between the two dumps.</p>}
      {diff.changedState.length > 0 && (
        <section aria-label="Threads that changed state">
          <h4>Changed state ({diff.changedState.length})</h4>
          <ul className="diff-list">
            {diff.changedState.map((change) => (
              <li key={change.name}>
                <span className="filename">{change.name}</span>:{" "}
                <span className={`thread-state thread-state-${change.from}`}>{stateLabel(change.from)}</span> →{" "}
                <span className={`thread-state thread-state-${change.to}`}>{stateLabel(change.to)}</span>{" "}
                <span className="mono muted small">{headline(change.after.frames)}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      <ThreadList title="Appeared" label="Threads that appeared" threads={diff.appeared} />
      <ThreadList title="Vanished" label="Threads that vanished" threads={diff.vanished} />
      {diff.changedStack.length > 0 && (
        <section aria-label="Threads whose stack changed">
          <h4>Same state, other stack ({diff.changedStack.length})</h4>
          <ul className="diff-list">
            {diff.changedStack.map((change) => (
              <li key={change.name}>
                <span className="filename">{change.name}</span>:{" "}
                <span className="mono small">{headline(change.before.frames)}</span> →{" "}
                <span className="mono small">{headline(change.after.frames)}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {diff.stacks.length > 0 && (
        <section aria-label="Stacks with more or fewer threads">
          <h4>Stacks with more or fewer threads</h4>
          <table className="dump-threads">
            <thead>
              <tr>
                <th scope="col">Stack</th>
                <th scope="col" className="num">Before</th>
                <th scope="col" className="num">After</th>
              </tr>
            </thead>
            <tbody>
              {diff.stacks.map((stack, index) => (
                <tr key={index}>
                  <td className="mono small">
                    {stack.before === 0 ? <strong>new </strong> : stack.after === 0 ? <strong>gone </strong> : null}
                    {headline(stack.frames)}
                  </td>
                  <td className="num">{stack.before}</td>
                  <td className="num">{stack.after}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </div>
  );
}

function ThreadList({ title, label, threads }: { title: string; label: string; threads: Thread[] }) {
  if (threads.length === 0) return null;
  return (
    <section aria-label={label}>
      <h4>
        {title} ({threads.length})
      </h4>
      <ul className="diff-list">
        {threads.map((thread, index) => (
          <li key={`${thread.name}#${index}`}>
            <span className="filename">{thread.name}</span>{" "}
            <span className={`thread-state thread-state-${thread.state}`}>{stateLabel(thread.state)}</span>{" "}
            <span className="mono muted small">{headline(thread.frames)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

