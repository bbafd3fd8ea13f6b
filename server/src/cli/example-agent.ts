/**
 * The embedded default (D-7): with no sources.json, Collie starts the bundled support-desk
 * example on a private socket in its state directory, so a new user sees a working phone UI at once.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { AgentSource } from "../sources/sources.ts";

const EXAMPLE = fileURLToPath(new URL("../../../sdk/examples/durable-member/main.ts", import.meta.url));

/** How long the example agent gets to stop on SIGTERM before it is killed. */
const EXAMPLE_STOP_MS = 3000;

export interface ExampleAgent {
  source: AgentSource;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startExampleAgent(stateDir: string): Promise<ExampleAgent> {
  const dir = join(stateDir, "example");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const socket = join(dir, "desk.sock");
  const child = spawn(process.execPath, ["--conditions=collie-source", "--disable-warning=ExperimentalWarning", EXAMPLE, "--socket", socket, "--store", join(dir, "desk.json")], {
    // stdin is a pipe the agent watches: if Collie dies, the example goes with it.
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, DESK_EXIT_WITH_PARENT: "1" },
  });
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the example agent exited (${code}) before it was ready`));
    child.once("exit", onExit);
    lines.on("line", (line) => {
      try {
        if ((JSON.parse(line) as { ready?: boolean }).ready) {
          child.off("exit", onExit);
          resolve();
        }
      } catch {
        // not a status line
      }
    });
  });
  return {
    source: { name: "desk", endpoint: { kind: "socket", path: socket }, key: `socket:${socket}` },
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      // An agent that does not stop in time is killed: Collie's own shutdown must not wait on it.
      const kill = setTimeout(() => child.kill("SIGKILL"), EXAMPLE_STOP_MS);
      await gone;
      clearTimeout(kill);
    },
  };
}
