/**
 * The latency runs: idle (the timed agent alone) and under load (50 agents × 20 panes streaming
 * partial replies at 4 Hz, watching phones connected), with the daemon's CPU share, event
 * throughput and RSS over the measured window.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Cluster, machineCpu } from "./cluster.ts";
import { runAsks } from "./latency.ts";
import { BENCH_DIR, cpuMs, cpuNsMs, CpuMeter, nowMs, round, roundSummary, rssMb, sleep, summarize, type Summary } from "./lib.ts";
import { Phone } from "./phone.ts";

export interface Config {
  asks: number;
  seconds: number;
  agents: number;
  panes: number;
  procs: number;
  hz: number;
  phones: number;
}

export interface IdleResult {
  /** The daemon's RSS and heap (after a full GC) with this one agent, after the asks. */
  daemonRssMb?: number;
  /** That RSS split by the kernel (/proc/<pid>/smaps_rollup, before the GC): anonymous memory and file-backed pages (node's own code), MB. */
  daemonRssSplitMb?: { anon: number; file: number };
  daemonHeapAfterGcMb?: number;
  askToPhone: Summary;
  tapToAgent: Summary;
  /** p50 and p99 of each hop, ms. */
  hops: Record<string, { p50: number; p99: number }>;
  failures: number;
  /**
   * CPU time per timed ask (raise, card, tap, resolve), ms, of the daemon and of the agent
   * process, from their threads' schedstat: each side's own work, steadier than a latency on a
   * shared machine. Idle run only.
   */
  cpuPerAsk?: { daemon: number; agent: number };
  /** Share of the asks raised with Collie's long-poll parked at the agent (latency.ts). */
  parkedShare?: number;
  /** Connections the daemon opened to the timed agent over the run. */
  agentConnections?: number;
}

export function hopSummary(hops: Record<string, number[]>): Record<string, { p50: number; p99: number }> {
  return Object.fromEntries(Object.entries(hops).map(([k, v]) => {
    const s = roundSummary(summarize(v));
    return [k, { p50: s.p50, p99: s.p99 }];
  }));
}

export interface LoadResult extends IdleResult {
  windowSeconds: number;
  agentEventsPerSec: number;
  itemUpdatesPerSec: number;
  daemonEventsPerSec: number;
  daemonItemsPerSec: number;
  pagesPerSec: number;
  eventsPerPage: number;
  daemonHeapMb: number;
  daemonHeapAfterGcMb: number;
  daemonCpu: number;
  agentsCpu: number;
  machineCpu: number;
  daemonRssMb: number;
  phoneMessagesPerSec: number;
  phones: { messages: number; bytes: number; counts: Record<string, number> }[];
  published: Record<string, number>;
}

const WARMUP_ASKS = 50;

/** `BENCH_ALLOC_PROFILE=1`: the daemon's sampled allocations (garbage included) over the load window. */
const ALLOC_PROFILE = process.env.BENCH_ALLOC_PROFILE === "1";

export async function runIdle(cfg: Config): Promise<IdleResult> {
  const cluster = new Cluster("idle");
  try {
    await cluster.startLatencyAgent();
    await cluster.startDaemon({ panes: 1 });
    const phone = await Phone.connect(cluster.url, cluster.token);
    const pids = { daemon: cluster.daemon!.pid, agent: cluster.latency!.pid };
    const cpu0 = { daemon: cpuNsMs(pids.daemon), agent: cpuNsMs(pids.agent) };
    const r = await runAsks({ phone, agent: cluster.latency!, daemon: cluster.daemon!, agentName: "latency", count: cfg.asks, warmup: WARMUP_ASKS, gapMs: 2 });
    const asks = cfg.asks + WARMUP_ASKS;
    const cpuPerAsk = { daemon: round((cpuNsMs(pids.daemon) - cpu0.daemon) / asks, 4), agent: round((cpuNsMs(pids.agent) - cpu0.agent) / asks, 4) };
    phone.close();
    const agentConnections = await cluster.latency!.call<number>("connections");
    const split = (await cluster.daemon!.call<{ rss: { anon: number; file: number } }>("probe")).rss;
    const heap = (await cluster.daemonStats(true)).memory.heapUsed / 2 ** 20;
    return {
      daemonRssMb: rssMb(cluster.daemon!.pid),
      daemonRssSplitMb: { anon: split.anon, file: split.file },
      daemonHeapAfterGcMb: heap, askToPhone: roundSummary(summarize(r.askToPhone)), tapToAgent: roundSummary(summarize(r.tapToAgent)), hops: hopSummary(r.hops), failures: r.failures,
      parkedShare: round(r.parkedShare), cpuPerAsk, agentConnections };
  } finally {
    await cluster.stop();
  }
}

export async function runLoad(cfg: Config, log: (line: string) => void): Promise<LoadResult> {
  const cluster = new Cluster("load");
  try {
    await cluster.startLoad({ agents: cfg.agents, panes: cfg.panes, procs: cfg.procs });
    await cluster.startLatencyAgent();
    const panes = cfg.agents * cfg.panes + 1;
    await cluster.startDaemon({ panes });
    const phones = await cluster.startPhones(cfg.phones, cfg.phones * 64);
    const phone = await Phone.connect(cluster.url, cluster.token);
    await cluster.stream({ hz: cfg.hz, updatesPerReply: 20, chunkWords: 4, tickMs: 10 });
    log("load: streaming; warming up for 5 s");
    await sleep(5000);

    const daemonPid = cluster.daemon!.pid;
    const daemonCpu = new CpuMeter(daemonPid);
    const agentPids = [...cluster.loadProcs, cluster.latency!].map((c) => c.pid);
    const agentsCpu0 = agentPids.reduce((n, pid) => n + cpuMs(pid), 0);
    const machine = machineCpu();
    const d0 = await cluster.daemonStats();
    const a0 = await cluster.loadStats();
    const p0 = await phones.call<{ messages: number }[]>("stats");
    const t0 = nowMs();
    daemonCpu.start();
    if (ALLOC_PROFILE) await cluster.daemon!.call("alloc-start");

    // The asks are spread over the window, so they sample all of it (GC, bursts).
    const gapMs = Math.max(1, ((cfg.seconds * 1000) / cfg.asks) * 0.8);
    const r = await runAsks({ phone, agent: cluster.latency!, daemon: cluster.daemon!, agentName: "latency", count: cfg.asks, warmup: WARMUP_ASKS, gapMs });
    const left = cfg.seconds * 1000 - (nowMs() - t0);
    if (left > 0) await sleep(left);

    const window = (nowMs() - t0) / 1000;
    const cpu = daemonCpu.read();
    if (ALLOC_PROFILE) {
      const profile = await cluster.daemon!.call<string>("alloc-stop");
      mkdirSync(join(BENCH_DIR, "results", "profiles"), { recursive: true });
      writeFileSync(join(BENCH_DIR, "results", "profiles", "load-daemon.heapprofile"), profile);
    }
    const busy = machine();
    const agentsCpu = (agentPids.reduce((n, pid) => n + cpuMs(pid), 0) - agentsCpu0) / (window * 1000);
    const rss = rssMb(daemonPid);
    const d1 = await cluster.daemonStats();
    const a1 = await cluster.loadStats();
    const p1 = await phones.call<{ messages: number; bytes: number; counts: Record<string, number> }[]>("stats");
    await cluster.stopStream();
    phone.close();
    const gcd = await cluster.daemonStats(true);

    const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
    const published: Record<string, number> = {};
    for (const [k, v] of Object.entries(d1.published)) published[k] = v - (d0.published[k] ?? 0);
    return {
      askToPhone: roundSummary(summarize(r.askToPhone)),
      tapToAgent: roundSummary(summarize(r.tapToAgent)),
      hops: hopSummary(r.hops),
      failures: r.failures,
      parkedShare: round(r.parkedShare),
      windowSeconds: Number(window.toFixed(1)),
      agentEventsPerSec: (a1.reduce((n, s) => n + s.events, 0) - a0.reduce((n, s) => n + s.events, 0)) / window,
      itemUpdatesPerSec: (a1.reduce((n, s) => n + s.itemCalls, 0) - a0.reduce((n, s) => n + s.itemCalls, 0)) / window,
      daemonEventsPerSec: (sum(d1.published) - sum(d0.published)) / window,
      daemonItemsPerSec: published.item! / window,
      pagesPerSec: (d1.pages - d0.pages) / window,
      eventsPerPage: (d1.pageEvents - d0.pageEvents) / Math.max(1, d1.pages - d0.pages),
      daemonHeapMb: d1.memory.heapUsed / 2 ** 20,
      daemonHeapAfterGcMb: gcd.memory.heapUsed / 2 ** 20,
      daemonCpu: cpu,
      agentsCpu,
      machineCpu: busy,
      daemonRssMb: rss,
      phoneMessagesPerSec: (p1.reduce((n, s) => n + s.messages, 0) - p0.reduce((n, s) => n + s.messages, 0)) / window,
      phones: p1,
      published,
    };
  } finally {
    await cluster.stop();
  }
}
