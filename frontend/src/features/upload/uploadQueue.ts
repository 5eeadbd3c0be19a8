/**
 * The upload queue's state, as a pure reducer: files are staged (host, timezone, clock offset
 * editable), queued, sent a few at a time, and end done, failed or cancelled. The runner
 * (useUploadQueue) only starts what `nextToStart` says and feeds progress back as actions.
 */
import type { UploadResult } from "../../api/types";

export const UPLOAD_CONCURRENCY = 3;

export type UploadState = "staged" | "queued" | "uploading" | "processing" | "done" | "error" | "cancelled";

export interface UploadItem {
  id: string;
  file: File;
  host: string;
  hostGuessed: boolean;
  timezone: string;
  clockOffset: string;
  /** When the JVM started (ISO-8601 or epoch), for a GC log with uptimes only. */
  jvmStart: string;
  state: UploadState;
  loaded: number;
  total: number;
  result: UploadResult | null;
  error: string | null;
}

export type UploadAction =
  | { type: "add"; items: UploadItem[] }
  | { type: "edit"; id: string; changes: Partial<Pick<UploadItem, EditableField>> }
  | { type: "editAll"; changes: Partial<Pick<UploadItem, EditableField>> }
  | { type: "guessed"; id: string; host: string }
  | { type: "remove"; id: string }
  | { type: "queueAll" }
  | { type: "start"; id: string }
  | { type: "progress"; id: string; loaded: number; total: number }
  | { type: "sent"; id: string }
  | { type: "done"; id: string; result: UploadResult }
  | { type: "failed"; id: string; error: string }
  | { type: "cancel"; id: string }
  | { type: "retry"; id: string }
  | { type: "clearFinished" };

/** What the uploader may say about a file (each is one field of the upload form). */
export type EditableField = "host" | "timezone" | "clockOffset" | "jvmStart";

let counter = 0;

export function newItem(file: File): UploadItem {
  counter += 1;
  return {
    id: `${Date.now().toString(36)}-${counter}`,
    file,
    host: "",
    hostGuessed: false,
    timezone: "",
    clockOffset: "0",
    jvmStart: "",
    state: "staged",
    loaded: 0,
    total: file.size,
    result: null,
    error: null,
  };
}

function update(items: UploadItem[], id: string, change: (item: UploadItem) => UploadItem) {
  return items.map((item) => (item.id === id ? change(item) : item));
}

export function uploadReducer(items: UploadItem[], action: UploadAction): UploadItem[] {
  switch (action.type) {
    case "add":
      return [...items, ...action.items];
    case "edit":
      return update(items, action.id, (item) =>
        isEditable(item)
          ? { ...item, ...action.changes, hostGuessed: action.changes.host !== undefined ? false : item.hostGuessed }
          : item,
      );
    case "editAll":
      // One host (zone, offset, JVM start) for every file still waiting to be sent; each file's
      // own fields stay editable afterwards.
      return items.map((item) =>
        item.state === "staged"
          ? { ...item, ...action.changes, hostGuessed: action.changes.host !== undefined ? false : item.hostGuessed }
          : item,
      );
    case "guessed":
      // Never overwrite what the user typed meanwhile.
      return update(items, action.id, (item) =>
        item.host === "" && item.state === "staged" ? { ...item, host: action.host, hostGuessed: true } : item,
      );
    case "remove":
      return items.filter((item) => item.id !== action.id || isActive(item));
    case "queueAll":
      return items.map((item) => (item.state === "staged" ? { ...item, state: "queued" } : item));
    case "start":
      return update(items, action.id, (item) =>
        item.state === "queued" ? { ...item, state: "uploading", loaded: 0, error: null } : item,
      );
    case "progress":
      return update(items, action.id, (item) =>
        item.state === "uploading" ? { ...item, loaded: action.loaded, total: action.total || item.total } : item,
      );
    case "sent":
      // Every byte is sent; the server is storing them (parse workers take the file after).
      return update(items, action.id, (item) =>
        item.state === "uploading" ? { ...item, state: "processing", loaded: item.total } : item,
      );
    case "done":
      return update(items, action.id, (item) =>
        isActive(item) ? { ...item, state: "done", loaded: item.total, result: action.result } : item,
      );
    case "failed":
      return update(items, action.id, (item) =>
        isActive(item) ? { ...item, state: "error", error: action.error } : item,
      );
    case "cancel":
      return update(items, action.id, (item) =>
        item.state === "queued" || isActive(item) ? { ...item, state: "cancelled", error: null } : item,
      );
    case "retry":
      return update(items, action.id, (item) =>
        item.state === "error" || item.state === "cancelled"
          ? { ...item, state: "queued", loaded: 0, error: null }
          : item,
      );
    case "clearFinished":
      return items.filter((item) => item.state !== "done");
  }
}

export function isActive(item: UploadItem): boolean {
  return item.state === "uploading" || item.state === "processing";
}

/** Whether its host, timezone and clock offset can still be changed: not sent, or to be sent again. */
export function isEditable(item: UploadItem): boolean {
  return item.state === "staged" || item.state === "error" || item.state === "cancelled";
}

/** Which queued items to start now, oldest first, keeping at most `limit` in flight. */
export function nextToStart(items: UploadItem[], limit = UPLOAD_CONCURRENCY): string[] {
  const inFlight = items.filter(isActive).length;
  const free = Math.max(0, limit - inFlight);
  return items
    .filter((item) => item.state === "queued")
    .slice(0, free)
    .map((item) => item.id);
}

/** Whole-queue progress in bytes, for the summary bar. */
export function totals(items: UploadItem[]): { loaded: number; total: number; active: number } {
  let loaded = 0;
  let total = 0;
  let active = 0;
  for (const item of items) {
    if (item.state === "staged" || item.state === "cancelled") continue;
    loaded += item.state === "done" ? item.total : item.loaded;
    total += item.total;
    if (item.state === "queued" || isActive(item)) active += 1;
  }
  return { loaded, total, active };
}

/** The clock offset field as seconds; null when it is not a number. */
export function parseClockOffset(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === "") return 0;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}
