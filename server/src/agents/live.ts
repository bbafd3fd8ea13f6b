/**
 * The live hub (D-4): numbers every change for the phone, keeps the newest ones so a phone that
 * reconnects resumes where it left off instead of reloading, and sends items and views only to
 * phones that show that chat.
 */
import type { LiveMessage } from "@colliepwa/shared";

/** A live message before the hub numbers it. */
export type Unnumbered = LiveMessage extends infer M ? (M extends LiveMessage ? Omit<M, "seq"> : never) : never;

export interface LiveClient {
  /** `text`, when given, is `JSON.stringify(message)` already: the hub serializes a message once for every phone. */
  send(message: LiveMessage, text?: string): void;
  /** Panes this client shows, as `<agent>\n<pane>`. */
  watching: Set<string>;
  /** The paired device on the other end. */
  deviceId: string | null;
  close(code: number, reason: string): void;
}

/** How many recent messages a reconnecting phone can resume from. */
export const RESUME_BUFFER = 5000;
/**
 * What those messages may take, as JSON text: the buffer is bounded in bytes as well as count,
 * whoever sends large messages (a crew member among them, the security issues), so the daemon's
 * memory does not follow them.
 */
export const RESUME_BUFFER_BYTES = 32 * 1024 * 1024;

/** Items and views go to watching phones only and are never replayed to one that resumes. */
const notReplayed = (m: LiveMessage): boolean => m.type === "item" || m.type === "view";

export class LiveHub {
  /**
   * Numbers start at this run's start time in microseconds, so a phone coming back from an earlier
   * run (a daemon restart) names a seq below this run's first one and gets a snapshot instead of
   * being "resumed" into a run it never saw (P-26). Safe integers last for centuries from here.
   */
  #seq = Date.now() * 1000;
  /**
   * The newest messages a phone can resume from (items and views are not kept: a resume skips
   * them), oldest first, from `#head` on, each with its length as JSON. Dropping the oldest moves
   * `#head` (and lets go of the message); the array is compacted once per RESUME_BUFFER messages,
   * so a publish costs no shift of the whole buffer.
   */
  readonly #recent: ({ message: LiveMessage; bytes: number } | undefined)[] = [];
  #head = 0;
  #bytes = 0;
  /**
   * The newest seq a resume can no longer get: the last message dropped from the buffer, or this
   * run's start. A phone that resumes from before it gets a snapshot.
   */
  #floor = this.#seq;
  readonly #clients = new Set<LiveClient>();

  get seq(): number {
    return this.#seq;
  }

  publish(message: Unnumbered): void {
    const numbered = { ...message, seq: ++this.#seq } as LiveMessage;
    let text: string | undefined;
    if (!notReplayed(numbered)) {
      text = JSON.stringify(numbered);
      this.#recent.push({ message: numbered, bytes: text.length });
      this.#bytes += text.length;
      while (this.#recent.length - this.#head > RESUME_BUFFER || (this.#bytes > RESUME_BUFFER_BYTES && this.#recent.length - this.#head > 1)) this.#dropOldest();
    }
    // Items and views go to phones that show that chat; everything else to every phone. One chat
    // key and one JSON text per message, however many phones get it.
    const key = numbered.type === "item" || numbered.type === "view" ? `${numbered.agent}\n${numbered.paneId}` : null;
    for (const client of this.#clients) {
      if (key !== null && !client.watching.has(key)) continue;
      text ??= JSON.stringify(numbered);
      client.send(numbered, text);
    }
  }

  #dropOldest(): void {
    const oldest = this.#recent[this.#head]!;
    this.#recent[this.#head++] = undefined;
    this.#bytes -= oldest.bytes;
    this.#floor = oldest.message.seq;
    if (this.#head >= RESUME_BUFFER) {
      this.#recent.splice(0, this.#head);
      this.#head = 0;
    }
  }

  /**
   * Messages after `since` a resuming phone gets (none of the items and views, which it reads again
   * for the chat it shows), or null when the buffer no longer reaches back that far.
   */
  since(since: number): LiveMessage[] | null {
    if (since > this.#seq || since < this.#floor) return null;
    const out: LiveMessage[] = [];
    for (let i = this.#head; i < this.#recent.length; i++) if (this.#recent[i]!.message.seq > since) out.push(this.#recent[i]!.message);
    return out;
  }

  /** What the resume buffer holds (tests, the benchmark). */
  get buffered(): { messages: number; bytes: number } {
    return { messages: this.#recent.length - this.#head, bytes: this.#bytes };
  }

  add(client: LiveClient): void {
    this.#clients.add(client);
  }

  remove(client: LiveClient): void {
    this.#clients.delete(client);
  }

  /** Cuts off every WebSocket of a revoked device at once. */
  closeDevice(deviceId: string): number {
    let n = 0;
    for (const client of [...this.#clients]) {
      if (client.deviceId !== deviceId) continue;
      this.#clients.delete(client);
      client.close(4401, "device revoked");
      n++;
    }
    return n;
  }

  get clients(): number {
    return this.#clients.size;
  }
}
