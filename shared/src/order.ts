/**
 * The order of an agent's open conversations (P-5): waiting on you first, then newest activity
 * first. One rule for both ends: the phone's home sorts by it, and Collie pages the list by it
 * (the snapshot carries an agent's first page; `GET /api/agents/:agent/conversations` the rest).
 */
import type { Conversation } from "./api.ts";

/** Whether a conversation waits on you. */
export const isWaiting = (c: Pick<Conversation, "openAsks" | "state">): boolean => c.openAsks > 0 || c.state === "waiting";

/** Sort comparator: waiting first, then newest `activeAt`, then id (stable across calls). */
export function compareConversations(a: Conversation, b: Conversation): number {
  const w = Number(isWaiting(b)) - Number(isWaiting(a));
  if (w !== 0) return w;
  const t = Date.parse(b.activeAt) - Date.parse(a.activeAt);
  if (t !== 0 && !Number.isNaN(t)) return t;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
