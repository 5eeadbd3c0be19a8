/**
 * Issue 14: a marker on the timeline is a button that opens what it stands for: a GC pause (cause,
 * heap before and after, duration, the phases of its cycle) and a thread dump (every thread,
 * grouped by identical stacks; the difference with the other dump of the same JVM).
 */
import path from "node:path";
import { expect, test } from "../support/fixtures";
import { FIXTURES, SCREENSHOTS, apiCreateIncident, apiUpload, screenshot, waitForLanesSettled } from "../support/helpers";

test("a GC pause marker opens the pause: cause, heap before and after, duration, phases", async ({ page, dialogs }) => {
  await page.goto("/");
  const id = await apiCreateIncident(page, "GC pauses to read one by one");
  await apiUpload(page, id, path.join(FIXTURES, "gc_unified", "g1-time-uptime-level-tags.log"), "app-1");
  await page.goto(`/incidents/${id}`);
  await waitForLanesSettled(page);

  const markers = page.locator('[data-marker="gc"]');
  await expect(markers.first()).toBeAttached();
  // The strip lists the longest pauses first; markers overlap, so open it from the keyboard.
  await markers.first().focus();
  await page.keyboard.press("Enter");

  const details = page.getByTestId("marker-details");
  await expect(details.getByRole("heading", { name: /GC pause/ })).toBeVisible();
  const pause = details.getByTestId("gc-pause");
  await expect(pause).toContainText("Cause");
  await expect(pause).toContainText(/G1 (Evacuation Pause|Humongous Allocation|Compaction Pause|Preventive Collection)|System\.gc|Metadata GC/);
  await expect(pause).toContainText(/Heap before\s*\d[\d,.]* MB/);
  await expect(pause).toContainText(/Heap after\s*\d[\d,.]* MB of \d[\d,.]* MB/);
  await expect(pause).toContainText(/Duration\s*\d[\d.]*\s*ms/);
  await expect(pause).toContainText("G1");
  await expect(pause).toContainText(/GC\s*#\d+/);
  await pause.scrollIntoViewIfNeeded();
  await screenshot(page, "marker-gc-pause");
  await details.screenshot({ path: path.join(SCREENSHOTS, "marker-gc-pause-panel.png") });

  await details.getByRole("button", { name: "Close details" }).click();
  await expect(details).toHaveCount(0);
  expect(dialogs).toEqual([]);
});

test("a thread dump marker shows every thread grouped by stack, and the diff with the JVM's other dump", async ({ page, dialogs }) => {
  await page.goto("/");
  const id = await apiCreateIncident(page, "Payments stuck on the ledger lock");
  await apiUpload(page, id, path.join(FIXTURES, "thread_dump", "dump-changes-jdk17-jstack-2-dumps.txt"), "pay-1");
  await page.goto(`/incidents/${id}`);
  await waitForLanesSettled(page);

  // Two dumps 7 s apart (and contention markers at the same instants): the first dump's marker.
  const dumpMarkers = page.getByRole("button", { name: /— thread dump · host pay-1/ });
  await expect(dumpMarkers).toHaveCount(2);
  await dumpMarkers.first().focus();
  await page.keyboard.press("Enter");

  const dump = page.getByTestId("thread-dump");
  await expect(dump).toBeVisible();
  await expect(dump.getByLabel("Threads per state")).toContainText("BLOCKED 3");
  // Grouped: the four order-pool workers share one stack, the three payments another.
  const groups = dump.getByTestId("stack-group");
  await expect(groups.first()).toHaveAttribute("data-count", "4");
  await expect(groups.first()).toContainText("DumpChanges.processOrder");
  const payments = groups.filter({ hasText: "DumpChanges.pay(" }).first();
  await expect(payments).toHaveAttribute("data-count", "3");
  await expect(payments).toContainText("BLOCKED");
  await expect(payments).toContainText("payment-1, payment-2, payment-3");
  await expect(payments).toContainText(/Waiting for\s+java\.lang\.Object\s+<0x[0-9a-f]+>\s+held by ledger-writer/);
  await expect(payments.locator("pre.stack")).toContainText("at DumpChanges.pay(DumpChanges.java:31)");
  await page.getByTestId("marker-details").screenshot({ path: path.join(SCREENSHOTS, "thread-dump-stacks.png") });

  // Every thread with its state, pool and stack.
  await dump.getByRole("tab", { name: "Threads" }).click();
  await dump.getByLabel("Filter threads").fill("reader");
  const readers = dump.locator(".dump-thread-row");
  await expect(readers).toHaveCount(2);
  await expect(readers.first()).toContainText("WAITING");
  await readers.first().getByRole("button", { name: "reader-1" }).click();
  await expect(readers.first().locator("pre.stack")).toContainText("LinkedBlockingQueue.take");

  // The diff with the later dump of the same JVM.
  await dump.getByRole("tab", { name: "Compare" }).click();
  const diff = dump.getByTestId("dump-diff");
  const changed = diff.getByRole("region", { name: "Threads that changed state" });
  await expect(changed).toContainText("Changed state (3)");
  await expect(changed).toContainText(/payment-1:\s*BLOCKED\s*→\s*TIMED_WAITING/);
  await expect(diff.getByRole("region", { name: "Threads that appeared" })).toContainText("Appeared (3)");
  await expect(diff.getByRole("region", { name: "Threads that appeared" })).toContainText("report-pool-1");
  const vanished = diff.getByRole("region", { name: "Threads that vanished" });
  await expect(vanished).toContainText("Vanished (2)");
  await expect(vanished).toContainText("order-pool-3");
  await expect(vanished).toContainText("order-pool-4");
  await expect(diff.getByRole("region", { name: "Stacks with more or fewer threads" })).toContainText(/new\s*DumpChanges\.settle/);
  await page.getByTestId("marker-details").screenshot({ path: path.join(SCREENSHOTS, "thread-dump-diff.png") });
  expect(dialogs).toEqual([]);
});
