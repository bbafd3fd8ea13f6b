/**
 * A real WebSocket client of `/api/live` (the `ws` package), recording every message. Every frame
 * it receives is read by the live contract's reader (`@colliepwa/shared/live`, strict): what a
 * Collie sends fits the contract its phones and leads read it with; `closeAllLive` fails on any
 * frame that did not.
 */
import type { FastifyInstance } from "fastify";
import { Socket } from "node:net";
import WebSocket from "ws";
import type { ActReply, ClientMessage, LiveFrame, LiveMessage } from "@colliepwa/shared";
import { readLiveText } from "@colliepwa/shared/live";
import { until } from "./wait.ts";
import { authHeaders } from "./tokens.ts";

const open = new Set<LiveClient>();
/** Frames a test's daemon sent that the live contract refuses. */
const outsideContract: string[] = [];

export class LiveClient {
  readonly socket: WebSocket;
  readonly messages: LiveMessage[] = [];
  /** The replies to this client's acts (not numbered, kept apart from the messages). */
  readonly actReplies: ActReply[] = [];
  #nextAct = 0;
  #closed = false;
  readonly #injected: boolean;

  private constructor(socket: WebSocket, injected = false) {
    this.socket = socket;
    this.#injected = injected;
    socket.on("message", (data) => {
      const text = String(data);
      const read = readLiveText(text);
      if (!read.ok) outsideContract.push(`${read.error}: ${text.slice(0, 300)}`);
      const frame = JSON.parse(text) as LiveFrame;
      if (frame.type === "act-reply") this.actReplies.push(frame);
      else this.messages.push(frame);
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

  /**
   * The same client on a daemon that does not listen (helpers/daemon.ts, `inject`): the upgrade
   * goes through `app.injectWS()` with the paired device's token.
   */
  static async inject(d: { daemon: { app: FastifyInstance }; injectHeaders: Record<string, string> }, since?: number): Promise<LiveClient> {
    // @fastify/websocket's injectWS sends `sec-websocket-version` as the number 13, which ws 8.18+
    // refuses (it compares the header's text, as Node's parser gives it); the injected request is
    // emitted on the app's server, so the header is made text there before ws reads it.
    const asText = (req: { headers: Record<string, unknown> }) => {
      req.headers["sec-websocket-version"] = String(req.headers["sec-websocket-version"]);
    };
    d.daemon.app.server.prependOnceListener("upgrade", asText);
    // An injected upgrade has no network connection; the live route counts a WebSocket by its
    // request's socket (connections.ts), so the request gets an unconnected one to be counted by.
    // The client listens from the start (`onInit`): the route sends its first message as soon as
    // the upgrade is done, before the promise of injectWS resolves.
    let client: LiveClient | undefined;
    const onInit = (ws: WebSocket) => {
      client = new LiveClient(ws, true);
      open.add(client);
    };
    await d.daemon.app.injectWS(`/api/live${since === undefined ? "" : `?since=${since}`}`, { headers: d.injectHeaders, socket: new Socket() } as { headers: Record<string, string> }, { onInit });
    await until(() => client!.messages.length > 0, "the first WebSocket message");
    return client!;
  }

  get closed(): boolean {
    return this.#closed;
  }

  send(message: ClientMessage): void {
    this.socket.send(JSON.stringify(message));
  }

  /** Sends an action as an `act` (the POST it stands for) and waits for its reply. */
  async act(path: string, body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
    const id = this.#nextAct++;
    this.send({ type: "act", id, path, body });
    const reply = await until(() => this.actReplies.find((r) => r.id === id), `the reply to act ${id} (${path})`);
    return { status: reply.status, body: reply.body };
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
    // An injected connection has no network socket to end after the close handshake; ws would
    // wait its 30 s close timeout, so it is cut at once (the daemon's side closes with its app).
    if (this.#injected) this.socket.terminate();
    else this.socket.close();
    await gone;
  }
}

export async function closeAllLive(): Promise<void> {
  await Promise.all([...open].map((c) => c.close()));
  const refused = outsideContract.splice(0);
  if (refused.length > 0) throw new Error(`the daemon sent ${refused.length} live message(s) outside the live contract:\n${refused.slice(0, 5).join("\n")}`);
}
