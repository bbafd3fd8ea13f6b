/**
 * Push limits (U-1), per machine and durable agent, on an injected clock and kept in the state
 * database so a restart does not reset them:
 *
 * | limit | number | beyond it |
 * |---|---|---|
 * | one pane | 3 pushes a minute | the ask shows, no push |
 * | one durable agent on a machine | 10 pushes a minute | the same |
 * | one durable agent on a machine | 30 pushes an hour | one push `A durable agent on {host} is raising many asks`, then no push from that agent for an hour |
 * | one crew member machine, all its agents | 10 pushes a minute, 30 an hour | the ask shows, no push |
 *
 * The last row is a crew member's (C-1; the security issue 38.5): a member chooses how many agents
 * it has, so limits per agent alone let 60 agents × 3 asks push 180 times. The lead's own machine
 * has none: its agents are the owner's, listed in sources.json.
 *
 * Windows slide: a push counts for exactly one minute (one hour) after it was sent. Only pushes
 * that went out count; an ask over a limit still reaches the phone's UI, only its push is skipped.
 * `judge` is the pure rule; `PushLimits` reads the counts from the database, asks `judge` and
 * records what it decided, in one transaction.
 */
import type { DatabaseSync } from "node:sqlite";

export const PUSH_LIMITS = Object.freeze({
  paneMinute: 3,
  agentMinute: 10,
  agentHour: 30,
  minuteMs: 60_000,
  hourMs: 60 * 60_000,
  /** How long an agent stays silent after its many-asks push. */
  quietMs: 60 * 60_000,
  /** A crew member machine as a whole. */
  memberMinute: 10,
  memberHour: 30,
});
export type PushLimitsConfig = { readonly [K in keyof typeof PUSH_LIMITS]: number };

/** What the database knows about one pane and its agent at one moment. */
export interface LimitCounts {
  /** Pushes from this pane in the last minute. */
  paneMinute: number;
  /** Pushes from this agent in the last minute. */
  agentMinute: number;
  /** Pushes from this agent in the last hour. */
  agentHour: number;
  /** Until when this agent is silent after its many-asks push, or null. */
  quietUntil: number | null;
  /** A crew member's pushes, all its agents, in the last minute and hour; absent for this machine's own. */
  memberMinute?: number;
  memberHour?: number;
}

/**
 * - `push`: send the ask's push;
 * - `many-asks`: the agent just went over 30 an hour: send the one many-asks push instead, then
 *   silence for an hour;
 * - `skip`: over a limit; the reason says which.
 */
export type LimitVerdict =
  | { kind: "push" }
  | { kind: "many-asks" }
  | { kind: "skip"; reason: "quiet" | "member-hour" | "member-minute" | "agent-minute" | "pane-minute" };

/**
 * The rule (U-1), pure: the silence first, then a crew member's hour and minute, then the agent's
 * hour, the agent's and the pane's minute.
 */
export function judge(c: LimitCounts, now: number, l: PushLimitsConfig = PUSH_LIMITS): LimitVerdict {
  if (c.quietUntil !== null && now < c.quietUntil) return { kind: "skip", reason: "quiet" };
  if (c.memberHour !== undefined && c.memberHour >= l.memberHour) return { kind: "skip", reason: "member-hour" };
  if (c.memberMinute !== undefined && c.memberMinute >= l.memberMinute) return { kind: "skip", reason: "member-minute" };
  if (c.agentHour >= l.agentHour) return { kind: "many-asks" };
  if (c.agentMinute >= l.agentMinute) return { kind: "skip", reason: "agent-minute" };
  if (c.paneMinute >= l.paneMinute) return { kind: "skip", reason: "pane-minute" };
  return { kind: "push" };
}

export interface LimitKey {
  /** The machine the agent runs on (this host, or the crew member's name). */
  machine: string;
  agent: string;
  pane: string;
  /** True for a crew member's agent: the member's machine is limited as a whole too. */
  member?: boolean;
}

export class PushLimits {
  readonly #db: DatabaseSync;
  readonly #now: () => number;
  readonly #limits: PushLimitsConfig;

  constructor(db: DatabaseSync, now: () => number = Date.now, limits: PushLimitsConfig = PUSH_LIMITS) {
    this.#db = db;
    this.#now = now;
    this.#limits = limits;
  }

  /** The counts for `key` now (for tests and the docs' examples). */
  counts(key: LimitKey, now: number = this.#now()): LimitCounts {
    const l = this.#limits;
    const count = (sql: string, ...args: (string | number)[]) => (this.#db.prepare(sql).get(...args) as { n: number }).n;
    const quiet = this.#db.prepare("SELECT until FROM push_quiet WHERE machine = ? AND agent = ?").get(key.machine, key.agent) as { until: number } | undefined;
    const member = key.member === true ? {
      memberMinute: count("SELECT count(*) AS n FROM push_log WHERE machine = ? AND at > ?", key.machine, now - l.minuteMs),
      memberHour: count("SELECT count(*) AS n FROM push_log WHERE machine = ? AND at > ?", key.machine, now - l.hourMs),
    } : {};
    return {
      ...member,
      paneMinute: count("SELECT count(*) AS n FROM push_log WHERE machine = ? AND agent = ? AND pane = ? AND at > ?", key.machine, key.agent, key.pane, now - l.minuteMs),
      agentMinute: count("SELECT count(*) AS n FROM push_log WHERE machine = ? AND agent = ? AND at > ?", key.machine, key.agent, now - l.minuteMs),
      agentHour: count("SELECT count(*) AS n FROM push_log WHERE machine = ? AND agent = ? AND at > ?", key.machine, key.agent, now - l.hourMs),
      quietUntil: quiet && quiet.until > now ? quiet.until : null,
    };
  }

  /**
   * Decides whether an ask of `key` may push now and records the decision: a push counts toward
   * every window, a many-asks push starts the hour of silence. Atomic (one transaction).
   */
  admit(key: LimitKey): LimitVerdict {
    const now = this.#now();
    const l = this.#limits;
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      // Rows older than the longest window can never count again.
      this.#db.prepare("DELETE FROM push_log WHERE at <= ?").run(now - l.hourMs);
      this.#db.prepare("DELETE FROM push_quiet WHERE until <= ?").run(now);
      const verdict = judge(this.counts(key, now), now, l);
      if (verdict.kind === "push") {
        this.#db.prepare("INSERT INTO push_log (machine, agent, pane, at) VALUES (?, ?, ?, ?)").run(key.machine, key.agent, key.pane, now);
      } else if (verdict.kind === "many-asks") {
        this.#db.prepare("INSERT OR REPLACE INTO push_quiet (machine, agent, until) VALUES (?, ?, ?)").run(key.machine, key.agent, now + l.quietMs);
      }
      this.#db.exec("COMMIT");
      return verdict;
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }
}
