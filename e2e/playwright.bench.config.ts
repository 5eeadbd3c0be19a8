import { defineConfig } from "@playwright/test";
import { chromium } from "./playwright.config";

/** `make bench-browser`: timeline draw and zoom times in Chromium, printed with PASS/MISS. */
export default defineConfig({
  testDir: "bench",
  testMatch: "*.bench.ts",
  globalSetup: "./bench/global-setup.ts",
  outputDir: "test-results/bench",
  timeout: 300_000,
  expect: { timeout: 30_000 },
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  use: { ...chromium, trace: "off", screenshot: "only-on-failure" },
});
