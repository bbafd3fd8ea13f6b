/**
 * The one gateway to this machine's durable agents (D-4, D-5): every read an agent's connection
 * (`AgentConnection`, an Upstream) makes for a phone (history, a closed conversation's items,
 * starters) and every write goes through it, so reachability, the version prefix, holding and the
 * mapping of failures to the error catalog are decided in one place.
 *
 * Phone actions reach the agent with the phone's request id unchanged (D-5), so a retry is
 * idempotent end to end: the agent's receipts answer a repeat with `replayed: true`. The agent's
 * status and body come back as they are, so the phone can show P-15's words. An answer for an agent
 * Collie cannot reach is held and delivered when the same ask is open again; a message sent while
 * the agent is unreachable is held and delivered once it is back.
 */
import { cleanText, parseErrorBody, parseWriteOk, routePath, type RouteName, type WriteRouteName } from "@colliepwa/durable-sdk/wire";
import type { Parsed, ReadOptions } from "@colliepwa/durable-sdk/wire";
import type { AgentConnection } from "./connection.ts";
import type { UpstreamEvents } from "./upstream.ts";
import { AgentUnreachable } from "./client.ts";
import { holdWrite, type HeldWrite, type HeldWrites, type NewHeldWrite } from "../store/held.ts";
import { HeldDrain } from "./held-drain.ts";
import { apiError } from "../errors.ts";
import { SendTurns } from "./send-turns.ts";

export interface Outcome {
  status: number;
  body: Record<string, unknown>;
}

/** How long Collie waits for an agent's answer to a read (history, items, starters). */
export const READ_TIMEOUT_MS = 10_000;
/** How long Collie waits for an agent to take an action. */
export const ACTION_TIMEOUT_MS = 15_000;
/**
 * How long an action waits for an agent that is still `starting` (Collie just started or
 * reconnected): a phone that resends its pending actions the moment Collie listens again must not
 * be told `agent-unreachable` for the few milliseconds before the agent's first page (P-26, L-1).
 */
export const STARTING_WAIT_MS = 5_000;

/** Secret masking of one text; identity when masking is off. */
export type Mask = (text: string) => string;

/**
 * How Collie reads everything an agent sends (L-2, D-2): the wire's own checkers in their cutting
 * mode, so text over the wire's limits is cut at them (never split inside a character) and control
 * or invisible characters are removed, and the item or ask is marked `textShortened`, so the phone
 * can say `Text shortened` and offer no `Always allow` (P-12). The text fields and their limits are
 * stated once, in the SDK's checkers (`sdk/src/wire/messages.ts`); only strings they declare as
 * text are touched, and shapes, ids and counts are still refused.
 *
 * Every read is the same: hello, the events long-poll and a pane's view (connection.ts), history,
 * a closed conversation's items and starters (`AgentGateway.read`), so U+202E, BEL or ESC reach the
 * phone on no path, and a title too long reads the same live and from history.
 *
 * A text Collie masks (R-1: titles, subtitles, progress labels, an ask's title as the pending
 * question, push titles and lines, the agent's self-name, history rows; the checkers mark them
 * `masked`) is masked whole before it is cut: cut first, a secret straddling the limit would lose
 * the tail the masking rules need to recognise it, and its head would reach the lock screen in clear.
 */
export function agentReads(mask?: Mask): ReadOptions {
  return mask ? { cut: true, mask } : { cut: true };
}

export class AgentGateway {
  /** This machine's agents' connections, by name: what a held write's delivery reaches (manager.ts). */
  readonly #connections: (agent: string) => AgentConnection | undefined;
  readonly #held: HeldWrites;
  readonly #drain: HeldDrain;
  /** Where a held write's delivery is reported (fanout.ts). */
  readonly #events: Pick<UpstreamEvents, "delivered">;
  readonly #now: () => number;
  readonly #reads: ReadOptions;
  readonly #log: (line: string) => void;
  /** Which sends wait for a turn to end (send-turns.ts). */
  readonly #turns: SendTurns;

  constructor(connections: (agent: string) => AgentConnection | undefined, held: HeldWrites, events: Pick<UpstreamEvents, "delivered">, opts: { mask?: Mask; now?: () => number; log?: (line: string) => void } = {}) {
    this.#connections = connections;
    this.#held = held;
    this.#events = events;
    this.#now = opts.now ?? Date.now;
    this.#reads = agentReads(opts.mask);
    this.#turns = new SendTurns(this.#now);
    this.#log = opts.log ?? (() => {});
    this.#drain = new HeldDrain(held, {
      ready: (agent) => this.#connections(agent)?.state === "ready",
      deliver: (write) => this.#deliverHeld(write),
      delivered: (write, outcome) => {
        const conn = this.#connections(write.target);
        // An agent removed from sources.json meanwhile has no upstream left to report through.
        if (conn) this.#events.delivered(conn, write.target, write.requestId, outcome, { action: write.action, pane: write.conversation });
      },
      log: (line) => this.#log(line),
    });
  }

  /**
   * A read through to the agent (P-7), never on a timer: its reply is read by the wire's checker
   * for it (`parse`) like every read (`agentReads`: cut, cleaned, masked before a cut) before it is
   * passed on; an agent's own error passes through as the catalog has it, and what the checker
   * rebuilt from the keys it knows is what the phone gets (an unknown key, nested thousands of
   * levels deep, never reaches it).
   */
  async read(conn: AgentConnection, route: RouteName, params: Record<string, string>, query: string, parse: (v: unknown, opts: ReadOptions) => Parsed<unknown>): Promise<Outcome> {
    if (conn.state === "version-mismatch") return apiError("agent-version-mismatch", "The durable agent speaks another wire version.");
    // As for a write: an agent still starting (Collie just started or reconnected) gets a moment.
    if (conn.state === "starting") await conn.settled(STARTING_WAIT_MS);
    if (conn.state !== "ready") return apiError("agent-unreachable", "The durable agent did not answer.");
    try {
      const r = await conn.client.get(`${conn.prefix}${routePath(route, params)}${query}`, READ_TIMEOUT_MS);
      if (r.status !== 200) return asOutcome(r.status, r.body);
      const parsed = parse(r.body, this.#reads);
      if (!parsed.ok) return apiError("agent-failed", `The durable agent's reply was malformed: ${parsed.error}`);
      return { status: 200, body: parsed.value as Record<string, unknown> };
    } catch (err) {
      if (err instanceof AgentUnreachable) return apiError("agent-unreachable", "The durable agent did not answer.");
      throw err;
    }
  }

  /** A write (a phone action) to its agent. */
  async write(conn: AgentConnection, route: WriteRouteName, params: Record<string, string>, body: { requestId: string } & Record<string, unknown>): Promise<Outcome> {
    const agent = conn.name;
    if (conn.state === "version-mismatch") {
      return apiError("agent-version-mismatch", "This machine runs an older Collie and answers can't be taken here.");
    }
    // Held without the version prefix: the agent that comes back may speak another version.
    const path = routePath(route, params);
    if (route === "answer") {
      const hold = (): Outcome => this.#hold(conn, { target: agent, requestId: body.requestId, action: "answer", conversation: params.pane!, path, body, ask: params.ask!, heldAt: this.#now() });
      if (conn.state !== "ready") return hold();
      let reply;
      try {
        reply = await conn.client.post(`${conn.prefix}${path}`, body, ACTION_TIMEOUT_MS);
      } catch (err) {
        if (err instanceof AgentUnreachable) return hold(); // it may have arrived: the same request id makes a repeat harmless
        throw err;
      }
      // A retry of an answer held before (202) that the agent took now: the held answer (and its
      // decision's draft) goes, or its delivery would be a replay leaving the decision again.
      if (reply.status === 200) this.#held.release(agent, body.requestId);
      // An agent that answers `409 ask-not-open` was reached: it is not holding's case (D-5). The
      // phone shows P-15's `Not taken. The question may come back in a moment.` and the user taps
      // again once the restarted agent raises the ask.
      return asOutcome(reply.status, reply.body);
    }
    if (conn.state === "starting") await conn.settled(STARTING_WAIT_MS);
    if (route === "send") return this.#send(conn, agent, path, params.pane!, body);
    if (conn.state !== "ready") return apiError("agent-unreachable", "The durable agent cannot be reached right now.");
    try {
      const reply = await conn.client.post(`${conn.prefix}${path}`, body, ACTION_TIMEOUT_MS);
      return asOutcome(reply.status, reply.body);
    } catch (err) {
      if (err instanceof AgentUnreachable) return apiError("agent-unreachable", "The durable agent cannot be reached right now.");
      throw err;
    }
  }

  /**
   * A message for the agent (docs/decisions.md "A message sent while the agent is down"): while the
   * agent cannot be reached Collie holds it, with the phone's request id, and delivers it once when
   * the agent is back, so a send never vanishes. A send that may have arrived before the connection
   * broke is held too: the same request id makes the repeat harmless (the agent's receipts, S-28).
   * While its conversation has messages held, a new one joins the back of the queue, so the agent
   * gets them in the phone's order (issue 35, item 2), even while the queue is being delivered.
   */
  async #send(conn: AgentConnection, agent: string, path: string, paneId: string, body: { requestId: string } & Record<string, unknown>): Promise<Outcome> {
    const hold = (): Outcome => this.#hold(conn, { target: agent, requestId: body.requestId, action: "send", conversation: paneId, path, body, ask: null, heldAt: this.#now() });
    // Behind a message Collie already holds for this conversation, or during a turn the agent
    // takes no message in (no `followUp` cap): held, and delivered when that turn is over (issue 37).
    // Not the phone's retry of the send the agent took last: that one it answers from its receipt.
    if (conn.state !== "ready") return hold();
    const retry = this.#turns.isRetryOfTaken(agent, paneId, body.requestId, conn);
    if (!retry && (this.#held.queued(agent, paneId) > 0 || this.#turns.mustWait(agent, paneId, conn))) return hold();
    try {
      const reply = await conn.client.post(`${conn.prefix}${path}`, body, ACTION_TIMEOUT_MS);
      const outcome = asOutcome(reply.status, reply.body);
      this.#turns.sent(agent, paneId, outcome, conn, body.requestId);
      return outcome;
    } catch (err) {
      if (err instanceof AgentUnreachable) return hold();
      throw err;
    }
  }

  /** Holds a write (within the bounds) and wakes whatever delivers it. */
  #hold(conn: AgentConnection, write: NewHeldWrite): Outcome {
    const outcome = holdWrite(this.#held, write, this.#log);
    if (outcome.status === 202) {
      conn.retryNow();
      this.#drain.kick(write.target);
    }
    return outcome;
  }

  /**
   * Hands one held write to its agent, with the prefix of the version it speaks now. A send waits
   * while a turn runs in an agent without `followUp`, and the sends behind it in its conversation
   * wait too: one per turn, in the order they were sent (send-turns.ts, issue 37).
   */
  async #deliverHeld(write: HeldWrite): Promise<Outcome | "keep" | "wait"> {
    const conn = this.#connections(write.target);
    if (!conn || conn.state !== "ready") throw new AgentUnreachable("not ready");
    if (write.ask !== null && !conn.mirror.ask(write.conversation, write.ask)) return "keep";
    if (write.action === "send" && this.#turns.mustWait(write.target, write.conversation, conn)) return "wait";
    const reply = await conn.client.post(`${conn.prefix}${write.path}`, write.body, ACTION_TIMEOUT_MS);
    if (write.ask !== null && reply.status === 409 && (reply.body as { error?: unknown } | null)?.error === "ask-not-open") return "keep"; // not yet
    const outcome = asOutcome(reply.status, reply.body);
    if (write.action === "send") this.#turns.sent(write.target, write.conversation, outcome, conn, write.requestId);
    return outcome;
  }

  /**
   * After each events page the agent sends: its held queue goes when it is back (oldest first, one
   * at a time, paced), and a held answer when the same ask is open again (D-5). No poll: delivery
   * follows the page that shows the agent (or the ask) back.
   */
  deliverHeld(conn: AgentConnection): void {
    if (conn.state !== "ready") return;
    this.#drain.afterPage(conn.name, function* () {
      for (const ask of conn.mirror.openAsks()) yield { conversation: ask.paneId, ask: ask.id };
    });
  }

  /** Delivers nothing more (the daemon is closing its database). */
  stop(): void {
    this.#drain.stop();
  }
}

/**
 * The agent's reply as the phone gets it: a success must be a `200 WriteOk` and anything else a
 * 4xx or 5xx `ErrorBody` (L-2); the validators rebuild it from known keys. A reply that is neither
 * is refused: another status (`204`, `302`, `600` …) the phone could not read, or Fastify could
 * not even send, is `502 agent-failed` too.
 */
export function asOutcome(status: number, body: unknown): Outcome {
  if (status !== 200 && (status < 400 || status > 599)) return apiError("agent-failed", `The durable agent answered with status ${status}.`);
  if (status === 200) {
    const parsed = parseWriteOk(body);
    if (!parsed.ok) return apiError("agent-failed", `The durable agent's reply was malformed: ${parsed.error}`);
    return { status, body: parsed.value as unknown as Record<string, unknown> };
  }
  const parsed = parseErrorBody(body);
  if (!parsed.ok) return apiError("agent-failed", `The durable agent's reply was malformed: ${parsed.error}`);
  return { status, body: catalogErrorBody(parsed.value) };
}

/**
 * An agent's error body with only the keys the wire's catalog names (W-5: `error`, `message` and
 * the extras `revision`, `reason`, `speaks`), each of its documented shape, text cleaned and cut
 * like every other agent text (L-2). Anything else an agent adds (a huge array, a value nested
 * thousands of levels deep) never reaches the phone: it could not even be serialized.
 */
export function catalogErrorBody(b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { error: b.error, message: cleanText(String(b.message), 4096).text };
  if (typeof b.revision === "string" && /^[0-9a-f]{16}$/.test(b.revision)) out.revision = b.revision;
  if (typeof b.reason === "string") out.reason = cleanText(b.reason, 4096).text;
  if (Array.isArray(b.speaks) && b.speaks.length >= 1 && b.speaks.length <= 16 && b.speaks.every((v) => Number.isSafeInteger(v) && (v as number) >= 1)) out.speaks = [...b.speaks];
  return out;
}
