/**
 * The desk's history (S-31): every conversation in the store, open and closed, newest first, so
 * the phone can list closed ones under `Closed` and read them (P-5…P-8).
 *
 * Cursors are the agent's own strings (1–512 bytes of printable ASCII without space, S-31). A page
 * of rows ends at a key (startedAt, id), not at an offset: a conversation a starter opens between
 * two page reads goes to the top and does not shift the next page, so no row is served twice or
 * skipped. The key is base64url JSON, which is printable and opaque. Items are append-only (an
 * item rewritten in place keeps its position), so their pages end at a plain offset.
 */
import type { HistoryItemsPage, HistoryPage, HistoryProvider, HistoryRow } from "@colliepwa/durable-sdk";
import type { ConversationRecord, DeskStore } from "./store.ts";

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");

function decode(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}

/** Newest first; the id breaks ties, so the order is total and a key names one place in it. */
const newestFirst = (a: ConversationRecord, b: ConversationRecord): number =>
  a.startedAt === b.startedAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.startedAt < b.startedAt ? 1 : -1;

/** True when `c` comes after the key `[startedAt, id]` in newest-first order. */
const isAfter = (c: ConversationRecord, [startedAt, id]: [string, string]): boolean =>
  c.startedAt < startedAt || (c.startedAt === startedAt && c.id < id);

function rowOf(c: ConversationRecord): HistoryRow {
  const row: HistoryRow = { id: c.id, title: c.title, workspaceId: c.workspaceId, tabId: c.tabId, startedAt: c.startedAt, state: c.state, items: c.items.length };
  if (c.subtitle) row.subtitle = c.subtitle;
  if (c.endedAt) row.endedAt = c.endedAt;
  return row;
}

export function deskHistory(store: DeskStore): HistoryProvider {
  return {
    list({ after, limit }): HistoryPage {
      let rows = [...store.conversations()].sort(newestFirst);
      if (after !== undefined) {
        const key = decode(after);
        // A cursor we did not write starts over rather than failing the phone's list.
        if (Array.isArray(key) && typeof key[0] === "string" && typeof key[1] === "string") {
          rows = rows.filter((c) => isAfter(c, key as [string, string]));
        }
      }
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      // No `next` ends the list (S-31).
      return rows.length > limit && last ? { rows: page.map(rowOf), next: encode([last.startedAt, last.id]) } : { rows: page.map(rowOf) };
    },

    items(sessionId, { after, limit }): HistoryItemsPage | null {
      const record = store.conversation(sessionId);
      if (!record) return null;
      const offset = after === undefined ? 0 : Number(decode(after));
      const from = Number.isSafeInteger(offset) && offset > 0 ? offset : 0;
      const items = record.items.slice(from, from + limit);
      return from + limit < record.items.length ? { items, next: encode(from + limit) } : { items };
    },
  };
}
