import { describe, expect, it } from "vitest";
import { countPools, countStates, diffDumps, groupByStack, headline, type Thread } from "./threads";

function thread(name: string, state: string, frames: string[], extra: Partial<Thread> = {}): Thread {
  return {
    name,
    pool: name.replace(/-\d+$/, ""),
    state,
    daemon: false,
    vm: false,
    frames,
    frame_count: frames.length,
    locked: [],
    waiting_to_lock: null,
    parked_on: null,
    ...extra,
  };
}

const SLEEP = ["java.lang.Thread.sleep(Native Method)", "Demo.processOrder(Demo.java:22)", "Demo.run(Demo.java:40)"];
const PAY = ["Demo.pay(Demo.java:31)", "Demo.run(Demo.java:41)"];
const SETTLE = ["java.lang.Thread.sleep(Native Method)", "Demo.settle(Demo.java:26)", "Demo.pay(Demo.java:33)"];
const TAKE = ["jdk.internal.misc.Unsafe.park(Native Method)", "java.util.concurrent.LinkedBlockingQueue.take(LinkedBlockingQueue.java:435)"];

const first = [
  thread("order-pool-1", "timed_waiting", SLEEP),
  thread("payment-1", "blocked", PAY),
  thread("order-pool-2", "timed_waiting", SLEEP),
  thread("payment-2", "blocked", PAY),
  thread("payment-3", "blocked", PAY),
  thread("reader-1", "waiting", TAKE),
  thread("order-pool-3", "timed_waiting", SLEEP),
  thread("VM Thread", "runnable", [], { vm: true }),
];
const second = [
  thread("order-pool-1", "timed_waiting", SLEEP),
  thread("payment-1", "timed_waiting", SETTLE),
  thread("order-pool-2", "timed_waiting", ["java.lang.Thread.sleep(Native Method)", "Demo.report(Demo.java:50)"]),
  thread("payment-2", "timed_waiting", SETTLE),
  thread("payment-3", "timed_waiting", SETTLE),
  thread("reader-1", "waiting", TAKE),
  thread("report-pool-1", "timed_waiting", SLEEP),
  thread("VM Thread", "runnable", [], { vm: true }),
];

describe("grouping threads by identical stacks", () => {
  it("puts threads with the same frames in one group, biggest first, VM threads apart", () => {
    const groups = groupByStack(first);
    expect(groups.map((g) => [g.threads.length, g.state, headline(g.frames)])).toEqual([
      [3, "timed_waiting", "Demo.processOrder(Demo.java:22)"],
      [3, "blocked", "Demo.pay(Demo.java:31)"],
      [1, "waiting", "jdk.internal.misc.Unsafe.park(Native Method)"],
    ]);
    expect(groups[1]!.threads.map((t) => t.name)).toEqual(["payment-1", "payment-2", "payment-3"]);
    expect(groupByStack(first, true)).toHaveLength(4);
  });

  it("puts threads without Java frames (the JVM's own) last, however many", () => {
    const jvm = ["Signal Dispatcher", "C2 CompilerThread0", "C1 CompilerThread0", "Sweeper thread"].map((name) => thread(name, "runnable", []));
    const groups = groupByStack([...jvm, ...first]);
    expect(groups.map((g) => g.threads.length)).toEqual([3, 3, 1, 4]);
    expect(headline(groups[3]!.frames)).toBe("(no Java frames)");
  });

  it("counts a group's states and names the most common one", () => {
    const mixed = [thread("a-1", "runnable", PAY), thread("a-2", "blocked", PAY), thread("a-3", "blocked", PAY)];
    const [group] = groupByStack(mixed);
    expect(group!.states).toEqual({ runnable: 1, blocked: 2 });
    expect(group!.state).toBe("blocked");
  });

  it("counts states (every state listed, trouble first) and pools", () => {
    expect(countStates(first).slice(0, 3)).toEqual([
      { state: "blocked", count: 3 },
      { state: "runnable", count: 0 },
      { state: "waiting", count: 1 },
    ]);
    expect(countPools(first)[0]).toEqual({ pool: "order-pool", count: 3 });
  });
});

describe("diffing two dumps of one JVM", () => {
  it("finds threads that appeared, vanished, changed state or stack", () => {
    const diff = diffDumps(first, second);
    expect(diff.appeared.map((t) => t.name)).toEqual(["report-pool-1"]);
    expect(diff.vanished.map((t) => t.name)).toEqual(["order-pool-3"]);
    expect(diff.changedState.map((c) => [c.name, c.from, c.to])).toEqual([
      ["payment-1", "blocked", "timed_waiting"],
      ["payment-2", "blocked", "timed_waiting"],
      ["payment-3", "blocked", "timed_waiting"],
    ]);
    expect(diff.changedStack.map((c) => c.name)).toEqual(["order-pool-2"]);
    expect(diff.unchanged).toBe(2); // order-pool-1, reader-1 (VM threads are not compared)
  });

  it("lists stacks whose thread count moved, new and gone ones included", () => {
    const changes = diffDumps(first, second).stacks;
    const stacks = changes.map((s) => [headline(s.frames), s.before, s.after]);
    expect(stacks).toContainEqual(["Demo.pay(Demo.java:31)", 3, 0]);
    expect(stacks).toContainEqual(["Demo.settle(Demo.java:26)", 0, 3]);
    expect(stacks).toContainEqual(["Demo.processOrder(Demo.java:22)", 3, 2]);
    expect(changes[0]!.before + changes[0]!.after).toBe(3); // the biggest moves first
  });

  it("tells threads of one name apart by their order, and finds nothing between a dump and itself", () => {
    const twins = [thread("main", "runnable", PAY), thread("main", "waiting", TAKE)];
    const diff = diffDumps(twins, [twins[0]!]);
    expect(diff.vanished).toEqual([twins[1]]);
    const same = diffDumps(first, first);
    expect([same.appeared, same.vanished, same.changedState, same.changedStack, same.stacks]).toEqual([[], [], [], [], []]);
  });
});
