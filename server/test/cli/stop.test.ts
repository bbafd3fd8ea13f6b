/**
 * Stopping the command a user started stops everything it started (D-6, D-7): `npm start` and
 * `npx collie serve` run as a real process tree (npm, then the daemon, then the bundled example
 * agent); a SIGTERM to npm's pid alone must leave none of them running.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** Starting may build the phone app first (web/dist missing on a fresh clone): a generous wait. */
const START_DEADLINE_MS = 180_000;

const started: number[] = [];
after(() => {
  // Whatever a failed run left behind goes, so one failure does not leak processes into the next.
  for (const pid of started) if (alive(pid)) process.kill(pid, "SIGKILL");
  removeTempDirs();
});

/** The process's parent pid and state from /proc, or undefined when it is gone. */
function stat(pid: number): { ppid: number; state: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid] = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(ppid), state: state! };
  } catch {
    return undefined;
  }
}

/** Running, not a zombie waiting for a reaper (a container's pid 1 may never reap). */
function alive(pid: number): boolean {
  const s = stat(pid);
  return s !== undefined && s.state !== "Z" && s.state !== "X";
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\u0000").join(" ").trim();
  } catch {
    return "(gone)";
  }
}

/** Every live descendant of `root`, found by walking /proc's parent links. */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const s = stat(Number(entry));
    if (!s) continue;
    children.set(s.ppid, [...(children.get(s.ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      if (alive(c)) out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** Runs an npm command from the checkout under this Node and waits for Collie's listening line. */
async function startThroughNpm(npmArgs: string[]): Promise<{ npm: ChildProcess; output: () => string }> {
  const npm = spawn("npm", npmArgs, {
    cwd: ROOT,
    env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(npm.pid!);
  let text = "";
  npm.stdout!.setEncoding("utf8").on("data", (c: string) => (text += c));
  npm.stderr!.setEncoding("utf8").on("data", (c: string) => (text += c));
  await until(() => /collie: listening on http:\/\/127\.0\.0\.1:\d+/.test(text), () => `Collie listening; output so far:\n${text}`, START_DEADLINE_MS);
  return { npm, output: () => text };
}

async function checkStopStopsAll(npmArgs: string[]): Promise<void> {
  const { npm, output } = await startThroughNpm(npmArgs);
  const tree = await until(() => {
    const pids = descendants(npm.pid!);
    const daemon = pids.find((p) => cmdline(p).includes("collie"));
    const example = pids.find((p) => cmdline(p).includes("durable-member"));
    return daemon && example ? pids : undefined;
  }, () => `the daemon and the example agent under npm (pid ${npm.pid}); tree: ${descendants(npm.pid!).map((p) => `${p} ${cmdline(p)}`).join("; ")}`);
  started.push(...tree);

  process.kill(npm.pid!, "SIGTERM");
  const [, signal] = (npm.exitCode !== null || npm.signalCode !== null) ? [npm.exitCode, npm.signalCode] : await once(npm, "exit");
  assert.ok(signal === null || signal === "SIGTERM", `npm ended by ${signal}`);
  await until(() => tree.every((p) => !alive(p)), () => `every process npm started to stop; still running: ${tree.filter(alive).map((p) => `${p} ${cmdline(p)}`).join("; ")}\noutput:\n${output()}`);
}

test("a SIGTERM to `npm start`'s pid stops the daemon and the example agent", { timeout: START_DEADLINE_MS + 60_000 }, async () => {
  const dir = tempDir();
  await checkStopStopsAll(["start", "--", "--port", "0", "--state-dir", join(dir, "state"), "--sources", join(dir, "none.json")]);
});

test("a SIGTERM to `npx collie serve`'s pid stops the daemon and the example agent", { timeout: START_DEADLINE_MS + 60_000 }, async () => {
  const dir = tempDir();
  await checkStopStopsAll(["exec", "--", "collie", "serve", "--port", "0", "--state-dir", join(dir, "state"), "--sources", join(dir, "none.json")]);
});
