/**
 * The whole views of the chats phones have open (issue: memory stays small): Collie mirrors only
 * a short tail of each pane (`MIRROR_TAIL_ITEMS`) and reads a pane's whole view from its agent when
 * a phone opens that chat. The views read are kept here, kept current from the events stream while
 * they are here, and dropped the least recently used first once their items pass a budget shared by
 * every agent, so memory follows what phones look at, not what agents keep.
 */
import { LIMITS, type Item } from "@colliepwa/durable-sdk/wire";

/** Items of whole views kept across every agent (about 7 MB at 360 B an item). */
export const VIEW_CACHE_ITEMS = 20_000;
/**
 * Whole views read from agents at the same time, across every agent; more wait their turn, in
 * order. A view is up to 2000 items (S-32): while one is read, its reply's text, its parsed items
 * and the checked copy are all in memory at once, and phones opening many chats together (a
 * reconnect that watches them all again) made the daemon's RSS jump by 15–20 MB for a moment
 * (issue 31). Four keep one slow agent from holding up the rest.
 */
export const VIEW_READS_AT_ONCE = 4;
/** How long a view read keeps its turn; a 2000-item view takes 20–50 ms on a small machine. */
export const VIEW_READ_TURN_MS = 1000;

export interface CachedView {
  items: Map<string, Item>;
  itemsCut: boolean;
}

export class ViewCache {
  readonly #budget: number;
  /** By `agent\npane`, least recently used first. */
  readonly #views = new Map<string, CachedView>();
  #items = 0;
  #reading = 0;
  /** Reads waiting for their turn, oldest first. */
  readonly #waiting: (() => void)[] = [];
  readonly #readsAtOnce: number;
  readonly #turnMs: number;

  constructor(budget: number = VIEW_CACHE_ITEMS, readsAtOnce: number = VIEW_READS_AT_ONCE, turnMs: number = VIEW_READ_TURN_MS) {
    this.#budget = budget;
    this.#readsAtOnce = readsAtOnce;
    this.#turnMs = turnMs;
  }

  /**
   * Runs `read` (a whole view read from an agent) once fewer than VIEW_READS_AT_ONCE are running.
   * A read still running after VIEW_READ_TURN_MS passes its turn on and goes on outside the count:
   * an agent that stalls has sent nothing yet to hold in memory, and must not hold up every other
   * agent's chats until its deadline.
   */
  async read<T>(read: () => Promise<T>): Promise<T> {
    if (this.#reading >= this.#readsAtOnce) await new Promise<void>((go) => this.#waiting.push(go));
    else this.#reading++;
    let turn = true;
    const passTurn = () => {
      if (!turn) return;
      turn = false;
      // The turn goes straight to the next read waiting, or is given back.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#reading--;
    };
    const slow = setTimeout(passTurn, this.#turnMs);
    try {
      return await read();
    } finally {
      clearTimeout(slow);
      passTurn();
    }
  }

  get size(): number {
    return this.#views.size;
  }

  /** Items held in all views. */
  get items(): number {
    return this.#items;
  }

  /** The view of a pane, marked as used now; undefined when not held. */
  get(agent: string, pane: string): CachedView | undefined {
    const key = `${agent}\n${pane}`;
    const view = this.#views.get(key);
    if (view) {
      this.#views.delete(key);
      this.#views.set(key, view);
    }
    return view;
  }

  has(agent: string, pane: string): boolean {
    return this.#views.has(`${agent}\n${pane}`);
  }

  /** Holds a whole view just read; drops the least recently used ones past the budget. */
  put(agent: string, pane: string, items: readonly Item[], itemsCut: boolean): CachedView {
    this.delete(agent, pane);
    const view: CachedView = { items: new Map(items.map((i) => [i.id, i])), itemsCut };
    this.#views.set(`${agent}\n${pane}`, view);
    this.#items += view.items.size;
    this.#shrink(`${agent}\n${pane}`);
    return view;
  }

  /** An item event of a held view: in place by id (S-14), the oldest out past the view cap (S-32). */
  setItem(agent: string, pane: string, item: Item): void {
    const view = this.#views.get(`${agent}\n${pane}`);
    if (!view) return;
    const before = view.items.size;
    view.items.set(item.id, item);
    if (view.items.size > LIMITS.viewItems) {
      view.items.delete(view.items.keys().next().value as string);
      view.itemsCut = true;
    }
    this.#items += view.items.size - before;
  }

  delete(agent: string, pane: string): void {
    const key = `${agent}\n${pane}`;
    const view = this.#views.get(key);
    if (!view) return;
    this.#items -= view.items.size;
    this.#views.delete(key);
  }

  /** Drops every view of an agent (it went away or was removed). */
  deleteAgent(agent: string): void {
    for (const key of [...this.#views.keys()]) if (key.startsWith(`${agent}\n`)) this.delete(agent, key.slice(agent.length + 1));
  }

  #shrink(keep: string): void {
    for (const key of this.#views.keys()) {
      if (this.#items <= this.#budget) return;
      if (key === keep) continue;
      const i = key.indexOf("\n");
      this.delete(key.slice(0, i), key.slice(i + 1));
    }
  }
}
