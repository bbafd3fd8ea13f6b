/** Runs the `collie` command line (server/src/main.ts) in a child process. */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { NODE_FLAGS } from "./child-agent.ts";

export const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function collie(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...NODE_FLAGS, MAIN, ...args], { env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts `collie` as a long-running child (serve); the caller stops it. */
export function collieProcess(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, [...NODE_FLAGS, MAIN, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
}
