/**
 * Idempotent writes (S-28, S-29): each phone request id runs its action at most once. A replay gets
 * the first answer again with `replayed: true`; a duplicate that arrives while the first still runs
 * waits for it; an id whose receipt was dropped runs nothing. Only a success is kept: a refusal or
 * a failure keeps no receipt, so the same id may try again.
 *
 * It runs over any `ReceiptStore` (receipts.ts in memory, sqlite-receipts.ts on disk, or the
 * agent's own); both stores of the SDK pass one shared suite against it
 * (sdk/test/helpers/receipt-store-suite.ts).
 */
import type { ReceiptRecord, ReceiptStore } from "./receipts.ts";
import { errorOutcome } from "./request.ts";

const isSuccess = (outcome: ReceiptRecord): boolean => outcome.status >= 200 && outcome.status < 300;

function replayed(outcome: ReceiptRecord): ReceiptRecord {
  return { status: outcome.status, body: { ...outcome.body, replayed: true } };
}

export class Idempotency {
  readonly #store: ReceiptStore;
  /** The first run of each request id still under way, from its receipt lookup to its receipt. */
  readonly #inFlight = new Map<string, Promise<ReceiptRecord>>();

  constructor(store: ReceiptStore) {
    this.#store = store;
  }

  /**
   * Runs `work` for `requestId` unless that id ran before; keeps a success as the id's receipt in
   * `group` (`pane:<id>`, `renames`, …, see ReceiptStore). `work` should not throw: it answers an
   * error as an outcome, which is passed on and not kept.
   */
  async run(requestId: string, group: string, work: () => Promise<ReceiptRecord>): Promise<ReceiptRecord> {
    const inFlight = this.#inFlight.get(requestId);
    if (inFlight) {
      // A duplicate that came while the first ran gets its answer; only a success is a stored answer.
      const first = await inFlight;
      return isSuccess(first) ? replayed(first) : first;
    }
    // Registered before the receipt lookup, so a duplicate that arrives while the lookup is under
    // way (an async store, or two requests in one tick over the in-memory connection) waits too.
    const first = this.#once(requestId, group, work);
    this.#inFlight.set(requestId, first);
    try {
      return await first;
    } finally {
      this.#inFlight.delete(requestId);
    }
  }

  /** Forgets a whole group (a pane the phone closed), where the store can (MemoryReceiptStore). */
  dropGroup(group: string): void {
    this.#store.dropGroup?.(group);
  }

  async #once(requestId: string, group: string, work: () => Promise<ReceiptRecord>): Promise<ReceiptRecord> {
    const known = await this.#store.get(requestId);
    if (known === "dropped") return errorOutcome("receipt-dropped", "This request id was seen before, but its receipt is no longer kept; nothing ran.");
    if (known) return replayed(known);
    const outcome = await work();
    if (isSuccess(outcome)) await this.#store.put(requestId, outcome, group);
    return outcome;
  }
}
