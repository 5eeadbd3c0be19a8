/** What a lane shows: loading, drawn, empty or error, from the state of its requests. Pure. */
import { sameRange } from "./range";
import type { TimeRange } from "./types";

export type LaneState = "loading" | "drawn" | "empty" | "error";

export interface RequestState {
  isError: boolean;
  error?: { message: string } | null;
  isPlaceholderData: boolean;
  data?: { range: TimeRange | null } | undefined;
}

export interface StatusInput {
  /** The series list failed (every lane says so), or is not read yet. */
  listError: string | null;
  listReady: boolean;
  width: number;
  lines: number;
  /** The requests carrying the lane's series (undefined: not made). */
  requests: readonly (RequestState | undefined)[];
  visible: TimeRange | null;
  /** Whether any of the lane's lines has a point. */
  hasPoints: boolean;
}

export interface LaneStatus {
  state: LaneState;
  /** The range the points on screen were read for. */
  drawn: TimeRange | null;
  error: string | null;
}

export function laneStatus(s: StatusInput): LaneStatus {
  if (s.listError !== null) return { state: "error", drawn: null, error: s.listError };
  if (!s.listReady || !s.width) return { state: "loading", drawn: null, error: null };
  if (!s.lines) return { state: "empty", drawn: s.visible, error: null };
  const failed = s.requests.find((r) => r?.isError);
  if (failed) return { state: "error", drawn: null, error: failed.error?.message ?? "error" };
  const drawn = s.requests[0]?.data?.range ?? null;
  const fresh = s.requests.every((r) => r && r.data && !r.isPlaceholderData && sameRange(r.data.range, s.visible));
  if (!fresh) return { state: "loading", drawn, error: null };
  return { state: s.hasPoints ? "drawn" : "empty", drawn, error: null };
}
