/**
 * Where the timeline (the other helper's `src/timeline/Timeline.tsx`, default export) goes.
 * Found through `import.meta.glob` so the app builds before that file exists and picks it up
 * as soon as it does; until then a placeholder says what will be there. Bundled eagerly (not a
 * lazy chunk): the timeline's /series and /timeline requests then start as soon as the incident
 * is read, instead of after one more round trip for the chunk.
 */
import type { ComponentType } from "react";
import { ErrorBoundary } from "../../components/ErrorBoundary";
import type { TimeRange } from "../../lib/urlState";

export type { TimeRange };

/** The contract's props (notes/contract.md, "The timeline component"). */
export interface SeriesHighlight {
  series: string | null;
  labels: Record<string, string>;
  from_ms: number | null;
  to_ms: number | null;
}

export interface TimelineProps {
  apiBase: string;
  timezone: string;
  window: TimeRange | null;
  range: TimeRange | null;
  onRangeChange: (range: TimeRange | null) => void;
  host: string | null;
  onHostChange: (host: string | null) => void;
  highlight: SeriesHighlight | null;
  readOnly: boolean;
  onAnnotate?: (range: TimeRange) => void;
}

const modules = import.meta.glob<{ default: ComponentType<TimelineProps> }>("../../timeline/Timeline.tsx", {
  eager: true,
});
const Timeline = Object.values(modules)[0]?.default ?? null;

export function TimelineSlot(props: TimelineProps) {
  if (!Timeline) return <TimelinePlaceholder {...props} />;
  return (
    <ErrorBoundary label="The timeline">
      <Timeline {...props} />
    </ErrorBoundary>
  );
}

function TimelinePlaceholder({ range, window: extent, host, highlight }: TimelineProps) {
  const shown = range ?? extent;
  return (
    <div className="timeline-placeholder" data-testid="timeline-placeholder">
      <p>The timeline will be drawn here.</p>
      <dl className="facts">
        <dt>Range</dt>
        <dd className="mono">{shown ? `${shown.from} – ${shown.to}` : "whole incident"}</dd>
        <dt>Host</dt>
        <dd>{host ?? "all hosts"}</dd>
        {highlight && (
          <>
            <dt>Highlight</dt>
            <dd className="mono">{highlight.series ?? "(no series)"}</dd>
          </>
        )}
      </dl>
    </div>
  );
}
