/**
 * Many asks in one conversation (P-13): the first 5, in the order the chat shows them (by the tool
 * item they sit under, then by when they were raised), are drawn as cards; a `Show N more` row
 * opens the rest. Pure.
 */
import type { Ask, Item } from "@colliepwa/durable-sdk/wire";

/** How many asks a conversation draws as cards before `Show N more`. */
export const FIRST_ASKS = 5;

export interface DrawnAsks {
  /** Ids of the asks drawn as cards. */
  drawn: ReadonlySet<string>;
  /** How many are behind `Show N more` (0 when opened or when there are 5 or fewer). */
  hidden: number;
  /** The last drawn ask: the `Show N more` row goes right after its card. */
  showMoreAfter: string | null;
}

/** Orders a conversation's asks as the chat shows them. */
export function chatOrder(asks: readonly Ask[], items: readonly Pick<Item, "id">[]): Ask[] {
  const at = new Map(items.map((i, n) => [i.id, n]));
  const pos = (a: Ask) => at.get(a.itemId) ?? Number.MAX_SAFE_INTEGER;
  return asks
    .map((a, n) => ({ a, n }))
    .sort((x, y) => pos(x.a) - pos(y.a) || x.a.createdAt.localeCompare(y.a.createdAt) || x.n - y.n)
    .map((x) => x.a);
}

/** Which asks are cards: all when `opened`, else the first 5. */
export function drawnAsks(ordered: readonly Ask[], opened: boolean): DrawnAsks {
  const shown = opened ? ordered : ordered.slice(0, FIRST_ASKS);
  return {
    drawn: new Set(shown.map((a) => a.id)),
    hidden: ordered.length - shown.length,
    showMoreAfter: ordered.length > shown.length ? (shown.at(-1)?.id ?? null) : null,
  };
}
