/**
 * The daemon under test, in its own process so its CPU and RSS can be read from /proc: the real
 * `Daemon.create` + `app.listen` on loopback, with fixed socket sources. It counts what the live
 * hub publishes (the daemon's event throughput) and answers the bench's questions over IPC.
 *
 *   env BENCH_DAEMON_SOURCES = JSON [{name, socket}]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Daemon } from "../server/src/daemon.ts";
import type { AgentSource } from "../server/src/sources/sources.ts";
import type { IncomingMessage } from "node:http";
import { nowMs, serveParent } from "./lib.ts";

type Src = { name: string; socket: string };
const toSources = (list: Src[]): AgentSource[] =>
  list.map((s) => ({ name: s.name, endpoint: { kind: "socket", path: s.socket }, key: `${s.name}:${s.socket}` }));

const stateDir = mkdtempSync(join(tmpdir(), "collie-bench-state-"));
const logged: string[] = [];
const daemon = await Daemon.create({
  sources: { fixed: toSources(JSON.parse(process.env.BENCH_DAEMON_SOURCES ?? "[]") as Src[]) },
  stateDir,
  log: (line) => {
    if (logged.length < 50) logged.push(line);
  },
});

// What the live hub numbered and sent on, by message type: every agent event the daemon applied
// becomes one such message (items, asks, conversations), whether or not a phone watches it.
const published: Record<string, number> = {};
// Timestamps per hop for the timed asks: when the hub publishes an ask (keyed by its tool call
// id) and when a phone's answer request arrives (keyed by the ask id), on the machine's monotonic
// clock.
const marks = new Map<string, number>();
const publish = daemon.live.publish.bind(daemon.live);
daemon.live.publish = (m) => {
  published[m.type] = (published[m.type] ?? 0) + 1;
  if (m.type === "ask" && m.agent === "latency") marks.set(`publish:${m.ask.toolCallId}`, nowMs());
  publish(m);
};

// Events pages the daemon read from its agents (one long-poll round trip each), and their events.
let pages = 0;
let pageEvents = 0;
for (const name of daemon.agents.names()) {
  const mirror = daemon.agents.get(name)!.mirror;
  const apply = mirror.apply.bind(mirror);
  mirror.apply = (page) => {
    pages++;
    pageEvents += page.events.length;
    apply(page);
  };
}

const address = await daemon.app.listen({ host: "127.0.0.1", port: 0 });
daemon.app.server.prependListener("request", (req: IncomingMessage) => {
  const m = req.method === "POST" ? /\/asks\/([0-9a-f]{32})\/answer$/.exec(req.url ?? "") : null;
  if (m) marks.set(`answer:${m[1]}`, nowMs());
});

// The bench's phones are a paired device, as a real phone would be.
const paired = daemon.devices.pair(daemon.devices.createCode().code, "bench", "bench");
if (!paired.ok) throw new Error(`pairing the bench's phone failed: ${paired.reason}`);

function stats() {
  const agents = daemon.agents.summaries();
  return {
    published: { ...published },
    pages,
    pageEvents,
    agents: agents.length,
    ready: agents.filter((a) => a.state === "ready").length,
    panes: agents.reduce((n, a) => n + a.counts.open, 0),
    clients: daemon.live.clients,
    memory: process.memoryUsage(),
    log: logged.slice(),
  };
}

serveParent(async (m) => {
  switch (m.type) {
    case "stats":
      return stats();
    case "marks": {
      const out = Object.fromEntries(marks);
      marks.clear();
      return out;
    }
    case "gc":
      (globalThis as { gc?: () => void }).gc?.();
      return stats();
    case "exit":
      await daemon.close();
      rmSync(stateDir, { recursive: true, force: true });
      return null;
    default:
      throw new Error(`unknown command ${m.type}`);
  }
});
process.send!({ type: "listening", url: address, token: paired.token });
