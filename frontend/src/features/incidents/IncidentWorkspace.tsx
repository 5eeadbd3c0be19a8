import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { RefObject } from "react";
import { useChecklist, useLiveIncident } from "../../api/queries";
import type { Evidence, Finding, Incident } from "../../api/types";
import { ErrorBoundary } from "../../components/ErrorBoundary";
import { Loading } from "../../components/States";
import { formatApart, type Focus } from "../../lib/focus";
import { formatRange } from "../../lib/time";
import { clampToWindow, type TimeRange } from "../../lib/urlState";
import { useViewState } from "../../lib/useViewState";
// Bundled eagerly (not a lazy chunk): the timeline's /series and /timeline requests then start as
// soon as the incident is read, instead of after one more round trip for the chunk.
import Timeline, { type SeriesHighlight } from "../../timeline/Timeline";
import { ActionItemsPanel } from "../actions/ActionItems";
import type { Marker } from "../../timeline/Markers";
import { useSeriesList } from "../../timeline/data";
import { evidenceRange } from "../../timeline/evidenceRange";
import { AnnotationForm, AnnotationList } from "../annotations/Annotations";
import { ArtifactsTable } from "../artifacts/ArtifactsTable";
import { Checklist, ParseProgress } from "../checklist/Checklist";
import { MarkerDetails } from "../events/MarkerDetails";
import { UploadPanel, type UploadQueue } from "../upload/UploadPanel";
import { sameRange, useOpenOnTheData } from "./openOnTheData";

// Recharts is only needed by the coverage chart: keep it out of the main bundle.
const CoverageChart = lazy(() =>
  import("../coverage/CoverageChart").then((module) => ({ default: module.CoverageChart })),
);

/** The highlight for the selected evidence item, with its host as a label. */
export function highlightFor(evidence: Evidence | undefined): SeriesHighlight | null {
  if (!evidence) return null;
  return {
    series: evidence.series,
    labels: { ...evidence.labels, ...(evidence.host && !evidence.labels.host ? { host: evidence.host } : {}) },
    from_ms: evidence.from_ms,
    to_ms: evidence.to_ms,
  };
}

/**
 * Timeline beside the checklist, annotations under the timeline, then the artifacts (and the
 * upload panel when editable). Used by the incident page and, read-only, by the shared view.
 */
export function IncidentWorkspace({
  apiBase,
  incident,
  readOnly,
  allowRaw,
  author,
  upload,
}: {
  apiBase: string;
  incident: Incident;
  readOnly: boolean;
  allowRaw: boolean;
  author?: string;
  /** The page's upload queue and where its panel goes (editable pages only). */
  upload?: { queue: UploadQueue; panel: RefObject<HTMLElement | null> };
}) {
  const [view, setView] = useViewState();
  const [annotating, setAnnotating] = useState<TimeRange | null>(null);
  const [marker, setMarker] = useState<Marker | null>(null);
  // The details open below the lanes, a screen or more from the marker clicked: show them.
  const details = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (marker) details.current?.scrollIntoView?.({ block: "nearest", behavior: "smooth" });
  }, [marker]);
  const checklist = useChecklist(apiBase);
  // Uploads, parses and reviews made elsewhere (the collector, curl, another browser) show up here.
  useLiveIncident(apiBase);
  const timezone = incident.timezone;

  // The incident's whole extent (named so as not to shadow the global `window`).
  const extent = useMemo<TimeRange | null>(
    () =>
      incident.window_start_ms !== null && incident.window_end_ms !== null
        ? { from: incident.window_start_ms, to: incident.window_end_ms }
        : null,
    [incident.window_start_ms, incident.window_end_ms],
  );

  // A link's range outside the incident's window shows the part inside it (or all of it).
  useEffect(() => {
    const clamped = clampToWindow(view.range, extent);
    if (clamped !== view.range) setView({ range: clamped }, { replace: true });
  }, [view.range, extent, setView]);

  const focus = useOpenOnTheData(apiBase, view, extent, checklist.data?.findings, setView);
  const focusedRange = focus && clampToWindow(focus.range, extent);
  const focused = focus && focusedRange && view.range && sameRange(view.range, focusedRange) ? focus : null;

  const selectedFinding = checklist.data?.findings.find((finding) => finding.id === view.finding);
  const highlight = useMemo(
    () => highlightFor(view.evidence !== null ? selectedFinding?.evidence[view.evidence] : undefined),
    [selectedFinding, view.evidence],
  );

  // The timeline reads the same list (one request): it tells each series' pace.
  const seriesList = useSeriesList(apiBase);
  const onSelectEvidence = useCallback(
    (finding: Finding, index: number, evidence: Evidence) => {
      const range = evidenceRange(highlightFor(evidence)!, seriesList.data, extent);
      setView({
        finding: finding.id,
        evidence: index,
        ...(range ? { range } : {}),
        ...(view.host && evidence.host && view.host !== evidence.host ? { host: evidence.host } : {}),
      });
    },
    [setView, view.host, seriesList.data, extent],
  );
  const onRangeChange = useCallback((range: TimeRange | null) => setView({ range }), [setView]);
  const onHostChange = useCallback((host: string | null) => setView({ host }), [setView]);
  const onLanesChange = useCallback((lanes: string[]) => setView({ lanes }), [setView]);

  return (
    <>
      <div className="workspace">
        <div className="workspace-main">
          <section className="panel timeline-panel" aria-labelledby="timeline-title">
            <div className="panel-title-row">
              <h2 id="timeline-title">Timeline</h2>
              <ViewSummary
                range={view.range}
                host={view.host}
                timezone={timezone}
                focus={focused}
                onReset={() => setView({ range: null, host: null, finding: null })}
              />
            </div>
            <ErrorBoundary label="The timeline">
              <Timeline
                apiBase={apiBase}
                timezone={timezone}
                window={extent}
                range={view.range}
                onRangeChange={onRangeChange}
                host={view.host}
                onHostChange={onHostChange}
                highlight={highlight}
                readOnly={readOnly}
                onAnnotate={readOnly ? undefined : setAnnotating}
                lanes={view.lanes}
                onLanesChange={onLanesChange}
                onMarkerSelect={setMarker}
              />
            </ErrorBoundary>
          </section>
          {marker && (
            <div ref={details}>
              <ErrorBoundary label="The event details">
                <MarkerDetails
                  key={`${marker.kind}:${marker.t}:${marker.event?.id ?? marker.text}`}
                  apiBase={apiBase}
                  marker={marker}
                  timezone={timezone}
                  onClose={() => setMarker(null)}
                />
              </ErrorBoundary>
            </div>
          )}
          {annotating && !readOnly && (
            <AnnotationForm
              apiBase={apiBase}
              range={annotating}
              timezone={timezone}
              author={author}
              host={view.host}
              onDone={() => setAnnotating(null)}
            />
          )}
          <section className="panel" aria-labelledby="annotations-title">
            <div className="panel-title-row">
              <h2 id="annotations-title">Annotations</h2>
              {!readOnly && (
                <button
                  type="button"
                  className="button-small"
                  onClick={() => setAnnotating(view.range ?? extent ?? { from: Date.now(), to: Date.now() })}
                >
                  Annotate the visible range
                </button>
              )}
            </div>
            <ErrorBoundary label="The annotations">
              <AnnotationList apiBase={apiBase} timezone={timezone} readOnly={readOnly} onShowRange={(range) => setView({ range })} />
            </ErrorBoundary>
          </section>
          <section className="panel" aria-labelledby="actions-title">
            <h2 id="actions-title">Action items</h2>
            <ErrorBoundary label="The action items">
              <ActionItemsPanel apiBase={apiBase} readOnly={readOnly} />
            </ErrorBoundary>
          </section>
        </div>
        <aside className="workspace-side panel" aria-labelledby="checklist-title">
          <h2 id="checklist-title">Checklist</h2>
          <ErrorBoundary label="The checklist">
            <ParseProgress apiBase={apiBase} />
            <Checklist
              apiBase={apiBase}
              timezone={timezone}
              readOnly={readOnly}
              selectedFinding={view.finding}
              selectedEvidence={view.evidence}
              onSelectEvidence={onSelectEvidence}
              author={author}
              onShowRange={onRangeChange}
            />
          </ErrorBoundary>
        </aside>
      </div>

      {!readOnly && upload && (
        <ErrorBoundary label="The upload panel">
          <UploadPanel ref={upload.panel} apiBase={apiBase} timezone={timezone} queue={upload.queue} />
        </ErrorBoundary>
      )}
      <section className="panel" aria-labelledby="artifacts-title">
        <h2 id="artifacts-title">Artifacts</h2>
        <ErrorBoundary label="The coverage chart">
          <Suspense fallback={<Loading label="Loading coverage…" />}>
            <CoverageChart apiBase={apiBase} timezone={timezone} />
          </Suspense>
        </ErrorBoundary>
        <ErrorBoundary label="The artifacts table">
          <ArtifactsTable apiBase={apiBase} timezone={timezone} readOnly={readOnly} allowRaw={allowRaw} />
        </ErrorBoundary>
      </section>
    </>
  );
}

function ViewSummary({
  range,
  host,
  timezone,
  focus,
  onReset,
}: {
  range: TimeRange | null;
  host: string | null;
  timezone: string;
  /** Set when the page opened on where the data is (and the view has not moved since). */
  focus: Focus | null;
  onReset: () => void;
}) {
  if (!range && !host) return <span className="muted small">Whole incident, all hosts · times in {timezone}</span>;
  return (
    <span className="small view-summary">
      {range ? <span className="mono">{formatRange(range.from, range.to, timezone)}</span> : "Whole incident"}
      {host ? ` · host ${host}` : " · all hosts"}
      {focus && (
        <span className="view-focus" data-testid="view-focus">
          {" "}
          · where {focus.inside} of {focus.inside + focus.outside} files lie; {focus.outside}{" "}
          {focus.outside === 1 ? "lies" : "lie"} {formatApart(focus.apartMs)} away
        </span>
      )}{" "}
      <button type="button" className="button-link" onClick={onReset}>
        Show everything
      </button>
    </span>
  );
}
