/**
 * The per-pane raw tails and the cursor over them (S-32, W-3). Every event gets a `seq` that grows
 * across all panes of this process; a cursor is `<instance>.<seq>`. A reader whose cursor a pane's
 * tail no longer reaches gets that pane's whole view instead; layout changes are one number, since
 * only the newest layout matters. Readers wait on `changed()` instead of polling.
 */
import type { PaneEvent } from "../wire/types.ts";

type NewEvent = PaneEvent extends infer E ? (E extends PaneEvent ? Omit<E, "seq"> : never) : never;

interface Tail {
  events: PaneEvent[];
  /** The highest seq this tail has let go of; a cursor below it cannot be served from the tail. */
  droppedThrough: number;
  lastSeq: number;
}

export interface TailRead {
  layoutChanged: boolean;
  /** Panes to send as whole views. */
  viewPanes: string[];
  events: PaneEvent[];
  seq: number;
}

export class EventLog {
  readonly instance: string;
  readonly tailLimit: number;
  #seq = 0;
  #layoutSeq = 0;
  readonly #tails = new Map<string, Tail>();
  #waiters: (() => void)[] = [];

  constructor(instance: string, tailLimit: number) {
    this.instance = instance;
    this.tailLimit = tailLimit;
  }

  get seq(): number {
    return this.#seq;
  }

  cursor(seq = this.#seq): string {
    return `${this.instance}.${seq}`;
  }

  /** The seq a cursor of this instance names, or null when it is from another instance or unreadable. */
  parseCursor(cursor: string | undefined | null): number | null {
    if (!cursor) return null;
    const dot = cursor.lastIndexOf(".");
    if (dot < 0 || cursor.slice(0, dot) !== this.instance) return null;
    const seq = Number(cursor.slice(dot + 1));
    return Number.isSafeInteger(seq) && seq >= 0 && seq <= this.#seq ? seq : null;
  }

  /**
   * Opens a pane's tail. A reader whose cursor is from before this gets the pane's whole view
   * instead of events, as if it fell behind (W-3: a gap becomes a view): a reopened pane comes back
   * with items no tail holds (S-30), and a new pane may reuse the id of one the reader still shows,
   * whose items the view replaces. Counts as a layout change.
   */
  addPane(paneId: string): void {
    const seq = ++this.#seq;
    this.#layoutSeq = seq;
    this.#tails.set(paneId, { events: [], droppedThrough: seq, lastSeq: seq });
    this.#wake();
  }

  removePane(paneId: string): void {
    this.#tails.delete(paneId);
  }

  append(event: NewEvent): PaneEvent {
    const tail = this.#tails.get(event.pane);
    if (!tail) throw new Error(`no tail for pane ${event.pane}`);
    const full = { ...event, seq: ++this.#seq } as PaneEvent;
    tail.events.push(full);
    tail.lastSeq = full.seq;
    if (tail.events.length > this.tailLimit) {
      const cut = tail.events.length - this.tailLimit;
      tail.droppedThrough = tail.events[cut - 1]!.seq;
      tail.events.splice(0, cut);
    }
    this.#wake();
    return full;
  }

  layoutChanged(): void {
    this.#layoutSeq = ++this.#seq;
    this.#wake();
  }

  /** What changed after `after`. */
  read(after: number): TailRead {
    const viewPanes: string[] = [];
    const events: PaneEvent[] = [];
    for (const [paneId, tail] of this.#tails) {
      if (tail.lastSeq <= after) continue;
      if (tail.droppedThrough > after) {
        viewPanes.push(paneId);
        continue;
      }
      for (let i = firstAfter(tail.events, after); i < tail.events.length; i++) events.push(tail.events[i]!);
    }
    events.sort((a, b) => a.seq - b.seq);
    return { layoutChanged: this.#layoutSeq > after, viewPanes, events, seq: this.#seq };
  }

  /** Resolves at the next change after `after` (at once if there is one), or after `ms`. */
  changed(after: number, ms: number, signal?: AbortSignal): Promise<void> {
    if (this.#seq > after || ms <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        this.#waiters = this.#waiters.filter((w) => w !== done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener("abort", done, { once: true });
      this.#waiters.push(done);
    });
  }

  /** How many readers wait (tests, benchmark). */
  get waiting(): number {
    return this.#waiters.length;
  }

  #wake(): void {
    if (this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    // Woken in a microtask so that a burst of appends in one tick goes out as one page.
    queueMicrotask(() => waiters.forEach((w) => w()));
  }
}

function firstAfter(events: PaneEvent[], after: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.seq <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
