/**
 * The agent whose asks are timed: one durable agent, one pane. On `run` it raises `count` asks one
 * after another; each ask carries the monotonic time it was raised at (in its reason), and each
 * resolution is reported to the bench with the monotonic time `ask()` resolved at.
 *
 *   env BENCH_SOCKET, BENCH_NAME
 */
import { Server, ServerResponse, type IncomingMessage } from "node:http";
import { openCollie } from "@colliepwa/durable-sdk";
import { nowMs, serveParent, sleep } from "./lib.ts";

// The hooks below note a time and keep what they saw; what it was (which ask, which page) is read
// once the ask has resolved, so no parsing of the bench's own runs inside the hops it times.

// When an answer request reaches this process (its headers parsed), by ask id: the last hop of
// tap → agent is split into "arrives here" and "ask() resolves".
const arrived = new Map<string, number>();
let requests: { url: string; at: number }[] = [];
// Connections Collie opened to this agent: each one costs the agent a peer lookup (S-7), so a
// client that reuses its keep-alive connections opens two (the long-poll and the answers).
let connections = 0;
const emit = Server.prototype.emit;
Server.prototype.emit = function (this: Server, event: string, ...args: unknown[]) {
  if (event === "connection") connections++;
  if (event === "request") {
    const req = args[0] as IncomingMessage;
    if (req.method === "POST") requests.push({ url: req.url ?? "", at: nowMs() });
  }
  return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
} as typeof emit;

// When the events page that carries each ask is handed to the socket, by tool call id: the first
// hop of ask → phone is split into the agent's own part and the rest (the socket, the daemon).
const written = new Map<string, number>();
let pages: { body: string; at: number }[] = [];
const end = ServerResponse.prototype.end;
ServerResponse.prototype.end = function (this: ServerResponse, ...args: unknown[]) {
  const body = args[0];
  if (typeof body === "string" && this.req?.url?.includes("/events?")) pages.push({ body, at: nowMs() });
  return end.apply(this, args as Parameters<typeof end>);
} as typeof end;

/** Reads what the hooks kept since the last call into `arrived` and `written`. */
function readHooks(): void {
  for (const { url, at } of requests) {
    const m = /\/asks\/([0-9a-f]{32})\/answer$/.exec(url);
    if (m) arrived.set(m[1]!, at);
  }
  for (const { body, at } of pages) {
    for (const m of body.matchAll(/"type":"ask","pane":"[^"]*","ask":\{[^{}]*?"toolCallId":"([^"]+)"/g)) {
      if (!written.has(m[1]!)) written.set(m[1]!, at);
    }
  }
  requests = [];
  pages = [];
}

const socket = process.env.BENCH_SOCKET!;
const name = process.env.BENCH_NAME ?? "latency";
const collie = await openCollie({ socket, hostName: name, warn: () => {} });
const pane = collie.workspace("bench", { title: "Bench" }).tab("main", { title: "Main" }).pane("asks", { title: "Asks", harness: "bench" });
pane.item({ id: "tool-call", kind: "tool", name: "shell", status: "running", call: "npm run migrate" });
collie.ready();

let round = 0;
// Asks raised while Collie's events long-poll was parked here (its next page goes out at once),
// against those raised before Collie had asked again (the page waits for its request).
let parked = 0;
let unparked = 0;
serveParent(async (m) => {
  switch (m.type) {
    case "run": {
      const count = m.count as number;
      const gapMs = m.gapMs as number;
      const tag = `r${++round}`;
      for (let i = 0; i < count; i++) {
        const toolCallId = `${tag}-${i}`;
        const t0 = nowMs();
        if (collie.log.waiting > 0) parked++;
        else unparked++;
        const answer = await pane.ask({
          kind: "permission",
          toolCallId,
          itemId: "tool-call",
          title: "Run the database migration?",
          reason: `t0=${t0}`,
          tool: { name: "shell", call: "npm run migrate" },
          options: [{ kind: "allow" }, { kind: "deny" }],
        });
        const t3 = nowMs();
        readHooks();
        if (answer.kind !== "permission") throw new Error("unexpected answer");
        const askId = pane.askIdFor(toolCallId);
        process.send!({ type: "resolved", toolCallId, t3, arrived: arrived.get(askId), written: written.get(toolCallId) });
        arrived.delete(askId);
        written.delete(toolCallId);
        // A little air between asks, jittered so the asks do not lock step with anything else.
        await sleep(gapMs * (0.5 + Math.random()));
      }
      return { count };
    }
    case "connections":
      return connections;
    case "parked": {
      const counts = { parked, unparked };
      parked = unparked = 0;
      return counts;
    }
    case "exit":
      await collie.close();
      return null;
    default:
      throw new Error(`unknown command ${m.type}`);
  }
});
process.send!({ type: "ready", name, socket });
