/**
 * Which items the chat draws (P-18, P-9): the newest `shown` of them (a long conversation stays
 * smooth; `Show earlier` adds more), each with the asks whose `itemId` names it. Asks whose item is
 * not drawn go at the end, so an open question is never hidden. Pure.
 */
import type { Ask, Item } from "@colliepwa/durable-sdk/wire";

/** How many items the chat draws at first, and how many more each `Show earlier` adds. */
export const WINDOW_SIZE = 200;

export interface ChatRow {
  item: Item;
  asks: Ask[];
}

export interface Arranged {
  /** Items older than the window, not drawn. */
  earlier: number;
  rows: ChatRow[];
  /** Asks whose tool item is not drawn. */
  loose: Ask[];
}

export function arrange(items: readonly Item[], asks: readonly Ask[], shown: number): Arranged {
  const earlier = Math.max(0, items.length - Math.max(0, shown));
  const drawn = items.slice(earlier);
  const byItem = new Map<string, Ask[]>();
  const ids = new Set(drawn.map((i) => i.id));
  const loose: Ask[] = [];
  for (const a of asks) {
    if (ids.has(a.itemId)) {
      const list = byItem.get(a.itemId);
      if (list) list.push(a);
      else byItem.set(a.itemId, [a]);
    } else loose.push(a);
  }
  // An item id appears once: a known id replaces the earlier item in place (S-14).
  const rows = drawn.map((item) => ({ item, asks: byItem.get(item.id) ?? [] }));
  return { earlier, rows, loose };
}
