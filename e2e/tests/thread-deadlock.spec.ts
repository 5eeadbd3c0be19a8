/**
 * A Java-level deadlock in an uploaded thread dump (the shared corpus' jdk25 jstack, read in
 * place and never copied into the repository; skipped without it): the checklist confirms
 * thread_lock_contention and names the cycle, and the deadlock's timeline marker reads as the
 * cycle (thread A waits for a lock held by thread B ...), not as raw JSON.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "../support/fixtures";
import { SCREENSHOTS, apiCreateIncident, apiUpload, screenshot, waitForLanesSettled } from "../support/helpers";
import { REPO } from "../support/server";

const CORPUS = process.env.ROOTLINE_CORPUS_DIR ?? path.join(REPO, "..", "shared", "corpus");
const DEADLOCK_DUMP = path.join(CORPUS, "threads", "jdk25-jstack-java-level-deadlock-jthreaddump.txt");

test("a deadlock in a thread dump is a confirmed checklist item and a readable marker", async ({ page, dialogs }) => {
  test.skip(!fs.existsSync(DEADLOCK_DUMP), `corpus file not available: ${DEADLOCK_DUMP}`);
  await page.goto("/");
  const id = await apiCreateIncident(page, "Orders hang after the 11:28 deploy");
  await apiUpload(page, id, DEADLOCK_DUMP, "orders-1");
  await page.goto(`/incidents/${id}`);
  await waitForLanesSettled(page);

  const item = page.locator('[data-finding="thread_lock_contention"]');
  await expect(item).toHaveAttribute("data-verdict", "confirmed");
  await expect(item).toContainText("Thread lock contention and deadlocks");
  await expect(item).toContainText("Java-level deadlock");
  await expect(page.getByTestId("finding").first()).toHaveAttribute("data-finding", "thread_lock_contention");
  await page.setViewportSize({ width: 1280, height: 1400 });
  await item.scrollIntoViewIfNeeded();
  await screenshot(page, "checklist-thread-deadlock");

  const marker = page.getByRole("button", { name: /— thread deadlock · host orders-1/ });
  await expect(marker).toHaveCount(1);
  await marker.focus();
  await page.keyboard.press("Enter");
  const details = page.getByTestId("marker-details");
  const steps = details.getByRole("list", { name: "Deadlock cycle" }).getByRole("listitem");
  await expect(steps).toHaveText([
    "DeadlockThread-A waits for <0x000000052c830070> (a java.lang.Object) held by DeadlockThread-B",
    "DeadlockThread-B waits for <0x000000052c830078> (a java.lang.Object) held by DeadlockThread-A",
  ]);
  await expect(details).not.toContainText('"held_by"');
  await details.screenshot({ path: path.join(SCREENSHOTS, "marker-thread-deadlock-panel.png") });

  // The dump and the deadlock share an instant: both markers are drawn (the deadlock stacked
  // above the dump, not over it) and each opens its own details under the mouse, which clicks
  // only what is on top at the element's centre.
  await page.locator(".tl-strip").screenshot({ path: path.join(SCREENSHOTS, "marker-strip-thread-deadlock.png") });
  const dumpMarker = page.getByRole("button", { name: /— thread dump · host orders-1/ });
  await expect(dumpMarker).toHaveCount(1);
  await dumpMarker.click();
  await expect(details.getByRole("heading", { level: 2 })).toContainText("Thread dump");
  await expect(details.getByTestId("thread-dump")).toBeVisible();
  await marker.click();
  await expect(details.getByRole("list", { name: "Deadlock cycle" }).getByRole("listitem")).toHaveCount(2);
  expect(dialogs).toEqual([]);
});
