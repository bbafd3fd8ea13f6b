/**
 * Starting what a run needs, each in its own process: load agents (a few processes hosting the
 * agents), the timed agent, the daemon (its own child, so /proc tells its CPU and RSS) and the
 * watching phones.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Child, ROOT, sleep } from "./lib.ts";

/** The V8 flags the `collie` bin's shebang (and `npm start`) give the daemon, read from the bin. */
export const DAEMON_NODE_FLAGS = (/^#!\/usr\/bin\/env -S node (.*)$/m.exec(readFileSync(join(ROOT, "server/bin/collie.js"), "utf8"))?.[1] ?? "").trim();

/**
 * Where the daemon's code comes from: `built` (server/dist, as `collie serve` runs it, the default)
 * or `sources` (the TypeScript through type stripping, as before issue 18), `BENCH_DAEMON_FROM`.
 */
export const DAEMON_FROM = process.env.BENCH_DAEMON_FROM === "sources" ? "sources" : "built";

/**
 * The daemon as Collie ran it before issue 18: its TypeScript, type stripped, with this one flag;
 * from the checkout at `BENCH_BEFORE_ROOT` (a worktree of the commit before, with its own
 * node_modules) when given, else from this checkout's sources.
 */
export const BEFORE_18_DAEMON: DaemonConfig = { from: "sources", flags: "--max-semi-space-size=1", root: process.env.BENCH_BEFORE_ROOT || ROOT };

export interface DaemonConfig {
  from: "built" | "sources";
  flags: string;
  /** The checkout whose daemon runs. */
  root: string;
}

/** How the daemons started from now on run (`BENCH_COMPARE=1` switches between this run's and BEFORE_18_DAEMON). */
export const daemonConfig: DaemonConfig = {
  root: ROOT,
  from: DAEMON_FROM,
  flags: process.env.BENCH_DAEMON_NODE_FLAGS ?? DAEMON_NODE_FLAGS,
};

const builtChecked = new Set<string>();
/** Builds the daemon's checkout's server/dist when it is not current (server/bin/build.js), once per bench run. */
export function ensureBuilt(): void {
  const { from, root } = daemonConfig;
  if (from !== "built" || builtChecked.has(root)) return;
  const r = spawnSync(process.execPath, [join(root, "server/bin/build.js")], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`building the daemon failed: ${r.stderr || r.stdout}`);
  builtChecked.add(root);
}

export interface Source {
  name: string;
  socket: string;
}

export interface DaemonStats {
  published: Record<string, number>;
  pages: number;
  pageEvents: number;
  agents: number;
  ready: number;
  panes: number;
  clients: number;
  /** Writes the daemon holds for agents that are away. */
  held: number;
  memory: NodeJS.MemoryUsage;
  log: string[];
}

export interface LoadStats {
  events: number;
  itemCalls: number;
  panes: number;
  memory: { rss: number; heapUsed: number; external: number; arrayBuffers: number };
  baseline: { rss: number; heapUsed: number };
  withPanes: { rss: number; heapUsed: number };
}

/** `BENCH_PROFILE=1`: CPU profiles of the daemon and the timed agent, per run, in this directory. */
const PROFILE_DIR = process.env.BENCH_PROFILE === "1" ? join(import.meta.dirname, "results", "profiles") : null;
export const profile = (phase: string, role: string): string[] =>
  PROFILE_DIR
    ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${phase}-${role}.cpuprofile`, `--cpu-prof-interval=${process.env.BENCH_PROFILE_INTERVAL ?? 1000}`]
    : [];

export class Cluster {
  /** The run's name: profiles are named after it. */
  readonly phase: string;
  readonly dir = mkdtempSync(join(tmpdir(), "collie-bench-"));
  readonly children: Child[] = [];
  loadProcs: Child[] = [];
  loadSources: Source[] = [];
  latency: Child | null = null;
  latencySource: Source | null = null;
  daemon: Child | null = null;
  url = "";
  /** A paired device's token, for the phones. */
  token = "";

  constructor(phase: string) {
    this.phase = phase;
  }

  /** Starts `agents` agents of `panes` panes, spread over `procs` processes. */
  async startLoad(opts: { agents: number; panes: number; procs: number; exposeGc?: boolean }): Promise<void> {
    const procs = Math.max(1, Math.min(opts.procs, opts.agents));
    const started: Promise<{ sockets: Source[] }>[] = [];
    let given = 0;
    for (let i = 0; i < procs; i++) {
      const n = Math.floor((opts.agents * (i + 1)) / procs) - given;
      given += n;
      const child = new Child("load-agents.ts", {
        name: `load-agents-${i}`,
        env: { BENCH_DIR_SOCKETS: this.dir, BENCH_PREFIX: `load${i}`, BENCH_AGENTS: String(n), BENCH_PANES: String(opts.panes) },
        execArgv: opts.exposeGc ? ["--expose-gc"] : [],
      });
      this.children.push(child);
      this.loadProcs.push(child);
      started.push(child.once("ready"));
    }
    for (const r of await Promise.all(started)) this.loadSources.push(...r.sockets);
  }

  async startLatencyAgent(): Promise<void> {
    const socket = join(this.dir, "latency.sock");
    const child = new Child("agent-latency.ts", { name: "agent-latency", env: { BENCH_SOCKET: socket, BENCH_NAME: "latency" }, execArgv: profile(this.phase, "agent") });
    this.children.push(child);
    await child.once("ready");
    this.latency = child;
    this.latencySource = { name: "latency", socket };
  }

  /** Starts the daemon on every agent started so far and waits until all are ready with their panes. */
  async startDaemon(opts: { panes: number; timeoutMs?: number }): Promise<number> {
    const sources = [...(this.latencySource ? [this.latencySource] : []), ...this.loadSources];
    // --expose-gc: the memory run reads the heap after a full GC (no GC runs unless asked).
    // The daemon runs with the flags the `collie` bin gives it (server/bin/collie.js), unless the
    // experiment names its own.
    const { from, flags, root } = daemonConfig;
    const execArgv = ["--expose-gc", ...profile(this.phase, "daemon"), ...flags.split(" ").filter(Boolean)];
    ensureBuilt();
    const daemon = new Child("daemon-entry.js", {
      name: "daemon",
      env: { BENCH_DAEMON_SOURCES: JSON.stringify(sources), BENCH_DAEMON_FROM: from, BENCH_DAEMON_ROOT: root },
      execArgv,
      ...(from === "built" ? { nodeFlags: ["--disable-warning=ExperimentalWarning"] } : {}),
    });
    this.children.push(daemon);
    this.daemon = daemon;
    const t0 = performance.now();
    const listening = await daemon.once<{ url: string; token: string }>("listening");
    this.url = listening.url;
    this.token = listening.token;
    const deadline = Date.now() + (opts.timeoutMs ?? 180_000);
    for (;;) {
      const s = await this.daemonStats();
      if (s.ready === sources.length && s.panes >= opts.panes) break;
      if (Date.now() > deadline) throw new Error(`daemon: ${s.ready}/${sources.length} agents ready, ${s.panes}/${opts.panes} panes after ${opts.timeoutMs ?? 180_000} ms; log: ${s.log.join(" | ")}`);
      await sleep(100);
    }
    return performance.now() - t0;
  }

  /** The whole views the daemon read from its agents since the last call: per read, its time in ms. */
  viewReads(): Promise<{ agent: string; pane: string; ms: number; items: number; detailMs: number | null }[]> {
    return this.daemon!.call("view-reads");
  }

  daemonStats(gc = false): Promise<DaemonStats> {
    return this.daemon!.call<DaemonStats>(gc ? "gc" : "stats");
  }

  async loadStats(gc = false): Promise<LoadStats[]> {
    return Promise.all(this.loadProcs.map((c) => c.call<LoadStats>("stats", { gc })));
  }

  async startPhones(phones: number, watch: number): Promise<Child> {
    const panes: [string, string][] = [];
    for (let i = 0; panes.length < watch && i < this.loadSources.length * 20; i++) {
      const src = this.loadSources[i % this.loadSources.length]!;
      panes.push([src.name, `pane-${Math.floor(i / this.loadSources.length)}`]);
    }
    const child = new Child("phone-load.ts", {
      name: "phones",
      env: { BENCH_URL: this.url, BENCH_TOKEN: this.token, BENCH_PHONES: String(phones), BENCH_WATCH: JSON.stringify(panes) },
    });
    this.children.push(child);
    await child.once("ready");
    return child;
  }

  async stream(opts: { hz: number; updatesPerReply: number; chunkWords: number; tickMs: number }): Promise<void> {
    await Promise.all(this.loadProcs.map((c) => c.call("stream", opts)));
  }

  async stopStream(): Promise<void> {
    await Promise.all(this.loadProcs.map((c) => c.call("stop-stream")));
  }

  /** Stops everything: the daemon first (so it does not log agents going away), then the rest. */
  async stop(): Promise<void> {
    if (this.daemon) await this.daemon.stop(10_000);
    await Promise.all(this.children.map((c) => c.stop()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Busy share of the whole machine (all cores) between two readings of /proc/stat. */
export function machineCpu(): () => number {
  const read = () => {
    const line = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
    const idle = (line[3] ?? 0) + (line[4] ?? 0);
    const total = line.reduce((a, b) => a + b, 0);
    return { idle, total };
  };
  const a = read();
  return () => {
    const b = read();
    return 1 - (b.idle - a.idle) / Math.max(1, b.total - a.total);
  };
}

