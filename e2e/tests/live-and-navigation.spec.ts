/**
 * Issue 14, the page as a senior SRE drives it: it stays live while files arrive from elsewhere,
 * a drop anywhere is an upload (one host for the whole drop, still editable per file), an
 * uptime-only GC log is anchored by a JVM start given on re-parse (a wrong one is refused by the
 * server with the field named), the tab says which incident it is, and unknown incidents, spent
 * sign-in links and links to times outside the incident each get a page, not JSON.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, serverUrl, test } from "../support/fixtures";
import {
  FIXTURES,
  SCREENSHOTS,
  apiCreateIncident,
  apiUpload,
  csrfToken,
  lane,
  screenshot,
  waitForLanesSettled,
  waitForUploadsParsed,
} from "../support/helpers";
import { BACKEND, ROOTLINE } from "../support/server";

const SS_LOOP = path.join(FIXTURES, "ss", "ss-tinm-loop.txt");

test("a page open while a file is uploaded through the API shows it without a reload", async ({ page, dialogs }) => {
  await page.goto("/");
  const title = "Live: capture arriving from the collector";
  const id = await apiCreateIncident(page, title);
  await page.goto(`/incidents/${id}`);
  await expect(page).toHaveTitle(`${title} · Rootline`);
  await expect(page.getByText("No artifacts yet.")).toBeVisible();
  await expect(page.locator(".incident-meta")).toContainText("0 artifacts");
  const checklistBefore = await page.locator(".checklist-counts").innerText();
  // Marks this document: a reload would lose it.
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
  await screenshot(page, "live-before");

  // Another client (curl, the collector's --upload) sends a file.
  const response = await page.request.post(`/api/incidents/${id}/artifacts`, {
    // The client does not wait for the parse (the collector doesn't): the page must follow
    // the file from queued to parsed by itself. The parse queue is shared with the other
    // tests' uploads, so the parse may take a while under CI load.
    params: { filename: "ss-tinm-loop.txt", host: "db-1", wait: 0 },
    data: fs.readFileSync(SS_LOOP),
    headers: { "X-CSRF-Token": await csrfToken(page), "Content-Type": "application/octet-stream" },
  });
  expect([201, 202], await response.text()).toContain(response.status());

  // Artifacts, the header, the lanes and the verdicts follow on their own.
  await expect(page.getByTestId("artifact-row")).toHaveCount(1, { timeout: 20_000 });
  await expect(page.getByTestId("artifact-row")).toHaveAttribute("data-status", "parsed", { timeout: 60_000 });
  await expect(page.locator(".incident-meta")).toContainText(/(?<![\d,.])1 artifact(?!s)/);
  await expect(lane(page, "tcp_states")).toHaveAttribute("data-state", "drawn", { timeout: 20_000 });
  await expect.poll(() => page.locator(".checklist-counts").innerText(), { timeout: 20_000 }).not.toBe(checklistBefore);
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  await waitForLanesSettled(page);
  await screenshot(page, "live-after");
  expect(dialogs).toEqual([]);
});

test("a drop anywhere on the page stages the files, one host for all of them, each still editable", async ({ page, dialogs }) => {
  await page.goto("/");
  const id = await apiCreateIncident(page, "Dropped captures");
  await page.goto(`/incidents/${id}`);
  await expect(page.getByRole("button", { name: "Upload…" })).toBeVisible();
  const files = [
    { name: "ss-tinm-loop.txt", text: fs.readFileSync(SS_LOOP, "utf8") },
    { name: "nstat-az-series.txt", text: fs.readFileSync(path.join(FIXTURES, "nstat", "nstat-az-series.txt"), "utf8") },
  ];
  // A drag of files over the timeline's heading (nowhere near the upload panel).
  const over = await page.evaluate((dropped) => {
    const transfer = new DataTransfer();
    for (const file of dropped) transfer.items.add(new File([file.text], file.name, { type: "text/plain" }));
    (window as unknown as { __transfer: DataTransfer }).__transfer = transfer;
    const target = document.getElementById("timeline-title")!;
    target.dispatchEvent(new DragEvent("dragenter", { bubbles: true, cancelable: true, dataTransfer: transfer }));
    const event = new DragEvent("dragover", { bubbles: true, cancelable: true, dataTransfer: transfer });
    target.dispatchEvent(event);
    return event.defaultPrevented;
  }, files);
  // dragover cancelled: the page takes the drop (the browser does not open the file instead).
  expect(over).toBe(true);
  await expect(page.getByTestId("page-drop-target")).toBeVisible();
  await screenshot(page, "drop-anywhere-dragging");
  const dropTaken = await page.evaluate(() => {
    const transfer = (window as unknown as { __transfer: DataTransfer }).__transfer;
    const event = new DragEvent("drop", { bubbles: true, cancelable: true, dataTransfer: transfer });
    document.getElementById("timeline-title")!.dispatchEvent(event);
    return event.defaultPrevented;
  });
  expect(dropTaken).toBe(true);
  await expect(page.getByTestId("page-drop-target")).toHaveCount(0);
  expect(new URL(page.url()).pathname).toBe(`/incidents/${id}`);

  const panel = page.locator("section.upload");
  await expect(panel.locator('[data-testid="upload-row"][data-state="staged"]')).toHaveCount(2);
  await panel.getByLabel("Host for all files").fill("web-7");
  for (const file of files) await expect(panel.getByLabel(`Host for ${file.name}`, { exact: true })).toHaveValue("web-7");
  await panel.getByLabel("Host for nstat-az-series.txt", { exact: true }).fill("db-2");
  await expect(panel.getByLabel("Host for all files")).toHaveValue("");
  await screenshot(page, "drop-anywhere-staged");
  await panel.getByRole("button", { name: "Upload 2 files" }).click();
  await waitForUploadsParsed(page);
  const rows = page.getByTestId("artifact-row");
  await expect(rows.filter({ hasText: "ss-tinm-loop.txt" })).toContainText("web-7");
  await expect(rows.filter({ hasText: "nstat-az-series.txt" })).toContainText("db-2");

  // The header's Upload button stages files the same way.
  await page.getByRole("button", { name: "Upload…" }).click();
  await page.getByLabel("Upload files to this incident").setInputFiles({
    name: "gc.log",
    mimeType: "text/plain",
    buffer: fs.readFileSync(path.join(FIXTURES, "gc_unified", "parallel-uptime.log")),
  });
  await expect(panel.locator('[data-testid="upload-row"][data-state="staged"]')).toHaveCount(1);
  await expect(panel.getByLabel("JVM start for gc.log", { exact: true })).toBeVisible();
  expect(dialogs).toEqual([]);
});

test("a JVM start given on re-parse anchors an uptime-only GC log; a wrong one is refused, the field named", async ({ page, dialogs }) => {
  await page.goto("/");
  const id = await apiCreateIncident(page, "Uptime-only GC log");
  await apiUpload(page, id, path.join(FIXTURES, "gc_unified", "parallel-uptime.log"), "app-1");
  await page.goto(`/incidents/${id}`);
  const row = page.getByTestId("artifact-row").filter({ hasText: "parallel-uptime.log" });
  await expect(row).toContainText("Unanchored");
  await row.getByRole("button", { name: "Set the JVM start…" }).click();
  const dialog = page.getByRole("dialog", { name: "Re-parse parallel-uptime.log" });
  const jvmStart = dialog.getByLabel("JVM start time");

  // The real server's 422 (errors[] naming jvm_start), shown beside the field.
  await jvmStart.fill("yesterday after lunch");
  const refused = page.waitForResponse((r) => r.url().endsWith("/reparse") && r.request().method() === "POST");
  await dialog.getByRole("button", { name: "Re-parse" }).click();
  const answer = await refused;
  expect(answer.status()).toBe(422);
  expect(((await answer.json()) as { errors: { loc: string[] }[] }).errors[0]!.loc).toEqual(["body", "jvm_start"]);
  await expect(dialog.getByRole("alert")).toContainText(/^jvm_start: not a time: ISO-8601 or epoch/);
  await expect(jvmStart).toHaveAttribute("aria-invalid", "true");
  await dialog.screenshot({ path: path.join(SCREENSHOTS, "reparse-422.png") });

  await jvmStart.fill("2026-11-18T11:06:40Z");
  await dialog.getByRole("button", { name: "Re-parse" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(row).toHaveAttribute("data-status", "parsed", { timeout: 30_000 });
  await expect(row).not.toContainText("Unanchored", { timeout: 30_000 });
  await expect(row).toContainText("2026-11-18 11:06");
  await expect(page.locator(".incident-meta")).toContainText("2026-11-18 11:06");
  await waitForLanesSettled(page);
  await expect(lane(page, "gc_pauses")).toHaveAttribute("data-state", "drawn");
  await screenshot(page, "reparse-anchored");
  expect(dialogs).toEqual([]);
});

test("a link to a time outside the incident shows the part inside it, or the whole incident", async ({ page }) => {
  await page.goto("/");
  const id = await apiCreateIncident(page, "Clamped deep links");
  await apiUpload(page, id, SS_LOOP, "db-1");
  const incident = (await (await page.request.get(`/api/incidents/${id}`)).json()) as { window_start_ms: number; window_end_ms: number };
  const { window_start_ms: start, window_end_ms: end } = incident;
  // Starts a day early, ends inside: cut to the window's start.
  const inside = start + Math.round((end - start) / 2);
  await page.goto(`/incidents/${id}?from=${start - 86_400_000}&to=${inside}`);
  await expect.poll(() => new URL(page.url()).searchParams.get("from")).toBe(String(start));
  expect(new URL(page.url()).searchParams.get("to")).toBe(String(inside));
  // A year later: nothing of it inside, the whole incident.
  await page.goto(`/incidents/${id}?from=${end + 3e10}&to=${end + 3e10 + 60_000}`);
  await expect.poll(() => new URL(page.url()).searchParams.has("from")).toBe(false);
  await expect(page.getByText("Whole incident, all hosts")).toBeVisible();
});

test("an unknown incident id shows a page saying so, not an error body", async ({ page }) => {
  for (const id of ["5f0c7d7e-2a49-4c5e-9a1e-000000000000", "not-an-incident"]) {
    await page.goto(`/incidents/${id}`);
    await expect(page.getByRole("heading", { level: 1, name: "Incident not found" })).toBeVisible();
    await expect(page.getByRole("main")).toContainText(id);
    await expect(page.getByRole("main")).not.toContainText("the request is not valid");
    await expect(page).toHaveTitle("Incident not found · Rootline");
    await expect(page.getByRole("link", { name: "Go to the incidents" })).toBeVisible();
  }
  await screenshot(page, "incident-not-found");
});

test("a sign-in link used once already shows a page saying so, not JSON", async ({ browser }) => {
  const dataDir = process.env.ROOTLINE_E2E_DATA_DIR;
  if (!dataDir) throw new Error("ROOTLINE_E2E_DATA_DIR is not set (global setup)");
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("ROOTLINE_")));
  const made = spawnSync(ROOTLINE, ["users", "link", process.env.ROOTLINE_E2E_USER ?? "e2e", "--public-url", serverUrl()], {
    cwd: BACKEND,
    env: { ...env, ROOTLINE_DATA_DIR: dataDir },
    encoding: "utf8",
  });
  expect(made.status, made.stderr).toBe(0);
  const link = /https?:\/\/\S+\/api\/auth\/one-time\/\S+/.exec(made.stdout)?.[0];
  expect(link, made.stdout).toBeTruthy();

  const first = await browser.newContext({ baseURL: serverUrl(), storageState: undefined });
  const firstPage = await first.newPage();
  await firstPage.goto(link!);
  await expect(firstPage.getByLabel("Signed in as")).toBeVisible();
  await first.close();

  const again = await browser.newContext({ baseURL: serverUrl(), storageState: undefined });
  const page = await again.newPage();
  await page.goto(link!);
  await expect(page).toHaveURL(/\/login\?link=invalid$/);
  await expect(page.getByRole("heading", { name: "This sign-in link does not work" })).toBeVisible();
  await expect(page.getByRole("alert")).toContainText("used already");
  await expect(page.locator("body")).not.toContainText('"code"');
  await expect(page).toHaveTitle("Sign-in link not valid · Rootline");
  await screenshot(page, "sign-in-link-spent");
  await again.close();
});
