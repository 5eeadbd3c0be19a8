/**
 * The details of a clicked timeline marker, under the timeline: a GC pause (cause, phases, heap
 * before and after, duration), a listen overflow (how many, on which listener, with what backlog),
 * a thread dump (every thread, grouped by stack, compared with another dump), a Java-level deadlock
 * (each thread of the cycle, the lock it waits for and who holds it), or any other event's
 * attributes.
 */
import { useQuery } from "@tanstack/react-query";
import type { ApiError, Schemas } from "../../api/client";
import { readGet } from "../../api/reads";
import { ErrorMessage, Loading } from "../../components/States";
import { formatDuration, formatInstant, formatNumber } from "../../lib/time";
import { MARKER_NAMES, type Marker } from "../../timeline/Markers";
import { ThreadDumpView } from "../dumps/ThreadDumpView";
import { attrText, deadlockCycle, findGcPause, listenersAt, overflowAt, type EventRead } from "./details";

/** How far around a pause its cycle's other phases are looked for (a G1 mark cycle takes seconds). */
const GC_CYCLE_WINDOW_MS = 120_000;
/** How far around an overflow the listeners' snapshots are read. */
const LISTENER_WINDOW_MS = 300_000;

export function MarkerDetails({
  apiBase,
  marker,
  timezone,
  onClose,
}: {
  apiBase: string;
  marker: Marker;
  timezone: string;
  onClose: () => void;
}) {
  const title =
    marker.kind === "gc"
      ? "GC pause"
      : marker.kind === "overflow"
        ? "Listen queue overflow"
        : marker.event?.kind === "thread_dump"
          ? "Thread dump"
          : (marker.event?.kind.replace(/_/g, " ") ?? MARKER_NAMES[marker.kind]);
  return (
    <section className="panel marker-details" aria-labelledby="marker-details-title" data-testid="marker-details">
      <div className="panel-title-row">
        <h2 id="marker-details-title">
          {title} <span className="muted small mono">{formatInstant(marker.t, timezone)}</span>
        </h2>
        <button type="button" className="button-small" onClick={onClose}>
          Close <span className="visually-hidden">details</span>
        </button>
      </div>
      {marker.kind === "gc" ? (
        <GcPauseDetails apiBase={apiBase} marker={marker} timezone={timezone} />
      ) : marker.kind === "overflow" ? (
        <OverflowDetails apiBase={apiBase} marker={marker} timezone={timezone} />
      ) : marker.event?.kind === "thread_dump" ? (
        <ThreadDumpView apiBase={apiBase} event={marker.event} timezone={timezone} />
      ) : marker.event?.kind === "thread_deadlock" ? (
        <DeadlockDetails event={marker.event} />
      ) : marker.event ? (
        <Attributes event={marker.event} />
      ) : (
        <p>{marker.text}</p>
      )}
    </section>
  );
}

function hostOf(marker: Marker): string | null {
  return marker.event?.host ?? marker.source?.labels.host ?? null;
}

function GcPauseDetails({ apiBase, marker, timezone }: { apiBase: string; marker: Marker; timezone: string }) {
  const host = hostOf(marker);
  const events = useQuery<EventRead[], ApiError>({
    queryKey: [apiBase, "marker-gc", marker.t, host],
    queryFn: async ({ signal }) =>
      (
        await readGet(apiBase, "/events", {
          query: {
            kind: ["gc_pause,gc_concurrent,gc_to_space_exhausted,gc_allocation_stall"],
            from: String(marker.t - GC_CYCLE_WINDOW_MS),
            to: String(marker.t + GC_CYCLE_WINDOW_MS),
            host: host ?? undefined,
            limit: 10_000,
          },
          signal,
        })
      ).items,
  });
  if (events.isPending) return <Loading label="Reading the pause…" />;
  if (events.isError) return <ErrorMessage error={events.error} title="The pause could not be read" />;
  const found = findGcPause(events.data, { t: marker.t, durationMs: marker.duration, host });
  if (!found) return <p>{marker.text} (no pause event starts at this point).</p>;
  const { pause, phases, freedMb } = found;
  const a = pause.attrs as Record<string, unknown>;
  const mb = (value: unknown) => (typeof value === "number" ? `${formatNumber(value)} MB` : "—");
  return (
    <>
      <dl className="details-grid" data-testid="gc-pause">
        <dt>Duration</dt>
        <dd>{pause.duration_ms !== null ? formatDuration(pause.duration_ms) : "—"}</dd>
        <dt>Cause</dt>
        <dd>{typeof a.cause === "string" ? a.cause : "—"}</dd>
        <dt>Collector / type</dt>
        <dd>
          {attrText(a.collector)} · {attrText(a.type)}
        </dd>
        <dt>Heap before</dt>
        <dd>{mb(a.heap_before_mb)}</dd>
        <dt>Heap after</dt>
        <dd>
          {mb(a.heap_after_mb)}
          {typeof a.heap_total_mb === "number" && <span className="muted"> of {mb(a.heap_total_mb)}</span>}
          {freedMb !== null && <span className="muted"> (freed {formatNumber(freedMb)} MB)</span>}
        </dd>
        <dt>GC</dt>
        <dd>
          {a.gc_id !== undefined ? `#${attrText(a.gc_id)}` : "—"}
          {typeof a.uptime_s === "number" && <span className="muted"> at JVM uptime {formatNumber(a.uptime_s)} s</span>}
        </dd>
        {pause.host && (
          <>
            <dt>Host</dt>
            <dd>{pause.host}</dd>
          </>
        )}
        {a.to_space_exhausted === true && (
          <>
            <dt>Evacuation</dt>
            <dd className="warning">to-space exhausted (evacuation failure)</dd>
          </>
        )}
      </dl>
      {phases.length > 1 && (
        <>
          <h3>Phases of GC #{attrText(a.gc_id)}</h3>
          <table className="dump-threads" aria-label="Phases of this GC cycle">
            <thead>
              <tr>
                <th scope="col">Start</th>
                <th scope="col">Phase</th>
                <th scope="col" className="num">Duration</th>
              </tr>
            </thead>
            <tbody>
              {phases.map((phase) => (
                <tr key={phase.id} className={phase.id === pause.id ? "row-selected" : undefined}>
                  <td className="mono">{formatInstant(phase.time_ms, timezone)}</td>
                  <td>
                    {attrText(phase.attrs.phase ?? phase.attrs.type ?? phase.kind)}
                    {phase.kind === "gc_pause" ? <span className="muted"> (pause)</span> : <span className="muted"> (concurrent)</span>}
                  </td>
                  <td className="num">{phase.duration_ms !== null ? formatDuration(phase.duration_ms) : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </>
  );
}

function OverflowDetails({ apiBase, marker, timezone }: { apiBase: string; marker: Marker; timezone: string }) {
  const host = hostOf(marker);
  const listeners = useQuery<Schemas["TimelineSeries"][], ApiError>({
    queryKey: [apiBase, "marker-listeners", marker.t, host],
    queryFn: async ({ signal }) =>
      (
        await readGet(apiBase, "/timeline", {
          query: {
            series: ["tcp.listen.recvq,tcp.listen.backlog"],
            host: host ?? undefined,
            from: String(marker.t - LISTENER_WINDOW_MS),
            to: String(marker.t + LISTENER_WINDOW_MS),
            max_points: 200,
          },
          signal,
        })
      ).series,
  });
  const overflow = marker.source ? overflowAt(marker.source, marker.t) : null;
  const rows = listeners.data ? listenersAt(listeners.data, marker.t) : [];
  return (
    <>
      <dl className="details-grid" data-testid="overflow">
        <dt>Overflows</dt>
        <dd>
          {overflow?.increment !== null && overflow?.increment !== undefined ? (
            <>
              <strong>{formatNumber(overflow.increment)}</strong> in the {formatDuration(overflow.intervalMs!)} before this
              snapshot
            </>
          ) : (
            "—"
          )}
          {overflow && <span className="muted"> ({formatNumber(overflow.ratePerS)}/s)</span>}
        </dd>
        <dt>Counter</dt>
        <dd className="mono">{marker.source?.name ?? "—"}</dd>
        {host && (
          <>
            <dt>Host</dt>
            <dd>{host}</dd>
          </>
        )}
      </dl>
      <h3>Listeners at that time</h3>
      {listeners.isPending ? (
        <Loading label="Reading the listening sockets…" />
      ) : listeners.isError ? (
        <ErrorMessage error={listeners.error} title="The listeners could not be read" />
      ) : rows.length === 0 ? (
        <p className="muted">
          No listening-socket snapshot (<span className="mono">ss -lnt</span>) of {host ?? "this host"} near this time: the
          accept queue and backlog of each listener are not known.
        </p>
      ) : (
        <table className="dump-threads" aria-label="Listening sockets">
          <thead>
            <tr>
              <th scope="col">Listener</th>
              <th scope="col" className="num">Accept queue</th>
              <th scope="col" className="num">Backlog</th>
              <th scope="col" className="num">Peak queue (±5 min)</th>
              <th scope="col">Snapshot</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.host}|${row.listener}`}>
                <td className="mono">{row.listener}</td>
                <td className="num">{row.queued ?? "—"}</td>
                <td className="num">{row.backlog ?? "—"}</td>
                <td className={row.peakQueued !== null && row.backlog !== null && row.peakQueued >= row.backlog ? "num warning" : "num"}>
                  {row.peakQueued ?? "—"}
                </td>
                <td className="mono small">{row.at !== null ? formatInstant(row.at, timezone) : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function DeadlockDetails({ event }: { event: EventRead }) {
  const steps = deadlockCycle(event.attrs);
  if (steps.length === 0) return <Attributes event={event} />;
  return (
    <>
      <p>
        The JVM found a Java-level deadlock in this dump: each thread below waits for a lock the next one holds, so none
        of them can go on until the JVM restarts.
      </p>
      <ol className="deadlock-cycle" aria-label="Deadlock cycle" data-testid="deadlock-cycle">
        {steps.map((step, i) => (
          <li key={`${i}-${step.thread}`}>
            <strong className="mono">{step.thread}</strong> waits for{" "}
            {step.lock ? (
              <span className="mono">
                &lt;{step.lock}&gt;{step.lockClass && <span className="muted"> (a {step.lockClass})</span>}
              </span>
            ) : (
              "a lock"
            )}{" "}
            held by <strong className="mono">{step.heldBy ?? "a thread the dump does not name"}</strong>
          </li>
        ))}
      </ol>
      {event.host && <p className="muted small">Host {event.host}</p>}
    </>
  );
}

function Attributes({ event }: { event: EventRead }) {
  const entries = Object.entries(event.attrs);
  return (
    <dl className="details-grid">
      {event.duration_ms !== null && (
        <>
          <dt>Duration</dt>
          <dd>{formatDuration(event.duration_ms)}</dd>
        </>
      )}
      {event.host && (
        <>
          <dt>Host</dt>
          <dd>{event.host}</dd>
        </>
      )}
      {entries.map(([key, value]) => (
        <FragmentRow key={key} name={key} value={value} />
      ))}
    </dl>
  );
}

function FragmentRow({ name, value }: { name: string; value: unknown }) {
  return (
    <>
      <dt className="mono">{name}</dt>
      <dd className="mono details-value">{typeof value === "string" ? value : JSON.stringify(value)}</dd>
    </>
  );
}
