/**
 * The daemon under test, in its own process so its CPU and RSS can be read from /proc: the real
 * `Daemon.create` + `app.listen` on loopback, with fixed socket sources. It counts what the live
 * hub publishes (the daemon's event throughput) and answers the bench's questions over IPC.
 *
 *   env BENCH_DAEMON_SOURCES = JSON [{name, socket}]
 *   env BENCH_DAEMON_CREW = JSON [{name, url, token}]: crew members this daemon leads (C-1)
 *   env BENCH_DAEMON_FROM = built (server/dist, as `collie serve` runs it) | sources (server/src)
 *   env BENCH_DAEMON_ROOT = the checkout whose daemon runs (default: this one)
 *   env BENCH_DAEMON_WEB_DIST = the phone app's build it serves (default: the checkout's web/dist)
 *
 * Plain JavaScript, like the `collie` bin: a TypeScript file here would load Node's type stripper
 * (swc as WebAssembly, 15–20 MB of RSS) into the process whose memory the bench measures, which
 * `collie serve` no longer does. So of the bench's own it imports only child-ipc.js, plain JavaScript
 * like this file.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nowMs, serveParent } from "./child-ipc.js";
import { pathToFileURL } from "node:url";

const root = process.env.BENCH_DAEMON_ROOT ? pathToFileURL(`${process.env.BENCH_DAEMON_ROOT}/`) : new URL("../", import.meta.url);
const { Daemon } = await import(new URL(process.env.BENCH_DAEMON_FROM === "sources" ? "server/src/daemon.ts" : "server/dist/daemon.js", root).href);

/** @param {{ name: string; socket: string }[]} list */
const toSources = (list) =>
  list.map((s) => ({ name: s.name, endpoint: { kind: "socket", path: s.socket }, key: `${s.name}:${s.socket}` }));

const stateDir = mkdtempSync(join(tmpdir(), "collie-bench-state-"));
const logged = [];
const daemon = await Daemon.create({
  // A sources.json (BENCH_DAEMON_SOURCES_FILE) for a run with crew members; else fixed agents.
  sources: process.env.BENCH_DAEMON_SOURCES_FILE
    ? { path: process.env.BENCH_DAEMON_SOURCES_FILE }
    : { fixed: toSources(JSON.parse(process.env.BENCH_DAEMON_SOURCES ?? "[]")) },
  stateDir,
  ...(process.env.BENCH_DAEMON_WEB_DIST ? { webDist: process.env.BENCH_DAEMON_WEB_DIST } : {}),
  log: (line) => {
    if (logged.length < 50) logged.push(line);
  },
  // The held-writes run lifts the bounds to hold the issue's backlog (a daemon before them ignores it).
  ...(process.env.BENCH_HELD_LIMITS ? { heldLimits: JSON.parse(process.env.BENCH_HELD_LIMITS) } : {}),
});

/** Writes held now, with the daemon's one store or, before it, its two local ones (held answers, held sends). */
function heldCount() {
  const held = daemon.held;
  return typeof held.count === "function" ? held.count() : held.count + (held.sends?.count ?? 0);
}

// Crew members this daemon leads: as a `crew` entry of sources.json would give them (C-1).
const crew = JSON.parse(process.env.BENCH_DAEMON_CREW ?? "[]");
if (crew.length > 0) await daemon.crew.reconcile(crew.map((c) => ({ name: c.name, url: new URL(c.url), token: c.token, key: `${c.name}:${c.url}` })));

/** The timed agent, on this machine (`latency`) or on a crew member this daemon leads (`latency@member`). */
const TIMED = /^latency(@|$)/;

// What the live hub numbered and sent on, by message type: every agent event the daemon applied
// becomes one such message (items, asks, conversations), whether or not a phone watches it.
const published = {};
// Timestamps per hop for the timed asks: when the hub publishes an ask (keyed by its tool call
// id) and when a phone's answer request arrives (keyed by the ask id), on the machine's monotonic
// clock.
const marks = new Map();
/** When the client last handed the connection an events page (parsed JSON), before it is checked and applied. */
let lastEventsReply;
const publish = daemon.live.publish.bind(daemon.live);
daemon.live.publish = (m) => {
  published[m.type] = (published[m.type] ?? 0) + 1;
  if (m.type === "ask" && TIMED.test(m.agent)) {
    marks.set(`publish:${m.ask.toolCallId}`, nowMs());
    if (lastEventsReply !== undefined) marks.set(`reply:${m.ask.toolCallId}`, lastEventsReply);
  }
  publish(m);
};

// Events pages the daemon read from its agents (one long-poll round trip each), and their events.
let pages = 0;
let pageEvents = 0;
// Whole views read from the agents (`GET /durable/v1/panes/:pane`, a chat opened that Collie does
// not hold): the agent's read as Collie's client sees it, from the request to the parsed reply.
const viewReads = [];
/** The first `paneDetail` of each chat, ms: for a chat not held, its read and what Collie does with it. */
const detailMs = new Map();
for (const name of daemon.agents.names()) {
  const conn = daemon.agents.get(name);
  const mirror = conn.mirror;
  const apply = mirror.apply.bind(mirror);
  mirror.apply = (page) => {
    pages++;
    pageEvents += page.events.length;
    apply(page);
  };
  // And the whole of a chat's opening on the daemon's side (the read, checking the view, holding it).
  const paneDetail = conn.paneDetail.bind(conn);
  conn.paneDetail = async (paneId) => {
    const t0 = nowMs();
    const detail = await paneDetail(paneId);
    const ms = nowMs() - t0;
    if (!detailMs.has(`${name}\n${paneId}`)) detailMs.set(`${name}\n${paneId}`, ms);
    return detail;
  };
  const get = conn.client.get.bind(conn.client);
  conn.client.get = async (path, ...rest) => {
    const pane = /\/panes\/([^/?]+)$/.exec(path)?.[1];
    if (pane === undefined) {
      if (!path.includes("/events?")) return get(path, ...rest);
      const reply = await get(path, ...rest);
      if (TIMED.test(name)) lastEventsReply = nowMs();
      return reply;
    }
    const t0 = nowMs();
    const reply = await get(path, ...rest);
    viewReads.push({ agent: name, pane: decodeURIComponent(pane), ms: nowMs() - t0, items: Array.isArray(reply.body?.items) ? reply.body.items.length : 0 });
    return reply;
  };
}

// Answers on their way, with the time each was seen: when a phone's answer arrives (`answer`) and
// when the route hands it to the client for the agent (`forward`). Which ask each is for is read
// when the bench asks for the marks, not inside the hops they time.
let posts = [];
const ANSWER_PATH = /\/asks\/([0-9a-f]{32})\/answer$/;
function readPosts() {
  for (const [kind, path, at] of posts) {
    const m = ANSWER_PATH.exec(path);
    if (m) marks.set(`${kind}:${m[1]}`, at);
  }
  posts = [];
}
for (const name of daemon.agents.names()) {
  const client = daemon.agents.get(name).client;
  const post = client.post.bind(client);
  client.post = (path, ...rest) => {
    posts.push(["forward", path, nowMs()]);
    return post(path, ...rest);
  };
}

const address = await daemon.app.listen({ host: "127.0.0.1", port: 0 });
const markAnswer = (method, url) => {
  if (method === "POST") posts.push(["answer", url ?? "", nowMs()]);
};
daemon.app.server.prependListener("request", (req) => markAnswer(req.method, req.url));
// An answer sent on the live socket (an `act`, routes/act.ts) is received when its route is looked
// up, right after the socket's frame is read.
const findRoute = daemon.app.findRoute.bind(daemon.app);
daemon.app.findRoute = (opts) => {
  markAnswer(opts?.method, opts?.url);
  return findRoute(opts);
};

// The bench's phones are a paired device, as a real phone would be.
const paired = daemon.devices.pair(daemon.devices.createCode().code, "bench", "bench");
if (!paired.ok) throw new Error(`pairing the bench's phone failed: ${paired.reason}`);

function stats() {
  // Every upstream, the daemon's own agents and its crew members, as the phone's snapshot lists them.
  const agents = [...daemon.agents.all(), ...daemon.crew.all()].flatMap((u) => u.summaries());
  return {
    published: { ...published },
    pages,
    pageEvents,
    agents: agents.length,
    ready: agents.filter((a) => a.state === "ready").length,
    panes: agents.reduce((n, a) => n + a.counts.open, 0),
    clients: daemon.live.clients,
    held: heldCount(),
    memory: process.memoryUsage(),
    log: logged.slice(),
  };
}

// Synchronous work on the daemon's event loop during a held drain, by what: the state database's
// writes (each a transaction: a WAL checkpoint fsyncs), the audit log's append, and GC pauses.
// Timed from the first `sync-times` call on, and the loop's delay from the first `loop-delay`: the
// bench's own instruments (perf_hooks' observers, the inspector) cost the process it measures
// 1–3 MB of RSS each, which `collie serve` does not have, so only a part that reads them loads them.
const syncTimes = {};
let syncTiming = false;
async function startSyncTimes() {
  syncTiming = true;
  const timeSync = (name, obj, method) => {
    const fn = obj?.[method];
    if (typeof fn !== "function") return;
    obj[method] = function (...args) {
      const t0 = nowMs();
      try {
        return fn.apply(this, args);
      } finally {
        (syncTimes[name] ??= []).push(nowMs() - t0);
      }
    };
  };
  timeSync("held.hold", daemon.held, "hold");
  timeSync("held.release", daemon.held, "release");
  timeSync("audit.write", daemon.audit, "write");
  const { PerformanceObserver } = await import("node:perf_hooks");
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) (syncTimes[`gc ${e.detail?.kind === 1 ? "minor" : e.detail?.kind === 2 ? "major" : e.detail?.kind === 4 ? "incremental" : e.detail?.kind === 8 ? "weak" : e.detail?.kind}`] ??= []).push(e.duration);
  }).observe({ entryTypes: ["gc"] });
}

let inspector = null;
/** How late the event loop ran its timers (ms), since the last `loop-delay` reading: the daemon's own stalls. */
let loopDelay = null;

/**
 * Where the RSS is, without a GC first: V8's spaces (committed and used), malloc, and the
 * kernel's split of the RSS into anonymous memory and file-backed pages (the node binary's code).
 */
function probe() {
  const mb = (n) => Math.round((n / 2 ** 20) * 10) / 10;
  const rollup = Object.fromEntries(
    readFileSync("/proc/self/smaps_rollup", "utf8").split("\n").map((l) => /^(\w+):\s+(\d+) kB/.exec(l)).filter(Boolean).map((m) => [m[1], mb(Number(m[2]) * 1024)]),
  );
  // Anonymous mappings by size: V8's heap pages are 256 KB each (its code and large objects apart),
  // malloc's arenas are reserved 64 MB at a time, the main arena is [heap].
  const maps = {};
  let cur = null;
  for (const l of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(l);
    if (head) {
      const size = (parseInt(head[2], 16) - parseInt(head[1], 16)) / 1024;
      const name = head[3] || (size === 256 ? "anon 256 KB" : size <= 1024 ? "anon ≤ 1 MB" : size < 60 * 1024 ? "anon 1–60 MB" : "anon ≥ 60 MB");
      cur = name.startsWith("/") ? "files" : name;
      continue;
    }
    const rssLine = /^Rss:\s+(\d+) kB/.exec(l);
    if (rssLine && cur) maps[cur] = (maps[cur] ?? 0) + Number(rssLine[1]);
  }
  const h = getHeapStatistics();
  return {
    maps: Object.fromEntries(Object.entries(maps).filter(([, v]) => v > 512).map(([k, v]) => [k, mb(v * 1024)])),
    memory: Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, mb(v)])),
    spaces: Object.fromEntries(getHeapSpaceStatistics().filter((x) => x.space_size > 0).map((x) => [x.space_name, { committed: mb(x.physical_space_size), used: mb(x.space_used_size) }])),
    heap: { totalPhysical: mb(h.total_physical_size), limit: mb(h.heap_size_limit), malloced: mb(h.malloced_memory), peakMalloced: mb(h.peak_malloced_memory), external: mb(h.external_memory) },
    rss: { total: rollup.Rss, anon: rollup.Anonymous, file: (rollup.Rss ?? 0) - (rollup.Anonymous ?? 0) },
  };
}

serveParent(async (m) => {
  switch (m.type) {
    case "stats":
      return stats();
    case "probe":
      return probe();
    case "alloc-start": {
      // Sampled allocations, the garbage included (BENCH_ALLOC_PROFILE=1): where the GC's work comes from.
      const { Session } = await import("node:inspector/promises");
      inspector ??= new Session();
      inspector.connect();
      await inspector.post("HeapProfiler.startSampling", { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      return null;
    }
    case "alloc-stop": {
      const { profile } = await inspector.post("HeapProfiler.stopSampling");
      inspector.disconnect();
      return JSON.stringify(profile);
    }
    case "sync-times": {
      if (!syncTiming) await startSyncTimes();
      const out = {};
      for (const [k, v] of Object.entries(syncTimes)) {
        const sorted = [...v].sort((x, y) => x - y);
        out[k] = { n: v.length, total: Math.round(v.reduce((a, b) => a + b, 0)), p99: sorted[Math.floor(sorted.length * 0.99)] ?? 0, max: sorted.at(-1) ?? 0 };
      }
      for (const k of Object.keys(syncTimes)) delete syncTimes[k];
      return out;
    }
    case "loop-delay": {
      if (!loopDelay) {
        const { monitorEventLoopDelay } = await import("node:perf_hooks");
        loopDelay = monitorEventLoopDelay({ resolution: 5 });
        loopDelay.enable();
        return { p50: 0, p99: 0, max: 0 };
      }
      const out = { p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 };
      loopDelay.reset();
      return out;
    }
    case "view-reads":
      return viewReads.splice(0).map((r) => ({ ...r, detailMs: detailMs.get(`${r.agent}\n${r.pane}`) ?? null }));
    case "crew-credential":
      // What `collie crew invite` and `crew join` end with: a crew-lead device's token (C-1).
      return daemon.devices.issue(m.lead ?? "bench lead", "crew-lead").token;
    case "marks": {
      readPosts();
      const out = Object.fromEntries(marks);
      marks.clear();
      return out;
    }
    case "gc":
      globalThis.gc?.();
      return stats();
    case "exit":
      await daemon.close();
      rmSync(stateDir, { recursive: true, force: true });
      return null;
    default:
      throw new Error(`unknown command ${m.type}`);
  }
});
process.send({ type: "listening", url: address, token: paired.token });
