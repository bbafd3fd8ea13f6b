/**
 * A real WebSocket client of `/api/live` (the `ws` package), recording every message. Every frame
 * it receives is read by the live contract's reader (`@colliepwa/shared/live`, strict): what a
 * Collie sends fits the contract its phones and leads read it with; `closeAllLive` fails on any
 * frame that did not.
 */
import WebSocket from "ws";
import type { ClientMessage, LiveMessage } from "@colliepwa/shared";
import { readLiveText } from "@colliepwa/shared/live";
import { until } from "./wait.ts";
import { authHeaders } from "./tokens.ts";

const open = new Set<LiveClient>();
/** Frames a test's daemon sent that the live contract refuses. */
const outsideContract: string[] = [];

export class LiveClient {
  readonly socket: WebSocket;
  readonly messages: LiveMessage[] = [];
  #closed = false;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on("message", (data) => {
      const text = String(data);
      const read = readLiveText(text);
      if (!read.ok) outsideContract.push(`${read.error}: ${text.slice(0, 300)}`);
      this.messages.push(JSON.parse(text) as LiveMessage);
    });
    socket.on("close", () => (this.#closed = true));
  }

  /** Connects to `<wsUrl>/api/live` (with `?since=` when given) and waits for the first message. */
  static async connect(wsUrl: string, since?: number): Promise<LiveClient> {
    const socket = new WebSocket(`${wsUrl}/api/live${since === undefined ? "" : `?since=${since}`}`, { headers: authHeaders(wsUrl) });
    const client = new LiveClient(socket);
    open.add(client);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    await until(() => client.messages.length > 0, "the first WebSocket message");
    return client;
  }

  get closed(): boolean {
    return this.#closed;
  }

  send(message: ClientMessage): void {
    this.socket.send(JSON.stringify(message));
  }

  /** Waits for a message (already received or still to come) after index `from` that matches. */
  waitFor<T extends LiveMessage = LiveMessage>(match: (m: LiveMessage) => boolean, what: string, from = 0): Promise<T> {
    return until(() => this.messages.slice(from).find(match) as T | undefined, () => `WebSocket message: ${what}; got types ${this.messages.slice(from).map((m) => m.type).join(",")}`);
  }

  /** The messages of a type received so far. */
  of<K extends LiveMessage["type"]>(type: K): Extract<LiveMessage, { type: K }>[] {
    return this.messages.filter((m) => m.type === type) as Extract<LiveMessage, { type: K }>[];
  }

  get lastSeq(): number {
    let seq = 0;
    for (const m of this.messages) if (m.seq > seq) seq = m.seq;
    return seq;
  }

  async close(): Promise<void> {
    open.delete(this);
    if (this.#closed) return;
    const gone = new Promise((r) => this.socket.once("close", r));
    this.socket.close();
    await gone;
  }
}

export async function closeAllLive(): Promise<void> {
  await Promise.all([...open].map((c) => c.close()));
  const refused = outsideContract.splice(0);
  if (refused.length > 0) throw new Error(`the daemon sent ${refused.length} live message(s) outside the live contract:\n${refused.slice(0, 5).join("\n")}`);
}
