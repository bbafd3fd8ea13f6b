/**
 * The agent's home as pure functions (P-5…P-8, P-17), tested without a browser: row marks, the
 * closed group, history pages and the note at the end of the list.
 */
import { STRINGS, type AgentSummary, type Conversation, type HistoryRow } from "@colliepwa/shared";
import type { HistoryPage } from "@colliepwa/durable-sdk/wire";
import { conversationTitle, isWaiting } from "../../app/rules.ts";

/** Rows per history read: the first page and each `Load more` (P-8). */
export const HISTORY_PAGE = 100;
/** The largest page the wire allows (`LIMITS.historyPageMax`). */
export const HISTORY_PAGE_MAX = 500;

/** A row's state mark (P-5): waiting on you, working or idle (open rows), closed (the Closed group). */
export type RowMark = "waiting" | "working" | "idle" | "closed";

export function rowMark(c: Conversation): Exclude<RowMark, "closed"> {
  if (isWaiting(c)) return "waiting";
  return c.state === "working" ? "working" : "idle";
}

/** The mark's meaning in words: its accessible name and tooltip (Mark.tsx draws its shape). */
export const MARK_LABEL: Readonly<Record<RowMark, string>> = Object.freeze({
  waiting: "Waiting on you",
  working: "Working",
  idle: "Idle",
  closed: STRINGS.closed,
});

/** The open conversations of one agent, from the store (P-7: they draw at once). */
export function agentConversations(all: Iterable<Conversation>, agent: string): Conversation[] {
  const out: Conversation[] = [];
  for (const c of all) if (c.agent === agent) out.push(c);
  return out;
}

/**
 * A key that changes only when a conversation of this agent opens or closes (P-7): the sorted ids
 * of its open conversations. Titles, states and activity times do not change it, so live
 * messages never cause a history read.
 */
export function openSetKey(open: readonly Conversation[]): string {
  return open.map((c) => c.id).sort().join("\n");
}

/**
 * The rows under `Closed` (P-5): the history's closed rows, in the agent's order, without one that
 * is open again in the store (a reopen the history has not caught up with).
 */
export function closedRows(rows: readonly HistoryRow[], open: readonly Conversation[]): HistoryRow[] {
  const openIds = new Set<string>();
  for (const c of open) {
    openIds.add(c.id);
    if (c.sessionId) openIds.add(c.sessionId);
  }
  return rows.filter((r) => r.state === "closed" && !openIds.has(r.id));
}

/** Appends a page to what is drawn, once per row id (a page boundary may repeat a row). */
export function appendRows(drawn: readonly HistoryRow[], page: readonly HistoryRow[]): HistoryRow[] {
  const seen = new Set(drawn.map((r) => r.id));
  return [...drawn, ...page.filter((r) => !seen.has(r.id) && (seen.add(r.id), true))];
}

/**
 * How many rows a re-read (a conversation opened or closed) asks for: one page for each page
 * drawn, so the pages `Load more` added stay drawn; at most what the wire allows.
 */
export function refreshLimit(pagesDrawn: number): number {
  return Math.min(HISTORY_PAGE_MAX, Math.max(1, pagesDrawn) * HISTORY_PAGE);
}

/** When a closed row ended (its time of last activity), else when it started. */
export const closedRowTime = (r: HistoryRow): string => r.endedAt ?? r.startedAt;

/** What a history read came to: a page, a reply that is not one, or no reply at all. */
export type HistoryOutcome =
  | { kind: "page"; page: HistoryPage }
  | { kind: "error"; status: number; body: unknown }
  | { kind: "network" };

/** Reads a reply: 200 with a rows array is a page; anything else is an error. */
export function historyOutcome(status: number, body: unknown): HistoryOutcome {
  if (status === 200 && isHistoryPage(body)) return { kind: "page", page: body };
  return { kind: "error", status, body };
}

function isHistoryPage(v: unknown): v is HistoryPage {
  if (typeof v !== "object" || v === null) return false;
  const p = v as { rows?: unknown; next?: unknown };
  return Array.isArray(p.rows) && (p.next === undefined || typeof p.next === "string");
}

/** The wire versions the version note names. */
export interface WireVersions {
  agent: number | null;
  collie: number;
}

/**
 * The note at the end of the list for a failed history read (P-8), verbatim:
 * - `409 not-supported` (the agent keeps no history): `This durable agent keeps no list …`;
 * - no answer (`503`/`504 agent-unreachable`, or the network failed): `… did not answer …`;
 * - a wire version mismatch (Collie's `409 agent-version-mismatch`, or the agent's own
 *   `404 version-mismatch` with `speaks`): `… speaks wire v2, this Collie speaks v1 …`;
 * - anything else: `The conversations could not be loaded. Try again.`
 */
export function historyNote(outcome: Exclude<HistoryOutcome, { kind: "page" }>, wire: WireVersions): string {
  if (outcome.kind === "network") return STRINGS.historyNoAnswer;
  const { status } = outcome;
  const body = (typeof outcome.body === "object" && outcome.body !== null ? outcome.body : {}) as { error?: unknown; speaks?: unknown };
  const code = typeof body.error === "string" ? body.error : "";
  if (status === 409 && code === "not-supported") return STRINGS.noHistory;
  if (status === 503 || status === 504) return STRINGS.historyNoAnswer;
  if (code === "agent-version-mismatch" || code === "version-mismatch") {
    const agent = wire.agent ?? newest(body.speaks);
    if (agent !== null) return STRINGS.historyVersion(agent, wire.collie);
  }
  return STRINGS.historyFailed;
}

function newest(speaks: unknown): number | null {
  if (!Array.isArray(speaks)) return null;
  const versions = speaks.filter((v): v is number => Number.isInteger(v));
  return versions.length ? Math.max(...versions) : null;
}

/** The warning on a version-mismatched agent's home (P-17), or null. */
export function versionWarning(a: AgentSummary | undefined): string | null {
  if (!a || a.state !== "version-mismatch") return null;
  // A crew member's agent whose own wire is fine: the member's Collie is the older one (C-1).
  if (a.machine !== null && (a.wire.agent === null || a.wire.agent === a.wire.collie)) return STRINGS.olderCollie;
  if (a.wire.agent === null) return STRINGS.versionMismatch;
  return STRINGS.versionWarning(a.wire.agent, a.wire.collie);
}

/** The pane a reopen or a starter opened (`WriteOk.paneId`, P-25), from a 200 reply. */
export function openedPane(status: number, body: unknown): string | null {
  if (status !== 200 || typeof body !== "object" || body === null) return null;
  const id = (body as { paneId?: unknown }).paneId;
  return typeof id === "string" && id !== "" ? id : null;
}

/** A refused action's reason in the agent's or Collie's words (shown as text), else null. */
export function refusalReason(body: unknown): string | null {
  if (typeof body !== "object" || body === null) return null;
  const b = body as { reason?: unknown; message?: unknown };
  if (typeof b.reason === "string" && b.reason.trim()) return b.reason.trim();
  if (typeof b.message === "string" && b.message.trim()) return b.message.trim();
  return null;
}

/** How many closed conversations' titles the phone remembers for their read-only view. */
const CLOSED_TITLES_KEPT = 500;
const closedTitles = new Map<string, string>();
const titleKey = (agent: string, session: string): string => `${agent}\u0000${session}`;

/**
 * Remembers the titles of the history rows the home drew, so a closed conversation opened from
 * its row is named by its title (P-6). The history items the read-only view reads carry none.
 */
export function rememberClosedTitles(agent: string, rows: readonly HistoryRow[]): void {
  for (const row of rows) {
    const key = titleKey(agent, row.id);
    closedTitles.delete(key); // re-inserted as the newest
    closedTitles.set(key, conversationTitle(row));
  }
  for (const key of closedTitles.keys()) {
    if (closedTitles.size <= CLOSED_TITLES_KEPT) break;
    closedTitles.delete(key);
  }
}

/** The title the home drew for a closed conversation, if it drew one (a link opened cold has none). */
export function closedTitle(agent: string, session: string): string | undefined {
  return closedTitles.get(titleKey(agent, session));
}
