/**
 * Loose captures (our own fixtures, one file per tool) from several hosts, the hosts typed in
 * the upload form where the file does not name one; every lane they feed draws, and the host
 * filter narrows the lanes to one host (and goes into the URL).
 */
import path from "node:path";
import { expect, test } from "../support/fixtures";
import {
  FIXTURES,
  createIncidentThroughUi,
  drawing,
  expectLanesDrawReal,
  lane,
  screenshot,
  uploadThroughUi,
  waitForLanesSettled,
} from "../support/helpers";

test("loose captures from several hosts fill their lanes; the host filter narrows them", async ({ page, dialogs }) => {
  test.setTimeout(150_000);
  await createIncidentThroughUi(page, { title: "Pool saturation on the JDK 17 bench", timezone: "UTC" });
  await uploadThroughUi(page, [
    { path: path.join(FIXTURES, "nmon", "linux-debian12-nmon16n-stress-60x1s.nmon") },
    { path: path.join(FIXTURES, "ss", "ss-tinm-loop.txt"), host: "db-1" },
    { path: path.join(FIXTURES, "nstat", "nstat-az-series.txt"), host: "db-1" },
    { path: path.join(FIXTURES, "threadpool_metrics", "pool-saturation-jdk17.csv"), host: "app-1" },
    { path: path.join(FIXTURES, "gc_unified", "g1-utctime-uptimemillis-pid-tid.log"), host: "app-1" },
    { path: path.join(FIXTURES, "app_log", "pool-saturation-jdk17-rejections.log"), host: "app-1" },
    { path: path.join(FIXTURES, "thread_dump", "pool-saturation-jdk17-jstack-3-dumps.txt"), host: "app-1" },
  ]);
  const rows = page.getByTestId("artifact-row");
  await expect(rows).toHaveCount(7);
  await expect(page.locator('[data-testid="artifact-row"]:not([data-status="parsed"])')).toHaveCount(0);

  await page.reload();
  await waitForLanesSettled(page);
  // nmon: CPU, run queue, network, memory; ss: states, queues, per-connection; nstat:
  // retransmissions; pool CSV: thread pools and rejections; GC log: pauses and heap.
  await expectLanesDrawReal(
    page,
    ["cpu", "run_queue", "net_rates", "net_packets", "memory", "tcp_states", "queues", "conn_cwnd", "conn_rtt", "retransmissions", "thread_pools", "rejections", "gc_pauses", "heap"],
    8,
  );
  await expect(lane(page, "jvm_threads")).toHaveAttribute("data-state", "drawn");
  await screenshot(page, "loose-files");

  // Host filter: only app-1's lanes keep data.
  const hostSelect = page.getByRole("toolbar", { name: "Timeline controls" }).getByLabel("Host");
  const hosts = await hostSelect.locator("option").allTextContents();
  expect(hosts).toEqual(expect.arrayContaining(["All hosts", "app-1", "db-1"]));
  expect(hosts.length).toBeGreaterThanOrEqual(4); // + the nmon file's own host
  await hostSelect.selectOption("app-1");
  await expect.poll(() => new URL(page.url()).searchParams.get("host")).toBe("app-1");
  await waitForLanesSettled(page);
  await expectLanesDrawReal(page, ["thread_pools", "gc_pauses", "heap"], 8);
  for (const key of ["cpu", "tcp_states", "conn_cwnd"]) {
    const d = await drawing(lane(page, key));
    expect(d.state, `lane ${key} with host app-1`).toBe("empty");
    expect(d.curves).toBe(0);
  }
  await expect(lane(page, "cpu")).toContainText("No data");
  await screenshot(page, "host-filter");
  expect(dialogs).toEqual([]);
});
