/**
 * The checklist's differential diagnosis as a person sees it: a capture of a sender whose
 * SO_SNDBUF was forced to 16 KB (lab/fixtures/small_send_buffer/bbr, where the kernel also
 * counts sndbuf_limited) confirms the small send buffer, and the single-connection item that
 * sees the same full Send-Q says it is explained by it (one symptom, one cause), ranks below
 * it and moves the reader to its cause.
 */
import path from "node:path";
import { expect, test } from "../support/fixtures";
import { LAB, createIncidentThroughUi, screenshot, uploadThroughUi } from "../support/helpers";

test("a symptom explained by a confirmed cause is not counted twice", async ({ page }) => {
  test.setTimeout(150_000);
  await createIncidentThroughUi(page, { title: "Report D: a 16 KB send buffer", timezone: "UTC" });
  const bundle = path.join(LAB, "small_send_buffer", "bbr", "rootline-sender-20261124T055703.tar.gz");
  await uploadThroughUi(page, [{ path: bundle, timezone: "UTC" }]);
  await page.reload();

  const findings = page.getByTestId("finding");
  const cause = page.locator('[data-finding="small_send_buffer"]');
  await expect(cause).toHaveAttribute("data-verdict", "confirmed");
  await expect(findings.first()).toHaveAttribute("data-finding", "small_send_buffer");
  // The evidence the verdict rests on is marked past its threshold.
  await expect(cause.getByLabel("past threshold:").first()).toBeVisible();

  const echo = page.locator('[data-finding="single_connection_bottleneck"]');
  await expect(echo).toHaveAttribute("data-verdict", "ruled_out");
  const note = echo.getByTestId("explained-by");
  await expect(note).toContainText("Explained by Send buffer smaller than the bandwidth-delay product");
  await note.getByRole("button").click();
  await expect(cause.getByRole("heading", { level: 3 })).toBeFocused();

  await expect(page.getByTestId("rules-version")).toContainText("rules version");
  // A tall window, so the checklist pane shows the cause and the explained item together.
  await page.setViewportSize({ width: 1280, height: 1800 });
  await cause.scrollIntoViewIfNeeded();
  await screenshot(page, "checklist-small-send-buffer");
});

test("the TIME_WAIT card names the side that closes first and gives that side's remedies", async ({ page }) => {
  test.setTimeout(150_000);
  await createIncidentThroughUi(page, { title: "Report E: keep-alive limits", timezone: "UTC" });
  const folder = path.join(LAB, "time_wait_storm", "base");
  await uploadThroughUi(page, [
    { path: path.join(folder, "rootline-server-20261121T075013.tar.gz"), timezone: "UTC" },
    { path: path.join(folder, "rootline-client-20261121T075013.tar.gz"), timezone: "UTC" },
  ]);
  await page.reload();
  const card = page.locator('[data-finding="time_wait_storm"]');
  await expect(card).toHaveAttribute("data-verdict", "confirmed");
  await card.getByRole("button", { name: "Show the whole summary" }).click();
  await expect(card).toContainText("the server closes first");
  await expect(card).toContainText("holds no ephemeral port");
  await card.getByText(/^Remedies/).click();
  const remedies = card.locator(".finding-more").filter({ hasText: "Remedies" }).getByRole("listitem");
  await expect(remedies.first()).toContainText("maxKeepAliveRequests");
  await expect(remedies.filter({ hasText: "Leave ip_local_port_range and tcp_tw_reuse alone" })).toHaveCount(1);
  // The churn behind the storm is its symptom, not a second cause.
  await expect(page.locator('[data-finding="short_lived_connections"]').getByTestId("explained-by")).toBeVisible();
  await page.setViewportSize({ width: 1280, height: 1800 });
  await card.scrollIntoViewIfNeeded();
  await screenshot(page, "checklist-time-wait-server-side");
});
