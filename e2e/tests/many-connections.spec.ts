/**
 * A provider with more connections than the listing shows (the server lists the 50 busiest
 * connections' series): the connection lanes draw the top 5 and count them all, and the
 * picker finds a quiet connection by its address and draws it beside them.
 */
import fs from "node:fs";
import { expect, test } from "../support/fixtures";
import { createIncidentThroughUi, lane, screenshot, uploadThroughUi, waitForLanesSettled } from "../support/helpers";

const CONNECTIONS = 300;

/** `ss -tinm` snapshots in the line shapes of our real capture (tests/fixtures/ss/ss-tinm-loop.txt). */
function capture(): string {
  const out: string[] = [];
  for (let snap = 0; snap < 6; snap++) {
    const minute = String(snap).padStart(2, "0");
    out.push(`=== 2026-11-21T07:${minute}:00+00:00 ===`);
    out.push("State      Recv-Q Send-Q       Local Address:Port        Peer Address:Port Process");
    for (let i = 0; i < CONNECTIONS; i++) {
      const peer = `10.1.${Math.floor(i / 250)}.${i % 250}:${40000 + i}`;
      const acked = (i + 1) * 1000 * (snap + 1) * (i === 7 ? 1_000_000 : 1);
      out.push(`ESTAB      0      0            10.0.0.1:20880           ${peer}`);
      out.push(
        `\t skmem:(r0,rb131072,t0,tb16384,f0,w0,o0,bl0,d0) cubic wscale:10,10 rto:204 rtt:${(1 + (i % 9) / 10).toFixed(3)}/0.5 ` +
          `mss:1448 pmtu:1500 rcvmss:536 advmss:1448 cwnd:${10 + (i % 20)} bytes_sent:${acked} bytes_acked:${acked} ` +
          `segs_out:${100 + snap} segs_in:${90 + snap} send 1000000bps lastsnd:4 lastrcv:4 lastack:4 pacing_rate 2000000bps ` +
          `delivery_rate 900000bps delivered:${100 + snap} app_limited rcv_space:14480 rcv_ssthresh:64088 minrtt:0.9`,
      );
    }
  }
  return out.join("\n") + "\n";
}

test("the picker finds any of 300 connections by address and draws it in the connection lanes", async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const file = testInfo.outputPath("ss-tinm-300-connections.txt");
  fs.writeFileSync(file, capture());
  await createIncidentThroughUi(page, { title: "Provider with 300 consumers", timezone: "UTC" });
  await uploadThroughUi(page, [{ path: file, host: "provider-1" }]);
  await page.reload();
  await waitForLanesSettled(page);

  const cwnd = lane(page, "conn_cwnd");
  await expect(cwnd).toContainText("top 5 of 300 connections by bytes acked");
  await expect(cwnd).toContainText("10.1.0.7:40007"); // the busiest one

  // A quiet connection, far from the 50 listed: found by address, drawn beside the top 5.
  const picker = page.getByRole("combobox", { name: "Add a series" });
  const started = Date.now();
  await picker.fill("10.1.1.33:");
  const option = page.getByRole("option", { name: /10\.0\.0\.1:20880 ⇄ 10\.1\.1\.33:40283/ });
  await expect(option).toBeVisible();
  const foundMs = Date.now() - started;
  testInfo.annotations.push({ type: "picker search", description: `${foundMs} ms to the hit` });
  await option.click();
  await waitForLanesSettled(page);
  await expect(cwnd).toContainText("top 5 of 300 connections by bytes acked + 1 picked");
  await expect(cwnd).toContainText("10.1.1.33:40283");
  await screenshot(page, "many-connections-picked");
});
