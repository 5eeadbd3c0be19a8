/** The timeline's public contract (see /work/notes/contract.md) and the shapes it reads. */
import type { Schemas } from "../api/client";
import type { TimeRange } from "../lib/urlState";
import type { Marker } from "./Markers";

/** UTC epoch ms; the app's own range type (the page keeps it in the URL). */
export type { TimeRange };

export interface SeriesHighlight {
  series: string | null;
  labels: Record<string, string>;
  from_ms: number | null;
  to_ms: number | null;
}

export interface TimelineProps {
  /** "/api/incidents/<id>" or "/api/shared/<token>". */
  apiBase: string;
  /** IANA zone of the incident: every time shown in it, zone visible. */
  timezone: string;
  /** The incident's whole extent; what Reset returns to. */
  window: TimeRange | null;
  /** Visible range; null = the whole window. */
  range: TimeRange | null;
  onRangeChange: (range: TimeRange | null) => void;
  host: string | null;
  onHostChange: (host: string | null) => void;
  highlight: SeriesHighlight | null;
  readOnly: boolean;
  onAnnotate?: (range: TimeRange) => void;
  /** Series names added as lanes (kept by the page, e.g. in the URL); the timeline keeps its own without. */
  lanes?: string[];
  onLanesChange?: (lanes: string[]) => void;
  /** A marker was clicked: the page shows its details (GC pause, overflow, thread dump ...). */
  onMarkerSelect?: (marker: Marker) => void;
}

export type SeriesMeta = Schemas["SeriesRead"];
export type TimelineSeries = Schemas["TimelineSeries"];
export type EventRead = Schemas["EventRead"];
export type EventKindSummary = Schemas["EventKindSummary"];
