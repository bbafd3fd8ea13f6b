/**
 * A durable agent whose every text is hostile (X-2, L-2), for the XSS journey: names, titles,
 * subtitles, badges, progress, buttons and their refusals, items of every kind, asks of every kind
 * with their options and form labels, push text, starters and history. It is a real agent on the
 * real SDK, so it sends what any agent may send; the SDK cleans control characters but keeps markup,
 * which is the point.
 *
 *   node --conditions=collie-source e2e/hostile-agent.ts --socket <path>
 *
 * Prints `{"ready":true}` once Collie can connect; SIGTERM closes the socket.
 */
import { parseArgs } from "node:util";
import { ALL_CAPS, AskClosed, openCollie, Refusal, type HistoryRow, type Item, type Pane } from "@colliepwa/durable-sdk";
import { H, HOSTILE_HREF, HOSTILE_MARKDOWN, MD, PANES, SHORT } from "./hostile.ts";

const { values } = parseArgs({ options: { socket: { type: "string" } } });
if (!values.socket) throw new TypeError("--socket is required");

const STARTED = "2026-12-01T09:00:00.000Z";
const closedItems: Item[] = [
  { id: "c1", kind: "user", text: H.script },
  { id: "c2", kind: "markdown", text: HOSTILE_MARKDOWN },
  { id: "c3", kind: "tool", name: H.svg, status: "failed", call: H.anchor, output: H.iframe },
];
const closedRow: HistoryRow = { id: "closed-1", title: H.iframe, subtitle: H.entity, workspaceId: "ws", tabId: "ws:tab", startedAt: STARTED, endedAt: STARTED, state: "closed", items: closedItems.length };

const collie = await openCollie({
  socket: values.socket,
  hostName: H.img,
  // Its send handlers take a message while an ask waits (each raises another approval): followUp.
  caps: { ...ALL_CAPS, followUp: true },
  starters: [{ id: "evil-start", title: H.script, subtitle: H.attr, icon: H.svg }],
  hooks: {
    onStarter: () => {
      const pane = tab.pane(`started-${Date.now().toString(36)}`, { title: H.template, harness: "hostile" });
      pane.item({ kind: "notice", text: H.style });
      return pane;
    },
  },
});
collie.history({
  list: () => ({ rows: [closedRow] }),
  items: (sessionId) => (sessionId === closedRow.id ? { items: closedItems } : null),
});

const space = collie.workspace("ws", { title: H.style });
const tab = space.tab("tab", { title: H.template });

// Every item kind, every text field.
const items = tab.pane(PANES.items, { title: H.img, harness: "hostile" });
items.state({ subtitle: H.attr });
items.state({ badge: SHORT.badge });
items.state({ actions: [{ id: "evil-button", label: SHORT.action }] });
items.onAction(() => {
  throw new Refusal(H.script);
});
// What the phone sends comes back as the agent's reply, unchanged (the phone's own text is data too).
items.onSend(({ text }) => {
  items.item({ kind: "reply", text: `You said: ${text}` });
});
items.item({ kind: "user", text: H.script });
items.item({ kind: "reply", text: H.img });
items.item({ kind: "thinking", text: H.svg });
items.item({ kind: "notice", text: H.iframe });
items.item({ kind: "markdown", text: HOSTILE_MARKDOWN });
items.item({ kind: "code", text: `${H.script}\n${H.img}`, lang: "html" });
items.item({ kind: "link", href: HOSTILE_HREF, label: H.img });
items.item({ kind: "tool", name: H.entity, status: "done", call: H.anchor, output: `${H.script}\n${MD.jsLink}` });

type AskInput = Parameters<Pane["ask"]>[0];
type AskWithoutItem = AskInput extends infer A ? (A extends unknown ? Omit<A, "itemId"> : never) : never;

/**
 * Writes a running tool item and raises an ask under it, kept open; the answer, if any, is shown
 * as text.
 */
function hold(pane: Pane, tool: { name: string; call?: string }, ask: AskWithoutItem): void {
  const itemId = pane.item({ kind: "tool", status: "running", ...tool });
  pane.ask({ ...ask, itemId } as AskInput).then(
    (answer) => pane.item({ kind: "notice", text: `Answered: ${JSON.stringify(answer)}` }),
    (err: unknown) => {
      if (!(err instanceof AskClosed)) throw err;
    },
  );
}

const permission = tab.pane(PANES.permission, { title: H.svg, harness: "hostile" });
// Progress shows in the header while the conversation waits on you (P-21).
permission.state({ progress: { kind: "steps", current: 1, total: 3, label: H.anchor } });
hold(permission, { name: "shell", call: H.script }, {
  kind: "permission",
  toolCallId: "rm-1",
  title: H.img,
  reason: `${H.anchor} ${MD.jsLink}`,
  tool: { name: "shell", call: H.script },
  push: { title: H.svg, line: H.img },
  options: [
    { kind: "allow", label: H.svg },
    { kind: "allow-always", label: H.attr },
    { kind: "deny", label: H.script },
  ],
});

// Each message raises another approval, so a journey can follow an ask's push from a fresh subscription.
let raised = 1;
permission.onSend(() => {
  raised += 1;
  hold(permission, { name: "shell", call: H.script }, {
    kind: "permission",
    toolCallId: `rm-${raised}`,
    title: H.img,
    tool: { name: "shell", call: H.script },
    push: { title: H.svg, line: H.img },
    options: [{ kind: "allow", label: H.svg }, { kind: "deny", label: H.script }],
  });
});

const choice = tab.pane(PANES.choice, { title: H.entity, harness: "hostile" });
hold(choice, { name: "pick" }, {
  kind: "choice",
  toolCallId: "pick-1",
  title: H.template,
  multiple: true,
  options: [
    { id: "one", label: H.img, description: MD.dataLink },
    { id: "two", label: H.script, description: H.iframe },
  ],
});

const text = tab.pane(PANES.text, { title: H.anchor, harness: "hostile" });
hold(text, { name: "note" }, { kind: "text", toolCallId: "note-1", title: H.iframe, placeholder: H.attr, limit: 500 });

const form = tab.pane(PANES.form, { title: H.template, harness: "hostile" });
hold(form, { name: "fill" }, {
  kind: "form",
  toolCallId: "fill-1",
  title: H.style,
  fields: [
    { id: "name", type: "text", label: H.img, placeholder: H.script },
    { id: "level", type: "select", label: H.svg, options: [{ id: "a", label: H.anchor }, { id: "b", label: H.entity }] },
    { id: "sure", type: "toggle", label: H.iframe },
  ],
});

collie.ready();
console.log(JSON.stringify({ ready: true }));
process.on("SIGTERM", () => void collie.close().then(() => process.exit(0)));
