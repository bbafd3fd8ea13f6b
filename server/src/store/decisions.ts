/**
 * Answers given from a phone. One the agent took is kept as the record of the agent home's
 * `Always allowed` (issue 21); it leaves no chat line (P-16: an ask answered on the phone leaves
 * none, the tap had its own card). Kept in the state database (D-8); at most PER_PANE per
 * conversation and DECISION_MAX_AGE_MS old.
 *
 * An answer Collie holds for an agent that is away (D-5) is the record the card cannot give while
 * its ask is not open on the phone: the chat shows it (`Allowed: refund · Pixel · 14:05`, waiting
 * in Collie) until it is delivered (issue #34). Its draft waits in the state database on the held
 * answer's own row (`held_writes.draft`), so a restart keeps it, and becomes a decision when the
 * agent takes it; the held answer's release or expiry (store/held.ts) takes it along.
 */
import type { Ask, Decision } from "@colliepwa/shared";
import { isKnownAsk, type Answer } from "@colliepwa/durable-sdk/wire";
import type { StateDb } from "./db.ts";

/** The newest decisions kept per conversation. */
export const PER_PANE = 200;
/** Decisions older than this are dropped. */
export const DECISION_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

export type DecisionDraft = Omit<Decision, "at">;

/** How often decisions past DECISION_MAX_AGE_MS are deleted (the reads skip them in between). */
const AGE_SWEEP_MS = 60 * 60 * 1000;
/**
 * A conversation's decisions are cut back to PER_PANE once this many more were kept, not after
 * every answer: the cut cost twice the answer's own row on the daemon's loop (issue 31). The reads
 * show the newest PER_PANE regardless.
 */
export const TRIM_EVERY = 20;
/** Conversations whose count since their last cut is remembered; past it, all are forgotten (each is cut at its next answer). */
const TRIM_TALLIES = 10_000;

/** What an answer to this ask decides, as a draft (no time yet). */
export function draftDecision(paneId: string, ask: Ask, answer: Answer, device: string): DecisionDraft {
  const d: DecisionDraft = { askId: ask.id, paneId, itemId: ask.itemId, kind: ask.kind, title: ask.title, device };
  if (ask.tool?.name) d.tool = ask.tool.name;
  if (isKnownAsk(ask) && ask.kind === "permission" && answer.kind === "permission") {
    const option = ask.options.find((o) => o.id === answer.optionId);
    if (option) d.optionKind = option.kind;
  }
  return d;
}

export class Decisions {
  readonly #state: StateDb;
  readonly #now: () => number;
  /** When aged decisions were last deleted (ms). */
  #agedAt = -Infinity;
  /** Decisions kept since the conversation was last cut back to PER_PANE, by `<agent>\n<pane>`. */
  readonly #sinceTrim = new Map<string, number>();

  constructor(state: StateDb, now: () => number = Date.now) {
    this.#state = state;
    this.#now = now;
  }

  /** Keeps a decision the agent took now; returns it with its time. */
  record(agent: string, draft: DecisionDraft): Decision {
    const decision: Decision = { ...draft, at: new Date(this.#now()).toISOString() };
    const at = Date.parse(decision.at);
    const db = this.#state.db;
    db.prepare("INSERT OR REPLACE INTO decisions (agent, pane_id, ask_id, decision, option_kind, tool, at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(agent, draft.paneId, draft.askId, JSON.stringify(decision), draft.optionKind ?? null, draft.tool ?? null, at);
    // The pane's rows past its newest PER_PANE, found from the newest end of its index: each answer
    // ran a NOT IN over the pane's rows before (2.7 ms at 200 rows on the loaded bench machine,
    // against 0.6 ms now; issue 31). Once per TRIM_EVERY answers, and at a conversation's first
    // answer since the start (what an earlier run left is cut then).
    const key = `${agent}\n${draft.paneId}`;
    const since = this.#sinceTrim.get(key);
    if (since === undefined || since + 1 >= TRIM_EVERY) {
      db.prepare(`DELETE FROM decisions WHERE rowid IN
        (SELECT rowid FROM decisions WHERE agent = ? AND pane_id = ? ORDER BY at DESC LIMIT -1 OFFSET ${PER_PANE})`).run(agent, draft.paneId);
      if (since === undefined && this.#sinceTrim.size >= TRIM_TALLIES) this.#sinceTrim.clear();
      this.#sinceTrim.set(key, 0);
    } else {
      this.#sinceTrim.set(key, since + 1);
    }
    // Aged ones go at most once an hour: the query reads every row of every pane (3.6 ms at 5 000
    // rows there), and the reads leave out what aged meanwhile.
    if (at - this.#agedAt >= AGE_SWEEP_MS || at < this.#agedAt) {
      this.#agedAt = at;
      db.prepare("DELETE FROM decisions WHERE at < ?").run(at - DECISION_MAX_AGE_MS);
    }
    return decision;
  }

  /**
   * A held answer's draft, recorded once Collie delivered it and the agent took it. Kept on the
   * held answer with this request id (just held): without one there is nothing to deliver, and
   * null comes back. Returns the held decision the phones are told of.
   */
  hold(requestId: string, agent: string, draft: DecisionDraft): Decision | null {
    const { changes } = this.#state.db
      .prepare("UPDATE held_writes SET draft = ? WHERE target = ? AND request_id = ? AND action = 'answer'")
      .run(JSON.stringify(draft), agent, requestId);
    if (Number(changes) === 0) return null;
    return this.heldForPane(agent, draft.paneId).find((d) => d.requestId === requestId) ?? null;
  }

  /** The answers Collie holds for one conversation, with their drafts, oldest first (`held: true`). */
  heldForPane(agent: string, paneId: string): Decision[] {
    const rows = this.#state.db
      .prepare("SELECT request_id, body, draft, held_at FROM held_writes WHERE target = ? AND conversation = ? AND action = 'answer' AND draft IS NOT NULL ORDER BY seq")
      .all(agent, paneId) as { request_id: string; body: string; draft: string; held_at: number }[];
    return rows.map((r) => ({
      ...(JSON.parse(r.draft) as DecisionDraft),
      at: new Date(r.held_at).toISOString(),
      held: true as const,
      requestId: r.request_id,
      answer: (JSON.parse(r.body) as { answer: Answer }).answer,
    }));
  }

  /**
   * The held answer with this request id was taken (`ok`) or not: its decision, if any. Its draft
   * is used once. A delivery the agent answered as a replay (`replayed`) had been taken before,
   * by a request that may have left the decision already: then no second one is recorded.
   */
  settle(agent: string, requestId: string, ok: boolean, replayed = false): { agent: string; decision: Decision } | null {
    const db = this.#state.db;
    const row = db.prepare("SELECT draft FROM held_writes WHERE target = ? AND request_id = ? AND draft IS NOT NULL").get(agent, requestId) as
      | { draft: string }
      | undefined;
    if (!row) return null;
    db.prepare("UPDATE held_writes SET draft = NULL WHERE target = ? AND request_id = ?").run(agent, requestId);
    if (!ok) return null;
    const draft = JSON.parse(row.draft) as DecisionDraft;
    if (replayed && db.prepare("SELECT 1 FROM decisions WHERE agent = ? AND pane_id = ? AND ask_id = ?").get(agent, draft.paneId, draft.askId)) return null;
    return { agent, decision: this.record(agent, draft) };
  }

  /** A conversation's newest PER_PANE decisions the agent took, oldest first. */
  forPane(agent: string, paneId: string): Decision[] {
    const rows = this.#state.db
      .prepare(`SELECT decision FROM decisions WHERE agent = ? AND pane_id = ? AND at >= ? ORDER BY at DESC, rowid DESC LIMIT ${PER_PANE}`)
      .all(agent, paneId, this.#now() - DECISION_MAX_AGE_MS) as { decision: string }[];
    return rows.reverse().map((r) => JSON.parse(r.decision) as Decision);
  }

  /**
   * The agent asks about a tool again (a permission ask naming it, raised after the `Always allow`):
   * it no longer allows it always, whatever the reason (it restarted and forgot; it ended it
   * itself). The home's `Always allowed` shows what the agent says now (issue #37), so the tool
   * leaves it. Returns whether the list changed.
   */
  asked(agent: string, ask: Pick<Ask, "kind" | "tool" | "createdAt">): boolean {
    const tool = ask.tool?.name;
    const at = Date.parse(ask.createdAt);
    if (ask.kind !== "permission" || !tool || !Number.isFinite(at)) return false;
    const { changes } = this.#state.db.prepare("DELETE FROM decisions WHERE agent = ? AND tool = ? AND option_kind = 'allow-always' AND at < ?").run(agent, tool, at);
    return Number(changes) > 0;
  }

  /** The tools a phone answered `Always allow` for, newest first, each once. */
  alwaysAllowed(agent: string): { tool: string; device: string; at: string }[] {
    const rows = this.#state.db
      .prepare("SELECT decision FROM decisions WHERE agent = ? AND option_kind = 'allow-always' AND tool IS NOT NULL AND at >= ? ORDER BY at DESC")
      .all(agent, this.#now() - DECISION_MAX_AGE_MS) as { decision: string }[];
    const seen = new Set<string>();
    const out: { tool: string; device: string; at: string }[] = [];
    for (const r of rows) {
      const d = JSON.parse(r.decision) as Decision;
      if (!d.tool || seen.has(d.tool)) continue;
      seen.add(d.tool);
      out.push({ tool: d.tool, device: d.device, at: d.at });
    }
    return out;
  }
}
