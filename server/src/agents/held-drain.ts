/**
 * The delivery of held writes (D-5, issue 35): when a target is back, its queue goes out oldest
 * first, read from the store with a cursor a batch at a time; a conversation's writes one after
 * another (the phone's order), a few conversations side by side, a moment apart (DRAIN_PACE_MS),
 * so a backlog of the bounded size drains in seconds while the rest of the daemon (health,
 * snapshots, other agents' sends) keeps its latency. Answers that wait for their
 * ask go when the ask is open, found by the ask, never by reading every held row.
 *
 * It knows targets only as keys: how to reach one (`DrainPort`) is the caller's, so the same drain
 * serves a local agent and a crew member's agents.
 */
import type { HeldWrite, HeldWrites } from "../store/held.ts";
import { AgentUnreachable } from "./client.ts";
import type { Outcome } from "./gateway.ts";

/** How many queued writes one read of the store brings (the cursor's batch). */
export const DRAIN_BATCH = 64;
/**
 * How many of a target's conversations have a write in flight at once during a drain: a
 * conversation's own writes go one after another (its order), different conversations side by side.
 */
export const DRAIN_CONVERSATIONS = 4;

/** What the drain needs of whoever reaches the targets. */
export interface DrainPort {
  /** Whether the target takes writes now. */
  ready(target: string): boolean;
  /**
   * Hands one held write to its target: its outcome, or `keep` when it must stay held (an answer
   * whose ask is not open after all), or `wait` when it and the writes behind it in its
   * conversation must stay held until a later pass (a message during a turn the target takes none
   * in). Throws when the target could not be reached: the write stays held and the drain of that
   * target stops until it is kicked again.
   */
  deliver(write: HeldWrite): Promise<Outcome | "keep" | "wait">;
  /** A write was delivered (and released): its outcome goes to the phone and the audit log. */
  delivered(write: HeldWrite, outcome: Outcome): void;
  /** A delivery failed in a way that is not the target being away (a bug): logged, the write kept. */
  log(line: string): void;
}

/** How one delivery ended: taken, kept for its ask, waiting for a turn, or the target away. */
type Delivery = "done" | "keep" | "wait" | "failed";

/**
 * The pause between two held writes starting. A held backlog is nobody's tap: at a turn of the
 * event loop between writes a bounded backlog drained in 1.4 s but took 80–120 % of a core, and
 * the agent's pages of echoed messages made /api/health's p99 10–15 ms meanwhile; 2 ms apart it
 * drains in about 2.5 s with health's p99 at 7–9 ms (issue 31, docs/performance.md). A timer, not
 * `setImmediate`: the requests that came in meanwhile are served first either way.
 */
export const DRAIN_PACE_MS = 2;

const paced = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, DRAIN_PACE_MS));

export class HeldDrain {
  readonly #store: HeldWrites;
  readonly #port: DrainPort;
  readonly #pace: () => Promise<void>;
  /** Targets whose queue is being delivered now (one pass per target keeps its order). */
  readonly #passes = new Set<string>();
  /**
   * Targets kicked while their pass ran: a page that showed a turn over (a message waiting for it
   * may go now) can come after the pass skipped that conversation, so the pass runs again once it
   * ends instead of leaving the message for the target's next page (a long-poll's wait later).
   */
  readonly #kickedDuringPass = new Set<string>();
  /** Targets whose waiting answers are being delivered now. */
  readonly #answering = new Set<string>();
  #stopped = false;

  constructor(store: HeldWrites, port: DrainPort, opts: { pace?: () => Promise<void> } = {}) {
    this.#store = store;
    this.#port = port;
    this.#pace = opts.pace ?? paced;
  }

  /**
   * The target may take its queue now (it is back, something was just held for it, or a page showed
   * a turn over): starts a pass over its queue, or another one after the pass that runs. A pass
   * picks up what is held meanwhile (it reads on from its cursor until the queue has nothing after
   * it), but not a conversation it already found waiting: that is the pass after it.
   */
  kick(target: string): void {
    if (this.#stopped) return;
    if (this.#passes.has(target)) {
      this.#kickedDuringPass.add(target);
      return;
    }
    if (this.#store.queued(target) === 0 || !this.#port.ready(target)) return;
    this.#passes.add(target);
    void this.#pass(target).finally(() => {
      this.#passes.delete(target);
      if (this.#kickedDuringPass.delete(target)) this.kick(target);
    }); // never rejects
  }

  /**
   * After an events page of the target: a pass if its queue waits, and the answers whose asks the
   * page showed open. Costs two lookups when nothing waits; else one per open ask, whatever is held.
   */
  afterPage(target: string, openAsks: () => Iterable<{ conversation: string; ask: string }>): void {
    this.kick(target);
    if (this.#stopped || this.#answering.has(target) || !this.#store.hasWaitingAnswers(target)) return;
    const due: HeldWrite[] = [];
    for (const { conversation, ask } of openAsks()) {
      if (this.#store.waitsFor(target, conversation, ask)) due.push(...this.#store.answersFor(target, conversation, ask));
    }
    if (due.length === 0) return;
    this.#answering.add(target);
    void this.#answer(due).finally(() => this.#answering.delete(target)); // never rejects
  }

  /** Nothing is delivered or touched any more (the daemon is closing its database). */
  stop(): void {
    this.#stopped = true;
  }

  /**
   * One pass over the target's queue, in the order of holding: a write starts once the write before
   * it in its conversation is done, with up to DRAIN_CONVERSATIONS conversations' writes in flight.
   * A write the target could not take ends the pass before any later one starts, so nothing
   * overtakes it.
   */
  async #pass(target: string): Promise<void> {
    const inFlight = new Map<string, Promise<Delivery>>();
    /** Conversations whose next write waits for a later pass: nothing behind it overtakes it. */
    const waiting = new Set<string>();
    let failed = false;
    const going = () => !failed && !this.#stopped && this.#port.ready(target);
    try {
      let cursor = 0;
      for (let batch = this.#store.queue(target, cursor, DRAIN_BATCH); batch.length > 0 && going(); batch = this.#store.queue(target, cursor, DRAIN_BATCH)) {
        for (const place of batch) {
          await inFlight.get(place.conversation);
          while (inFlight.size >= DRAIN_CONVERSATIONS) await Promise.race(inFlight.values());
          if (!going()) break;
          cursor = place.seq;
          if (waiting.has(place.conversation)) continue;
          // Read when it goes (a retry the agent took meanwhile released it).
          const write = this.#store.get(target, place.requestId);
          if (!write) continue;
          const delivery = this.#deliver(write)
            .then((d) => {
              if (d === "failed") failed = true;
              if (d === "wait") waiting.add(write.conversation);
              return d;
            })
            .finally(() => inFlight.delete(write.conversation));
          inFlight.set(write.conversation, delivery);
          await this.#pace();
        }
      }
    } catch (err) {
      this.#port.log(`held writes for ${target}: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      await Promise.all(inFlight.values());
    }
  }

  async #answer(due: HeldWrite[]): Promise<void> {
    for (const write of due) {
      if (this.#stopped || !this.#port.ready(write.target)) return;
      if ((await this.#deliver(write)) === "failed") return;
      await this.#pace();
    }
  }

  /** One delivery; `failed` when the target could not be reached (keep holding, stop this pass). Never throws. */
  async #deliver(write: HeldWrite): Promise<Delivery> {
    let outcome: Outcome | "keep" | "wait";
    try {
      outcome = await this.#port.deliver(write);
    } catch (err) {
      if (!(err instanceof AgentUnreachable)) this.#port.log(`held ${write.action} ${write.requestId} for ${write.target}: ${err instanceof Error ? err.message : String(err)}`);
      return "failed";
    }
    // Closing: the target may have taken it; the same request id makes the next start's delivery a replay.
    if (this.#stopped) return "failed";
    if (outcome === "keep" || outcome === "wait") return outcome;
    // The outcome first: an answer's decision draft is on the held row, which the release deletes.
    try {
      this.#port.delivered(write, outcome);
    } catch (err) {
      this.#port.log(`held ${write.action} ${write.requestId} for ${write.target} was delivered; telling the phone failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    try {
      this.#store.release(write.target, write.requestId);
    } catch (err) {
      // Still held: the next pass delivers it again, a replay at the target (its request id).
      this.#port.log(`held ${write.action} ${write.requestId} for ${write.target} was delivered but stays held: ${err instanceof Error ? err.message : String(err)}`);
      return "failed";
    }
    return "done";
  }
}
