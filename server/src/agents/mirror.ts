/**
 * What Collie knows of one agent's panes (D-2, D-4): its layout and, per pane, the summary, the
 * newest items (at most the wire's view size) and the open asks. It applies the agent's events
 * pages and tells its listener what changed, in the phone's terms.
 */
import { LIMITS, type Ask, type EventsPage, type Item, type Layout, type PaneSummary, type PaneView } from "@colliepwa/durable-sdk/wire";
import type { Conversation, PaneDetail } from "@colliepwa/shared";

/** A change, in the phone's terms; the live hub numbers and sends them. */
export type MirrorChange =
  | { type: "conversation"; conversation: Conversation }
  /**
   * A conversation left the mirror. `closedAsks` are the asks it still had open when the agent's
   * own complete layout dropped it (closed): they will not come back. Empty when the agent merely
   * went away (its asks stay open, S-8) or was not ready yet.
   */
  | { type: "conversation-removed"; id: string; closedAsks: string[] }
  | { type: "item"; paneId: string; item: Item }
  | { type: "ask"; paneId: string; ask: Ask }
  | { type: "ask-closed"; paneId: string; askId: string; decidedBy: "phone" | "program" | "timeout"; title: string }
  | { type: "view"; paneId: string; detail: PaneDetail }
  | { type: "counts" };

interface PaneMirror {
  summary: PaneSummary;
  items: Map<string, Item>;
  itemsCut: boolean;
  asks: Map<string, Ask>;
  /** The newest `ts` of the items seen (ms), 0 when none carried one. */
  newestItemAt: number;
}

export class AgentMirror {
  readonly agent: string;
  #layout: Layout = { ready: false, workspaces: [], tabs: [], panes: [] };
  readonly #panes = new Map<string, PaneMirror>();
  readonly #onChange: (change: MirrorChange) => void;
  readonly #present: (c: Conversation) => Conversation;

  /**
   * `present` shapes every Conversation this mirror hands out (the snapshot, the pane read and
   * the WebSocket all take theirs from here): the daemon masks secrets in it.
   */
  constructor(agent: string, onChange: (change: MirrorChange) => void, present: (c: Conversation) => Conversation = (c) => c) {
    this.agent = agent;
    this.#onChange = onChange;
    this.#present = present;
  }

  get ready(): boolean {
    return this.#layout.ready;
  }

  /** Open conversations and those waiting on you (P-2). */
  get counts(): { open: number; waiting: number } {
    let waiting = 0;
    for (const p of this.#panes.values()) if (p.asks.size > 0 || p.summary.state === "waiting") waiting++;
    return { open: this.#panes.size, waiting };
  }

  conversations(): Conversation[] {
    return [...this.#panes.values()].map((p) => this.#conversation(p));
  }

  detail(paneId: string): PaneDetail | undefined {
    const p = this.#panes.get(paneId);
    return p ? this.#detail(p) : undefined;
  }

  /** The open ask with this id in this pane, if any. */
  ask(paneId: string, askId: string): Ask | undefined {
    return this.#panes.get(paneId)?.asks.get(askId);
  }

  /** Every open ask (held answers look here when an agent comes back, D-5). */
  *openAsks(): Iterable<Ask> {
    for (const p of this.#panes.values()) yield* p.asks.values();
  }

  /** Forgets everything (the agent went away or was removed from sources.json). */
  clear(): void {
    for (const id of [...this.#panes.keys()]) {
      this.#panes.delete(id);
      this.#onChange({ type: "conversation-removed", id, closedAsks: [] });
    }
    this.#layout = { ready: false, workspaces: [], tabs: [], panes: [] };
    this.#onChange({ type: "counts" });
  }

  /** Applies one events page (W-3): reset, layout, whole views, then events in seq order. */
  apply(page: EventsPage): void {
    if (page.reset) {
      const keep = new Set((page.layout?.panes ?? []).map((p) => p.id));
      for (const id of [...this.#panes.keys()]) {
        if (!keep.has(id)) this.#remove(id, page.layout?.ready === true);
      }
    }
    if (page.layout) this.#applyLayout(page.layout);
    for (const view of page.views) this.#applyView(view);
    for (const event of page.events) {
      const pane = this.#panes.get(event.pane);
      if (!pane) continue; // a pane the layout no longer has
      switch (event.type) {
        case "item":
          setItem(pane, event.item);
          this.#onChange({ type: "item", paneId: event.pane, item: event.item });
          break;
        case "ask":
          pane.asks.set(event.ask.id, event.ask);
          this.#onChange({ type: "ask", paneId: event.pane, ask: event.ask });
          break;
        case "ask-closed":
          pane.asks.delete(event.askId);
          this.#onChange({ type: "ask-closed", paneId: event.pane, askId: event.askId, decidedBy: event.decidedBy, title: event.title });
          break;
        case "state":
          pane.summary = event.summary;
          this.#onChange({ type: "conversation", conversation: this.#conversation(pane) });
          break;
      }
    }
    this.#onChange({ type: "counts" });
  }

  /** Replaces one pane from a fresh view (after a read of `GET /panes/:pane`). */
  applyView(view: PaneView): void {
    this.#applyView(view);
    this.#onChange({ type: "counts" });
  }

  /** Drops a pane the agent's layout no longer has; `final` when that layout is complete (ready). */
  #remove(id: string, final: boolean): void {
    const pane = this.#panes.get(id);
    this.#panes.delete(id);
    this.#onChange({ type: "conversation-removed", id, closedAsks: final && pane ? [...pane.asks.keys()] : [] });
  }

  #applyLayout(layout: Layout): void {
    this.#layout = layout;
    const wanted = new Map(layout.panes.map((p) => [p.id, p]));
    for (const id of [...this.#panes.keys()]) {
      if (!wanted.has(id)) this.#remove(id, layout.ready);
    }
    for (const summary of layout.panes) {
      const existing = this.#panes.get(summary.id);
      if (existing) existing.summary = summary;
      else this.#panes.set(summary.id, { summary, items: new Map(), itemsCut: false, asks: new Map(), newestItemAt: 0 });
      this.#onChange({ type: "conversation", conversation: this.#conversation(this.#panes.get(summary.id)!) });
    }
  }

  #applyView(view: PaneView): void {
    const pane: PaneMirror = {
      summary: view.pane,
      items: new Map(view.items.map((i) => [i.id, i])),
      itemsCut: view.itemsCut,
      asks: new Map(view.asks.map((a) => [a.id, a])),
      newestItemAt: 0,
    };
    for (const item of view.items) noteItemTime(pane, item);
    this.#panes.set(view.pane.id, pane);
    this.#onChange({ type: "conversation", conversation: this.#conversation(pane) });
    this.#onChange({ type: "view", paneId: view.pane.id, detail: this.#detail(pane) });
  }

  #conversation(p: PaneMirror): Conversation {
    const wsId = p.summary.tabId.split(":")[0];
    const workspaceTitle = this.#layout.workspaces.find((w) => w.id === wsId)?.title ?? "";
    const first = p.asks.values().next().value as Ask | undefined;
    const c: Conversation = { ...p.summary, agent: this.agent, workspaceTitle, activeAt: lastActivity(p) };
    if (first) c.pendingQuestion = first.title;
    return this.#present(c);
  }

  #detail(p: PaneMirror): PaneDetail {
    return { conversation: this.#conversation(p), items: [...p.items.values()], itemsCut: p.itemsCut, asks: [...p.asks.values()] };
  }
}

/**
 * The conversation's last activity for its row (P-5): the newest item's or open ask's time. The
 * agent's own `activeAt` moves with every state change, and a restarted agent sets it to its start
 * for every pane, so a row would show a time later than anything in it; it is used only when the
 * pane has neither an item with a time nor an open ask.
 */
function lastActivity(p: PaneMirror): string {
  let newest = p.newestItemAt;
  for (const ask of p.asks.values()) {
    const t = Date.parse(ask.createdAt);
    if (t > newest) newest = t;
  }
  return newest > 0 ? new Date(newest).toISOString() : p.summary.activeAt;
}

function noteItemTime(pane: PaneMirror, item: Item): void {
  if (!item.ts) return;
  const t = Date.parse(item.ts);
  if (t > pane.newestItemAt) pane.newestItemAt = t;
}

/** Inserts or replaces an item in place (S-14), keeping at most the wire's view size (S-32). */
function setItem(pane: PaneMirror, item: Item): void {
  noteItemTime(pane, item);
  pane.items.set(item.id, item);
  if (pane.items.size > LIMITS.viewItems) {
    pane.items.delete(pane.items.keys().next().value as string);
    pane.itemsCut = true;
  }
}
