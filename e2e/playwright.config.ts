import { defineConfig } from "@playwright/test";

/** Debian's Chromium (never a downloaded browser), headless, one real server for the run. */
export const chromium = {
  browserName: "chromium" as const,
  headless: true,
  viewport: { width: 1280, height: 800 },
  launchOptions: {
    executablePath: process.env.ROOTLINE_CHROMIUM ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  },
};

export default defineConfig({
  testDir: "tests",
  globalSetup: "./support/global-setup.ts",
  outputDir: "test-results",
  timeout: 120_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    ...chromium,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    actionTimeout: 15_000,
    navigationTimeout: 30_000,
  },
});
