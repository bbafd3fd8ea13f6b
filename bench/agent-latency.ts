/**
 * The agent whose asks are timed: one durable agent, one pane. On `run` it raises `count` asks one
 * after another; each ask carries the monotonic time it was raised at (in its reason), and each
 * resolution is reported to the bench with the monotonic time `ask()` resolved at.
 *
 *   env BENCH_SOCKET, BENCH_NAME
 */
import { Server, type IncomingMessage } from "node:http";
import { openCollie } from "@colliepwa/durable-sdk";
import { nowMs, serveParent, sleep } from "./lib.ts";

// When an answer request reaches this process (its headers parsed), by ask id: the last hop of
// tap → agent is split into "arrives here" and "ask() resolves".
const arrived = new Map<string, number>();
const emit = Server.prototype.emit;
Server.prototype.emit = function (this: Server, event: string, ...args: unknown[]) {
  if (event === "request") {
    const req = args[0] as IncomingMessage;
    const m = req.method === "POST" ? /\/asks\/([0-9a-f]{32})\/answer$/.exec(req.url ?? "") : null;
    if (m) arrived.set(m[1]!, nowMs());
  }
  return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
} as typeof emit;

const socket = process.env.BENCH_SOCKET!;
const name = process.env.BENCH_NAME ?? "latency";
const collie = await openCollie({ socket, hostName: name, warn: () => {} });
const pane = collie.workspace("bench", { title: "Bench" }).tab("main", { title: "Main" }).pane("asks", { title: "Asks", harness: "bench" });
pane.item({ id: "tool-call", kind: "tool", name: "shell", status: "running", call: "npm run migrate" });
collie.ready();

let round = 0;
serveParent(async (m) => {
  switch (m.type) {
    case "run": {
      const count = m.count as number;
      const gapMs = m.gapMs as number;
      const tag = `r${++round}`;
      for (let i = 0; i < count; i++) {
        const toolCallId = `${tag}-${i}`;
        const t0 = nowMs();
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
        if (answer.kind !== "permission") throw new Error("unexpected answer");
        const askId = pane.askIdFor(toolCallId);
        process.send!({ type: "resolved", toolCallId, t3, arrived: arrived.get(askId) });
        arrived.delete(askId);
        // A little air between asks, jittered so the asks do not lock step with anything else.
        await sleep(gapMs * (0.5 + Math.random()));
      }
      return { count };
    }
    case "exit":
      await collie.close();
      return null;
    default:
      throw new Error(`unknown command ${m.type}`);
  }
});
process.send!({ type: "ready", name, socket });
