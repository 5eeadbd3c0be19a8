/**
 * One real server for the whole e2e run, in a fresh temporary data directory (SQLite, no demo),
 * with one admin user. Tests read where it is from the environment (see fixtures.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { copyLog, E2E_DIR, makeDataDir, shareWithWorkers, startServer } from "./server";

export default async function globalSetup(): Promise<() => Promise<void>> {
  const dataDir = makeDataDir("rootline-e2e-");
  const server = await startServer({
    dataDir,
    env: { ROOTLINE_MAX_UPLOAD_BYTES: String(64 * 1024 * 1024) },
  });
  const username = "e2e";
  shareWithWorkers(server, username);
  console.log(`e2e: rootline serve at ${server.url}, data in ${dataDir}, user ${username}`);

  return async () => {
    await server.stop();
    copyLog(server, path.join(E2E_DIR, "test-results", "server.log"));
    if (!process.env.ROOTLINE_E2E_KEEP) fs.rmSync(dataDir, { recursive: true, force: true });
  };
}
