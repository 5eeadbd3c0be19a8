/**
 * Issue 14, the timeline half: what it draws is true, and it can be driven as a time-series view.
 *
 * - The demo's bundles (lab time_wait_storm, client and server, as the collector uploads them):
 *   the Recv-Q total is one line from ss -tinm (ss -lnt lists no connection and no longer writes
 *   a 0 between its samples: no sawtooth), the packets lane draws nstat and netstat -s of one host
 *   as one continuous line per counter (their samples, ~10 ms apart, once made every step a gap).
 * - A GC log with 40 pauses, 4 of them to-space exhausted: the strip says "GC pauses: 40" and
 *   "GC to-space exhausted: 4" (it once said "GC pauses: 4").
 * - Legend click hides, shift-click isolates; log scale; the layout in the URL reopens the same
 *   view; one tooltip, in the hovered lane; "Inspect data" as a table, by keyboard, copied as TSV.
 */
import fs from "node:fs";
import path from "node:path";
import type { Locator, Page } from "@playwright/test";
import { expect, test } from "../support/fixtures";
import { LAB, createIncidentThroughUi, lane, screenshot, uploadThroughUi, waitForLanesSettled } from "../support/helpers";

const DEMO = path.join(LAB, "time_wait_storm", "base");
const BUNDLES = fs.readdirSync(DEMO).filter((f) => f.endsWith(".tar.gz")).map((f) => ({ path: path.join(DEMO, f), timezone: "UTC" }));

/** The y pixel of every point of one line's path (the `d` of its <path>). */
async function pathYs(line: Locator): Promise<{ moves: number; ys: number[] }> {
  const d = (await line.locator("path").first().getAttribute("d")) ?? "";
  const parts = d.match(/[ML][^ML]+/g) ?? [];
  return { moves: parts.filter((p) => p.startsWith("M")).length, ys: parts.map((p) => Number(p.slice(1).split(",")[1])) };
}

/** How often consecutive points of a line jump down to the floor and back up: a sawtooth's teeth. */
function teeth(ys: number[]): number {
  const floor = Math.max(...ys);
  let n = 0;
  for (let i = 1; i + 1 < ys.length; i++) if (ys[i] === floor && ys[i - 1]! < floor && ys[i + 1]! < floor) n++;
  return n;
}

async function hover(page: Page, laneLocator: Locator, fraction: number): Promise<void> {
  const plot = laneLocator.locator("svg.tl-surface rect.tl-plot").first();
  await plot.scrollIntoViewIfNeeded();
  const box = (await plot.boundingBox())!;
  await page.mouse.move(box.x + box.width * fraction, box.y + box.height / 2, { steps: 3 });
}

function layoutParam(page: Page): Record<string, unknown> | null {
  const text = new URL(page.url()).searchParams.get("layout");
  return text ? (JSON.parse(text) as Record<string, unknown>) : null;
}

test("the demo's bundles: Recv-Q without a sawtooth, packets continuous, and the view driven like Grafana", async ({ page, context, dialogs }) => {
  test.setTimeout(240_000);
  await createIncidentThroughUi(page, { title: "Timeline drawing: TIME_WAIT storm bundles", timezone: "UTC" });
  await uploadThroughUi(page, BUNDLES, 120_000);
  await page.reload();
  await waitForLanesSettled(page);

  // ---- Recv-Q: one line per host, from the connection listing only ----
  const queues = lane(page, "queues");
  await expect(queues).toHaveAttribute("data-state", "drawn");
  const recvq = queues.locator('g[data-line="tcp.connections.recvq.bytes{host=server}"]');
  await expect(recvq).toHaveCount(1);
  const r = await pathYs(recvq);
  expect(r.ys.length).toBeGreaterThanOrEqual(8);
  expect(teeth(r.ys), `Recv-Q path ${JSON.stringify(r.ys)}`).toBeLessThanOrEqual(2);
  await expect(queues.getByRole("button", { name: /Recv-Q \(sum over connections\) @server/ })).toBeVisible();
  // bytes in IEC units with the unit written, whole ticks only
  const ticks = await queues.locator(".tl-axis__labels text[text-anchor='end']").allTextContents();
  expect(ticks.every((t) => /^\d+(\.\d+)? (B|KiB|MiB)$/.test(t)), ticks.join(" | ")).toBe(true);
  expect(ticks.some((t) => /^0\.\d+ B$/.test(t))).toBe(false);
  await queues.scrollIntoViewIfNeeded();
  await screenshot(page, "timeline-recvq-demo");

  // ---- packets: nstat and netstat -s of one host, one continuous line per counter ----
  const packets = lane(page, "net_packets");
  await expect(packets).toHaveAttribute("data-state", "drawn");
  const lines = packets.locator("g[data-line]");
  expect(await lines.count()).toBeGreaterThanOrEqual(2);
  for (const line of await lines.all()) {
    const key = await line.getAttribute("data-line");
    const p = await pathYs(line);
    expect(p.ys.length, `${key} points`).toBeGreaterThanOrEqual(15);
    expect(p.moves, `${key}: pieces of the line`).toBe(1);
  }
  await expect(packets).toContainText("overlapping series from other files not drawn");
  await packets.scrollIntoViewIfNeeded();
  await screenshot(page, "timeline-packets-nstat-netstat");

  // ---- legend: click hides, shift-click isolates, again shows all ----
  const states = lane(page, "tcp_states");
  await states.scrollIntoViewIfNeeded();
  const legend = states.getByRole("list", { name: "TCP states series" }).getByRole("button");
  const stateLines = states.locator("g[data-line]");
  const before = await stateLines.count();
  expect(before).toBeGreaterThanOrEqual(3);
  const first = legend.first();
  await first.click();
  await expect(first).toHaveAttribute("aria-pressed", "false");
  await expect(stateLines).toHaveCount(before - 1);
  await first.click();
  await expect(stateLines).toHaveCount(before);
  const second = legend.nth(1);
  const isolated = await second.textContent();
  await second.click({ modifiers: ["Shift"] });
  await expect(stateLines).toHaveCount(1);
  await expect(second).toHaveAttribute("aria-pressed", "true");
  await screenshot(page, "timeline-legend-isolate");
  await second.click({ modifiers: ["Shift"] });
  await expect(stateLines).toHaveCount(before);
  expect(isolated).toBeTruthy();

  // ---- log scale ----
  await queues.scrollIntoViewIfNeeded();
  await queues.getByRole("button", { name: "log", exact: true }).click();
  await expect(queues.getByRole("button", { name: "log", exact: true })).toHaveAttribute("aria-pressed", "true");
  const logTicks = await queues.locator(".tl-axis__labels text[text-anchor='end']").allTextContents();
  expect(logTicks.length).toBeGreaterThanOrEqual(2);
  expect(logTicks.every((t) => /^(1|10|100|1,000) B$|^(9\.77|97\.7|977) KiB$|^\d+(\.\d+)? (KiB|MiB)$/.test(t)), logTicks.join(" | ")).toBe(true);
  expect((layoutParam(page)?.l as Record<string, { g?: number }>)?.queues?.g).toBe(1);
  await screenshot(page, "timeline-log-scale");

  // ---- layout in the URL: collapse one lane, move another, and reopen the link ----
  await lane(page, "conn_rtt").getByRole("button", { name: "Collapse RTT (top connections)" }).click();
  await expect(lane(page, "conn_rtt").locator("svg")).toHaveCount(0);
  const order = async () => page.getByTestId("lane").evaluateAll((els) => els.map((el) => el.getAttribute("data-lane")));
  const orderBefore = await order();
  const i = orderBefore.indexOf("net_packets");
  await lane(page, "net_packets").getByRole("button", { name: "Move Network packets up" }).click();
  await expect.poll(order).not.toEqual(orderBefore);
  const moved = await order();
  expect(moved.indexOf("net_packets")).toBe(i - 1);
  const link = page.url();
  const again = await context.newPage();
  await again.goto(link);
  await waitForLanesSettled(again);
  expect(await again.getByTestId("lane").evaluateAll((els) => els.map((el) => el.getAttribute("data-lane")))).toEqual(moved);
  await expect(lane(again, "conn_rtt").locator("svg")).toHaveCount(0);
  await expect(lane(again, "queues").getByRole("button", { name: "log", exact: true })).toHaveAttribute("aria-pressed", "true");
  await again.close();

  // ---- one tooltip, in the hovered lane; a cursor line in the others ----
  await page.keyboard.press("Escape");
  await hover(page, queues, 0.5);
  await expect(page.getByTestId("tooltip")).toHaveCount(1);
  await expect(queues.getByTestId("tooltip")).toHaveCount(1);
  expect(await page.locator(".tl-cursor").count()).toBeGreaterThanOrEqual(3);
  await screenshot(page, "timeline-single-tooltip");
  await hover(page, states, 0.3);
  await expect(page.getByTestId("tooltip")).toHaveCount(1);
  await expect(states.getByTestId("tooltip")).toHaveCount(1);

  // ---- Inspect data: a table reachable by keyboard, copied as TSV ----
  await page.mouse.move(0, 0);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const inspect = queues.getByRole("button", { name: "Inspect data" });
  await inspect.focus();
  await page.keyboard.press("Enter");
  const region = queues.getByRole("region", { name: "Send-Q / Recv-Q data" });
  await expect(region).toBeVisible();
  const table = region.getByRole("table");
  await expect(table.getByRole("columnheader", { name: /Recv-Q \(sum over connections\) @server \(B\)/ })).toBeVisible();
  expect(await table.locator("tbody tr").count()).toBeGreaterThan(10);
  await region.getByRole("button", { name: "Copy as TSV" }).click();
  await expect(region.getByRole("status")).toContainText("Copied");
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied.split("\n")[0]).toContain("time (UTC)\t");
  expect(copied.split("\n")[1]).toMatch(/^\d{4}-\d\d-\d\dT/);
  await region.scrollIntoViewIfNeeded();
  await screenshot(page, "timeline-inspect-data");
  expect(dialogs).toEqual([]);
});

/** A G1 log written here: 40 young pauses a second apart, every tenth one to-space exhausted. */
function gcLog(): Buffer {
  const start = Date.UTC(2026, 10, 21, 7, 50, 0);
  const stamp = (ms: number) => `[${new Date(ms).toISOString().replace("Z", "+0000")}][${ms - start + 100}ms][4242][4250]`;
  const lines = [`${stamp(start)} Using G1`, `${stamp(start)} Version: 17.0.15+6-Debian-1deb12u1 (release)`];
  for (let i = 0; i < 40; i++) {
    const t = start + 1000 * (i + 1);
    lines.push(`${stamp(t)} GC(${i}) Pause Young (Normal) (G1 Evacuation Pause)`);
    if (i % 10 === 9) lines.push(`${stamp(t + 1)} GC(${i}) To-space exhausted`);
    lines.push(`${stamp(t + 5)} GC(${i}) Pause Young (Normal) (G1 Evacuation Pause) 24M->20M(32M) ${(3 + (i % 7)).toFixed(3)}ms`);
  }
  return Buffer.from(lines.join("\n") + "\n");
}

test("event counts count what their label says: GC pauses apart from to-space exhausted", async ({ page, dialogs }) => {
  test.setTimeout(120_000);
  await createIncidentThroughUi(page, { title: "Timeline drawing: GC event counts", timezone: "UTC" });
  await uploadThroughUi(page, [{ name: "gc-to-space.log", buffer: gcLog(), host: "app" }]);
  await page.reload();
  await waitForLanesSettled(page);
  const strip = page.getByRole("list", { name: "Event markers" });
  await expect(strip.locator('[data-event="gc_pause"]')).toHaveText("GC pauses: 40");
  await expect(strip.locator('[data-event="gc_to_space_exhausted"]')).toHaveText("GC to-space exhausted: 4");
  await screenshot(page, "timeline-event-counts");
  expect(dialogs).toEqual([]);
});
