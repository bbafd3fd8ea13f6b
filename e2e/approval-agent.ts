/**
 * A durable agent for the journeys that answer from a notification (issue 30): a real agent on the
 * real SDK whose calls wait on `requireApproval` (S-25), and which writes down what each approval
 * resolved to, so a journey asserts on what the agent received, not on what the phone showed.
 *
 *   node --conditions=collie-source e2e/approval-agent.ts --socket <path> --dir <dir>
 *
 * Each conversation of PANES takes messages:
 * - `refund <order>`: the call `refund({order})` asks for approval (its tool call id names the
 *   order, so its ask id is the same after a restart, S-23); it runs only when approved;
 * - `change <order>`: the waiting call is asked again with another amount: the same ask id, another
 *   revision (what a phone that read the first one calls a changed ask, P-15);
 * - `courier <order>`: a choice of two couriers, picked one at a time.
 * `<dir>/received.jsonl` gets one line per outcome (`{pane, callId, approved, decidedBy}`, or
 * `{pane, callId, picked}`) and one per run (`{pane, callId, ran: true}`). The calls still waiting
 * are kept in `<dir>/waiting.json` and asked again after a restart, so an answer Collie held while
 * the agent was down reaches it (D-5). Prints `{"ready":true}` once Collie can connect.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AskClosed, openCollie, requireApproval, type Pane } from "@colliepwa/durable-sdk";

export const PANES = ["allow", "deny", "changed", "offline", "down", "unreachable", "off", "choice"] as const;

const { values } = parseArgs({ options: { socket: { type: "string" }, dir: { type: "string" } } });
if (!values.socket || !values.dir) throw new TypeError("--socket and --dir are required");
const RECEIVED = join(values.dir, "received.jsonl");
const WAITING = join(values.dir, "waiting.json");

interface Waiting {
  pane: string;
  callId: string;
  args: { order: string; amount: number };
}

const record = (line: Record<string, unknown>) => appendFileSync(RECEIVED, `${JSON.stringify(line)}\n`);
const saved = (): Waiting[] => (existsSync(WAITING) ? (JSON.parse(readFileSync(WAITING, "utf8")) as Waiting[]) : []);
const save = (list: Waiting[]) => writeFileSync(WAITING, JSON.stringify(list));
/** The approvals in flight in this process, to ask one again with other arguments. */
const running = new Map<string, AbortController>();

// It reads a message whenever one comes, a waiting approval included (`change` asks again
// mid-turn): it says so with `followUp`, so Collie hands sends on at once (docs/decisions.md).
const collie = await openCollie({
  socket: values.socket, hostName: "approvals",
  caps: { asks: true, send: true, followUp: true, steer: false, stop: false, actions: false, rename: false, close: false, reopen: false, starters: false },
});
const tab = collie.workspace("ops", { title: "Operations" }).tab("refunds", { title: "Refunds" });
const panes = new Map<string, Pane>(PANES.map((id) => [id, tab.pane(id, { title: `Refunds ${id}`, harness: "approvals" })]));

async function approve(pane: Pane, w: Waiting): Promise<void> {
  running.get(w.callId)?.abort();
  const stop = new AbortController();
  running.set(w.callId, stop);
  save([...saved().filter((s) => s.callId !== w.callId), w]);
  pane.item({ kind: "tool", id: w.callId, name: "refund", status: "running", call: `refund(order: "${w.args.order}", amount: ${w.args.amount})` });
  const approval = await requireApproval("refund", w.args, { pane, toolCallId: w.callId, timeoutMs: 10 * 60_000, signal: stop.signal });
  if (running.get(w.callId) !== stop) return; // asked again meanwhile: that approval decides
  running.delete(w.callId);
  save(saved().filter((s) => s.callId !== w.callId));
  record({ pane: w.pane, callId: w.callId, approved: approval.approved, decidedBy: approval.decidedBy });
  if (!approval.approved) {
    pane.item({ kind: "tool", id: w.callId, name: "refund", status: "denied", output: `Not refunded (${approval.decidedBy})` });
    return;
  }
  record({ pane: w.pane, callId: w.callId, ran: true });
  pane.item({ kind: "tool", id: w.callId, name: "refund", status: "done", output: `Refunded ${w.args.amount} EUR for order ${w.args.order}` });
}

async function courier(pane: Pane, order: string): Promise<void> {
  const callId = `courier-${order}`;
  pane.item({ kind: "tool", id: callId, name: "book_courier", status: "running" });
  try {
    const answer = await pane.ask({
      kind: "choice", toolCallId: callId, itemId: callId, title: "Which courier?", tool: { name: "book_courier" },
      options: [{ id: "dhl", label: "DHL Express" }, { id: "ups", label: "UPS" }],
    });
    const picked = answer.kind === "choice" ? answer.optionIds : [];
    record({ pane: pane.id, callId, picked });
    pane.item({ kind: "tool", id: callId, name: "book_courier", status: "done", output: `Booked ${picked.join(", ")}` });
  } catch (err) {
    if (!(err instanceof AskClosed)) throw err;
  }
}

for (const [id, pane] of panes) {
  pane.onSend(({ text }) => {
    const [verb, order = "1"] = text.trim().split(/\s+/);
    const callId = `refund-${id}-${order}`;
    if (verb === "refund") void approve(pane, { pane: id, callId, args: { order, amount: 40 } });
    else if (verb === "change") void approve(pane, { pane: id, callId, args: { order, amount: 400 } });
    else if (verb === "courier") void courier(pane, order);
  });
}

// Calls that waited when the agent went away are asked again, with the same tool call ids (S-23).
for (const w of saved()) {
  const pane = panes.get(w.pane);
  if (pane) void approve(pane, w);
}

collie.ready();
console.log(JSON.stringify({ ready: true }));
process.on("SIGTERM", () => void collie.close().then(() => process.exit(0)));
