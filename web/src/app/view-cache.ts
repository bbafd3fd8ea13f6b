/**
 * The last view, kept on the phone (issue 21: offline showed nothing but "Loading…"): the
 * dashboard's agents, the open conversations and the content of the chats opened last, saved in
 * IndexedDB as Collie sends them. A phone that starts without Collie (no network, the daemon
 * down) draws them at once, marked as not current, until Collie's own snapshot replaces them.
 */
import { createStore, get, set, type UseStore } from "idb-keyval";
import type { AgentSummary, Conversation, PaneDetail } from "@colliepwa/shared";
import type { PhoneState } from "./store.ts";

/** Chats whose content is kept, the most recently opened first. */
export const CACHED_CHATS = 10;
/** Items kept per chat (the newest). */
export const CACHED_ITEMS = 200;

export interface CachedView {
  /** When it was saved (the phone's clock, ms). */
  savedAt: number;
  collie: PhoneState["collie"];
  agents: AgentSummary[];
  conversations: Conversation[];
  /** `[agent, detail]`, most recently opened first. */
  details: [string, PaneDetail][];
}

export interface ViewCacheStorage {
  read(): Promise<CachedView | undefined>;
  write(view: CachedView): Promise<void>;
}

/** Its own database: the outbox's ("collie") has one store, fixed when it was made. */
export function idbViewCache(store: UseStore = createStore("collie-view", "view")): ViewCacheStorage {
  return {
    read: () => get<CachedView>("last", store),
    write: (view) => set("last", view, store),
  };
}

export function memoryViewCache(): ViewCacheStorage {
  let kept: CachedView | undefined;
  return {
    read: async () => (kept ? structuredClone(kept) : undefined),
    write: async (view) => void (kept = structuredClone(view)),
  };
}

/** What to keep of the phone's state: all of the dashboard and lists, the newest chats' content. */
export function toCachedView(state: PhoneState, opened: readonly string[], now: number): CachedView {
  const details: [string, PaneDetail][] = [];
  for (const key of opened) {
    const d = state.details.get(key);
    if (!d) continue;
    const items = d.items.length > CACHED_ITEMS ? d.items.slice(-CACHED_ITEMS) : d.items;
    details.push([d.conversation.agent, { ...d, items, itemsCut: d.itemsCut || items.length < d.items.length }]);
    if (details.length >= CACHED_CHATS) break;
  }
  return { savedAt: now, collie: state.collie, agents: [...state.agents.values()], conversations: [...state.conversations.values()], details };
}
