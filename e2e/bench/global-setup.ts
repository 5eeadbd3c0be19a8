/**
 * The browser benchmark's server: 60 series x 24 h at 1 s (bench/browser_data.py, built once into
 * <repo>/bench-data/browser and reused), served by a real `rootline serve`, with a user.
 */
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { BACKEND, PYTHON, REPO, makeDataDir, shareWithWorkers, startServer } from "../support/server";

export default async function globalSetup(): Promise<() => Promise<void>> {
  const dataDir = path.join(process.env.ROOTLINE_BENCH_DATA ?? path.join(REPO, "bench-data"), "browser");
  console.log(`bench: building (or reusing) 60 series x 86,400 points in ${dataDir} ...`);
  const built = spawnSync(PYTHON, ["-m", "bench.browser_data", dataDir], { cwd: BACKEND, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`bench.browser_data failed:\n${built.stdout}\n${built.stderr}`);
  const described = JSON.parse(built.stdout.trim().split("\n").pop()!) as {
    incident_id: string;
    database_url: string;
    from_ms: number;
    to_ms: number;
    build_seconds: number;
  };
  console.log(`bench: data ready (built in ${described.build_seconds} s), incident ${described.incident_id}`);

  const runDir = makeDataDir("rootline-bench-");
  const server = await startServer({ dataDir: runDir, databaseUrl: described.database_url });
  shareWithWorkers(server, `bench-${crypto.randomBytes(4).toString("hex")}`);
  process.env.ROOTLINE_BENCH_INCIDENT = described.incident_id;
  process.env.ROOTLINE_BENCH_FROM = String(described.from_ms);
  process.env.ROOTLINE_BENCH_TO = String(described.to_ms);
  return async () => {
    await server.stop();
    fs.rmSync(runDir, { recursive: true, force: true });
  };
}
