/**
 * The application's own symptom, the reason for a postmortem: a GC log and the service's
 * latency export uploaded together into one incident. The timeline opens with the Application
 * latency lane, whose p99 rises at the known moment (07:52:12-07:52:34 UTC, hand-written in
 * backend/tests/fixtures/app_metrics/checkout-latency.csv), and the checklist's symptom line
 * names that window and the cause that overlaps it: the GC storm of the lab capture
 * lab/fixtures/gc_pauses/base (pauses from 07:52:11 to 07:52:35, confirmed).
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import zlib from "node:zlib";
import { expect, test } from "../support/fixtures";
import {
  FIXTURES,
  LAB,
  createIncidentThroughUi,
  drawing,
  expectLanesDrawReal,
  lane,
  laneKeys,
  screenshot,
  uploadThroughUi,
  urlRange,
  waitForLanesSettled,
} from "../support/helpers";

const GC_BUNDLE = path.join(LAB, "gc_pauses", "base", "rootline-app-20261121T075211.tar.gz");
const LATENCY_CSV = path.join(FIXTURES, "app_metrics", "checkout-latency.csv");
const RISE_FROM = Date.UTC(2026, 10, 21, 7, 52, 12);
const RISE_TO = Date.UTC(2026, 10, 21, 7, 52, 34);

/** The GC log of the lab capture, read out of its bundle (never copied into the repository). */
function gcLog(): Buffer {
  const tar = spawnSync("tar", ["-xzOf", GC_BUNDLE, "rootline-app-20261121T075211/gc.log"], {
    maxBuffer: 64 * 1024 * 1024,
  });
  if (tar.status !== 0) throw new Error(`tar: ${tar.stderr.toString()}`);
  return tar.stdout;
}

/** Times (UTC ms) where a lane's first line is in the upper half of its plot. */
async function highStretch(page: import("@playwright/test").Page, key: string): Promise<number[]> {
  return lane(page, key).evaluate((el) => {
    const plot = el.querySelector("svg.tl-surface rect.tl-plot")!;
    const left = Number(plot.getAttribute("x"));
    const width = Number(plot.getAttribute("width"));
    const top = Number(plot.getAttribute("y"));
    const middle = top + Number(plot.getAttribute("height")) / 2;
    const from = Number(el.getAttribute("data-from"));
    const to = Number(el.getAttribute("data-to"));
    const path = Array.from(el.querySelectorAll("svg .tl-paths path")).find((p) => (p.getAttribute("d") ?? "").length > 0);
    const numbers = (path?.getAttribute("d") ?? "").match(/-?\d+(\.\d+)?/g)?.map(Number) ?? [];
    const times: number[] = [];
    for (let i = 0; i + 1 < numbers.length; i += 2) {
      if (numbers[i + 1]! < middle) times.push(from + ((numbers[i]! - left) / width) * (to - from));
    }
    return times;
  });
}

test("the application's latency rise is the symptom, and the checklist names the cause that overlaps it", async ({
  page,
  dialogs,
}) => {
  test.setTimeout(150_000);
  await createIncidentThroughUi(page, { title: "Checkout p99 at 490 ms", timezone: "UTC" });
  // Rotated GC logs travel gzipped: the server opens the .gz by its magic bytes.
  const gc = { name: "gc.log.gz", buffer: zlib.gzipSync(gcLog()) };
  await uploadThroughUi(page, [gc, { path: LATENCY_CSV }]);
  await expect(page.locator('[data-testid="artifact-row"]:not([data-status="parsed"])')).toHaveCount(0);

  await page.reload();
  await waitForLanesSettled(page);
  await test.step("the Application latency lane comes first and shows p99 rising at 07:52:12", async () => {
    const keys = await laneKeys(page);
    expect(keys[0]).toBe("app_latency");
    await expectLanesDrawReal(page, ["app_latency", "app_errors", "app_other", "gc_pauses"], 8);
    const latency = lane(page, "app_latency");
    await expect(latency).toContainText("Application latency");
    await expect(latency).toContainText("checkout_latency.p99_ms");
    const high = await highStretch(page, "app_latency");
    // 12 points at 470-490 ms, 2 s apart, in a 4 min plot: the drawn stretch is the rise.
    expect(high.length).toBeGreaterThanOrEqual(10);
    expect(Math.abs(Math.min(...high) - RISE_FROM)).toBeLessThan(2500);
    expect(Math.abs(Math.max(...high) - RISE_TO)).toBeLessThan(2500);
    expect((await drawing(latency)).curves).toBe(1);
  });

  const symptom = page.getByTestId("symptom");
  await test.step("the symptom line names the window and the overlapping cause", async () => {
    await expect(symptom).toContainText("Symptom: app latency checkout_latency.p99_ms rose from 12 ms to 490 ms");
    await expect(symptom).toContainText("at 2026-11-21 07:52:12 UTC for 22 s");
    await expect(symptom.getByTestId("symptom-cause")).toHaveText("Long GC pauses (confirmed)");
    const cause = page.locator('[data-finding="gc_pauses"]').and(page.getByTestId("finding"));
    await expect(cause).toHaveAttribute("data-verdict", "confirmed");
    await expect(cause.getByTestId("symptom-overlap")).toContainText("Overlaps the application's symptom");
    await screenshot(page, "app-symptom");
  });

  await test.step("its link moves the timeline to the window", async () => {
    await symptom.getByRole("button", { name: "Show on the timeline" }).click();
    // The window with 5 s on each side (a fifth of 22 s is less).
    await expect.poll(() => urlRange(page)).toEqual({ from: RISE_FROM - 5000, to: RISE_TO + 5000 });
    await expect(lane(page, "app_latency")).toHaveAttribute("data-from", String(RISE_FROM - 5000));
    await waitForLanesSettled(page);
    await expectLanesDrawReal(page, ["app_latency"], 8);
    await screenshot(page, "app-symptom-window");
  });
  expect(dialogs).toEqual([]);
});
