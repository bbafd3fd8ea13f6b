/**
 * The phone's one WebSocket to Collie (D-4, P-26): it reconnects by itself on a fixed delay table
 * and resumes from the last message number, so a flaky network or a daemon restart costs no
 * reload. Plain class, no React.
 */
import type { LiveFrame, LiveMessage } from "@colliepwa/shared";
import { ACT_LIMITS, phonePath } from "@colliepwa/shared/routes";

/** An act's reply: the action route's status and JSON body. */
export interface ActResult {
  status: number;
  body: Record<string, unknown>;
}

/** An act that got no reply (its socket closed, or the wait ran out): not known to have arrived. */
export class ActLost extends Error {
  override name = "ActLost";
}

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
  /** Acts waiting for their replies, by id, each with the socket it went on (`act`). */
  readonly #acts = new Map<number, { socket: WebSocket; resolve: (r: ActResult) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> }>();
  #nextAct = 0;
  /** The socket that let an act go unanswered: it is sent no more (`act`). */
  #unanswering: WebSocket | null = null;

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

  /**
   * Sends a POST of an action route as an `act` on this socket (docs/phone-api.md "Actions on the
   * live socket"): it skips a request's own connection work, which is most of a tap's way to the
   * agent (issue 31). Null when it cannot go this way — no open socket, as many acts waiting as
   * one socket may have, a frame too big for the socket — and the caller POSTs instead. The
   * promise rejects with an ActLost when the socket closes, or no reply comes within
   * `ACT_LIMITS.replyMs`, before the reply: whether it arrived is not known, and the caller sends
   * it again with the same request id (D-5).
   */
  act(path: string, body: unknown): Promise<ActResult> | null {
    const socket = this.#socket;
    if (!socket || socket.readyState !== 1 || socket === this.#unanswering || this.#acts.size >= ACT_LIMITS.inFlight) return null;
    const id = this.#nextAct++;
    const text = JSON.stringify({ type: "act", id, path, body });
    // UTF-8 takes at most three bytes per UTF-16 unit; only a frame near the limit is counted exactly.
    if (text.length * 3 > ACT_LIMITS.frameBytes && new TextEncoder().encode(text).length > ACT_LIMITS.frameBytes) return null;
    return new Promise<ActResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        // A Collie that lets an act go unanswered (an older one, which knows no acts) is sent none
        // again on this socket: the retry, and every action after it, is a POST.
        this.#unanswering = socket;
        this.#settle(id)?.reject(new ActLost(`no reply within ${ACT_LIMITS.replyMs} ms`));
      }, ACT_LIMITS.replyMs);
      this.#acts.set(id, { socket, resolve, reject, timer });
      socket.send(text);
    });
  }

  #settle(id: number) {
    const act = this.#acts.get(id);
    if (!act) return undefined;
    this.#acts.delete(id);
    clearTimeout(act.timer);
    return act;
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
      let m: LiveFrame;
      try {
        m = JSON.parse(String(e.data)) as LiveFrame;
      } catch {
        return;
      }
      // An act's reply is this phone's alone and not numbered: it settles the act, nothing else.
      if (m.type === "act-reply") {
        this.#settle(m.id)?.resolve({ status: m.status, body: m.body });
        return;
      }
      this.#seq = m.seq;
      this.#opts.onMessage(m);
    };
    socket.onclose = () => {
      // Acts without a reply went with their socket, the current one or one a reconnect replaced
      // while it was closing: whether they arrived is not known.
      for (const [id, act] of [...this.#acts]) if (act.socket === socket) this.#settle(id)?.reject(new ActLost("the live connection closed before the reply"));
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
