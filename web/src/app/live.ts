/**
 * The phone's one WebSocket to Collie (D-4, P-26): it reconnects by itself on a fixed delay table
 * and resumes from the last message number, so a flaky network or a daemon restart costs no
 * reload. Plain class, no React.
 */
import type { LiveMessage } from "@colliepwa/shared";
import { phonePath } from "@colliepwa/shared/routes";

export const RECONNECT_DELAYS_MS: readonly number[] = [300, 1000, 2000, 5000, 10_000];

export type LiveStatus = "connecting" | "online" | "offline";

export interface LiveOptions {
  url: (since: number | null) => string;
  onMessage: (m: LiveMessage) => void;
  onStatus: (s: LiveStatus) => void;
  /** For tests. */
  createSocket?: (url: string) => WebSocket;
}

export class LiveConnection {
  #socket: WebSocket | null = null;
  #seq: number | null = null;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;
  readonly #watching = new Set<string>();
  readonly #opts: LiveOptions;

  constructor(opts: LiveOptions) {
    this.#opts = opts;
  }

  start(): void {
    this.#closed = false;
    this.#open();
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#socket?.close();
  }

  /** Names the chat on screen: its items flow, and Collie sends its content at once. */
  watch(agent: string, pane: string): void {
    this.#watching.add(`${agent}\n${pane}`);
    this.#send({ type: "watch", agent, pane });
  }

  unwatch(agent: string, pane: string): void {
    this.#watching.delete(`${agent}\n${pane}`);
    this.#send({ type: "unwatch", agent, pane });
  }

  /** Reconnects now instead of waiting for the next delay (e.g. the browser came back online). */
  retryNow(): void {
    if (this.#socket && this.#socket.readyState <= 1) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#open();
  }

  #send(m: unknown): void {
    if (this.#socket?.readyState === 1) this.#socket.send(JSON.stringify(m));
  }

  #open(): void {
    this.#opts.onStatus("connecting");
    const socket = (this.#opts.createSocket ?? ((u) => new WebSocket(u)))(this.#opts.url(this.#seq));
    this.#socket = socket;
    socket.onopen = () => {
      this.#attempt = 0;
      this.#opts.onStatus("online");
      for (const key of this.#watching) {
        const [agent, pane] = key.split("\n") as [string, string];
        this.#send({ type: "watch", agent, pane });
      }
    };
    socket.onmessage = (e) => {
      let m: LiveMessage;
      try {
        m = JSON.parse(String(e.data)) as LiveMessage;
      } catch {
        return;
      }
      this.#seq = m.seq;
      this.#opts.onMessage(m);
    };
    socket.onclose = () => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      if (this.#closed) return;
      this.#opts.onStatus("offline");
      const delay = RECONNECT_DELAYS_MS[Math.min(this.#attempt++, RECONNECT_DELAYS_MS.length - 1)]!;
      this.#timer = setTimeout(() => this.#open(), delay);
    };
    socket.onerror = () => socket.close();
  }
}

/** The WebSocket URL on this page's origin. */
export function liveUrl(since: number | null): string {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}${phonePath("live", {}, { since: since ?? undefined })}`;
}
