/**
 * Your own lines in the chat (P-20), as a pure function of what the phone knows: the sends it
 * made (or found pending in the outbox after a reload, P-26), what each send came to, the chat's
 * items and the time. No React, no clock of its own: `now` is passed in, so tests set it.
 *
 * - sending / sent → a small clock; the composer says `Sent` once the agent took it (2xx), for a
 *   moment: until anything follows your line in the chat, 10 s at most.
 * - held (`202 {held: true}`: the agent is unreachable, Collie keeps the message and delivers it
 *   once the agent is back) → the clock and a note saying so; never hidden, never lost.
 * - no reply, or Collie could not reach the agent (5xx) → `Sending, not confirmed`; a tap retries
 *   with the same request id.
 * - `receipt-dropped` → `May have been applied already. Check the chat.`, no retry: the agent saw
 *   this request id before (P-15's words for an answer; the same id again could only be dropped).
 * - refused or moved on (any 4xx) → `Not sent`; the text goes back into the composer. Collie's own
 *   refusal to hold more for an agent that is away (`429 held-full`) says so under it.
 * - the agent's `user` item with our request id replaces the line; for an agent that does not echo
 *   the id, a `user` item with the same text within 30 s of sending does.
 * - a line the agent never writes back is hidden 10 minutes after it was sent.
 * - while your line is the newest and the agent has not answered, three dots show it is working.
 */
import type { Item, PaneState } from "@colliepwa/durable-sdk/wire";
import type { SendResult } from "../../app/actions.ts";

/** An identical-text `user` item within this long of sending replaces your line (P-20). */
export const TEXT_MATCH_WINDOW_MS = 30_000;
/** A line the agent never writes back is hidden after this long (P-20). */
export const OWN_LINE_HIDE_MS = 10 * 60_000;
/** `Sent` under the composer is a moment's note: it goes this long after sending at the latest. */
export const SENT_NOTE_MS = 10_000;
/** How far the agent's clock may run behind the phone's and still count as "after sending". */
export const CLOCK_SKEW_MS = 2_000;

export type OwnLineState = "sending" | "sent" | "held" | "not-confirmed" | "maybe-applied" | "not-sent";

/** One send the phone made in this chat. */
export interface OwnSend {
  requestId: string;
  text: string;
  /** When it was sent (the phone's clock, ms). */
  createdAt: number;
  /** What the last attempt came to; none yet → sending. */
  result?: SendResult;
  /** True while an attempt is on its way (a retry shows the clock again). */
  inFlight?: boolean;
}

/** A line to draw at the end of the chat. */
export interface OwnLine {
  requestId: string;
  text: string;
  createdAt: number;
  state: OwnLineState;
  /** A `Not sent` line Collie would not hold: it keeps no more for the agent now (issue 28). */
  heldFull?: true;
}

export interface OwnLinesInput {
  sends: readonly OwnSend[];
  items: readonly Item[];
  now: number;
  /** The conversation's state, for the three dots after the agent's echo. */
  paneState?: PaneState;
  /** When the phone first saw an item, for items that carry no `ts`. */
  seenAt?: ReadonlyMap<string, number>;
}

export interface OwnLinesView {
  /** Lines to draw after the items, oldest first. */
  lines: OwnLine[];
  /** Sends whose line the agent's own copy replaced, with the item that did. */
  replaced: ReadonlyMap<string, string>;
  /** Sends hidden because the agent never wrote them back within 10 minutes. */
  expired: ReadonlySet<string>;
  /** Three dots: your line is the newest and the agent has not answered yet. */
  dots: boolean;
  /** The composer's note: `sent` when the newest send was taken by the agent. */
  composer: "sent" | null;
}

/** What one attempt came to, as the line shows it (P-20). */
export function stateOfResult(result: SendResult | undefined): OwnLineState {
  if (!result) return "sending";
  if (result.kind === "no-reply") return "not-confirmed";
  const s = result.reply.status;
  if (s === 202 && result.reply.body.held === true) return "held";
  if (s >= 200 && s < 300) return "sent";
  // 4xx: refused, moved on, not supported, bad request… nothing ran; the text goes back.
  if (s >= 400 && s < 500) return "not-sent";
  // The agent saw this request id and dropped its receipt: the message arrived once already.
  if (result.reply.body.error === "receipt-dropped") return "maybe-applied";
  // 503/504 agent-unreachable and other 5xx: it may not have arrived; retry with the same id.
  return "not-confirmed";
}

export function ownLineState(send: OwnSend): OwnLineState {
  return send.inFlight ? "sending" : stateOfResult(send.result);
}

/** When an item was written: its `ts`, else when the phone first saw it. */
export function itemTime(item: Item, seenAt?: ReadonlyMap<string, number>): number | undefined {
  if (item.ts) {
    const t = Date.parse(item.ts);
    if (!Number.isNaN(t)) return t;
  }
  return seenAt?.get(item.id);
}

/**
 * Which item replaces which send: first by echoed request id, then (for agents that do not echo
 * it) by identical text within 30 s of sending. Each item replaces at most one line, oldest first.
 */
export function matchEchoes(sends: readonly OwnSend[], items: readonly Item[], seenAt?: ReadonlyMap<string, number>): Map<string, string> {
  const replaced = new Map<string, string>();
  const used = new Set<string>();
  const users = items.filter((i): i is Extract<Item, { kind: "user" }> => i.kind === "user");
  const byRequest = new Map<string, string>();
  for (const u of users) if (u.requestId && !byRequest.has(u.requestId)) byRequest.set(u.requestId, u.id);
  for (const s of sends) {
    const id = byRequest.get(s.requestId);
    if (id !== undefined) {
      replaced.set(s.requestId, id);
      used.add(id);
    }
  }
  const ordered = [...sends].sort((a, b) => a.createdAt - b.createdAt);
  for (const s of ordered) {
    if (replaced.has(s.requestId)) continue;
    const match = users.find((u) => {
      if (used.has(u.id)) return false;
      // An item that names another request id is that send's copy, not ours.
      if (u.requestId) return false;
      if (u.text !== s.text) return false;
      const t = itemTime(u, seenAt);
      return t !== undefined && t >= s.createdAt - CLOCK_SKEW_MS && t <= s.createdAt + TEXT_MATCH_WINDOW_MS;
    });
    if (match) {
      replaced.set(s.requestId, match.id);
      used.add(match.id);
    }
  }
  return replaced;
}

export function ownLines(input: OwnLinesInput): OwnLinesView {
  const { sends, items, now, paneState, seenAt } = input;
  const replaced = matchEchoes(sends, items, seenAt);
  const expired = new Set<string>();
  const ordered = [...sends].sort((a, b) => a.createdAt - b.createdAt);
  const newest = ordered.at(-1);
  const lines: OwnLine[] = [];
  for (const s of ordered) {
    if (replaced.has(s.requestId)) continue;
    const state = ownLineState(s);
    // A held message is Collie's to deliver: its line stays until the agent's copy replaces it.
    if (state !== "held" && now - s.createdAt >= OWN_LINE_HIDE_MS) {
      expired.add(s.requestId);
      continue;
    }
    // A `Not sent` line gave its text back to the composer; a newer send supersedes it.
    if (state === "not-sent" && s !== newest) continue;
    const line: OwnLine = { requestId: s.requestId, text: s.text, createdAt: s.createdAt, state };
    if (state === "not-sent" && s.result?.kind === "reply" && s.result.reply.body.error === "held-full") line.heldFull = true;
    lines.push(line);
  }

  const last = lines.at(-1);
  let dots: boolean;
  if (last) dots = last.state === "sending" || last.state === "sent";
  else dots = echoIsNewest(items, now, paneState, seenAt);

  // `Sent` is a moment's note (issue 37: it never cleared): it goes once anything follows your line's
  // copy in the chat (a reply, a tool call, a card's tool, a note), and 10 s after sending at the latest.
  let composer: "sent" | null = null;
  if (newest && now - newest.createdAt < SENT_NOTE_MS && (replaced.has(newest.requestId) || ownLineState(newest) === "sent")) {
    const copy = replaced.get(newest.requestId);
    const at = copy === undefined ? -1 : items.findIndex((i) => i.id === copy);
    const followed = at >= 0 && at < items.length - 1;
    if (!followed) composer = "sent";
  }

  return { lines, replaced, expired, dots, composer };
}

/**
 * After the agent's copy replaced your line: dots while that copy is still the newest item and the
 * conversation works; not while it waits on you (a card asks); otherwise for as long as your own
 * line would have shown (10 minutes): the agent may not say it is working.
 */
function echoIsNewest(items: readonly Item[], now: number, paneState: PaneState | undefined, seenAt?: ReadonlyMap<string, number>): boolean {
  const last = items.at(-1);
  if (!last || last.kind !== "user") return false;
  if (paneState === "working") return true;
  if (paneState === "waiting") return false;
  const t = itemTime(last, seenAt);
  return t !== undefined && now - t < OWN_LINE_HIDE_MS;
}
