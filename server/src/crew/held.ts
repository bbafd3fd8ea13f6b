/**
 * Actions a lead holds for a crew member it cannot reach (C-1, the rules of held answers, D-5):
 * kept in the state database so a lead restart loses none, keyed by the phone's request id so a
 * retry of a held action is the same hold, delivered once when the member is back, dropped after
 * HOLD_MS like a held answer.
 */
import type { StateDb } from "../store/db.ts";
import { HOLD_MS } from "../store/held-answers.ts";

export interface HeldCrewAction {
  machine: string;
  requestId: string;
  /** The agent's name on the member. */
  agent: string;
  /** The phone action's name (answer, send, …), for the audit log. */
  action: string;
  /** The member's phone-API path the action goes to. */
  path: string;
  body: Record<string, unknown>;
  heldAt: number;
}

interface Row {
  machine: string;
  request_id: string;
  agent: string;
  action: string;
  path: string;
  body: string;
  held_at: number;
}

const fromRow = (r: Row): HeldCrewAction => ({ machine: r.machine, requestId: r.request_id, agent: r.agent, action: r.action, path: r.path, body: JSON.parse(r.body) as Record<string, unknown>, heldAt: r.held_at });

export class HeldCrewActions {
  readonly #state: StateDb;

  constructor(state: StateDb) {
    this.#state = state;
  }

  /** Holds an action; a second hold of the same request id (a phone retry) keeps the first. */
  hold(a: HeldCrewAction): void {
    this.#state.db
      .prepare("INSERT OR IGNORE INTO crew_held (machine, request_id, agent, action, path, body, held_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(a.machine, a.requestId, a.agent, a.action, a.path, JSON.stringify(a.body), a.heldAt);
  }

  /** The member's held actions, oldest first (the order the phone made them). */
  forMachine(machine: string): HeldCrewAction[] {
    return (this.#state.db.prepare("SELECT * FROM crew_held WHERE machine = ? ORDER BY held_at, rowid").all(machine) as unknown as Row[]).map(fromRow);
  }

  release(machine: string, requestId: string): void {
    this.#state.db.prepare("DELETE FROM crew_held WHERE machine = ? AND request_id = ?").run(machine, requestId);
  }

  /** Drops actions held longer than HOLD_MS; returns them (the audit log names them). */
  expire(now: number): HeldCrewAction[] {
    return (this.#state.db.prepare("DELETE FROM crew_held WHERE held_at < ? RETURNING *").all(now - HOLD_MS) as unknown as Row[]).map(fromRow);
  }
}
