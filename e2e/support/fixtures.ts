/**
 * The `test` every spec uses: baseURL = the run's server (started by global-setup.ts), and a
 * signed-in browser state made once per worker by signing in through the real login page.
 * Also watches for script injection: any page dialog or a set `window.__xss` fails the test.
 */
import { test as base, expect, type Browser, type Page } from "@playwright/test";
import fs from "node:fs";
import path from "node:path";

export { expect };

export function serverUrl(): string {
  const url = process.env.ROOTLINE_E2E_URL;
  if (!url) throw new Error("ROOTLINE_E2E_URL is not set: run through `npx playwright test` (global setup)");
  return url;
}

export const credentials = () => ({
  username: process.env.ROOTLINE_E2E_USER ?? "e2e",
  password: process.env.ROOTLINE_E2E_PASSWORD ?? "",
});

/** Sign in through the login page of a fresh page and wait to land on the app. */
export async function signInThroughLoginPage(page: Page, next = "/"): Promise<void> {
  const { username, password } = credentials();
  await page.goto(next === "/" ? "/login" : `/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/login"));
}

async function makeStorageState(browser: Browser, baseURL: string, file: string): Promise<void> {
  const context = await browser.newContext({ baseURL, storageState: undefined });
  const page = await context.newPage();
  await signInThroughLoginPage(page);
  await expect(page.getByLabel("Signed in as")).toContainText(credentials().username);
  await context.storageState({ path: file });
  await context.close();
}

interface WorkerFixtures {
  workerStorageState: string;
}

interface TestFixtures {
  /** Dialogs seen on the page (alert/confirm/prompt): always dismissed, and must stay empty. */
  dialogs: string[];
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  baseURL: async ({}, use) => {
    await use(serverUrl());
  },
  workerStorageState: [
    async ({ browser }, use, workerInfo) => {
      const dir = path.join(workerInfo.project.outputDir, ".auth");
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `worker-${workerInfo.parallelIndex}.json`);
      await makeStorageState(browser, serverUrl(), file);
      await use(file);
    },
    { scope: "worker" },
  ],
  storageState: async ({ workerStorageState }, use) => {
    await use(workerStorageState);
  },
  dialogs: async ({ page }, use) => {
    await use(recordDialogs(page));
  },
});

/** Dismiss every dialog the page opens (alert/confirm/prompt) and list it, for `expect(...).toEqual([])`. */
function recordDialogs(page: Page): string[] {
  const seen: string[] = [];
  page.on("dialog", (dialog) => {
    seen.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss().catch(() => undefined);
  });
  return seen;
}

/** A page of its own context with no session (what someone given a share link has). */
export async function anonymousPage(browser: Browser): Promise<{ page: Page; dialogs: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ baseURL: serverUrl(), storageState: undefined });
  const page = await context.newPage();
  return { page, dialogs: recordDialogs(page), close: () => context.close() };
}
