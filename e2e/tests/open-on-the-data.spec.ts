/**
 * An incident whose files lie years apart (a 2014 AIX nmon sample from the corpus beside this
 * machine's 2026 captures) opens on the captures, not on twelve empty years, says so, and
 * shows the whole span on request.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "../support/fixtures";
import {
  FIXTURES,
  createIncidentThroughUi,
  expectLanesDrawReal,
  screenshot,
  uploadThroughUi,
  waitForLanesSettled,
} from "../support/helpers";
import { REPO } from "../support/server";

// The public corpus sits beside the repository, as for the backend's tests.
const CORPUS = process.env.ROOTLINE_CORPUS_DIR ?? path.join(REPO, "..", "shared", "corpus");
const SAMPLE = path.join(CORPUS, "nmon", "aix61-tl07-power7-topas-nmon-top-uarg-nfs-nmonchart-sampleC.nmon");

test("files years apart: the page opens where the captures are, and shows everything on request", async ({ page, dialogs }) => {
  test.skip(!fs.existsSync(SAMPLE), `the corpus is absent (${CORPUS})`);
  test.setTimeout(120_000);
  await createIncidentThroughUi(page, { title: "A stray 2014 sample", timezone: "UTC" });
  await uploadThroughUi(page, [
    { path: SAMPLE },
    { path: path.join(FIXTURES, "ss", "ss-tinm-loop.txt"), host: "db-1" },
    { path: path.join(FIXTURES, "nstat", "nstat-az-series.txt"), host: "db-1" },
  ]);
  const from = () => Number(new URL(page.url()).searchParams.get("from"));
  const to = () => Number(new URL(page.url()).searchParams.get("to"));
  // Without a reload: the page opens on the data as the files arrive. The captures were taken
  // on 2026-11-21 between 07:27 and 07:30 UTC.
  await expect(page.getByTestId("view-focus")).toHaveText(/where 2 of 3 files lie; 1 lies 12 years away/, {
    timeout: 30_000,
  });
  await expect.poll(from).toBeGreaterThan(Date.UTC(2026, 10, 21, 7, 0));
  expect(to()).toBeLessThan(Date.UTC(2026, 10, 21, 8, 0));
  // A reload keeps that range (it is in the URL now).
  await page.reload();
  await expect.poll(from).toBeGreaterThan(Date.UTC(2026, 10, 21, 7, 0));
  expect(to()).toBeLessThan(Date.UTC(2026, 10, 21, 8, 0));
  await waitForLanesSettled(page);
  await expectLanesDrawReal(page, ["tcp_states", "retransmissions"], 8);
  await screenshot(page, "open-on-the-data");

  await page.getByRole("button", { name: "Show everything" }).click();
  await expect.poll(() => new URL(page.url()).searchParams.get("from")).toBeNull();
  await expect(page.getByText(/Whole incident, all hosts/)).toBeVisible();
  await expect(page.getByTestId("view-focus")).toHaveCount(0);
  expect(dialogs).toEqual([]);
});
