/**
 * Starts the real Collie daemon for the browser journeys, as a user would (`collie serve`), with
 * no sources.json so it runs the bundled example agent on a private socket (and starts it again
 * when it dies, as Collie does). With `ownAgent`, the example desk runs as the user's own agent
 * instead, started here and named in a sources.json, so a journey can keep it down and start it
 * again itself. The port is fixed per run, so a journey can kill the daemon and start it again on
 * the same address.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

const root = join(import.meta.dirname, "..");
const EXAMPLE = join(root, "sdk/examples/durable-member/main.ts");

export interface CollieServer {
  url: string;
  stateDir: string;
  /** The sources.json path it reads (absent until written, in the bundled-example mode). */
  sources: string;
  /** Runs `collie pair --json`, as a user would, and returns the one-time link it prints. */
  pairLink(): Promise<string>;
  /** Runs `collie pair --json --state-dir D` with no `--url`: the link names the running daemon's origin. */
  pairAsked(): Promise<{ code: string; link: string }>;
  /** Kills the daemon (SIGKILL) and leaves the example agent's state in place. */
  kill(): Promise<void>;
  /** Starts it again on the same port and state directory. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Kills the example agent alone (SIGKILL, as a crash would); the daemon stays up and finds it
   * unreachable. With `ownAgent` it stays down until `startAgent`; without, Collie started it and
   * starts it again by itself.
   */
  killAgent(): Promise<void>;
  /** With `ownAgent`: starts the desk again on its socket and store, as a user would. */
  startAgent(): Promise<void>;
}

export interface CollieOptions {
  /** Extra environment for the daemon and the example agent it starts (e.g. `DESK_ASK_EXPIRY_MS`). */
  env?: Record<string, string>;
  /** A sources.json to read instead of none (then the daemon runs the example agent). */
  sources?: string;
  /**
   * The example desk as the user's own agent: started here on a socket a sources.json names, so
   * Collie does not start it again when it dies, and `killAgent` keeps it down until `startAgent`.
   */
  ownAgent?: boolean;
}

/** Resolves once a child printed a stdout line that matches, or rejects when it exits first. */
function readyLine(c: ChildProcess, what: string, ready: (line: string) => boolean): Promise<void> {
  const lines = createInterface({ input: c.stdout! });
  return new Promise<void>((resolve, reject) => {
    c.once("exit", (code) => reject(new Error(`${what} exited (${code}) before it was ready`)));
    lines.on("line", (line) => {
      if (ready(line)) resolve();
    });
  });
}

/** The pids of the example agents whose command line names this state directory. */
function examplePids(stateDir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      if (args.includes(EXAMPLE) && args.some((a) => a.startsWith(stateDir))) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function gone(pid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startCollie(options: CollieOptions = {}): Promise<CollieServer> {
  const stateDir = mkdtempSync(join(tmpdir(), "collie-e2e-"));
  const port = await freePort();
  const env = { ...process.env, ...options.env };
  let child: ChildProcess | null = null;
  /** The desk this file runs as the user's own agent (`ownAgent`), not in the daemon's process group. */
  let agent: ChildProcess | null = null;
  const ownDir = join(stateDir, "agent");
  let sources = options.sources ?? join(stateDir, "no-sources.json");
  if (options.ownAgent) {
    mkdirSync(ownDir, { recursive: true, mode: 0o700 });
    sources = join(stateDir, "sources.json");
    writeFileSync(sources, JSON.stringify({ durable: [{ name: "desk", socket: join(ownDir, "desk.sock") }] }));
  }
  const startOwnAgent = async () => {
    const c = spawn(process.execPath, [
      "--conditions=collie-source", "--disable-warning=ExperimentalWarning", EXAMPLE, "--socket", join(ownDir, "desk.sock"), "--store", join(ownDir, "desk.json"),
    ], { cwd: root, env, stdio: ["ignore", "pipe", "inherit"], detached: true });
    agent = c;
    await readyLine(c, "the example agent", (line) => line.startsWith('{"ready":true'));
  };
  const launch = async () => {
    if (options.ownAgent && !agent) await startOwnAgent();
    const c = spawn(process.execPath, [
      "--conditions=collie-source", "--disable-warning=ExperimentalWarning", join(root, "server/src/main.ts"), "serve",
      "--sources", sources, "--state-dir", stateDir, "--port", String(port),
    ], { cwd: root, env, stdio: ["ignore", "pipe", "inherit"], detached: true });
    child = c;
    await readyLine(c, "collie", (line) => /listening on http/.test(line));
  };
  const killChild = async (c: ChildProcess | null, signal: NodeJS.Signals) => {
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once("exit", r));
    try {
      process.kill(-c.pid!, signal);
    } catch {
      c.kill(signal);
    }
    await exited;
  };
  // Kills the daemon and its example agent (one process group), and an agent started here.
  const killGroup = async (signal: NodeJS.Signals) => {
    await killChild(agent, signal);
    agent = null;
    await killChild(child, signal);
  };
  await launch();
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    stateDir,
    sources,
    pairLink: () =>
      new Promise((resolve, reject) => {
        execFile(process.execPath, [
          "--conditions=collie-source", "--disable-warning=ExperimentalWarning", join(root, "server/src/main.ts"),
          "pair", "--json", "--state-dir", stateDir, "--url", url,
        ], { cwd: root }, (err, stdout) => (err ? reject(err) : resolve((JSON.parse(stdout) as { link: string }).link)));
      }),
    pairAsked: () =>
      new Promise((resolve, reject) => {
        execFile(process.execPath, [
          "--conditions=collie-source", "--disable-warning=ExperimentalWarning", join(root, "server/src/main.ts"),
          "pair", "--json", "--state-dir", stateDir,
        ], { cwd: root }, (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout) as { code: string; link: string })));
      }),
    kill: () => killGroup("SIGKILL"),
    start: launch,
    async stop() {
      await killGroup("SIGTERM");
      rmSync(stateDir, { recursive: true, force: true });
    },
    async killAgent() {
      const pids = examplePids(stateDir);
      if (pids.length !== 1) throw new Error(`expected one example agent for ${stateDir}, found ${pids.length}`);
      process.kill(pids[0]!, "SIGKILL");
      await gone(pids[0]!);
      agent = null;
    },
    async startAgent() {
      if (!options.ownAgent) throw new Error("startAgent is for a Collie started with ownAgent: Collie starts its own example again itself");
      await startOwnAgent();
    },
  };
}
