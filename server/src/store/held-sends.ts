/**
 * Held sends (D-5, docs/decisions.md "A message sent while the agent is down"): a message the
 * phone sent while its agent was unreachable is kept here with the phone's request id and sent
 * again, unchanged, once the agent is back. The agent's receipts make the repeat exactly-once, so
 * a phone that sends the same request id again meanwhile changes nothing.
 */
import type { StateDb } from "./db.ts";

export interface HeldSend {
  requestId: string;
  agent: string;
  paneId: string;
  text: string;
  heldAt: number;
}

export class HeldSends {
  readonly #state: StateDb;
  /** The agents with a held send, read once and forgotten on every write (as HeldAnswers does). */
  #agents: Set<string> | null = null;

  constructor(state: StateDb) {
    this.#state = state;
  }

  hold(s: HeldSend): void {
    // The phone's retry of a send already held keeps its first time: delivery order stays the order of sending.
    this.#state.db
      .prepare("INSERT INTO held_sends (request_id, agent, pane_id, text, held_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (request_id) DO NOTHING")
      .run(s.requestId, s.agent, s.paneId, s.text, s.heldAt);
    this.#agents = null;
  }

  release(requestId: string): void {
    this.#state.db.prepare("DELETE FROM held_sends WHERE request_id = ?").run(requestId);
    this.#agents = null;
  }

  /** The held sends of one agent, oldest first. */
  forAgent(agent: string): HeldSend[] {
    this.#agents ??= new Set((this.#state.db.prepare("SELECT DISTINCT agent FROM held_sends").all() as { agent: string }[]).map((r) => r.agent));
    if (!this.#agents.has(agent)) return [];
    const rows = this.#state.db
      .prepare("SELECT request_id, agent, pane_id, text, held_at FROM held_sends WHERE agent = ? ORDER BY held_at, rowid")
      .all(agent) as { request_id: string; agent: string; pane_id: string; text: string; held_at: number }[];
    return rows.map((r) => ({ requestId: r.request_id, agent: r.agent, paneId: r.pane_id, text: r.text, heldAt: r.held_at }));
  }

  /** Drops sends held longer than `maxAgeMs`; returns how many. */
  /** Drops sends held longer than `maxAgeMs`; returns the ones dropped. */
  expire(now: number, maxAgeMs: number): { requestId: string; agent: string; paneId: string }[] {
    this.#agents = null;
    const rows = this.#state.db.prepare("DELETE FROM held_sends WHERE held_at < ? RETURNING request_id, agent, pane_id").all(now - maxAgeMs) as { request_id: string; agent: string; pane_id: string }[];
    return rows.map((r) => ({ requestId: r.request_id, agent: r.agent, paneId: r.pane_id }));
  }

  get count(): number {
    return (this.#state.db.prepare("SELECT COUNT(*) AS n FROM held_sends").get() as { n: number }).n;
  }
}
