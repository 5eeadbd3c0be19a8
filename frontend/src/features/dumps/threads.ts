/**
 * Reading a thread dump the way fastThread and Eclipse Jifa do: threads grouped by identical
 * stacks (a hundred threads parked in one place are one line, not a hundred), counts per state
 * and pool, and the difference between two dumps of one JVM. Pure: the API's threads in, plain
 * data out.
 */
import type { Schemas } from "../../api/client";

export type Thread = Schemas["ThreadRead"];
export type ThreadDump = Schemas["ThreadDumpRead"];

/** Java thread states in the order a reader scans them (trouble first). */
export const STATES = ["blocked", "runnable", "waiting", "timed_waiting", "new", "terminated"] as const;

export interface StackGroup {
  /** The shared stack, top frame first ([] for threads that printed none). */
  frames: string[];
  /** The threads with this stack, in dump order. */
  threads: Thread[];
  /** Threads per state within the group (a stack is usually one state; the lock lines differ). */
  states: Record<string, number>;
  /** The most common state of the group, for its badge. */
  state: string;
}

/** A key for "the same stack": the frames as printed (addresses of locks are not part of it). */
export function stackKey(frames: readonly string[]): string {
  return frames.join("\n");
}

/**
 * Threads grouped by identical stacks, biggest group first (ties: the group whose first thread
 * comes first in the dump), threads without Java frames last. VM internal threads are left out
 * unless `withVm`.
 */
export function groupByStack(threads: readonly Thread[], withVm = false): StackGroup[] {
  const groups = new Map<string, StackGroup>();
  for (const thread of threads) {
    if (thread.vm && !withVm) continue;
    const key = stackKey(thread.frames);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { frames: thread.frames, threads: [], states: {}, state: thread.state }));
    group.threads.push(thread);
    group.states[thread.state] = (group.states[thread.state] ?? 0) + 1;
  }
  const list = [...groups.values()];
  for (const group of list) {
    group.state = Object.entries(group.states).sort((a, b) => b[1] - a[1] || stateRank(a[0]) - stateRank(b[0]))[0]![0];
  }
  // Threads that printed no Java frame (compiler, signal and service threads of the JVM) say
  // nothing about the application: last. Stable sort: equal counts keep dump order.
  return list.sort((a, b) => Number(a.frames.length === 0) - Number(b.frames.length === 0) || b.threads.length - a.threads.length);
}

function stateRank(state: string): number {
  const index = (STATES as readonly string[]).indexOf(state);
  return index < 0 ? STATES.length : index;
}

/** Java threads per state (VM internal threads apart), every state listed. */
export function countStates(threads: readonly Thread[]): { state: string; count: number }[] {
  const counts = new Map<string, number>(STATES.map((state) => [state, 0]));
  for (const thread of threads) if (!thread.vm) counts.set(thread.state, (counts.get(thread.state) ?? 0) + 1);
  return [...counts].map(([state, count]) => ({ state, count })).sort((a, b) => stateRank(a.state) - stateRank(b.state));
}

/** Java threads per pool, biggest first. */
export function countPools(threads: readonly Thread[]): { pool: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const thread of threads) if (!thread.vm) counts.set(thread.pool, (counts.get(thread.pool) ?? 0) + 1);
  return [...counts].map(([pool, count]) => ({ pool, count })).sort((a, b) => b.count - a.count || a.pool.localeCompare(b.pool));
}

export interface StateChange {
  name: string;
  from: string;
  to: string;
  before: Thread;
  after: Thread;
}

export interface StackCountChange {
  frames: string[];
  before: number;
  after: number;
}

export interface DumpDiff {
  /** Threads in the later dump only (started between the two). */
  appeared: Thread[];
  /** Threads in the earlier dump only (ended between the two). */
  vanished: Thread[];
  /** Threads in both whose state changed. */
  changedState: StateChange[];
  /** Threads in both, same state, whose stack changed (moved on, or stuck elsewhere). */
  changedStack: { name: string; before: Thread; after: Thread }[];
  /** Threads in both with the same state and stack: stuck, if the dumps are seconds apart. */
  unchanged: number;
  /** Stacks whose thread count went up or down (a new stack: before 0; a gone one: after 0). */
  stacks: StackCountChange[];
}

/**
 * Name -> thread, a repeated name (two "main"s of two class loaders) told apart by its order:
 * "name", "name#2" ...
 */
function byName(threads: readonly Thread[]): Map<string, Thread> {
  const seen = new Map<string, number>();
  const map = new Map<string, Thread>();
  for (const thread of threads) {
    if (thread.vm) continue;
    const n = (seen.get(thread.name) ?? 0) + 1;
    seen.set(thread.name, n);
    map.set(n === 1 ? thread.name : `${thread.name}#${n}`, thread);
  }
  return map;
}

/** What changed from dump `before` to dump `after` of one JVM (threads matched by name). */
export function diffDumps(before: readonly Thread[], after: readonly Thread[]): DumpDiff {
  const old = byName(before);
  const now = byName(after);
  const appeared: Thread[] = [];
  const changedState: StateChange[] = [];
  const changedStack: DumpDiff["changedStack"] = [];
  let unchanged = 0;
  for (const [name, thread] of now) {
    const was = old.get(name);
    if (!was) appeared.push(thread);
    else if (was.state !== thread.state) changedState.push({ name, from: was.state, to: thread.state, before: was, after: thread });
    else if (stackKey(was.frames) !== stackKey(thread.frames)) changedStack.push({ name, before: was, after: thread });
    else unchanged += 1;
  }
  const vanished = [...old].filter(([name]) => !now.has(name)).map(([, thread]) => thread);

  const counts = new Map<string, StackCountChange>();
  const tally = (threads: Iterable<Thread>, side: "before" | "after") => {
    for (const thread of threads) {
      const key = stackKey(thread.frames);
      let entry = counts.get(key);
      if (!entry) counts.set(key, (entry = { frames: thread.frames, before: 0, after: 0 }));
      entry[side] += 1;
    }
  };
  tally(old.values(), "before");
  tally(now.values(), "after");
  const stacks = [...counts.values()]
    .filter((entry) => entry.before !== entry.after)
    .sort((a, b) => Math.abs(b.after - b.before) - Math.abs(a.after - a.before));
  return { appeared, vanished, changedState, changedStack, unchanged, stacks };
}

/** The frame a stack group is known by: its first frame outside the JDK's own waiting code. */
export function headline(frames: readonly string[]): string {
  const own = frames.find((frame) => !/^(java\.|jdk\.|sun\.)/.test(frame));
  return own ?? frames[0] ?? "(no Java frames)";
}
