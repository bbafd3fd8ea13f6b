/**
 * A process hosting several durable agents (each its own `openCollie` socket) of `panes` panes
 * each. `fill` writes `items` finished replies into every pane, then `streamRounds` updates of the
 * stream ahead of time (before Collie connects: the memory run and the PWA's chat); `stream` makes
 * every pane stream a partial reply at `hz` updates per second, one turn per reply,
 * `updatesPerReply` updates before the reply is final and the next one starts.
 *
 *   env BENCH_DIR_SOCKETS, BENCH_PREFIX, BENCH_AGENTS, BENCH_PANES
 */
import { join } from "node:path";
import { openCollie, type Clock, type Collie, type Pane } from "@colliepwa/durable-sdk";
import { serveParent } from "./lib.ts";

const dir = process.env.BENCH_DIR_SOCKETS!;
const prefix = process.env.BENCH_PREFIX ?? "load";
const agentCount = Number(process.env.BENCH_AGENTS ?? 10);
const paneCount = Number(process.env.BENCH_PANES ?? 20);

const gc = (globalThis as { gc?: () => void }).gc;
const memory = () => {
  gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
};

interface Streamer {
  pane: Pane;
  due: number;
  reply: number;
  updates: number;
  text: string;
}

const collies: Collie[] = [];
const streamers: Streamer[] = [];
const sockets: { name: string; socket: string }[] = [];
// The SDK's clock, running `ahead` ms ahead of the wall clock: `fill` moves it on one period
// (250 ms at 4 Hz) per round of its pre-stream, so the SDK's 250 ms coalescing lets a quick pre-stream through as it would let
// a real one (S-15), and the tails fill with streaming events in seconds instead of minutes.
let ahead = 0;
const clock: Clock = {
  now: () => Date.now() + ahead,
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
for (let a = 0; a < agentCount; a++) {
  const name = `${prefix}-${a}`;
  const socket = join(dir, `${name}.sock`);
  collies.push(await openCollie({ socket, hostName: name, warn: () => {}, clock }));
  sockets.push({ name, socket });
}
const baseline = memory();
for (const collie of collies) {
  const tab = collie.workspace("work", { title: "Work" }).tab("main", { title: "Main" });
  for (let p = 0; p < paneCount; p++) {
    const pane = tab.pane(`pane-${p}`, { title: `Conversation ${p}`, harness: "bench" });
    streamers.push({ pane, due: 0, reply: 0, updates: 0, text: "" });
  }
  collie.ready();
}
const withPanes = memory();

const WORDS = "the quick brown fox jumps over the lazy dog while streaming a partial reply to the phone".split(" ");
const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => WORDS[(seed + i * 7) % WORDS.length]).join(" ");

let timer: NodeJS.Timeout | null = null;
/** `pane.item()` calls the stream made (the SDK may coalesce a few that come < 250 ms apart). */
let itemCalls = 0;
let hz = 4;
let updatesPerReply = 20;
let chunkWords = 4;
let turns = true;

function tick(): void {
  const now = performance.now();
  const period = 1000 / hz;
  for (const s of streamers) {
    if (s.due > now) continue;
    s.due = s.due + period < now - period ? now + period : s.due + period; // late: no burst to catch up
    update(s);
  }
}

/** One streamed update of a pane's current reply: a turn per reply, the last update final. */
function update(s: Streamer): void {
  const pane = s.pane;
  if (s.updates === 0 && turns) pane.beginTurn(`turn-${s.reply}`);
  s.updates++;
  s.text += (s.text ? " " : "") + words(chunkWords, s.updates + s.reply);
  const final = s.updates >= updatesPerReply;
  pane.item({ id: `reply-${s.reply}`, kind: "reply", text: s.text, partial: !final });
  itemCalls++;
  if (final) {
    if (turns) pane.endTurn();
    s.reply++;
    s.updates = 0;
    s.text = "";
  }
}

serveParent(async (m) => {
  switch (m.type) {
    case "fill": {
      // Finished replies of about `textBytes` bytes, written before Collie connects.
      const items = m.items as number;
      const textBytes = m.textBytes as number;
      const base = words(Math.ceil(textBytes / 4), 0).slice(0, textBytes);
      for (const s of streamers) {
        for (let i = 0; i < items; i++) s.pane.item({ id: `old-${i}`, kind: "reply", text: `${i} ${base}` });
      }
      // Then `streamRounds` updates per pane of the stream that follows, so the tails already hold
      // what they will hold while streaming (a tail is the last 500 events, S-32).
      chunkWords = m.chunkWords as number;
      updatesPerReply = m.updatesPerReply as number;
      for (let r = 0; r < (m.streamRounds as number); r++) {
        ahead += 1000 / hz;
        for (const s of streamers) update(s);
      }
      return { memory: memory() };
    }
    case "stream": {
      hz = m.hz as number;
      updatesPerReply = m.updatesPerReply as number;
      chunkWords = m.chunkWords as number;
      turns = m.turns !== false;
      const start = performance.now();
      const period = 1000 / hz;
      streamers.forEach((s, i) => (s.due = start + (period * i) / streamers.length));
      timer ??= setInterval(tick, m.tickMs as number);
      return null;
    }
    case "stop-stream":
      if (timer) clearInterval(timer);
      timer = null;
      for (const s of streamers) s.pane.flushPartials();
      return null;
    case "stats":
      return {
        events: collies.reduce((n, c) => n + c.log.seq, 0),
        itemCalls,
        panes: streamers.length,
        memory: m.gc ? memory() : process.memoryUsage(),
        baseline,
        withPanes,
      };
    case "exit":
      if (timer) clearInterval(timer);
      await Promise.all(collies.map((c) => c.close()));
      return null;
    default:
      throw new Error(`unknown command ${m.type}`);
  }
});
process.send!({ type: "ready", sockets });
