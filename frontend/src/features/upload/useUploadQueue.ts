import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useReducer, useRef } from "react";
import { errorMessage } from "../../api/client";
import { artifactsQueued } from "../../api/queries";
import { parseApiBase } from "../../api/reads";
import { guessHost } from "./hostGuess";
import { sendFile, type Sending } from "./sendFile";
import {
  UPLOAD_CONCURRENCY,
  newItem,
  nextToStart,
  parseClockOffset,
  uploadReducer,
  type UploadAction,
  type UploadItem,
} from "./uploadQueue";

/** Runs the upload queue for one incident: a few XHRs at a time, progress into the reducer. */
export function useUploadQueue(apiBase: string) {
  const [items, dispatch] = useReducer(uploadReducer, [] as UploadItem[]);
  const running = useRef(new Map<string, Sending>());
  const client = useQueryClient();

  const addFiles = useCallback((files: Iterable<File>) => {
    const added = Array.from(files, (file) => newItem(file));
    if (added.length === 0) return;
    dispatch({ type: "add", items: added });
    for (const item of added) {
      void guessHost(item.file).then((host) => {
        if (host) dispatch({ type: "guessed", id: item.id, host });
      });
    }
  }, []);

  useEffect(() => {
    for (const id of nextToStart(items, UPLOAD_CONCURRENCY)) {
      if (running.current.has(id)) continue;
      const item = items.find((candidate) => candidate.id === id)!;
      const offset = parseClockOffset(item.clockOffset);
      if (offset === null) {
        dispatch({ type: "start", id });
        dispatch({ type: "failed", id, error: "The clock offset must be a number of seconds." });
        continue;
      }
      dispatch({ type: "start", id });
      const sending = sendFile({
        incidentId: parseApiBase(apiBase).incident_id ?? "",
        file: item.file,
        fields: {
          host: item.host.trim(),
          timezone: item.timezone.trim(),
          clock_offset_s: offset === 0 ? "" : String(offset),
          jvm_start: item.jvmStart.trim(),
        },
        onProgress: (loaded, total) => dispatch({ type: "progress", id, loaded, total }),
        onSent: () => dispatch({ type: "sent", id }),
      });
      running.current.set(id, sending);
      sending.promise.then(
        (result) => {
          dispatch({ type: "done", id, result });
          artifactsQueued(client, apiBase, result);
        },
        (error: unknown) => {
          // An abort was dispatched as "cancel" already; the reducer ignores this then.
          dispatch({ type: "failed", id, error: errorMessage(error) });
        },
      ).finally(() => running.current.delete(id));
    }
  }, [items, apiBase, client]);

  // Leaving the page cancels what is still being sent.
  useEffect(() => {
    const map = running.current;
    return () => {
      for (const sending of map.values()) sending.abort();
      map.clear();
    };
  }, []);

  const act = useCallback((action: UploadAction) => {
    if (action.type === "cancel") running.current.get(action.id)?.abort();
    dispatch(action);
  }, []);

  return { items, addFiles, dispatch: act };
}
