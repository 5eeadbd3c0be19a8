/**
 * A real Rootline server for a Playwright run: `backend/.venv/bin/rootline serve` on a free port
 * with its own data directory, serving the built web app (frontend/dist), plus a signed-up user.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const E2E_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const REPO = path.resolve(E2E_DIR, "..");
export const BACKEND = path.join(REPO, "backend");
export const ROOTLINE = path.join(BACKEND, ".venv", "bin", "rootline");
export const PYTHON = path.join(BACKEND, ".venv", "bin", "python");
/** The built web app the tests drive (ROOTLINE_E2E_FRONTEND_DIR points elsewhere, e.g. an unminified build). */
export const FRONTEND_DIST = process.env.ROOTLINE_E2E_FRONTEND_DIR ?? path.join(REPO, "frontend", "dist");

export interface RunningServer {
  url: string;
  dataDir: string;
  logPath: string;
  env: NodeJS.ProcessEnv;
  process: ChildProcess;
  stop: () => Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function makeDataDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

function checkPrerequisites(): void {
  if (!fs.existsSync(ROOTLINE)) {
    throw new Error(`${ROOTLINE} is missing: run \`make setup\` first (it creates backend/.venv).`);
  }
  if (!fs.existsSync(path.join(FRONTEND_DIST, "index.html"))) {
    throw new Error(
      `${FRONTEND_DIST}/index.html is missing: the e2e tests drive the built web app; ` +
        "run `make build` (or `make test-e2e`, which builds it) first.",
    );
  }
}

function tail(file: string, lines = 40): string {
  try {
    return fs.readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no server log)";
  }
}

/** Start `rootline serve` and wait until /api/health answers 200. */
export async function startServer(options: {
  dataDir: string;
  databaseUrl?: string;
  env?: Record<string, string>;
}): Promise<RunningServer> {
  checkPrerequisites();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logPath = path.join(options.dataDir, "server.log");
  // Serve a copy: a rebuild of frontend/dist during the run (vite empties it first) must not
  // pull the pages from under the tests.
  const webDir = path.join(options.dataDir, "web");
  fs.cpSync(FRONTEND_DIST, webDir, { recursive: true });
  // The server sees only the settings given here (no ROOTLINE_* leaking in from the shell).
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("ROOTLINE_")));
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    ROOTLINE_DATA_DIR: options.dataDir,
    ROOTLINE_LOAD_DEMO: "false",
    ROOTLINE_FRONTEND_DIR: webDir,
    ...(options.databaseUrl ? { ROOTLINE_DATABASE_URL: options.databaseUrl } : {}),
    ...options.env,
  };
  const log = fs.openSync(logPath, "a");
  const child = spawn(ROOTLINE, ["serve", "--host", "127.0.0.1", "--port", String(port)], {
    cwd: BACKEND,
    env,
    stdio: ["ignore", log, log],
  });
  fs.closeSync(log);
  let exited: number | null = null;
  child.on("exit", (code) => {
    exited = code ?? -1;
  });

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== null) {
      throw new Error(`rootline serve exited (code ${exited}) before it answered:\n${tail(logPath)}`);
    }
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`rootline serve did not answer /api/health within 60 s:\n${tail(logPath)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }

  const stop = async () => {
    if (exited !== null) return;
    const done = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await done;
    clearTimeout(timer);
  };
  return { url, dataDir: options.dataDir, logPath, env, process: child, stop };
}

function randomPassword(): string {
  return `e2e-${crypto.randomBytes(18).toString("base64url")}`;
}

/**
 * Create an admin user with a password, the way an operator does: `rootline users add NAME
 * --admin --password-stdin` with the server's environment (same database).
 */
function createUser(server: RunningServer, username: string, password: string): void {
  const cli = spawnSync(ROOTLINE, ["users", "add", username, "--admin", "--password-stdin"], {
    cwd: BACKEND,
    env: server.env,
    input: `${password}\n`,
    encoding: "utf8",
  });
  if (cli.status !== 0) {
    throw new Error(
      `rootline users add ${username} --admin --password-stdin failed (${cli.status}):\n${cli.stdout}\n${cli.stderr}`,
    );
  }
}

/**
 * Create the run's user (random password) and hand the server to the test workers: fixtures.ts
 * reads these variables for its baseURL and its sign-in.
 */
export function shareWithWorkers(server: RunningServer, username: string): void {
  const password = randomPassword();
  createUser(server, username, password);
  process.env.ROOTLINE_E2E_URL = server.url;
  // For specs that act as the operator (`rootline users link NAME` on the same database).
  process.env.ROOTLINE_E2E_DATA_DIR = server.dataDir;
  process.env.ROOTLINE_E2E_USER = username;
  process.env.ROOTLINE_E2E_PASSWORD = password;
}

export function copyLog(server: RunningServer, target: string): void {
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(server.logPath, target);
  } catch {
    // best effort
  }
}
