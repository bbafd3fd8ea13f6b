/**
 * The reconnect loop of every upstream (D-2, C-1; STYLE 6, the reconcile loop): connect, follow
 * until the connection ends, wait on a fixed delay table, connect again. An agent's connection and
 * a crew member's run the same loop; what a connection is, and what its end means, is theirs.
 */

/** Delays before each retry, in ms; the last one repeats (fixed table, STYLE: reconcile loop). */
export const RETRY_DELAYS_MS: readonly number[] = [250, 500, 1000, 2000, 5000, 10_000, 30_000];

/** What an upstream does in the loop. */
export interface Reconnecting {
  /**
   * One connection, followed until it ends (resolves) or fails (rejects). `progress()` says it got
   * somewhere (a page, a snapshot): the next wait starts again from the table's first delay.
   */
  connect(progress: () => void): Promise<void>;
  /**
   * The connection ended (`error` when it failed): the upstream records why, and says how long to
   * wait: the table's next delay, or its longest (an upstream that misbehaved).
   */
  ended(error: unknown): "next" | "longest";
}

/** Runs `fire` after `ms`; returns what cancels it (a timer by default; tests pass their own clock). */
export type Schedule = (fire: () => void, ms: number) => () => void;

const timer: Schedule = (fire, ms) => {
  const t = setTimeout(fire, ms);
  return () => clearTimeout(t);
};

export class Reconnect {
  readonly #delays: readonly number[];
  readonly #schedule: Schedule;
  #stopped = false;
  #sleeping: (() => void) | null = null;

  constructor(delays: readonly number[] = RETRY_DELAYS_MS, schedule: Schedule = timer) {
    this.#delays = delays;
    this.#schedule = schedule;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Runs the loop until `stop()`; resolves when it has ended. */
  async run(upstream: Reconnecting): Promise<void> {
    let attempt = 0;
    while (!this.#stopped) {
      let error: unknown = null;
      try {
        await upstream.connect(() => (attempt = 0));
      } catch (err) {
        error = err;
      }
      if (this.#stopped) break;
      const wait = upstream.ended(error) === "longest" ? this.#delays[this.#delays.length - 1]! : this.#delays[Math.min(attempt++, this.#delays.length - 1)]!;
      // A stop from `ended` (the upstream stopping itself) ends the loop without a wait.
      if (this.#stopped) break;
      await this.#sleep(wait);
    }
  }

  /** Ends the wait now (an action needs the upstream, or sources.json changed). */
  wake(): void {
    this.#sleeping?.();
  }

  /** Ends the loop after its current connection; wakes a wait. */
  stop(): void {
    this.#stopped = true;
    this.#sleeping?.();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      let cancel = (): void => {};
      const done = () => {
        cancel();
        this.#sleeping = null;
        resolve();
      };
      this.#sleeping = done;
      cancel = this.#schedule(done, ms);
    });
  }
}
