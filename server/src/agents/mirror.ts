/**
 * What Collie knows of one agent's panes (D-2, D-4): its layout and, per pane, the summary, the
 * open asks and a short tail of the newest items (MIRROR_TAIL_ITEMS): what the dashboard, the
 * conversation list, push and the ask cards need. A chat a phone opens gets the pane's whole view,
 * read from the agent into the shared ViewCache (`AgentConnection.paneDetail`) and kept current
 * here while it is held. It applies the agent's events pages and tells its listener what changed,
 * in the phone's terms.
 */
import { type Ask, type EventsPage, type Item, type Layout, type PaneSummary, type PaneView } from "@colliepwa/durable-sdk/wire";
import type { Conversation, PaneDetail } from "@colliepwa/shared";
import { ViewCache } from "./view-cache.ts";

/**
 * The newest items Collie keeps of every pane (and asks the agent for in its events pages,
 * `viewItems`): enough for a chat to draw at once while its whole view is read.
 */
export const MIRROR_TAIL_ITEMS = 50;

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
  /**
   * A pane whose whole view Collie held got a new view from the agent's events (a reset, or the
   * pane fell behind its tail): the held view is gone and must be read again for its watchers.
   */
  | { type: "view-stale"; paneId: string }
  | { type: "counts" };

/**
 * At most this many open conversations of one agent are kept and shown (the security issue, item
 * 4): an agent that opens 100 000 panes must not take Collie's memory and every phone's download
 * with it. Past the limit Collie keeps the ones waiting on you, then the newest, and the agent's
 * row says how many it does not show (`notShown`).
 */
export const MAX_PANES_PER_AGENT = 1000;

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
  readonly #views: ViewCache;
  /** How many panes of the agent's layout are beyond MAX_PANES_PER_AGENT. */
  #notShown = 0;

  /**
   * `present` shapes every Conversation this mirror hands out (the snapshot, the pane read and
   * the WebSocket all take theirs from here): the daemon masks secrets in it.
   */
  constructor(agent: string, onChange: (change: MirrorChange) => void, present: (c: Conversation) => Conversation = (c) => c, views: ViewCache = new ViewCache()) {
    this.agent = agent;
    this.#onChange = onChange;
    this.#present = present;
    this.#views = views;
  }

  /** The whole views it holds, shared with every agent's mirror (and their turns to be read). */
  get views(): ViewCache {
    return this.#views;
  }

  /** True when the pane is open here. */
  has(paneId: string): boolean {
    return this.#panes.has(paneId);
  }

  /** True when the pane's whole view is held (a phone opened it lately). */
  holdsWholeView(paneId: string): boolean {
    return this.#views.has(this.agent, paneId);
  }

  /**
   * Holds a pane's whole view read from the agent. The items of the events stream applied since
   * the read was answered are in the tail: they go on top, so nothing that arrived meanwhile is lost.
   */
  holdView(paneId: string, items: readonly Item[], itemsCut: boolean): void {
    const pane = this.#panes.get(paneId);
    if (!pane) return;
    this.#views.put(this.agent, paneId, items, itemsCut);
    for (const item of pane.items.values()) this.#views.setItem(this.agent, paneId, item);
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

  /** Open conversations the agent has beyond the limit (MAX_PANES_PER_AGENT). */
  get notShown(): number {
    return this.#notShown;
  }

  conversations(): Conversation[] {
    return [...this.#panes.values()].map((p) => this.#conversation(p));
  }

  /** The pane's conversation row as the phone gets it, without its items (push names it). */
  conversation(paneId: string): Conversation | undefined {
    const p = this.#panes.get(paneId);
    return p ? this.#conversation(p) : undefined;
  }

  detail(paneId: string): PaneDetail | undefined {
    const p = this.#panes.get(paneId);
    return p ? this.#detail(p) : undefined;
  }

  /** A pane's state and its running (or last) turn, as the agent last said; undefined when not open. */
  turn(paneId: string): { state: PaneSummary["state"]; turnId: string | null } | undefined {
    const p = this.#panes.get(paneId);
    return p ? { state: p.summary.state, turnId: p.summary.turnId } : undefined;
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
    this.#views.deleteAgent(this.agent);
    this.#notShown = 0;
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
          this.#views.setItem(this.agent, event.pane, event.item);
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
    this.#views.delete(this.agent, id);
    this.#onChange({ type: "conversation-removed", id, closedAsks: final && pane ? [...pane.asks.keys()] : [] });
  }

  #applyLayout(full: Layout): void {
    const layout = full.panes.length > MAX_PANES_PER_AGENT ? { ...full, panes: this.#kept(full.panes) } : full;
    this.#notShown = full.panes.length - layout.panes.length;
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

  /** The panes kept of a layout over the limit: waiting on you first, then the newest; in layout order. */
  #kept(panes: readonly PaneSummary[]): PaneSummary[] {
    const waiting = (p: PaneSummary) => p.openAsks > 0 || p.state === "waiting" || (this.#panes.get(p.id)?.asks.size ?? 0) > 0;
    const ranked = [...panes].sort((a, b) => Number(waiting(b)) - Number(waiting(a)) || Date.parse(b.activeAt) - Date.parse(a.activeAt) || (a.id < b.id ? -1 : 1));
    const keep = new Set(ranked.slice(0, MAX_PANES_PER_AGENT).map((p) => p.id));
    return panes.filter((p) => keep.has(p.id));
  }

  #applyView(view: PaneView): void {
    // A view of a pane the layout left out (over the limit) stays out.
    if (!this.#panes.has(view.pane.id) && this.#notShown > 0 && !this.#layout.panes.some((p) => p.id === view.pane.id)) return;
    const tail = view.items.length > MIRROR_TAIL_ITEMS ? view.items.slice(view.items.length - MIRROR_TAIL_ITEMS) : view.items;
    const known = this.#panes.get(view.pane.id)?.asks;
    const pane: PaneMirror = {
      summary: view.pane,
      items: new Map(tail.map((i) => [i.id, i])),
      itemsCut: view.itemsCut || tail.length < view.items.length,
      asks: new Map(view.asks.map((a) => [a.id, a])),
      newestItemAt: 0,
    };
    for (const item of view.items) noteItemTime(pane, item);
    this.#panes.set(view.pane.id, pane);
    this.#onChange({ type: "conversation", conversation: this.#conversation(pane) });
    // An ask that reaches Collie inside a view, not as an event (raised in the same tick as its
    // new pane, or while Collie was away), is new all the same: the phone and push hear of it as
    // of any ask (issue 38, item 4). Push dedupes by ask id (U-3), so one it saw before stays quiet.
    for (const ask of view.asks) if (!known?.has(ask.id)) this.#onChange({ type: "ask", paneId: view.pane.id, ask });
    if (this.#views.has(this.agent, view.pane.id)) {
      // A view that is whole (an agent that sends whole views) replaces the held one; a cut one
      // makes it stale: its watchers get the whole view read again, never a tail.
      if (!view.itemsCut) {
        this.#views.put(this.agent, view.pane.id, view.items, false);
        this.#onChange({ type: "view", paneId: view.pane.id, detail: this.#detail(pane) });
      } else {
        this.#views.delete(this.agent, view.pane.id);
        this.#onChange({ type: "view-stale", paneId: view.pane.id });
      }
      return;
    }
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

  /** The pane's content: its whole view when held, else the tail (`itemsCut` when that is short of it). */
  #detail(p: PaneMirror): PaneDetail {
    const whole = this.#views.get(this.agent, p.summary.id);
    const items = whole ?? p;
    return { conversation: this.#conversation(p), items: [...items.items.values()], itemsCut: items.itemsCut, asks: [...p.asks.values()] };
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

/** Inserts or replaces an item in place (S-14), keeping the newest MIRROR_TAIL_ITEMS. */
function setItem(pane: PaneMirror, item: Item): void {
  noteItemTime(pane, item);
  pane.items.set(item.id, item);
  if (pane.items.size > MIRROR_TAIL_ITEMS) {
    pane.items.delete(pane.items.keys().next().value as string);
    pane.itemsCut = true;
  }
}
