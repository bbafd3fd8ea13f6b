/**
 * Held writes (D-5, C-1, docs/reliability.md "Held writes"): a phone action Collie could not hand
 * to its agent or crew member now, kept in the state database with the phone's request id and
 * delivered once, unchanged, when the target is back. One store for every kind of target: a target
 * is a plain key (an agent's name, or a member's agent's crew key `<agent>@<member>`), and the path
 * is the one the target's write takes, so the store never asks which kind it holds for.
 *
 * - **Order.** Every write gets the next `seq`; a target's queue is delivered by `seq`, one after
 *   another, read with a cursor a batch at a time (`queue`). A retry of a held request id is the
 *   same hold and keeps its place.
 * - **Answers that wait.** An answer for a local agent waits until its ask is open again (`ask`):
 *   it is not in the queue, and it is found by its ask (`answersFor`), never by reading every row.
 * - **Bounds** (issue 28, item 6): per conversation, per target and in all, in writes and in bytes
 *   of body (`HELD_LIMITS`); past them a write is refused, never kept.
 * - **Cost.** The tallies the bounds, the order rule and the drain ask for live in memory, read
 *   once at start and kept with every change (every write goes through this class, one instance
 *   per state database: the daemon's), so no action reads more rows as more are held, and a
 *   target with nothing held reads none.
 */
import type { StatementSync } from "node:sqlite";
import type { StateDb } from "./db.ts";
import { apiError } from "../errors.ts";

/** How long a write is held at most; after that it is dropped (the question is long gone). */
export const HOLD_MS = 7 * 24 * 60 * 60 * 1000;

export interface Bound {
  count: number;
  bytes: number;
}

export interface HeldLimits {
  /** One conversation of one target (the writes without a conversation count as one). */
  conversation: Bound;
  /** One agent (or one crew member's agent). */
  target: Bound;
  /** Everything held, for every target. */
  all: Bound;
}

const MiB = 1024 * 1024;

/** The bounds of what Collie holds (docs/reliability.md): a phone past them gets `held-full`. */
export const HELD_LIMITS: HeldLimits = Object.freeze({
  conversation: Object.freeze({ count: 100, bytes: 1 * MiB }),
  target: Object.freeze({ count: 1000, bytes: 8 * MiB }),
  all: Object.freeze({ count: 10_000, bytes: 64 * MiB }),
});

/** A held write's place in its target's queue (`queue`). */
export type QueuedWrite = Pick<HeldWrite, "seq" | "requestId" | "conversation">;

export interface HeldWrite {
  /** The order of holding: a target's writes are delivered by it. */
  seq: number;
  target: string;
  requestId: string;
  /** The phone action (answer, send, steer …), for the audit log and the outcome. */
  action: string;
  /** The pane the write is about; "" for one about no pane (a starter, a workspace). */
  conversation: string;
  /** The path the target's write takes (for a local agent, after the wire's version prefix). */
  path: string;
  body: { requestId: string } & Record<string, unknown>;
  /** An answer that waits for this ask to be open again, or null for a write of the queue. */
  ask: string | null;
  heldAt: number;
  expiresAt: number;
  /** The name of the phone it came from, when it goes on to a crew member (issue #37). */
  phone?: string;
}

export type NewHeldWrite = Omit<HeldWrite, "seq" | "expiresAt"> & { expiresAt?: number };

export type HoldResult =
  | { held: true; seq: number; again: boolean }
  | { held: false; full: keyof HeldLimits; bound: Bound };

interface Tally {
  count: number;
  bytes: number;
}

interface TargetTally extends Tally {
  /** Writes of the queue (not waiting for an ask). */
  queued: number;
  conversations: Map<string, Tally & { queued: number }>;
  /** Answers waiting, by `<pane>\n<ask>`. */
  asks: Map<string, number>;
}

interface Row {
  seq: number;
  target: string;
  request_id: string;
  action: string;
  conversation: string;
  path: string;
  body: string;
  ask_id: string | null;
  held_at: number;
  expires_at: number;
  phone: string | null;
}

const COLUMNS = "seq, target, request_id, action, conversation, path, body, ask_id, held_at, expires_at, phone";

const fromRow = (r: Row): HeldWrite => ({
  seq: r.seq, target: r.target, requestId: r.request_id, action: r.action, conversation: r.conversation, path: r.path,
  body: JSON.parse(r.body) as HeldWrite["body"], ask: r.ask_id, heldAt: r.held_at, expiresAt: r.expires_at,
  ...(r.phone !== null ? { phone: r.phone } : {}),
});

const askKey = (conversation: string, ask: string) => `${conversation}\n${ask}`;

export class HeldWrites {
  readonly #state: StateDb;
  readonly limits: HeldLimits;
  readonly #all: Tally = { count: 0, bytes: 0 };
  readonly #targets = new Map<string, TargetTally>();
  readonly #statements = new Map<string, StatementSync>();

  /** The state database's file, for log lines. */
  get path(): string {
    return this.#state.path;
  }

  constructor(state: StateDb, limits: HeldLimits = HELD_LIMITS) {
    this.#state = state;
    this.limits = limits;
    const rows = state.db.prepare("SELECT target, conversation, ask_id, bytes FROM held_writes").all() as { target: string; conversation: string; ask_id: string | null; bytes: number }[];
    for (const r of rows) this.#count(r.target, r.conversation, r.ask_id, r.bytes, 1);
  }

  /** A prepared statement, made once: an action costs one lookup, not one parse of its SQL. */
  #sql(text: string): StatementSync {
    let s = this.#statements.get(text);
    if (!s) this.#statements.set(text, (s = this.#state.db.prepare(text)));
    return s;
  }

  #count(target: string, conversation: string, ask: string | null, bytes: number, sign: 1 | -1): void {
    let t = this.#targets.get(target);
    if (!t) this.#targets.set(target, (t = { count: 0, bytes: 0, queued: 0, conversations: new Map(), asks: new Map() }));
    let c = t.conversations.get(conversation);
    if (!c) t.conversations.set(conversation, (c = { count: 0, bytes: 0, queued: 0 }));
    for (const tally of [this.#all, t, c]) {
      tally.count += sign;
      tally.bytes += sign * bytes;
    }
    if (ask === null) {
      t.queued += sign;
      c.queued += sign;
    } else {
      const k = askKey(conversation, ask);
      const n = (t.asks.get(k) ?? 0) + sign;
      if (n > 0) t.asks.set(k, n);
      else t.asks.delete(k);
    }
    if (c.count === 0) t.conversations.delete(conversation);
    if (t.count === 0) this.#targets.delete(target);
  }

  /**
   * Holds a write, within the bounds. A write already held under the same target and request id
   * (the phone's retry) is that hold again: it keeps its place and its first body. Throws what
   * SQLite throws (a full disk): the caller answers it with the catalog's code.
   */
  hold(w: NewHeldWrite): HoldResult {
    const existing = this.get(w.target, w.requestId);
    if (existing) return { held: true, seq: existing.seq, again: true };
    const body = JSON.stringify(w.body);
    const bytes = Buffer.byteLength(body);
    const t = this.#targets.get(w.target);
    const c = t?.conversations.get(w.conversation);
    const over = (tally: Tally | undefined, bound: Bound) => (tally?.count ?? 0) + 1 > bound.count || (tally?.bytes ?? 0) + bytes > bound.bytes;
    if (over(c, this.limits.conversation)) return { held: false, full: "conversation", bound: this.limits.conversation };
    if (over(t, this.limits.target)) return { held: false, full: "target", bound: this.limits.target };
    if (over(this.#all, this.limits.all)) return { held: false, full: "all", bound: this.limits.all };
    // run(), not RETURNING with get(): node:sqlite's get() steps once and resets the statement, and an
    // error of the commit that the reset runs (a full disk met writing the WAL) is lost there.
    const { lastInsertRowid } = this.#sql(`INSERT INTO held_writes (target, request_id, action, conversation, path, body, bytes, ask_id, held_at, expires_at, phone)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(w.target, w.requestId, w.action, w.conversation, w.path, body, bytes, w.ask, w.heldAt, w.expiresAt ?? w.heldAt + HOLD_MS, w.phone ?? null);
    this.#count(w.target, w.conversation, w.ask, bytes, 1);
    return { held: true, seq: Number(lastInsertRowid), again: false };
  }

  /** The write held for this target under this request id, if any. */
  get(target: string, requestId: string): HeldWrite | undefined {
    const r = this.#sql(`SELECT ${COLUMNS} FROM held_writes WHERE target = ? AND request_id = ?`).get(target, requestId) as Row | undefined;
    return r ? fromRow(r) : undefined;
  }

  /** Drops a held write (delivered, or taken by the agent on a retry); true when there was one. */
  release(target: string, requestId: string): boolean {
    // Every answer the agent takes releases its request id, and almost none was held: no query
    // then (the tallies count every row of the table, see the constructor).
    if ((this.#targets.get(target)?.count ?? 0) === 0) return false;
    const r = this.#sql("SELECT conversation, ask_id, bytes FROM held_writes WHERE target = ? AND request_id = ?").get(target, requestId) as
      | { conversation: string; ask_id: string | null; bytes: number }
      | undefined;
    if (!r) return false;
    // run() surfaces an error of the commit (see hold); the tallies move only once the row is gone.
    if (Number(this.#sql("DELETE FROM held_writes WHERE target = ? AND request_id = ?").run(target, requestId).changes) === 0) return false;
    this.#count(target, r.conversation, r.ask_id, r.bytes, -1);
    return true;
  }

  /**
   * The places of the next `limit` writes of the target's queue after `after` (a seq), oldest
   * first: a drain reads its queue with this cursor, a batch at a time, never the whole queue at
   * once. Not their bodies: a pass skips the conversations that wait for a turn, and reads a
   * write (`get`) only when it delivers it, so a page during a long turn does not read the backlog.
   */
  queue(target: string, after: number, limit: number): QueuedWrite[] {
    if ((this.#targets.get(target)?.queued ?? 0) === 0) return [];
    const rows = this.#sql("SELECT seq, request_id, conversation FROM held_writes WHERE target = ? AND ask_id IS NULL AND seq > ? ORDER BY seq LIMIT ?").all(target, after, limit) as unknown as Pick<Row, "seq" | "request_id" | "conversation">[];
    return rows.map((r) => ({ seq: r.seq, requestId: r.request_id, conversation: r.conversation }));
  }

  /** How many writes of the target's queue are held (all conversations, or one). */
  queued(target: string, conversation?: string): number {
    const t = this.#targets.get(target);
    if (!t) return 0;
    return conversation === undefined ? t.queued : (t.conversations.get(conversation)?.queued ?? 0);
  }

  /** Whether answers wait for asks of this target (a lookup, no query). */
  hasWaitingAnswers(target: string): boolean {
    return (this.#targets.get(target)?.asks.size ?? 0) > 0;
  }

  /** Whether an answer waits for this ask. */
  waitsFor(target: string, conversation: string, ask: string): boolean {
    return this.#targets.get(target)?.asks.has(askKey(conversation, ask)) ?? false;
  }

  /** The answers that wait for this ask, oldest first. */
  answersFor(target: string, conversation: string, ask: string): HeldWrite[] {
    if (!this.waitsFor(target, conversation, ask)) return [];
    const rows = this.#sql(`SELECT ${COLUMNS} FROM held_writes WHERE target = ? AND conversation = ? AND ask_id = ? ORDER BY seq`).all(target, conversation, ask) as unknown as Row[];
    return rows.map(fromRow);
  }

  /** The targets with held writes. */
  targets(): string[] {
    return [...this.#targets.keys()];
  }

  /** Every write held for a target, oldest first (inspection and tests; delivery uses `queue`). */
  list(target: string): HeldWrite[] {
    const rows = this.#sql(`SELECT ${COLUMNS} FROM held_writes WHERE target = ? ORDER BY seq`).all(target) as unknown as Row[];
    return rows.map(fromRow);
  }

  /** Drops the writes whose time is up; returns them (the audit log names each). */
  expire(now: number): Omit<HeldWrite, "body" | "path">[] {
    const rows = this.#sql("DELETE FROM held_writes WHERE expires_at < ? RETURNING seq, target, request_id, action, conversation, ask_id, bytes, held_at, expires_at").all(now) as unknown as (Row & { bytes: number })[];
    for (const r of rows) this.#count(r.target, r.conversation, r.ask_id, r.bytes, -1);
    return rows.map((r) => ({ seq: r.seq, target: r.target, requestId: r.request_id, action: r.action, conversation: r.conversation, ask: r.ask_id, heldAt: r.held_at, expiresAt: r.expires_at }));
  }

  /** How many writes are held: in all, or for one target. */
  count(target?: string): number {
    return target === undefined ? this.#all.count : (this.#targets.get(target)?.count ?? 0);
  }

  /** Bytes of body held: in all, or for one target. */
  bytes(target?: string): number {
    return target === undefined ? this.#all.bytes : (this.#targets.get(target)?.bytes ?? 0);
  }
}

const SCOPE: Record<keyof HeldLimits, string> = {
  conversation: "for this conversation",
  target: "for this durable agent",
  all: "for all durable agents together",
};

const size = (bytes: number) => (bytes >= MiB ? `${bytes / MiB} MiB` : `${Math.round(bytes / 1024)} KiB`);

/**
 * Holds a write and says so as the phone API does: `202 {held: true}`; `429 held-full` past a bound
 * (nothing kept: the phone puts the text back, P-20); `507 storage-failed` when the state database
 * cannot be written (a full disk), with a log line naming the database, so nothing is lost without
 * a word (issue 38, item 11).
 */
export function holdWrite(store: HeldWrites, write: NewHeldWrite, log: (line: string) => void): { status: number; body: Record<string, unknown> } {
  let result: HoldResult;
  try {
    result = store.hold(write);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    log(`could not hold ${write.action} ${write.requestId} for ${write.target}: the state database ${store.path} could not be written: ${why}`);
    return apiError("storage-failed", `Collie could not keep this ${write.action === "send" ? "message" : "action"}: its state database could not be written (${why}). Nothing was kept. Free space on Collie's machine, then try again.`);
  }
  if (result.held) return { status: 202, body: { held: true } };
  return apiError("held-full", `Collie already holds ${result.bound.count} messages and actions (or ${size(result.bound.bytes)}) ${SCOPE[result.full]} until the durable agent is back. This one was not kept: send it again once they are delivered.`);
}

/**
 * The conversation a write is about, for the order and the bounds of held writes: the
 * pane in its path, or the pane its body targets (rename, close, reopen); "" for none (a starter).
 */
export function conversationOf(path: string, body: Record<string, unknown>): string {
  const pane = /\/panes\/([^/?]+)/.exec(path)?.[1];
  if (pane !== undefined) {
    try {
      return decodeURIComponent(pane);
    } catch {
      return pane;
    }
  }
  const target = body.target as { kind?: unknown; id?: unknown } | undefined;
  return target?.kind === "pane" && typeof target.id === "string" ? target.id : "";
}
