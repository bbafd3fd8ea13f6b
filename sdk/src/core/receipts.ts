/**
 * Receipts (S-28): the first answer to each phone request id, so a retry executes nothing and
 * gets the same answer again with `replayed: true`.
 */
import { RECEIPTS_PER_GROUP } from "../wire/constants.ts";

/** What a write answered: the HTTP status and the JSON body. */
export interface ReceiptRecord {
  status: number;
  body: Record<string, unknown>;
}

/** A lookup: the stored record, `"dropped"` when the id was seen but its receipt is gone, or undefined. */
export type ReceiptLookup = ReceiptRecord | "dropped" | undefined;

/**
 * Where receipts live. `group` is `pane:<id>` for answer, send, steer, stop and action, and
 * `starters`, `renames`, `closes` or `reopens` for the others. Methods may be async.
 */
export interface ReceiptStore {
  get(requestId: string): ReceiptLookup | Promise<ReceiptLookup>;
  put(requestId: string, record: ReceiptRecord, group: string): void | Promise<void>;
  /**
   * Optional: forgets a whole group when the phone closes its pane, remembering its ids as
   * dropped (a replay then answers receipt-dropped). A store without it keeps them until evicted.
   */
  dropGroup?(group: string): void;
}

/**
 * Keeps the newest `perGroup` (RECEIPTS_PER_GROUP, 1000) receipts per group in memory; gone with
 * the process. An evicted id is remembered (a bounded set of `droppedLimit` ids, oldest forgotten
 * first) so that its replay answers 500 receipt-dropped instead of running again.
 */
export class MemoryReceiptStore implements ReceiptStore {
  readonly perGroup: number;
  readonly droppedLimit: number;
  readonly #records = new Map<string, { record: ReceiptRecord; group: string }>();
  readonly #groups = new Map<string, Set<string>>();
  readonly #dropped = new Set<string>();

  constructor(opts: { perGroup?: number; droppedLimit?: number } = {}) {
    this.perGroup = opts.perGroup ?? RECEIPTS_PER_GROUP;
    this.droppedLimit = opts.droppedLimit ?? 100 * RECEIPTS_PER_GROUP;
  }

  get(requestId: string): ReceiptLookup {
    const hit = this.#records.get(requestId);
    if (hit) return hit.record;
    return this.#dropped.has(requestId) ? "dropped" : undefined;
  }

  put(requestId: string, record: ReceiptRecord, group: string): void {
    if (this.#records.has(requestId)) return; // the first answer stays
    this.#dropped.delete(requestId);
    this.#records.set(requestId, { record, group });
    let ids = this.#groups.get(group);
    if (!ids) this.#groups.set(group, (ids = new Set()));
    ids.add(requestId);
    while (ids.size > this.perGroup) {
      const oldest = ids.values().next().value as string;
      ids.delete(oldest);
      this.#records.delete(oldest);
      this.#remember(oldest);
    }
  }

  /** Forgets a whole group (a closed pane), remembering its ids as dropped. */
  dropGroup(group: string): void {
    const ids = this.#groups.get(group);
    if (!ids) return;
    for (const id of ids) {
      this.#records.delete(id);
      this.#remember(id);
    }
    this.#groups.delete(group);
  }

  /** How many receipts are kept (for tests and the benchmark). */
  get size(): number {
    return this.#records.size;
  }

  #remember(id: string): void {
    this.#dropped.add(id);
    if (this.#dropped.size > this.droppedLimit) this.#dropped.delete(this.#dropped.values().next().value as string);
  }
}
