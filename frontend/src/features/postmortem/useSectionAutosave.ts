/**
 * A section's text as the team types it, saved without a button and never lost:
 *
 * - saved a moment after typing stops (`SAVE_AFTER_MS`), at once when the editor loses focus,
 *   and with a `keepalive` request when the page goes away (tab closed, reload, navigation);
 * - every change is also kept in localStorage with the version it was edited from until the
 *   server has it, so text typed just before a crash or a closed tab comes back when the page
 *   opens again (and is saved then);
 * - a save edited from an older version than the stored one is refused (409): nothing is
 *   overwritten, autosave stops, the typed text stays, and the page shows who saved what, with
 *   the choice of keeping either text.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError } from "../../api/client";
import { saveSection, sectionSaved } from "../../api/queries";
import type { PostmortemSection, SectionKey } from "../../api/types";

export const SAVE_AFTER_MS = 800;
const RETRY_AFTER_MS = 5000;

export type SaveState = "saved" | "unsaved" | "saving" | "error" | "conflict";

interface Backup {
  text: string;
  /** The section version the text was edited from. */
  version: number;
}

export function backupKey(apiBase: string, section: SectionKey): string {
  return `rootline:postmortem:${apiBase}:${section}`;
}

function readBackup(key: string): Backup | null {
  try {
    const raw = window.localStorage.getItem(key);
    if (!raw) return null;
    const value = JSON.parse(raw) as Partial<Backup>;
    return typeof value.text === "string" && typeof value.version === "number"
      ? { text: value.text, version: value.version }
      : null;
  } catch {
    return null;
  }
}

function writeBackup(key: string, backup: Backup | null): void {
  try {
    if (backup) window.localStorage.setItem(key, JSON.stringify(backup));
    else window.localStorage.removeItem(key);
  } catch {
    // Storage full or refused (private mode): the server saves still run.
  }
}

/**
 * What to do with a backup found when the page opens: nothing (none, or the server has its
 * text), restore it (edited from the stored version, or saved since by the same person: our
 * own save that landed as the tab closed), or show a conflict (someone else saved since).
 */
export function recover(
  backup: Backup | null,
  stored: PostmortemSection,
  me: string | undefined,
): "none" | "restore" | "conflict" {
  if (!backup || backup.text === stored.text) return "none";
  if (backup.version === stored.version) return "restore";
  if (me !== undefined && stored.updated_by === me && stored.version > backup.version) return "restore";
  return "conflict";
}

function conflictOf(error: unknown): PostmortemSection | null {
  if (!(error instanceof ApiError) || error.status !== 409) return null;
  const current = (error.body as { current?: PostmortemSection } | null)?.current;
  return current ?? null;
}

export function useSectionAutosave({
  apiBase,
  section,
  me,
}: {
  apiBase: string;
  section: PostmortemSection;
  /** The signed-in user's name (to tell our own earlier saves from someone else's). */
  me?: string;
}) {
  const client = useQueryClient();
  const key = backupKey(apiBase, section.key);
  const [text, setTextState] = useState(section.text);
  const [state, setState] = useState<SaveState>("saved");
  const [conflict, setConflict] = useState<PostmortemSection | null>(null);
  const [error, setError] = useState<unknown>(null);
  const live = useRef({ text: section.text, version: section.version, dirty: false, saving: false, blocked: false, timer: 0 });

  const save = useCallback(
    (keepalive = false) => {
      const now = live.current;
      window.clearTimeout(now.timer);
      if (!now.dirty || now.blocked || (now.saving && !keepalive)) return;
      const sent = now.text;
      now.saving = true;
      setState("saving");
      saveSection(apiBase, section.key, { text: sent, version: now.version }, keepalive).then(
        (saved) => {
          now.saving = false;
          now.version = saved.version;
          setError(null);
          if (now.text === sent) {
            now.dirty = false;
            writeBackup(key, null);
            setState("saved");
          } else {
            writeBackup(key, { text: now.text, version: now.version });
            now.timer = window.setTimeout(() => save(), 0);
          }
          sectionSaved(client, apiBase, saved);
        },
        (failure: unknown) => {
          now.saving = false;
          const current = conflictOf(failure);
          if (current) {
            now.blocked = true;
            setConflict(current);
            setState("conflict");
            return;
          }
          setError(failure);
          setState("error");
          now.timer = window.setTimeout(() => save(), RETRY_AFTER_MS);
        },
      );
    },
    [apiBase, client, key, section.key],
  );

  const setText = useCallback(
    (value: string) => {
      const now = live.current;
      now.text = value;
      now.dirty = true;
      setTextState(value);
      writeBackup(key, { text: value, version: now.version });
      if (now.blocked) return;
      setState("unsaved");
      window.clearTimeout(now.timer);
      now.timer = window.setTimeout(() => save(), SAVE_AFTER_MS);
    },
    [key, save],
  );

  // The page opens: text typed before a closed tab comes back (and is saved), or is a conflict.
  const recovered = useRef(false);
  useEffect(() => {
    if (recovered.current) return;
    recovered.current = true;
    const backup = readBackup(key);
    const action = recover(backup, section, me);
    if (action === "none") {
      writeBackup(key, null);
      return;
    }
    const now = live.current;
    now.text = backup!.text;
    now.dirty = true;
    setTextState(backup!.text);
    if (action === "restore") {
      now.version = section.version;
      save();
    } else {
      now.blocked = true;
      setConflict(section);
      setState("conflict");
    }
  }, [key, me, save, section]);

  // Someone else's save, read by a refetch, replaces the text while there is nothing unsaved.
  useEffect(() => {
    const now = live.current;
    if (now.dirty || now.saving || now.blocked || section.version <= now.version) return;
    now.text = section.text;
    now.version = section.version;
    setTextState(section.text);
  }, [section.text, section.version]);

  // The page goes away: what is not saved yet is sent with a request that outlives it.
  useEffect(() => {
    const flush = () => save(true);
    const hidden = () => {
      if (document.visibilityState === "hidden") flush();
    };
    window.addEventListener("pagehide", flush);
    window.addEventListener("beforeunload", flush);
    document.addEventListener("visibilitychange", hidden);
    return () => {
      window.removeEventListener("pagehide", flush);
      window.removeEventListener("beforeunload", flush);
      document.removeEventListener("visibilitychange", hidden);
      // Leaving the page inside the app (a link): save what is pending.
      flush();
    };
  }, [save]);

  /** Save ours over what is stored now. */
  const keepMine = useCallback(() => {
    if (!conflict) return;
    const now = live.current;
    now.version = conflict.version;
    now.blocked = false;
    now.dirty = true;
    setConflict(null);
    save();
  }, [conflict, save]);

  /** Drop ours and take what is stored now. */
  const takeTheirs = useCallback(() => {
    if (!conflict) return;
    const now = live.current;
    now.text = conflict.text;
    now.version = conflict.version;
    now.blocked = false;
    now.dirty = false;
    writeBackup(key, null);
    setTextState(conflict.text);
    setConflict(null);
    setState("saved");
    sectionSaved(client, apiBase, conflict);
  }, [apiBase, client, conflict, key]);

  return { text, setText, state, conflict, error, flush: save, keepMine, takeTheirs };
}
