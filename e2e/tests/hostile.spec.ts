/**
 * Issue 6: hostile text (an incident title and summary, an uploaded filename, an annotation, a
 * review note) is shown verbatim as text, on the private page and on a shared link, and never
 * runs: `window.__xss` stays undefined, no dialog opens, no `javascript:` link appears.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { anonymousPage, expect, test } from "../support/fixtures";
import {
  FIXTURES,
  XSS_IMG,
  XSS_SCRIPT,
  XSS_URL,
  createIncidentThroughUi,
  csrfToken,
  expectNoScriptRan,
  screenshot,
  uploadThroughUi,
  waitForLanesSettled,
} from "../support/helpers";
import { PYTHON } from "../support/server";

const TITLE = `${XSS_SCRIPT} ${XSS_URL}`;
const SUMMARY = `${XSS_IMG} and ${XSS_URL}`;
const ANNOTATION = `${XSS_SCRIPT} see ${XSS_URL}`;
const NOTE = `${XSS_IMG} ${XSS_SCRIPT} ${XSS_URL}`;
// A file name cannot hold "/" (the server keeps the last path segment, as it should), so the
// filename carries markup that runs without a closing tag.
const FILENAME = `<img src=x onerror=window.__xss=1>${XSS_URL}.txt`;
const BUNDLE_DIR = "rootline-evil-20261121T075344";
const MEMBER = `${XSS_SCRIPT}.txt`;

/** A collector-style bundle whose one member is named `<script>window.__xss=1</script>.txt`. */
function hostileBundle(): Buffer {
  const script = [
    "import io, sys, tarfile",
    "data = open(sys.argv[1], 'rb').read()",
    "out = io.BytesIO()",
    "with tarfile.open(fileobj=out, mode='w:gz') as tar:",
    "    info = tarfile.TarInfo(sys.argv[2]); info.size = len(data); info.mtime = 1763711624",
    "    tar.addfile(info, io.BytesIO(data))",
    "sys.stdout.buffer.write(out.getvalue())",
  ].join("\n");
  const made = spawnSync(PYTHON, ["-c", script, path.join(FIXTURES, "nstat", "nstat-delta-series.txt"), `${BUNDLE_DIR}/${MEMBER}`]);
  if (made.status !== 0) throw new Error(String(made.stderr));
  return made.stdout;
}

/** Nothing hostile made it into the DOM as markup. */
async function expectInert(page: Page, dialogs: string[]): Promise<void> {
  const dom = await page.evaluate(() => ({
    scripts: Array.from(document.scripts).filter((s) => s.text.includes("__xss")).length,
    handlers: document.querySelectorAll("[onerror], [onload], img[src='x']").length,
    jsLinks: Array.from(document.querySelectorAll("a[href], [src], form[action]")).filter((el) =>
      /^\s*javascript:/i.test(el.getAttribute("href") ?? el.getAttribute("src") ?? el.getAttribute("action") ?? ""),
    ).length,
  }));
  expect(dom).toEqual({ scripts: 0, handlers: 0, jsLinks: 0 });
  await expectNoScriptRan(page, dialogs);
}

test("hostile titles, filenames, annotations and notes are shown verbatim and never run", async ({ page, browser, dialogs }) => {
  test.setTimeout(150_000);
  const incidentId = await createIncidentThroughUi(page, { title: TITLE, summary: SUMMARY, timezone: "UTC" });
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(TITLE);
  await expect(page.locator(".incident-summary")).toHaveText(SUMMARY);

  await uploadThroughUi(page, [
    { name: FILENAME, buffer: fs.readFileSync(path.join(FIXTURES, "nstat", "nstat-az-series.txt")), host: XSS_URL },
  ]);
  const row = page.getByTestId("artifact-row").filter({ hasText: XSS_URL }).first();
  await expect(row).toHaveAttribute("data-status", "parsed");
  await expect(row.locator(".filename")).toHaveText(FILENAME);
  await expect(row.getByRole("cell", { name: XSS_URL, exact: true })).toBeVisible();

  // A "/" in a name is a folder, so the whole tag goes in as a bundle member's path.
  await uploadThroughUi(page, [{ name: "hostile-bundle.tar.gz", buffer: hostileBundle(), host: "bundle-host" }]);
  const member = page.getByTestId("artifact-row").filter({ hasText: MEMBER });
  await expect(member).toHaveAttribute("data-status", "parsed");
  await expect(member.locator(".filename")).toContainText(`${BUNDLE_DIR}/${MEMBER}`);
  await waitForLanesSettled(page);

  // An annotation over the visible range.
  await page.getByRole("button", { name: "Annotate the visible range" }).click();
  const form = page.getByRole("form", { name: "New annotation" });
  await form.getByLabel("Annotation text").fill(ANNOTATION);
  await form.getByRole("button", { name: "Add annotation" }).click();
  await expect(page.getByTestId("annotation").locator(".note-text")).toHaveText(ANNOTATION);

  // A review note on the first finding.
  const first = page.getByTestId("finding").first();
  const findingId = (await first.getAttribute("data-finding"))!;
  const finding = page.locator(`[data-testid="finding"][data-finding="${findingId}"]`);
  await finding.getByRole("button", { name: /^Review/ }).click();
  const review = finding.getByRole("form", { name: /^Review of/ });
  await review.getByLabel("Note").fill(NOTE);
  await review.getByRole("button", { name: "Save review" }).click();
  await expect(finding.locator(".review-note .note-text")).toHaveText(NOTE);

  // The timeline: the hostile host in a lane's legend and hover tooltip, the annotation in the
  // marker strip's tooltips; still text.
  const hostileLane = page.getByTestId("lane").filter({ hasText: XSS_URL }).first();
  const plot = hostileLane.locator("svg.tl-surface rect.tl-plot");
  await plot.scrollIntoViewIfNeeded();
  const box = (await plot.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await expect(hostileLane.locator(".tl-tooltip")).toContainText(XSS_URL);
  await expect(page.locator(".tl-strip__svg title").filter({ hasText: ANNOTATION })).toHaveCount(1);
  await expectInert(page, dialogs);

  await page.reload();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(TITLE);
  await expect(page.getByTestId("annotation").locator(".note-text")).toHaveText(ANNOTATION);
  await expect(finding.locator(".review-note .note-text")).toHaveText(NOTE);
  await expect(page.getByTestId("artifact-row").filter({ hasText: XSS_URL }).first().locator(".filename")).toHaveText(FILENAME);
  await expect(page.getByTestId("artifact-row").filter({ hasText: MEMBER }).locator(".filename")).toContainText(MEMBER);
  await expectInert(page, dialogs);
  await screenshot(page, "hostile-incident");

  // The incident list.
  await page.goto("/");
  const listed = page.getByTestId("incident-row").filter({ hasText: "window.__xss" });
  await expect(listed.getByRole("link").first()).toHaveText(TITLE);
  await expectInert(page, dialogs);

  // The same through a share link, in a browser without a session.
  const created = await page.request.post(`/api/incidents/${incidentId}/shares`, {
    data: { label: XSS_SCRIPT },
    headers: { "X-CSRF-Token": await csrfToken(page) },
  });
  expect(created.status()).toBe(201);
  const { url } = (await created.json()) as { url: string };
  const visitor = await anonymousPage(browser);
  await visitor.page.goto(url);
  await expect(visitor.page.getByRole("heading", { level: 1 })).toHaveText(TITLE);
  await expect(visitor.page.getByTestId("annotation").locator(".note-text")).toHaveText(ANNOTATION);
  await expect(visitor.page.locator(`[data-finding="${findingId}"] .review-note .note-text`)).toHaveText(NOTE);
  await expect(visitor.page.getByTestId("artifact-row").filter({ hasText: XSS_URL }).first().locator(".filename")).toHaveText(FILENAME);
  await expect(visitor.page.getByTestId("artifact-row").filter({ hasText: MEMBER }).locator(".filename")).toContainText(MEMBER);
  await waitForLanesSettled(visitor.page);
  await expectInert(visitor.page, visitor.dialogs);
  await visitor.close();
});
