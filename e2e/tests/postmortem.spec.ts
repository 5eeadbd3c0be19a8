/**
 * The postmortem as a team writes it: a capture whose cause is confirmed (a sender with a
 * 64 KB SO_SNDBUF at 80 ms RTT, lab/fixtures/small_send_buffer/buf64k_rtt80) is uploaded,
 * Rootline drafts the postmortem (root cause with its evidence chart), the team edits the
 * summary (saved as it types, kept across a closed tab), publishes it, a visitor signed out
 * reads it at the share link above the timeline, and it is exported as PDF (every page
 * rendered to PNG beside the screenshots) and as a Markdown zip.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { anonymousPage, expect, test } from "../support/fixtures";
import {
  LAB,
  SCREENSHOTS,
  apiCreateIncident,
  createIncidentThroughUi,
  csrfToken,
  incidentIdOf,
  screenshot,
  uploadThroughUi,
} from "../support/helpers";

const BUNDLE = path.join(LAB, "small_send_buffer", "buf64k_rtt80", "rootline-sender-20261124T055556.tar.gz");
const CAUSE = "Send buffer smaller than the bandwidth-delay product";
const SUMMARY =
  "Archive uploads from the EU region crawled at **950 KiB/s** for the whole transfer: the sender's socket " +
  "was pinned to a 64 KB send buffer, far below the path's bandwidth-delay product.";
const LAST_WORDS = "Typed just before the tab was closed.";

test("a postmortem is drafted, edited, kept across a closed tab, published, shared and exported", async ({
  page,
  context,
  browser,
  dialogs,
}) => {
  test.setTimeout(240_000);
  await createIncidentThroughUi(page, { title: "Archive uploads crawl at 1 MB/s", timezone: "UTC" });
  const incidentId = incidentIdOf(page);
  await uploadThroughUi(page, [{ path: BUNDLE, timezone: "UTC" }]);
  await page.reload();
  await expect(page.locator('[data-finding="small_send_buffer"]')).toHaveAttribute("data-verdict", "confirmed");
  await screenshot(page, "postmortem-01-incident");

  let link = "";
  await test.step("a share link, made while the postmortem does not exist yet", async () => {
    await page.getByRole("button", { name: "Share…" }).click();
    const dialog = page.getByRole("dialog", { name: "Share a read-only link" });
    await dialog.getByRole("button", { name: "Create link" }).click();
    link = await dialog.getByLabel("Share link").inputValue();
    await dialog.getByRole("button", { name: "Close" }).click();
  });

  await test.step("Rootline drafts the postmortem from what it knows", async () => {
    await page.getByRole("link", { name: "Postmortem" }).click();
    await page.waitForURL(/\/incidents\/[^/]+\/postmortem$/);
    await page.getByRole("button", { name: "Draft the postmortem" }).click();
    await expect(page.getByTestId("postmortem-status")).toHaveText("Draft");
    const causes = page.locator('[data-section="root_causes"]');
    await expect(causes.getByRole("heading", { level: 3, name: CAUSE })).toBeVisible();
    await expect(causes).toContainText("Mechanism.");
    await expect(causes).toContainText("past threshold:");
    // The evidence chart: the finding's series as an SVG image, loaded.
    const chart = causes.locator('figure.pm-chart[data-chart="small_send_buffer"] img');
    await expect(chart).toBeVisible();
    await expect.poll(() => chart.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(300);
    const timeline = page.locator('[data-section="timeline"]');
    await expect(timeline.getByRole("cell", { name: /First anomaly/ })).toBeVisible();
    await expect(timeline.getByRole("cell", { name: /peaks: Send-Q/ })).toBeVisible();
    await expect(page.locator('[data-section="ruled_out"]')).toContainText("One long connection carries the load");
    await screenshot(page, "postmortem-02-drafted");
    await causes.scrollIntoViewIfNeeded();
    await chart.scrollIntoViewIfNeeded();
    await screenshot(page, "postmortem-03-root-cause-chart");
  });

  await test.step("the team edits the summary: saved as it types", async () => {
    const summary = page.locator('[data-section="summary"]');
    await summary.getByRole("button", { name: "Edit summary" }).click();
    const box = summary.getByRole("textbox", { name: "Summary (Markdown)" });
    await box.fill(SUMMARY);
    await expect(summary.getByRole("status")).toHaveText("Saved");
    await expect(summary.getByTestId("edited-by")).toContainText("edited by e2e");
    await screenshot(page, "postmortem-04-summary-saved");
    // More text, and the tab is closed at once, before the autosave's pause is over.
    await box.fill(`${SUMMARY}\n\n${LAST_WORDS}`);
    await page.close();
  });

  const reopened = await context.newPage();
  await test.step("the page opened again: the edit is kept", async () => {
    await reopened.goto(`/incidents/${incidentId}/postmortem`);
    const summary = reopened.locator('[data-section="summary"]');
    await expect(summary).toContainText(LAST_WORDS);
    await expect(summary).toContainText("950 KiB/s");
    // On the server too, not only in this browser: a fresh read of the API has it.
    await expect
      .poll(async () => {
        const body = (await (await reopened.request.get(`/api/incidents/${incidentId}/postmortem`)).json()) as {
          sections: { key: string; text: string }[];
        };
        return body.sections.find((s) => s.key === "summary")?.text ?? "";
      })
      .toContain(LAST_WORDS);
    await reopened.reload();
    await expect(summary.getByRole("textbox")).toHaveCount(0);
    await expect(summary.locator("strong").filter({ hasText: "950 KiB/s" })).toBeVisible();
    await summary.getByRole("button", { name: "History" }).click();
    const history = summary.getByLabel("History of Summary");
    await expect(history.getByRole("listitem").first()).toContainText("e2e edited it");
    await history.getByText("The text before").first().click();
    await expect(history.locator("pre").first()).toContainText("Root cause:");
    await screenshot(reopened, "postmortem-05-reopened-with-history");
  });

  const visitor = await anonymousPage(browser);
  await test.step("signed out, the share link shows no draft", async () => {
    await visitor.page.goto(link);
    await expect(visitor.page.getByRole("heading", { level: 1 })).toHaveText("Archive uploads crawl at 1 MB/s");
    await expect(visitor.page.getByRole("heading", { name: "Timeline" })).toBeVisible();
    await expect(visitor.page.getByTestId("postmortem")).toHaveCount(0);
  });

  await test.step("published", async () => {
    await reopened.getByRole("button", { name: "Publish" }).click();
    await expect(reopened.getByTestId("postmortem-status")).toHaveText("Published");
    await screenshot(reopened, "postmortem-06-published");
  });

  await test.step("signed out, the share link shows the published postmortem above the timeline", async () => {
    const shared = visitor.page;
    await shared.reload();
    const document = shared.getByTestId("postmortem");
    await expect(document.getByRole("heading", { level: 3, name: "Summary" })).toBeVisible();
    await expect(document).toContainText(LAST_WORDS);
    await expect(document.locator('figure.pm-chart[data-chart="small_send_buffer"] img')).toBeVisible();
    // No "Draft" anywhere: neither the postmortem nor the incident reads as one.
    await expect(shared.getByText("Draft", { exact: true })).toHaveCount(0);
    await expect(shared.locator(".incident-meta .badge")).toHaveText("published");
    // No editing at a share link.
    await expect(shared.getByRole("button", { name: /^Edit/ })).toHaveCount(0);
    await expect(shared.getByRole("textbox", { name: /Markdown/ })).toHaveCount(0);
    const postmortemTop = (await document.boundingBox())!.y;
    const timelineTop = (await shared.getByRole("heading", { level: 2, name: "Timeline" }).boundingBox())!.y;
    expect(postmortemTop).toBeLessThan(timelineTop);
    await screenshot(shared, "postmortem-07-share-link-signed-out");
    await screenshot(shared, "postmortem-08-share-link-full", true);
    await visitor.close();
  });

  await test.step("exported as PDF and as Markdown", async () => {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    const [pdf] = await Promise.all([
      reopened.waitForEvent("download", { timeout: 90_000 }),
      reopened.getByRole("link", { name: "Export PDF" }).click(),
    ]);
    expect(pdf.suggestedFilename()).toBe("postmortem-archive-uploads-crawl-at-1-mb-s.pdf");
    const pdfPath = path.join(SCREENSHOTS, "postmortem.pdf");
    await pdf.saveAs(pdfPath);
    expect(fs.readFileSync(pdfPath).subarray(0, 5).toString()).toBe("%PDF-");
    const text = execFileSync("pdftotext", ["-layout", pdfPath, "-"]).toString();
    expect(text).toContain("Archive uploads from the EU region crawled at 950 KiB/s");
    expect(text).toContain(CAUSE);
    // Every page as a PNG, to look at.
    for (const old of fs.readdirSync(SCREENSHOTS).filter((f) => f.startsWith("postmortem-pdf-page"))) {
      fs.rmSync(path.join(SCREENSHOTS, old));
    }
    execFileSync("pdftoppm", ["-r", "70", "-png", pdfPath, path.join(SCREENSHOTS, "postmortem-pdf-page")]);
    const pages = fs.readdirSync(SCREENSHOTS).filter((f) => f.startsWith("postmortem-pdf-page"));
    expect(pages.length).toBeGreaterThanOrEqual(2);

    const [markdown] = await Promise.all([
      reopened.waitForEvent("download"),
      reopened.getByRole("link", { name: "Export Markdown (.zip)" }).click(),
    ]);
    expect(markdown.suggestedFilename()).toBe("postmortem-archive-uploads-crawl-at-1-mb-s.zip");
    const zipPath = path.join(SCREENSHOTS, "postmortem-markdown.zip");
    await markdown.saveAs(zipPath);
    const listing = execFileSync("python3", [
      "-c",
      "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))",
      zipPath,
    ]).toString();
    expect(listing).toContain("postmortem-archive-uploads-crawl-at-1-mb-s/postmortem.md");
    expect(listing).toContain("postmortem-archive-uploads-crawl-at-1-mb-s/charts/small_send_buffer.svg");
  });
  expect(dialogs).toEqual([]);
});

test("a save over someone else's newer one is refused, and the typed text is kept", async ({ page, dialogs }) => {
  const incidentId = await apiCreateIncident(page, "Two editors at once");
  const headers = { "X-CSRF-Token": await csrfToken(page) };
  expect((await page.request.post(`/api/incidents/${incidentId}/postmortem`, { headers })).status()).toBe(201);
  await page.goto(`/incidents/${incidentId}/postmortem`);
  const lessons = page.locator('[data-section="lessons"]');
  await lessons.getByRole("button", { name: "Edit lessons" }).click();
  const box = lessons.getByRole("textbox", { name: "Lessons (Markdown)" });
  await box.fill("Alerts on Send-Q would have caught it.");
  await expect(lessons.getByRole("status")).toHaveText("Saved");

  // Someone else saves the section meanwhile (version 2 -> 3).
  const theirs = await page.request.put(`/api/incidents/${incidentId}/postmortem/sections/lessons`, {
    headers,
    data: { text: "Their lessons, saved from another browser.", version: 2 },
  });
  expect(theirs.status()).toBe(200);
  await box.fill("Alerts on Send-Q would have caught it. And a check of SO_SNDBUF in review.");
  const alert = lessons.getByRole("alert");
  await expect(alert).toContainText("saved this section");
  await expect(alert).toContainText("Your text is kept below and was not saved.");
  await expect(alert).toContainText("Their lessons, saved from another browser.");
  await expect(box).toHaveValue("Alerts on Send-Q would have caught it. And a check of SO_SNDBUF in review.");
  await expect(lessons.getByRole("status")).toHaveText("Not saved: edited elsewhere");
  await lessons.evaluate((element) => element.scrollIntoView({ block: "start" }));
  await screenshot(page, "postmortem-09-conflict");

  await alert.getByRole("button", { name: "Keep mine (save it over theirs)" }).click();
  await expect(lessons.getByRole("status")).toHaveText("Saved");
  const stored = (await (await page.request.get(`/api/incidents/${incidentId}/postmortem`)).json()) as {
    sections: { key: string; text: string; version: number }[];
  };
  const saved = stored.sections.find((s) => s.key === "lessons")!;
  expect(saved.text).toBe("Alerts on Send-Q would have caught it. And a check of SO_SNDBUF in review.");
  expect(saved.version).toBe(4);
  expect(dialogs).toEqual([]);
});
