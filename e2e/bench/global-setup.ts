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
  console.log("bench: adding (or reusing) the C10K provider (7,000 connections x 120 snapshots of ss -tinm) ...");
  const c10k = spawnSync(PYTHON, ["-m", "bench.c10k", "--into", dataDir], { cwd: BACKEND, encoding: "utf8" });
  if (c10k.status !== 0) throw new Error(`bench.c10k failed:\n${c10k.stdout}\n${c10k.stderr}`);
  const provider = JSON.parse(c10k.stdout.trim().split("\n").pop()!) as { incident_id: string; quiet_peer: string; wall_s: number };
  console.log(`bench: C10K incident ${provider.incident_id} (ingested in ${provider.wall_s.toFixed(1)} s)`);
  process.env.ROOTLINE_BENCH_C10K_INCIDENT = provider.incident_id;
  process.env.ROOTLINE_BENCH_C10K_PEER = provider.quiet_peer;

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
