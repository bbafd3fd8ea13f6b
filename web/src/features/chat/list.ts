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

/** Items closer together than this are one burst: the chat shows the burst's time once (issue 32). */
export const BURST_GAP_MS = 5 * 60_000;

/**
 * Which items show their time, as messaging apps group them (issue 32 item 4, issue 37 item 12):
 * one time per burst (items less than 5 minutes apart, on one day), on the burst's last finished
 * item. An item still growing shows no time (P-19); the one before it shows the burst's time until
 * it is final. Items without a time join the burst they sit in.
 */
export function burstEnds(items: readonly Item[]): Set<string> {
  const ends = new Set<string>();
  let last: { id: string; at: number } | null = null;
  for (const item of items) {
    const at = item.ts ? Date.parse(item.ts) : Number.NaN;
    const partial = "partial" in item && item.partial === true;
    if (Number.isNaN(at) || partial) continue;
    if (last && (at - last.at >= BURST_GAP_MS || new Date(at).toDateString() !== new Date(last.at).toDateString())) ends.add(last.id);
    last = { id: item.id, at };
  }
  if (last) ends.add(last.id);
  return ends;
}