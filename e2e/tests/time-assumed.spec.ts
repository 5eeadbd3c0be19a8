/**
 * An app log whose lines carry a time of day but no date is put on the upload's date: the
 * upload outcome and the artifacts table say so (a new user's walk lost three hours to it
 * unseen), and the table offers the clock offset. An evidence row from an `ss` listing without a
 * timestamp (placed at its upload) says so beside its time in the checklist.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "../support/fixtures";
import { createIncidentThroughUi, FIXTURES, SCREENSHOTS, uploadThroughUi } from "../support/helpers";

// Hand-written (as backend/tests/detectors/test_assumed_time.py): `ss -tan` without a timestamp.
const UNDATED_SS = `State      Recv-Q Send-Q Local Address:Port   Peer Address:Port
LISTEN     0      128          0.0.0.0:8080        0.0.0.0:*
ESTAB      0      0         10.0.0.5:8080      10.0.0.9:51000
TIME-WAIT  0      0         10.0.0.5:8080      10.0.0.9:50990
TIME-WAIT  0      0         10.0.0.5:8080      10.0.0.9:50992
`;

test("log lines without a date: the artifacts table says which date they were put on", async ({ page }) => {
  const dated = fs.readFileSync(path.join(FIXTURES, "app_log", "checkout-errors-handwritten.log"));
  await createIncidentThroughUi(page, { title: "Checkout errors from a log without dates", timezone: "UTC" });
  await uploadThroughUi(page, [
    { name: "checkout-clock-only.log", buffer: Buffer.from(dated.toString("utf8").replaceAll("2026-11-21 ", "")), host: "app-1" },
    { name: "checkout-dated.log", buffer: dated, host: "app-1" },
  ]);
  await expect(page.getByTestId("upload-time-assumed")).toHaveCount(1);
  await expect(page.getByTestId("upload-time-assumed")).toContainText(/no date on the log lines: put on \d{4}-\d{2}-\d{2}/);

  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.locator(".upload-outcome").first().screenshot({ path: path.join(SCREENSHOTS, "time-assumed-upload.png") });

  const table = page.locator("table.artifacts");
  const note = table.getByTestId("time-assumed");
  await expect(note).toHaveCount(1);
  await expect(note).toContainText(/time of day but no date: they were put on \d{4}-\d{2}-\d{2}, the upload's date\./);
  const row = table.getByTestId("artifact-row").filter({ has: page.getByTestId("time-assumed") });
  await expect(row).toContainText("checkout-clock-only.log");
  await table.screenshot({ path: path.join(SCREENSHOTS, "time-assumed-artifacts.png") });

  await note.getByRole("button", { name: /clock offset/i }).click();
  await expect(page.getByRole("dialog").getByLabel(/clock offset/i)).toBeVisible();
});

test("evidence from a listing without a timestamp says its time was assumed, not measured", async ({ page }) => {
  await createIncidentThroughUi(page, { title: "Sockets from an undated listing", timezone: "UTC" });
  await uploadThroughUi(page, [{ name: "ss.txt", buffer: Buffer.from(UNDATED_SS), host: "app-1" }]);
  const storm = page.locator('[data-finding="time_wait_storm"]');
  const evidence = storm.getByTestId("evidence").filter({ has: page.getByTestId("evidence-time-assumed") });
  await expect(evidence.first()).toBeVisible();
  await expect(evidence.first().getByTestId("evidence-time-assumed")).toHaveText(
    "time assumed: no timestamp in the file, placed at its upload",
  );
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await evidence.first().scrollIntoViewIfNeeded();
  await evidence.first().screenshot({ path: path.join(SCREENSHOTS, "time-assumed-evidence.png") });
});
