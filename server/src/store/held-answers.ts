/**
 * Held answers (D-5): an answer the phone sent while its agent was unreachable, or before the
 * agent raised the ask again after a restart, is kept here with the phone's request id and sent
 * again, unchanged, when the same ask (same id and revision) is open. The agent's receipts make
 * the repeat exactly-once.
 */
import type { Answer } from "@colliepwa/durable-sdk/wire";
import type { StateDb } from "./db.ts";
import { HeldSends } from "./held-sends.ts";

export interface HeldAnswer {
  requestId: string;
  agent: string;
  paneId: string;
  askId: string;
  revision: string;
  answer: Answer;
  heldAt: number;
}

/** How long an answer is held at most; after that it is dropped (the question is long gone). */
export const HOLD_MS = 7 * 24 * 60 * 60 * 1000;

export class HeldAnswers {
  readonly #state: StateDb;
  /**
   * The agents that have a held answer, read from the table when first needed and forgotten on
   * every write. `forAgent` runs after every events page of every agent, and almost always finds
   * nothing: this answers that without a query (every write goes through this class).
   */
  #agents: Set<string> | null = null;

  /** Messages sent while the agent was unreachable (held the same way, with the same lifetime). */
  readonly sends: HeldSends;

  constructor(state: StateDb) {
    this.#state = state;
    this.sends = new HeldSends(state);
  }

  /** Holds an answer; held again under the same request id (a retry), it keeps its decision's draft. */
  hold(a: HeldAnswer): void {
    this.#state.db
      .prepare(`INSERT INTO held_answers (request_id, agent, pane_id, ask_id, revision, answer, held_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (request_id) DO UPDATE SET agent = excluded.agent, pane_id = excluded.pane_id, ask_id = excluded.ask_id,
          revision = excluded.revision, answer = excluded.answer, held_at = excluded.held_at`)
      .run(a.requestId, a.agent, a.paneId, a.askId, a.revision, JSON.stringify(a.answer), a.heldAt);
    this.#agents = null;
  }

  /** Drops the held answer with this request id (and its decision's draft), if there is one. */
  release(requestId: string): void {
    const { changes } = this.#state.db.prepare("DELETE FROM held_answers WHERE request_id = ?").run(requestId);
    if (Number(changes) > 0) this.#agents = null;
  }

  /** The held answers of one agent, oldest first. */
  forAgent(agent: string): HeldAnswer[] {
    this.#agents ??= new Set((this.#state.db.prepare("SELECT DISTINCT agent FROM held_answers").all() as { agent: string }[]).map((r) => r.agent));
    if (!this.#agents.has(agent)) return [];
    const rows = this.#state.db
      .prepare("SELECT request_id, agent, pane_id, ask_id, revision, answer, held_at FROM held_answers WHERE agent = ? ORDER BY held_at")
      .all(agent) as { request_id: string; agent: string; pane_id: string; ask_id: string; revision: string; answer: string; held_at: number }[];
    return rows.map((r) => ({
      requestId: r.request_id, agent: r.agent, paneId: r.pane_id, askId: r.ask_id, revision: r.revision,
      answer: JSON.parse(r.answer) as Answer, heldAt: r.held_at,
    }));
  }

  /**
   * Drops answers and sends held longer than HOLD_MS; returns the ones dropped (the audit log
   * names each with its request id).
   */
  expire(now: number): { requestId: string; agent: string; paneId: string; action: "answer" | "send" }[] {
    this.#agents = null;
    const sends = this.sends.expire(now, HOLD_MS).map((r) => ({ ...r, action: "send" as const }));
    const rows = this.#state.db.prepare("DELETE FROM held_answers WHERE held_at < ? RETURNING request_id, agent, pane_id").all(now - HOLD_MS) as { request_id: string; agent: string; pane_id: string }[];
    return [...rows.map((r) => ({ requestId: r.request_id, agent: r.agent, paneId: r.pane_id, action: "answer" as const })), ...sends];
  }

  get count(): number {
    return (this.#state.db.prepare("SELECT COUNT(*) AS n FROM held_answers").get() as { n: number }).n;
  }
}
