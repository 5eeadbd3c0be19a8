/**
 * The incident timeline: lanes stacked on one shared time axis with a synchronised cursor (one
 * tooltip, in the hovered lane), event markers across all lanes, drag-to-zoom (or
 * drag-to-annotate), zoom/pan/reset buttons, a host filter and a picker for any stored series.
 * Points come downsampled from the API for the visible range, about one per pixel, and are
 * re-read when the range changes while the previous ones stay on screen. The user's lane layout
 * (added series, order, collapsed, log scale, y range, hidden lines) lives in the URL.
 *
 * This file composes; the decisions live in pure, tested modules: lanes.ts (what each lane
 * draws), status.ts (lane state), events.ts (strip markers and counts), layout.ts (the URL's
 * layout), legend.ts, tooltip.ts, inspect.ts, format.ts (units).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { MouseEvent as ReactMouseEvent } from "react";
import { useSearchParams } from "react-router";
import { useAnnotations } from "../api/queries";
import { formatDuration } from "../lib/time";
import { Lane, PLOT_HEIGHT, PLOT_LEFT, PLOT_RIGHT, PLOT_TOP, plotWidthOf } from "./Lane";
import type { TimeTick } from "./Lane";
import { MARKER_COLORS, MarkerOverlay, MarkerStrip } from "./Markers";
import { SeriesPicker } from "./SeriesPicker";
import {
  createCursorStore,
  linePoints,
  mergeSeries,
  timelineQuery,
  useConnectionCount,
  useEvents,
  usePinnedSeries,
  useSeriesList,
  useTimelineBatches,
} from "./data";
import type { Batch, LinePoints } from "./data";
import { stripMarkers } from "./events";
import { formatFull, formatTick, tickStep, timeTicks, zoneLabel } from "./format";
import { batchIds, highlightMatches, hostsOf, pinKey, planLanes, seriesNames } from "./lanes";
import type { LanePlan, Plan } from "./lanes";
import { formatLayout, LAYOUT_PARAM, moveLane, orderLanes, parseLayout, patchLane } from "./layout";
import type { LaneLayout, Layout } from "./layout";
import { clampRange, maxPointsFor, panRange, sameRange, viewableExtent, xToTime, zoomRange } from "./range";
import { laneStatus } from "./status";
import type { LaneStatus } from "./status";
import type { CursorAt } from "./tooltip";
import type { SeriesMeta, TimeRange, TimelineProps, TimelineSeries } from "./types";
import { useWidth } from "./useWidth";
import { useQueryClient } from "@tanstack/react-query";
import "./timeline.css";

export type { SeriesHighlight, TimeRange, TimelineProps } from "./types";

/** Series ids per timeline request (the API reads at most 200 per call). */
const BATCH_SERIES = 120;
/** Markers per kind drawn in view (the longest GC pauses, the first others). */
const MAX_MARKERS = 200;

function extentOf(series: readonly SeriesMeta[] | undefined): TimeRange | null {
  if (!series?.length) return null;
  let from = Infinity;
  let to = -Infinity;
  for (const s of series) {
    if (s.first_ms < from) from = s.first_ms;
    if (s.last_ms > to) to = s.last_ms;
  }
  return { from, to: Math.max(to, from + 1000) };
}

/** The lane layout in the URL (`layout`), and how to change it (the rest of the URL is kept). */
function useLayout(): [Layout, (change: (layout: Layout) => Layout) => void] {
  const [params, setParams] = useSearchParams();
  const text = params.get(LAYOUT_PARAM);
  const layout = useMemo(() => parseLayout(text), [text]);
  const setLayout = useCallback(
    (change: (layout: Layout) => Layout) => {
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          const value = formatLayout(change(parseLayout(current.get(LAYOUT_PARAM))));
          if (value === null) next.delete(LAYOUT_PARAM);
          else next.set(LAYOUT_PARAM, value);
          return next;
        },
        { replace: true },
      );
    },
    [setParams],
  );
  return [layout, setLayout];
}

const NO_LANE_LAYOUT: LaneLayout = {};

const sameCursor = (a: CursorAt, b: CursorAt) => a.t === b.t && a.lane === b.lane;

/** The fixed lanes' series in one request, each added lane apart (adding one refetches nothing else). */
function batchesFor(plan: Plan, range: TimeRange | null, maxPoints: number): Batch[] {
  const fixed = plan.lanes.filter((l) => !l.key.includes(":"));
  const extra = plan.lanes.filter((l) => l.key.includes(":"));
  const groups = [batchIds(fixed, BATCH_SERIES), ...extra.map((l) => batchIds([l], BATCH_SERIES))].flat();
  return groups.map((ids) => ({ ids, range, maxPoints }));
}

export default function Timeline(props: TimelineProps) {
  const { apiBase, timezone, window: incidentWindow, range, onRangeChange, host, onHostChange, highlight, readOnly, onAnnotate, lanes, onLanesChange, onMarkerSelect } = props;
  const [lanesRef, width] = useWidth<HTMLDivElement>();
  const plotWidth = plotWidthOf(width);
  const [layout, setLayout] = useLayout();
  // Added series: the page's when it keeps them (its view state, `lanes=` in the URL, which a
  // share link stores), else the layout's.
  const added = lanes ?? layout.added;
  const setAdded = useCallback(
    (update: (current: string[]) => string[]) => {
      if (onLanesChange) onLanesChange(update(lanes ?? []));
      else setLayout((l) => ({ ...l, added: update(l.added) }));
    },
    [lanes, onLanesChange, setLayout],
  );
  const allZeros = useMemo(
    () => new Set(Object.entries(layout.lanes).filter(([, l]) => l.zeros).map(([k]) => k)),
    [layout.lanes],
  );
  const [annotating, setAnnotating] = useState(false);
  const canAnnotate = !readOnly && !!onAnnotate;

  // The page may pass a new highlight object on every render: key it by content.
  const highlightKey = highlight ? JSON.stringify(highlight) : "";
  // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed by content, not identity
  const hl = useMemo(() => highlight, [highlightKey]);
  const list = useSeriesList(apiBase);
  // Connections drawn beside the busiest ones: picked by address, and the evidence's own.
  const [picked, setPicked] = useState<string[]>([]);
  const evidencePin =
    hl?.series?.startsWith("tcp.conn.") && hl.labels.local && hl.labels.peer ? pinKey({ local: hl.labels.local, peer: hl.labels.peer }) : null;
  const pins = useMemo(() => [...new Set([...picked, ...(evidencePin ? [evidencePin] : [])])], [picked, evidencePin]);
  const pinSet = useMemo(() => new Set(pins), [pins]);
  const pinnedSeries = usePinnedSeries(apiBase, pins);
  const listData = useMemo(() => mergeSeries(list.data, pinnedSeries), [list.data, pinnedSeries]);
  const connectionsTotal = useConnectionCount(apiBase).data ?? 0;
  const bounds = useMemo(() => viewableExtent(incidentWindow ?? extentOf(listData)), [incidentWindow, listData]);
  const visible = useMemo<TimeRange | null>(
    () => (range ? { from: range.from, to: range.to } : bounds),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed by the range's numbers, not the objects' identity
    [range?.from, range?.to, bounds?.from, bounds?.to],
  );

  const plan = useMemo(
    () => planLanes(listData ?? [], { host, range: visible, added, highlight: hl, allZeros, pinned: pinSet, connectionsTotal }),
    [listData, host, visible, added, hl, allZeros, pinSet, connectionsTotal],
  );
  const hosts = useMemo(() => hostsOf(listData ?? []), [listData]);
  const names = useMemo(() => seriesNames(listData ?? []), [listData]);

  // Requests: the fixed lanes together, each added lane apart (adding one refetches nothing else).
  const maxPoints = maxPointsFor(plotWidth);
  const batches = useMemo<Batch[]>(
    () => (!width || !listData ? [] : batchesFor(plan, visible, maxPoints)),
    [plan, visible, maxPoints, width, listData],
  );
  const results = useTimelineBatches(apiBase, batches);

  const dataKey = results.map((r) => r.dataUpdatedAt).join(",");
  const byId = useMemo(() => {
    const map = new Map<number, TimelineSeries>();
    for (const r of results) for (const s of r.data?.series ?? []) map.set(s.id, s);
    return map;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- dataKey changes exactly when the fetched batches do
  }, [dataKey]);
  // Which requests (indices into `batches`/`results`) carry each lane's series.
  const laneBatches = useMemo(() => {
    const batchOf = new Map<number, number>();
    batches.forEach((b, i) => b.ids.forEach((id) => batchOf.set(id, i)));
    const map = new Map<string, number[]>();
    for (const lane of plan.lanes) {
      map.set(lane.key, [...new Set(lane.lines.flatMap((l) => l.ids.map((id) => batchOf.get(id) ?? -1)))]);
    }
    return map;
  }, [batches, plan]);

  const points = useMemo(() => {
    const map = new Map<string, LinePoints[]>();
    for (const lane of plan.lanes) map.set(lane.key, linePoints(lane.lines, byId));
    return map;
  }, [plan, byId]);

  const statusOf = (lane: LanePlan): LaneStatus =>
    laneStatus({
      listError: list.isError ? list.error.message : null,
      listReady: !!listData,
      width,
      lines: lane.lines.length,
      requests: (laneBatches.get(lane.key) ?? []).map((i) => results[i]),
      visible,
      hasPoints: (points.get(lane.key) ?? []).some((p) => p.t.length > 0),
    });

  // ---- markers ----
  const events = useEvents(apiBase, visible, host);
  const annotations = useAnnotations(apiBase);
  const gcInView = events.data?.kinds.find((k) => k.kind === "gc_pause")?.count ?? null;
  const markerInfo = useMemo(() => {
    if (!visible) return { markers: [], entries: [] };
    const linesOf = (key: string) => {
      const lane = plan.lanes.find((l) => l.key === key);
      const pts = points.get(key) ?? [];
      return (lane?.lines ?? []).map((line, i) => ({ points: pts[i] ?? { t: [], v: [] }, name: line.name, label: line.label, labels: line.labels }));
    };
    return stripMarkers({
      visible,
      gc: linesOf("gc_pauses"),
      overflows: linesOf("listen_overflows"),
      events: events.data?.items ?? [],
      kinds: events.data?.kinds ?? [],
      annotations: annotations.data ?? [],
      host,
      maxMarkers: MAX_MARKERS,
    });
  }, [visible, plan, points, events.data, annotations.data, host]);

  // ---- highlight ----
  const emphasis = useMemo(() => {
    if (!hl?.series || !plan.highlightLane) return null;
    const lane = plan.lanes.find((l) => l.key === plan.highlightLane);
    if (!lane) return null;
    return new Set(lane.lines.filter((l) => highlightMatches(hl, l.name, l.labels)).map((l) => l.key));
  }, [hl, plan]);
  const shade = useMemo<TimeRange | null>(() => {
    if (!hl || hl.from_ms === null) return null;
    return { from: hl.from_ms, to: hl.to_ms ?? hl.from_ms };
  }, [hl]);
  const laneEls = useRef(new Map<string, HTMLElement>());
  const sectionRefs = useMemo(() => {
    const refs = new Map<string, (el: HTMLElement | null) => void>();
    for (const lane of plan.lanes) {
      refs.set(lane.key, (el) => {
        if (el) laneEls.current.set(lane.key, el);
        else laneEls.current.delete(lane.key);
      });
    }
    return refs;
  }, [plan]);
  const highlightTarget = hl?.series ? `${plan.highlightLane}|${highlightKey}` : null;
  useEffect(() => {
    if (!highlightTarget || !plan.highlightLane) return;
    const el = laneEls.current.get(plan.highlightLane);
    el?.scrollIntoView?.({ block: "nearest", behavior: "smooth" });
    // Only when the evidence changes, not on every zoom.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the evidence changes, not on every zoom
  }, [highlightTarget, !!listData]);

  // ---- actions ----
  // On a range change the points for the new range are asked for at once, while the page
  // re-renders with the previous points (the lanes' queries then find the request under way).
  const queryClient = useQueryClient();
  const prefetch = useCallback(
    (next: TimeRange | null) => {
      if (!width || !listData || !next) return;
      const nextPlan = planLanes(listData, { host, range: next, added, highlight: hl, allZeros, pinned: pinSet, connectionsTotal });
      for (const b of batchesFor(nextPlan, next, maxPoints)) void queryClient.prefetchQuery(timelineQuery(apiBase, b));
    },
    [width, listData, host, added, hl, allZeros, pinSet, connectionsTotal, maxPoints, queryClient, apiBase],
  );
  const setRange = useCallback(
    (next: TimeRange | null) => {
      if (!next || (bounds && next.from <= bounds.from && next.to >= bounds.to)) {
        prefetch(bounds);
        onRangeChange(null);
      } else {
        prefetch(next);
        onRangeChange(next);
      }
    },
    [bounds, onRangeChange, prefetch],
  );
  const annotatingRef = useRef(annotating);
  annotatingRef.current = annotating;
  const onSelect = useCallback(
    (picked: TimeRange) => {
      if (annotatingRef.current && onAnnotate) {
        setAnnotating(false);
        onAnnotate(picked);
      } else {
        setRange(clampRange(picked, bounds));
      }
    },
    [onAnnotate, setRange, bounds],
  );
  useEffect(() => {
    if (!annotating) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setAnnotating(false);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [annotating]);

  const retryFns = useMemo(() => {
    const fns = new Map<string, () => void>();
    for (const lane of plan.lanes) {
      fns.set(lane.key, () => {
        if (list.isError) void list.refetch();
        for (const i of laneBatches.get(lane.key) ?? []) void results[i]?.refetch();
      });
    }
    return fns;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- dataKey stands for the fetched batches' content
  }, [plan, laneBatches, list.isError, dataKey]);
  const removeFns = useMemo(() => {
    const fns = new Map<string, () => void>();
    for (const p of added) {
      fns.set(`added:${p}`, () => setAdded((a) => a.filter((x) => x !== p)));
    }
    return fns;
  }, [added, setAdded]);
  const onLaneLayout = useCallback(
    (key: string, change: Partial<LaneLayout>) => setLayout((l) => patchLane(l, key, change)),
    [setLayout],
  );

  // The shared time axis: about one tick per 90 px.
  const ticks = useMemo<TimeTick[]>(() => {
    if (!visible) return [];
    const maxTicks = Math.max(2, Math.floor(plotWidth / 90));
    const step = tickStep(visible.to - visible.from, maxTicks);
    return timeTicks(visible.from, visible.to, timezone, maxTicks).map((t) => ({ t, label: formatTick(t, timezone, step) }));
  }, [visible, timezone, plotWidth]);

  // Lanes with series first (in definition order), the empty ones (what to collect) after;
  // then in the order the user gave them.
  const orderedLanes = useMemo(
    () => orderLanes([...plan.lanes.filter((l) => l.lines.length), ...plan.lanes.filter((l) => !l.lines.length)], layout.order),
    [plan, layout.order],
  );
  const orderKeys = useMemo(() => orderedLanes.map((l) => l.key), [orderedLanes]);
  const orderRef = useRef(orderKeys);
  orderRef.current = orderKeys;
  const onMove = useCallback(
    (key: string, delta: number) => setLayout((l) => ({ ...l, order: moveLane(orderRef.current, key, delta) })),
    [setLayout],
  );
  const zoomed = !!range && !!bounds && !sameRange(range, bounds);

  // The shared cursor: one mousemove handler for every lane; each lane's cursor subscribes to it.
  const [cursor] = useState(() => createCursorStore<CursorAt>(sameCursor));
  const visibleRef = useRef(visible);
  visibleRef.current = visible;
  const onLanesMove = useCallback(
    (e: ReactMouseEvent<HTMLDivElement>) => {
      const chart = (e.target as Element).closest?.(".tl-chart");
      const shown = visibleRef.current;
      const lane = chart?.closest("[data-lane]")?.getAttribute("data-lane");
      if (!chart || !shown || !lane) return cursor.set(null);
      const rect = chart.getBoundingClientRect();
      const x = e.clientX - rect.left - PLOT_LEFT;
      const y = e.clientY - rect.top;
      if (x < 0 || x > plotWidth || y < PLOT_TOP || y > PLOT_TOP + PLOT_HEIGHT) return cursor.set(null);
      cursor.set({ t: xToTime(x, plotWidth, shown), lane });
    },
    [cursor, plotWidth],
  );
  const onLanesLeave = useCallback(() => cursor.set(null), [cursor]);
  const fetching = results.some((r) => r.isFetching) || list.isFetching;

  return (
    <div className={`tl${annotating ? " tl--annotating" : ""}`}>
      <div className="tl-toolbar" role="toolbar" aria-label="Timeline controls">
        <div className="tl-toolbar__group">
          <button type="button" className="tl-btn" disabled={!visible} onClick={() => visible && setRange(zoomRange(visible, 0.5, bounds))} aria-label="Zoom in">
            Zoom in
          </button>
          <button type="button" className="tl-btn" disabled={!visible || !zoomed} onClick={() => visible && setRange(zoomRange(visible, 2, bounds))} aria-label="Zoom out">
            Zoom out
          </button>
          <button type="button" className="tl-btn" disabled={!visible || !zoomed} onClick={() => visible && setRange(panRange(visible, -0.5, bounds))} aria-label="Pan earlier">
            ◀ Earlier
          </button>
          <button type="button" className="tl-btn" disabled={!visible || !zoomed} onClick={() => visible && setRange(panRange(visible, 0.5, bounds))} aria-label="Pan later">
            Later ▶
          </button>
          <button type="button" className="tl-btn" disabled={!zoomed} onClick={() => setRange(null)}>
            Reset zoom
          </button>
          {canAnnotate && (
            <button
              type="button"
              className={`tl-btn${annotating ? " tl-btn--on" : ""}`}
              aria-pressed={annotating}
              onClick={() => setAnnotating((a) => !a)}
              title="Then drag across any lane to pick the range to annotate"
            >
              Annotate range
            </button>
          )}
        </div>
        <div className="tl-toolbar__group">
          <label className="tl-field">
            Host{" "}
            <select value={host ?? ""} onChange={(e) => onHostChange(e.target.value || null)}>
              <option value="">All hosts</option>
              {hosts.map((h) => (
                <option key={h} value={h}>
                  {h}
                </option>
              ))}
              {host && !hosts.includes(host) && <option value={host}>{host}</option>}
            </select>
          </label>
          <SeriesPicker
            names={names}
            apiBase={apiBase}
            onAdd={(p) => setAdded((a) => (a.includes(p) ? a : [...a, p]))}
            onPin={(c) => {
              const key = pinKey(c);
              setPicked((p) => (p.includes(key) ? p : [...p, key]));
            }}
          />
        </div>
      </div>
      <div className="tl-status" aria-live="polite">
        {visible ? (
          <>
            <span className="tl-status__range">
              {formatFull(visible.from, timezone)} – {formatFull(visible.to, timezone)}
            </span>{" "}
            <span className="tl-status__zone">{zoneLabel(visible.from, timezone)}</span>{" "}
            <span className="tl-status__span">· {formatDuration(visible.to - visible.from)}</span>
          </>
        ) : list.isPending ? (
          "Loading series…"
        ) : (
          "No series stored for this incident yet: upload artifacts to fill the timeline."
        )}
        {fetching && <span className="tl-status__busy"> · loading…</span>}
        {annotating && <strong className="tl-status__hint"> Drag across a lane to select the range to annotate (Esc cancels).</strong>}
      </div>
      {visible && width > 0 && (
        <div className="tl-strip" style={{ paddingLeft: PLOT_LEFT, paddingRight: PLOT_RIGHT }}>
          <MarkerStrip markers={markerInfo.markers} range={visible} width={plotWidth} timezone={timezone} onSelect={onMarkerSelect} />
          <ul className="tl-strip__legend" aria-label="Event markers">
            {markerInfo.entries.map((e) => (
              <li key={e.key} data-event={e.key}>
                <span className="tl-swatch" style={{ background: MARKER_COLORS[e.kind] }} aria-hidden="true" />
                {e.label}
              </li>
            ))}
          </ul>
        </div>
      )}
      <div className="tl-lanes" ref={lanesRef} onMouseMove={onLanesMove} onMouseLeave={onLanesLeave}>
        {visible && width > 0 && (
          <div className="tl-overlay-wrap" style={{ left: PLOT_LEFT, width: plotWidth }}>
            <MarkerOverlay markers={markerInfo.markers} range={visible} width={plotWidth} shade={shade} />
          </div>
        )}
        {orderedLanes.map((lane, index) => {
          const status = statusOf(lane);
          return (
            <Lane
              key={lane.key}
              plan={lane}
              points={points.get(lane.key)!}
              state={status.state}
              drawn={status.drawn}
              domain={visible ?? { from: 0, to: 1 }}
              width={width}
              timezone={timezone}
              ticks={ticks}
              emphasis={lane.key === plan.highlightLane ? emphasis : null}
              gcPausesInView={lane.key === "gc_pauses" ? gcInView : null}
              error={status.error}
              onRetry={retryFns.get(lane.key)!}
              onSelect={onSelect}
              onRemove={removeFns.get(lane.key)}
              sectionRef={sectionRefs.get(lane.key)}
              cursor={cursor}
              layout={layout.lanes[lane.key] ?? NO_LANE_LAYOUT}
              onLayout={onLaneLayout}
              onMove={onMove}
              canMoveUp={index > 0}
              canMoveDown={index < orderedLanes.length - 1}
            />
          );
        })}
      </div>
    </div>
  );
}
