/** What the specs do again and again: create, upload, read lanes, brush, screenshots. */
import { expect, type Locator, type Page } from "@playwright/test";
import fs from "node:fs";
import path from "node:path";
import { E2E_DIR, REPO } from "./server";

export const LAB = path.join(REPO, "lab", "fixtures");
export const FIXTURES = path.join(REPO, "backend", "tests", "fixtures");
export const SCREENSHOTS = path.join(E2E_DIR, "screenshots");

/** The hostile strings of issue 6: they must come back verbatim, as text, never run. */
export const XSS_SCRIPT = "<script>window.__xss=1</script>";
export const XSS_IMG = '<img src=x onerror="window.__xss=1">';
export const XSS_URL = "javascript:alert(1)";

export async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage });
}

// ---- incidents and uploads through the UI ----

export async function createIncidentThroughUi(
  page: Page,
  values: { title: string; summary?: string; timezone?: string },
): Promise<string> {
  await page.goto("/");
  await page.getByRole("button", { name: "New incident" }).click();
  const dialog = page.getByRole("dialog", { name: "New incident" });
  await dialog.getByLabel("Title").fill(values.title);
  if (values.summary) await dialog.getByLabel("Summary").fill(values.summary);
  await dialog.getByLabel("Timezone").fill(values.timezone ?? "UTC");
  await dialog.getByRole("button", { name: "Create incident" }).click();
  await page.waitForURL(/\/incidents\/[^/?]+/);
  await expect(page.getByRole("heading", { level: 1, name: values.title })).toBeVisible();
  return incidentIdOf(page);
}

export function incidentIdOf(page: Page): string {
  const match = /\/incidents\/([^/?#]+)/.exec(new URL(page.url()).pathname);
  if (!match) throw new Error(`not on an incident page: ${page.url()}`);
  return decodeURIComponent(match[1]!);
}

export interface UploadFile {
  /** A file on disk, or in-memory content with a name. */
  path?: string;
  name?: string;
  buffer?: Buffer;
  /** Typed into the row's host field (bundles and nmon files carry their own). */
  host?: string;
  /** Typed into the row's timezone field (for captures without a zone). */
  timezone?: string;
}

/** Pick files in the upload panel, fill hosts, and start the upload (it does not wait for it). */
export async function startUploadThroughUi(page: Page, files: UploadFile[]): Promise<void> {
  const panel = page.locator("section.upload");
  const payload = files.map((f) => ({
    name: f.name ?? path.basename(f.path!),
    mimeType: "application/octet-stream",
    buffer: f.buffer ?? fs.readFileSync(f.path!),
  }));
  await panel.getByLabel("Files to upload").setInputFiles(payload);
  await expect(panel.locator('[data-testid="upload-row"][data-state="staged"]')).toHaveCount(files.length);
  for (const file of files) {
    const name = file.name ?? path.basename(file.path!);
    if (file.host) await panel.getByLabel(`Host for ${name}`, { exact: true }).fill(file.host);
    if (file.timezone) await panel.getByLabel(`Timezone for ${name}`, { exact: true }).fill(file.timezone);
  }
  await panel.getByRole("button", { name: /^Upload \d+ files?$/ }).click();
}

/**
 * Wait until every upload row is sent and stored, then until the parse workers are done with
 * every file (bundle members included): an upload is answered before its file is parsed, and
 * the row follows the polled artifacts list to its final status.
 */
export async function waitForUploadsParsed(page: Page, parseTimeout = 60_000): Promise<void> {
  const panel = page.locator("section.upload");
  await expect(panel.locator('[data-testid="upload-row"]:not([data-state="done"])')).toHaveCount(0, {
    timeout: 90_000,
  });
  await expect(panel.locator('[data-testid="upload-row"]:not([data-parse="done"])')).toHaveCount(0, {
    timeout: parseTimeout,
  });
}

/** Pick files in the upload panel, fill hosts, upload, and wait until every file is parsed. */
export async function uploadThroughUi(page: Page, files: UploadFile[], parseTimeout = 60_000): Promise<void> {
  await startUploadThroughUi(page, files);
  await waitForUploadsParsed(page, parseTimeout);
}

// ---- API calls from the signed-in page (cookies + CSRF header, like the app) ----

export async function csrfToken(page: Page): Promise<string> {
  const cookies = await page.context().cookies();
  const csrf = cookies.find((c) => c.name === "rootline_csrf")?.value;
  if (!csrf) throw new Error("no rootline_csrf cookie: not signed in?");
  return csrf;
}

export async function apiCreateIncident(page: Page, title: string): Promise<string> {
  const response = await page.request.post("/api/incidents", {
    data: { title, summary: "", timezone: "UTC" },
    headers: { "X-CSRF-Token": await csrfToken(page) },
  });
  expect(response.status(), await response.text()).toBe(201);
  return String(((await response.json()) as { id: string }).id);
}

export async function apiUpload(page: Page, incidentId: string, file: string, host?: string): Promise<void> {
  const response = await page.request.post(`/api/incidents/${incidentId}/artifacts`, {
    multipart: {
      files: { name: path.basename(file), mimeType: "application/octet-stream", buffer: fs.readFileSync(file) },
      ...(host ? { host } : {}),
    },
    headers: { "X-CSRF-Token": await csrfToken(page) },
    // The server answers 201 once the file is parsed (within `wait`), 202 while it is queued.
    params: { wait: 50 },
    timeout: 60_000,
  });
  expect(response.status(), await response.text()).toBe(201);
}

// ---- the timeline's lanes ----

export function lanes(page: Page): Locator {
  return page.getByTestId("lane");
}

export function lane(page: Page, key: string): Locator {
  return page.locator(`[data-testid="lane"][data-lane="${key}"]`);
}

/** Wait until there are lanes and none of them is still loading. */
export async function waitForLanesSettled(page: Page, timeout = 30_000): Promise<void> {
  await expect(lanes(page).first()).toBeVisible({ timeout });
  await expect(page.locator('[data-testid="lane"][data-state="loading"]')).toHaveCount(0, { timeout });
}

export interface Drawing {
  state: string | null;
  from: number;
  to: number;
  /** Visible SVG paths with a non-empty `d` (the lanes' lines). */
  curves: number;
  /** Drawing commands (about one per point) in the longest path, and in all of them. */
  maxPoints: number;
  totalPoints: number;
  /** Characters of `d` over all paths. */
  dLength: number;
  /** Dots (GC pauses, points of sparse lines). */
  symbols: number;
}

/**
 * What one lane's SVG actually holds: the visible data paths, leaving out what is not data
 * (clip paths and anything drawn with `stroke="none"` or hidden).
 */
export async function drawing(laneLocator: Locator): Promise<Drawing> {
  return laneLocator.evaluate((el) => {
    const visible = (p: Element) => {
      if (p.closest("clipPath, defs")) return false;
      const style = getComputedStyle(p);
      return style.stroke !== "none" && style.visibility !== "hidden" && style.display !== "none";
    };
    const curves = Array.from(el.querySelectorAll("svg path"))
      .filter(visible)
      .map((p) => p.getAttribute("d") ?? "")
      .filter((d) => d.length > 0);
    const points = curves.map((d) => (d.match(/[MLC]/g) ?? []).length);
    return {
      state: el.getAttribute("data-state"),
      from: Number(el.getAttribute("data-from")),
      to: Number(el.getAttribute("data-to")),
      curves: curves.length,
      maxPoints: Math.max(0, ...points),
      totalPoints: points.reduce((a, b) => a + b, 0),
      dLength: curves.reduce((a, d) => a + d.length, 0),
      symbols: el.querySelectorAll("svg circle").length,
    };
  });
}

/** Every lane named is drawn, from real data: a long curve, or many dots. */
export async function expectLanesDrawReal(page: Page, keys: string[], minPoints = 8): Promise<Record<string, Drawing>> {
  const found: Record<string, Drawing> = {};
  for (const key of keys) {
    const locator = lane(page, key);
    await expect(locator, `lane ${key}`).toHaveAttribute("data-state", "drawn");
    const d = await drawing(locator);
    found[key] = d;
    const marks = Math.max(d.totalPoints, d.symbols);
    expect(marks, `lane ${key} draws ${JSON.stringify(d)}`).toBeGreaterThanOrEqual(minPoints);
    if (d.curves > 0) expect(d.dLength, `lane ${key} path d`).toBeGreaterThan(100);
  }
  return found;
}

export async function laneKeys(page: Page): Promise<string[]> {
  return lanes(page).evaluateAll((els) => els.map((el) => el.getAttribute("data-lane") ?? ""));
}

/**
 * Drag across a lane's plot area with the mouse, from one fraction of its width to another.
 * The plot area is the chart's `rect.tl-plot` (the SVG also holds the y axis on the left).
 */
export async function brush(page: Page, laneLocator: Locator, fromFraction: number, toFraction: number): Promise<void> {
  const plot = laneLocator.locator("svg.tl-surface rect.tl-plot").first();
  // A lane redrawn for new data replaces its plot: the one found may be gone a moment later
  // ("not attached to the DOM"). Find it again rather than fail on a redraw.
  let box: { x: number; y: number; width: number; height: number } | null = null;
  for (let attempt = 1; ; attempt++) {
    try {
      await plot.scrollIntoViewIfNeeded();
      box = await plot.boundingBox();
      break;
    } catch (error) {
      if (attempt >= 5 || !String(error).includes("not attached")) throw error;
      await page.waitForTimeout(200);
    }
  }
  if (!box || box.width < 10) throw new Error("lane has no visible plot to brush");
  const y = box.y + box.height * 0.5;
  const x = (fraction: number) => box.x + box.width * fraction;
  await page.mouse.move(x(fromFraction), y);
  await page.mouse.down();
  await page.mouse.move(x((fromFraction + toFraction) / 2), y, { steps: 5 });
  await page.mouse.move(x(toFraction), y, { steps: 5 });
  await page.mouse.up();
}

export function urlRange(page: Page): { from: number | null; to: number | null } {
  const params = new URL(page.url()).searchParams;
  const read = (key: string) => {
    const value = params.get(key);
    if (value === null || value === "") return null;
    const n = Number(value);
    return Number.isFinite(n) ? n : Date.parse(value);
  };
  return { from: read("from"), to: read("to") };
}

/** Fail when a hostile string ran: a dialog opened or `window.__xss` got set. */
export async function expectNoScriptRan(page: Page, dialogs: string[]): Promise<void> {
  expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
  expect(dialogs).toEqual([]);
}
