/**
 * A durable agent that puts every screen of the phone on show at once, for the audit journey
 * (audit.spec.ts): every item kind, a long tool output, every ask kind in a conversation of its
 * own, a turn that runs, one that waits, one that is idle, closed conversations in its history,
 * starters, four agent buttons, a title far too long for a phone, and a conversation in Hebrew and
 * Arabic (right-to-left text, with left-to-right names and numbers inside it). Real SDK, real
 * socket: the phone sees what any agent may send.
 *
 *   node --conditions=collie-source e2e/gallery-agent.ts --socket <path>
 *
 * Prints `{"ready":true}` once Collie can connect; SIGTERM closes the socket.
 */
import { parseArgs } from "node:util";
import { AskClosed, openCollie, type HistoryRow, type Item, type Pane } from "@colliepwa/durable-sdk";
import { GALLERY } from "./gallery.ts";

const { values } = parseArgs({ options: { socket: { type: "string" } } });
if (!values.socket) throw new TypeError("--socket is required");

const HOUR = 3_600_000;
const at = (hoursAgo: number): string => new Date(Date.now() - hoursAgo * HOUR).toISOString();

const closedItems: Item[] = [
  { id: "c1", kind: "user", text: "Send me the weekly numbers.", ts: at(30) },
  { id: "c2", kind: "reply", text: "Refunds: 4, returns: 2, new tickets: 17.", ts: at(30) },
];
const closedRows: HistoryRow[] = [
  { id: "weekly-report", title: "Weekly report", subtitle: "Sent on Monday", startedAt: at(31), endedAt: at(30), state: "closed", items: closedItems.length },
  { id: "old-refund", title: "Refund for order 4410", subtitle: "Refunded", startedAt: at(60), endedAt: at(58), state: "closed", items: 0 },
];

const collie = await openCollie({
  socket: values.socket,
  hostName: "gallery",
  starters: [
    { id: "blank", title: "New ticket", subtitle: "A customer wrote in", icon: "note" },
    { id: "search", title: "Find an order", subtitle: "By number or customer", icon: "search" },
  ],
  hooks: {
    onStarter: () => {
      const pane = tab.pane(`started-${Date.now().toString(36)}`, { title: "New ticket", harness: "gallery" });
      pane.item({ kind: "notice", text: "New ticket. Tell me what the customer needs." });
      return pane;
    },
  },
});
collie.history({
  list: () => ({ rows: closedRows }),
  items: (sessionId) => (sessionId === "weekly-report" ? { items: closedItems } : sessionId === "old-refund" ? { items: [] } : null),
});

const space = collie.workspace("support", { title: "Support" });
const tab = space.tab("tickets", { title: "Tickets" });

// Every item kind, a long tool output, four agent buttons.
const items = tab.pane(GALLERY.items.pane, { title: GALLERY.items.title, harness: "gallery" });
items.state({
  subtitle: "Order 5521 · lost in transit",
  actions: [
    { id: "refund", label: "Refund", icon: "check" },
    { id: "escalate", label: "Escalate", icon: "flag" },
    { id: "resolve", label: "Resolve", icon: "check" },
    { id: "archive", label: "Archive", icon: "archive" },
  ],
});
items.onAction(() => undefined);
items.onSend(({ text }) => {
  items.item({ kind: "reply", text: `Noted: ${text}` });
});
items.item({ kind: "notice", text: "Ticket opened: the parcel for order 5521 never arrived." });
items.item({ kind: "user", text: "Where is the parcel now?" });
items.item({ kind: "thinking", text: "The carrier's last scan is from Tuesday. I should check the tracking log." });
items.item({ kind: "tool", name: "tracking", status: "done", call: 'tracking(order: "5521")', output: GALLERY.items.longOutput });
items.item({ kind: "reply", text: "The parcel was last scanned in Lyon on Tuesday and has not moved since." });
items.item({ kind: "markdown", text: "## What I can do\n\n- **Refund** the order (40 EUR)\n- Send a *replacement*\n\nSee `order 5521` or [the carrier's page](https://example.com/track/5521)." });
items.item({ kind: "code", text: 'refund("5521", 40)\nnotify("maria@example.com")', lang: "ts" });
items.item({ kind: "link", href: "https://example.com/orders/5521", label: "Order 5521" });
items.item({ kind: "tool", name: "label", status: "failed", call: 'label(order: "5521")', output: "The carrier refused the label: address incomplete." });
items.item({ kind: "tool", name: "refund", status: "denied", call: 'refund(order: "5521", amount: 40)' });

type AskInput = Parameters<Pane["ask"]>[0];
type AskWithoutItem = AskInput extends infer A ? (A extends unknown ? Omit<A, "itemId"> : never) : never;

/** A running tool item with an ask under it, kept open; an answer is written back as a notice. */
function hold(pane: Pane, tool: { name: string; call: string }, ask: AskWithoutItem): void {
  const itemId = pane.item({ kind: "tool", status: "running", ...tool });
  pane.ask({ ...ask, itemId } as AskInput).then(
    () => pane.item({ kind: "notice", text: "Answer taken." }),
    (err: unknown) => {
      if (!(err instanceof AskClosed)) throw err;
    },
  );
}

const inAnHour = (): string => new Date(Date.now() + HOUR).toISOString();

const permission = tab.pane(GALLERY.permission.pane, { title: GALLERY.permission.title, harness: "gallery" });
permission.state({ progress: { kind: "steps", current: 2, total: 3, label: "Refund" } });
permission.item({ kind: "user", text: "Refund Maria, please." });
hold(permission, { name: "refund", call: 'refund(order: "5521", amount: 40)' }, {
  kind: "permission",
  toolCallId: "refund-1",
  title: "refund wants to run",
  reason: "The parcel is lost; the customer asked for her money back.",
  tool: { name: "refund", call: 'refund(order: "5521", amount: 40)' },
  expiresAt: inAnHour(),
  options: [{ kind: "allow" }, { kind: "allow-always" }, { kind: "deny" }, { kind: "cancel", label: "Ask me later" }],
});

const choice = tab.pane(GALLERY.choice.pane, { title: GALLERY.choice.title, harness: "gallery" });
hold(choice, { name: "pick", call: "pick(kind: \"extras\")" }, {
  kind: "choice",
  toolCallId: "pick-1",
  title: "Which extras go with the replacement?",
  multiple: true,
  options: [
    { id: "gift", label: "Gift wrap", description: "Free for a lost parcel" },
    { id: "express", label: "Express shipping" },
    { id: "note", label: "A handwritten note" },
  ],
});

const text = tab.pane(GALLERY.text.pane, { title: GALLERY.text.title, harness: "gallery" });
hold(text, { name: "note", call: "note(ticket: \"5530\")" }, { kind: "text", toolCallId: "note-1", title: "What should the note to Jonas say?", placeholder: "A line for the customer", limit: 500 });

const form = tab.pane(GALLERY.form.pane, { title: GALLERY.form.title, harness: "gallery" });
hold(form, { name: "exchange", call: "exchange(order: \"5530\")" }, {
  kind: "form",
  toolCallId: "exchange-1",
  title: "Exchange details",
  fields: [
    { id: "size", type: "select", label: "New size", required: true, options: [{ id: "s", label: "S" }, { id: "l", label: "L" }] },
    { id: "reason", type: "text", label: "Reason", placeholder: "Too small" },
    { id: "pickup", type: "toggle", label: "Pick up the old one" },
  ],
});

// A turn that runs: a tool still running, progress as a percentage.
const working = tab.pane(GALLERY.working.pane, { title: GALLERY.working.title, harness: "gallery" });
working.item({ kind: "user", text: "Export every invoice of the year." });
working.item({ kind: "tool", status: "running", name: "export", call: "export(year: 2026)" });
working.state({ state: "working", progress: { kind: "percent", value: 42, label: "Exporting" } });

// Right to left: Hebrew and Arabic, with a left-to-right order number and name inside.
const rtl = tab.pane(GALLERY.rtl.pane, { title: GALLERY.rtl.title, harness: "gallery" });
rtl.state({ subtitle: GALLERY.rtl.subtitle });
rtl.item({ kind: "user", text: GALLERY.rtl.question });
rtl.item({ kind: "reply", text: GALLERY.rtl.reply });
rtl.item({ kind: "reply", text: GALLERY.rtl.arabic });

const long = tab.pane(GALLERY.long.pane, { title: GALLERY.long.title, harness: "gallery" });
long.state({ subtitle: GALLERY.long.subtitle });
long.item({ kind: "notice", text: "A conversation whose title is longer than any phone is wide." });

collie.ready();
console.log(JSON.stringify({ ready: true }));
process.on("SIGTERM", () => void collie.close().then(() => process.exit(0)));
