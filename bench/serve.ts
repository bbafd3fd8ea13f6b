/**
 * `collie serve` idle with the example agent (issue 18): the real command as a user starts it, the
 * `collie` bin with its shebang's flags running the built JavaScript (or, with
 * `BENCH_DAEMON_FROM=sources`, the TypeScript sources as before), on a scratch state directory with
 * no sources.json, so it starts the bundled example agent. The daemon's RSS is read every second
 * for `seconds` after it listens; /proc/<pid>/smaps_rollup splits the last reading into anonymous
 * memory and file-backed pages (mostly the node binary's code, shared with every node process).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { daemonConfig, ensureBuilt } from "./cluster.ts";
import { rssMb, sleep } from "./lib.ts";

export interface ServeResult {
  from: "built" | "sources";
  flags: string;
  seconds: number;
  /** The daemon's RSS at the end of the idle window, and the most it reached in it. */
  rssMb: number;
  rssMaxMb: number;
  anonMb: number;
  fileMb: number;
  /** The example agent's own process, for the record (not the daemon's memory). */
  exampleRssMb?: number;
}

function rollup(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of readFileSync(`/proc/${pid}/smaps_rollup`, "utf8").split("\n")) {
    const m = /^(\w+):\s+(\d+) kB/.exec(line);
    if (m) out[m[1]!] = Number(m[2]) / 1024;
  }
  return out;
}

function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export async function runServe(opts: { seconds: number }, log: (line: string) => void): Promise<ServeResult> {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), "collie-bench-serve-"));
  const { from, flags, root } = daemonConfig;
  const args = [
    ...flags.split(" ").filter(Boolean),
    ...(from === "sources" ? ["--conditions=collie-source"] : []),
    join(root, "server/bin/collie.js"), "serve", "--port", "0", "--state-dir", join(dir, "state"), "--sources", join(dir, "none.json"),
  ];
  // The condition that maps the workspace packages to TypeScript must not reach a built run.
  const nodeOptions = (process.env.NODE_OPTIONS ?? "").split(/\s+/).filter((o) => o && !o.includes("collie-source")).join(" ");
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, NODE_OPTIONS: nodeOptions }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (output += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (output += c));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    const deadline = Date.now() + 180_000;
    while (!/collie: listening on/.test(output)) {
      if (child.exitCode !== null) throw new Error(`collie serve exited: ${output}`);
      if (Date.now() > deadline) throw new Error(`collie serve did not listen within 180 s: ${output}`);
      await sleep(100);
    }
    const pid = child.pid!;
    log(`serve: collie serve listening (${from}, ${flags}); idle for ${opts.seconds} s`);
    let max = 0;
    let rss = 0;
    for (let s = 0; s < opts.seconds; s++) {
      await sleep(1000);
      rss = rssMb(pid);
      max = Math.max(max, rss);
    }
    const r = rollup(pid);
    const example = children(pid).find((c) => {
      try {
        return readFileSync(`/proc/${c}/cmdline`, "utf8").includes("durable-member");
      } catch {
        return false;
      }
    });
    return {
      from,
      flags,
      seconds: opts.seconds,
      rssMb: rss,
      rssMaxMb: max,
      anonMb: r.Anonymous ?? NaN,
      fileMb: (r.Rss ?? NaN) - (r.Anonymous ?? NaN),
      ...(example ? { exampleRssMb: rssMb(example) } : {}),
    };
  } finally {
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
  }
}
