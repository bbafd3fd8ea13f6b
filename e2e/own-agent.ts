/**
 * A journey's own durable agent (a script in e2e/ on the real SDK) on a private socket, and the
 * sources.json that names it, for a Collie started with `startCollie({sources})`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

const root = join(import.meta.dirname, "..");

export interface OwnAgent {
  /** The sources.json that names the agent. */
  sources: string;
  stop(): void;
}

/** Starts `e2e/<script>` as agent `name` and resolves once it printed `{"ready":true}`. */
export async function startOwnAgent(script: string, name: string): Promise<OwnAgent> {
  const dir = mkdtempSync(join(tmpdir(), `collie-${name}-`));
  const socket = join(dir, "run", `${name}.sock`);
  const child: ChildProcess = spawn(process.execPath, [
    "--conditions=collie-source", "--disable-warning=ExperimentalWarning", join(root, "e2e", script), "--socket", socket,
  ], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.includes('"ready":true')) resolve();
    });
  });
  const sources = join(dir, "sources.json");
  writeFileSync(sources, JSON.stringify({ durable: [{ name, socket }] }), { mode: 0o600 });
  return {
    sources,
    stop() {
      child.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
