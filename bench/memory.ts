/**
 * Memory (N-2, S-32): 1000 panes whose tails are full and whose views are filled to `items` items
 * (2000 = the view cap, the most any pane can make the daemon hold), written before the daemon
 * connects, so the daemon reads them as whole views. Then every pane streams at 4 Hz: new replies
 * push the oldest items out of the views. The daemon's RSS and heap (after a forced GC) are read
 * after a warm-up and again after `memSeconds` more of streaming; the SDK's heap per pane too.
 */
import { Cluster } from "./cluster.ts";
import { runAsks } from "./latency.ts";
import { nowMs, roundSummary, rssMb, sleep, summarize, type Summary } from "./lib.ts";
import { Phone } from "./phone.ts";
import { hopSummary, type Config } from "./load.ts";

export interface MemoryResult {
  panes: number;
  items: number;
  textBytes: number;
  ingestMs: number;
  rssWarmMb: number;
  rssEndMb: number;
  rssMaxMb: number;
  heapWarmMb: number;
  heapEndMb: number;
  rssSeries: [number, number][];
  /** Where the RSS was (no GC first) after the warm-up and at the end: daemon-entry.js `probe`. */
  probeIngest: unknown;
  probeWarm: unknown;
  probeEnd: unknown;
  /** V8 heap in use (committed old space, MB), sampled every 5 s without a GC: the garbage's share. */
  heapSeries: [number, number, number][];
  eventsAfterWarm: number;
  daemonBytesPerItem: number;
  sdkBytesPerPane: number;
  sdkBytesPerPaneEmpty: number;
  sdkBytesPerPaneWarm: number;
  sdkBytesPerPaneEnd: number;
  askToPhone: Summary;
  tapToAgent: Summary;
  hops: Record<string, { p50: number; p99: number }>;
  parkedShare?: number;
}

const WARMUP_S = 10;
/**
 * Replies of 20 updates of 2 words end at about 200 bytes, the size of the filled items; and the
 * fill ends with this stream run ahead on the agents' clock until every tail holds only streaming
 * events. So what streams in during the run has the shape of what was there before it, and memory
 * at the end can be compared with memory after the warm-up.
 */
const STREAM = { updatesPerReply: 20, chunkWords: 2 };
const PRESTREAM_ROUNDS = 600;

export async function runMemory(cfg: Config & { memItems: number; memText: number; memSeconds: number }, log: (line: string) => void): Promise<MemoryResult> {
  const cluster = new Cluster("memory");
  try {
    await cluster.startLoad({ agents: cfg.agents, panes: cfg.panes, procs: cfg.procs, exposeGc: true });
    const panes = cfg.agents * cfg.panes;
    const tFill = nowMs();
    await Promise.all(cluster.loadProcs.map((c) => c.call("fill", { items: cfg.memItems, textBytes: cfg.memText, ...STREAM, streamRounds: PRESTREAM_ROUNDS }, 600_000)));
    log(`memory: agents filled in ${((nowMs() - tFill) / 1000).toFixed(1)} s; starting the daemon`);
    const sdk0 = await cluster.loadStats(true);
    await cluster.startLatencyAgent();
    const ingestMs = await cluster.startDaemon({ panes: panes + 1, timeoutMs: 600_000 });
    const probeIngest = await cluster.daemon!.call("probe");
    const idle = await cluster.daemonStats(true);
    log(`memory: daemon holds ${panes} panes after ${(ingestMs / 1000).toFixed(1)} s (heap ${(idle.memory.heapUsed / 2 ** 20).toFixed(0)} MB)`);

    const phones = await cluster.startPhones(cfg.phones, cfg.phones * 64);
    const phone = await Phone.connect(cluster.url, cluster.token);
    await cluster.stream({ hz: cfg.hz, ...STREAM, tickMs: 10 });
    const pid = cluster.daemon!.pid;
    const series: [number, number][] = [];
    const t0 = nowMs();
    const heapSeries: [number, number, number][] = [];
    let tick = 0;
    const sampler = setInterval(() => {
      const at = Number(((nowMs() - t0) / 1000).toFixed(1));
      series.push([at, Number(rssMb(pid).toFixed(1))]);
      if (tick++ % 5 === 0) {
        void cluster.daemon!.call<{ memory: { heapUsed: number }; heap: { totalPhysical: number } }>("probe").then((p) => heapSeries.push([at, p.memory.heapUsed, p.heap.totalPhysical]), () => {});
      }
    }, 1000);
    try {
      await sleep(WARMUP_S * 1000);
      const probeWarm = await cluster.daemon!.call("probe");
      const warm = await cluster.daemonStats(true);
      const rssWarm = rssMb(pid);
      const sdkWarm = await cluster.loadStats(true);
      const e0 = Object.values(warm.published).reduce((a, b) => a + b, 0);
      log(`memory: warm RSS ${rssWarm.toFixed(0)} MB; streaming for ${cfg.memSeconds} s more (with asks)`);
      const tEnd = nowMs() + cfg.memSeconds * 1000;
      const asks = Math.min(cfg.asks, Math.max(100, Math.floor(cfg.memSeconds * 10)));
      const r = await runAsks({ phone, agent: cluster.latency!, daemon: cluster.daemon!, agentName: "latency", count: asks, warmup: 20, gapMs: Math.max(1, ((cfg.memSeconds * 1000) / asks) * 0.8) });
      const left = tEnd - nowMs();
      if (left > 0) await sleep(left);
      const rssEnd = rssMb(pid);
      const probeEnd = await cluster.daemon!.call("probe");
      const end = await cluster.daemonStats(true);
      const e1 = Object.values(end.published).reduce((a, b) => a + b, 0);
      const sdk1 = await cluster.loadStats(true);
      await cluster.stopStream();
      phone.close();
      await phones.stop();

      const sdkHeap = (list: typeof sdk0, key: "memory" | "baseline" | "withPanes") => list.reduce((n, s) => n + s[key].heapUsed, 0);
      const totalItems = panes * cfg.memItems;
      return {
        panes,
        items: cfg.memItems,
        textBytes: cfg.memText,
        ingestMs: Math.round(ingestMs),
        rssWarmMb: rssWarm,
        rssEndMb: rssEnd,
        rssMaxMb: Math.max(...series.map(([, v]) => v)),
        heapWarmMb: warm.memory.heapUsed / 2 ** 20,
        heapEndMb: end.memory.heapUsed / 2 ** 20,
        rssSeries: series,
        probeIngest,
        probeWarm,
        probeEnd,
        heapSeries,
        eventsAfterWarm: e1 - e0,
        // The whole heap after the warm-up (after a full GC) over the items: an upper bound per
        // item, since it includes the daemon's own ~30 MB.
        daemonBytesPerItem: warm.memory.heapUsed / totalItems,
        sdkBytesPerPane: (sdkHeap(sdk0, "memory") - sdkHeap(sdk0, "baseline")) / panes,
        sdkBytesPerPaneEmpty: (sdkHeap(sdk0, "withPanes") - sdkHeap(sdk0, "baseline")) / panes,
        sdkBytesPerPaneWarm: (sdkHeap(sdkWarm, "memory") - sdkHeap(sdk0, "baseline")) / panes,
        sdkBytesPerPaneEnd: (sdkHeap(sdk1, "memory") - sdkHeap(sdk0, "baseline")) / panes,
        askToPhone: roundSummary(summarize(r.askToPhone)),
        tapToAgent: roundSummary(summarize(r.tapToAgent)),
        hops: hopSummary(r.hops),
        parkedShare: r.parkedShare,
      };
    } finally {
      clearInterval(sampler);
    }
  } finally {
    await cluster.stop();
  }
}
