/**
 * The quick start (sdk/README.md): a durable agent that shows one conversation on the phone,
 * answers what you send, and asks before it runs a tool. Run it with
 *
 *   COLLIE_DURABLE_SOCKET=$XDG_RUNTIME_DIR/collie/desk.sock node sdk/examples/quick-start.ts
 *
 * and attach that socket in Collie's sources.json.
 */
import { AskClosed, openCollie } from "@colliepwa/durable-sdk";

const collie = await openCollie({ hostName: "desk" });
const space = collie.workspace("support", { title: "Support" });
const tab = space.tab("main", { title: "Tickets" });
const pane = tab.pane("ticket-1", { title: "Maria Lopez", harness: "desk" });
collie.ready();

pane.item({ kind: "notice", text: "Ticket opened: the parcel for order 5521 never arrived." });

// A handler only takes the message: the turn runs after the reply, so the phone hears "Sent" at once.
pane.onSend(({ text }) => {
  const turnId = pane.beginTurn();
  void runTurn(text, turnId);
  return { turnId };
});

async function runTurn(text: string, turnId: string): Promise<void> {
  const tool = pane.item({ kind: "tool", name: "refund", status: "running", call: 'refund(order: "5521", amount: 40)' });
  try {
    const answer = await pane.ask({
      kind: "permission",
      toolCallId: `refund-${turnId}`,
      itemId: tool,
      title: "refund wants to run",
      tool: { name: "refund", call: 'refund(order: "5521", amount: 40)' },
      push: { line: "refund needs a yes" },
      options: [{ kind: "allow" }, { kind: "deny" }],
    });
    const allowed = answer.kind === "permission" && answer.optionKind === "allow";
    pane.item({ id: tool, kind: "tool", name: "refund", status: allowed ? "done" : "denied", call: 'refund(order: "5521", amount: 40)', output: allowed ? "refunded 40 EUR" : undefined });
    pane.item({ kind: "reply", text: allowed ? `Done: "${text}" — the refund is on its way.` : "Understood, no refund." });
  } catch (err) {
    if (!(err instanceof AskClosed)) throw err;
    pane.item({ kind: "reply", text: "No answer, so no refund." });
  }
  pane.endTurn();
}

console.log(JSON.stringify({ ready: true, socket: collie.socketPath }));
process.on("SIGTERM", () => void collie.close().then(() => process.exit(0)));
