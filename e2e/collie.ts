/**
 * Starts the real Collie daemon for the browser journeys, as a user would (`collie serve`), with
 * no sources.json so it runs the bundled example agent on a private socket. The port is fixed per
 * run, so a journey can kill the daemon and start it again on the same address.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

const root = join(import.meta.dirname, "..");

export interface CollieServer {
  url: string;
  stateDir: string;
  /** Kills the daemon (SIGKILL) and leaves the example agent's state in place. */
  kill(): Promise<void>;
  /** Starts it again on the same port and state directory. */
  start(): Promise<void>;
  stop(): Promise<void>;
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

export async function startCollie(): Promise<CollieServer> {
  const stateDir = mkdtempSync(join(tmpdir(), "collie-e2e-"));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const launch = async () => {
    const c = spawn(process.execPath, [
      "--conditions=collie-source", "--disable-warning=ExperimentalWarning", join(root, "server/src/main.ts"), "serve",
      "--sources", join(stateDir, "no-sources.json"), "--state-dir", stateDir, "--port", String(port),
    ], { cwd: root, stdio: ["ignore", "pipe", "inherit"], detached: true });
    child = c;
    const lines = createInterface({ input: c.stdout! });
    await new Promise<void>((resolve, reject) => {
      c.once("exit", (code) => reject(new Error(`collie exited (${code}) before listening`)));
      lines.on("line", (line) => {
        if (/listening on http/.test(line)) resolve();
      });
    });
  };
  // Kills the daemon and its example agent (one process group).
  const killGroup = async (signal: NodeJS.Signals) => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise((r) => c.once("exit", r));
    try {
      process.kill(-c.pid!, signal);
    } catch {
      c.kill(signal);
    }
    await gone;
  };
  await launch();
  return {
    url: `http://127.0.0.1:${port}`,
    stateDir,
    kill: () => killGroup("SIGKILL"),
    start: launch,
    async stop() {
      await killGroup("SIGTERM");
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
