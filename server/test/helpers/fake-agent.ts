/**
 * A fake durable agent in the test process: a bare `node:http` server on a Unix socket (or on
 * 127.0.0.1 with a bearer token) that speaks just enough of the wire to be scripted. It does not
 * use the SDK, so it can send what the SDK never would: another wire version, malformed JSON,
 * oversized or hostile text, unknown event types (L-2). Every request is recorded.
 *
 * Events: a read without `after` gets `initial()` (a reset page); a later read gets the next queued
 * page, or waits until one is queued (or the `wait` runs out, then an empty page with the same cursor).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
}

export const FAKE_INSTANCE = "fake0001";

export function fakeHello(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    wire: [1],
    sdk: { name: "fake-sdk", version: "0.0.1" },
    runtime: "node 22.19.0",
    name: "fake",
    // It takes whatever the test scripts, a send during a turn included (`followUp`).
    caps: { asks: true, send: true, steer: true, stop: true, actions: true, rename: true, close: true, reopen: true, starters: true, history: false, followUp: true, terminal: false },
    descendantCheck: false,
    allowAlways: false,
    instance: FAKE_INSTANCE,
    limits: { tailLimit: 500, viewItems: 2000 },
    ...over,
  };
}

export function fakeSummary(id: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id, tabId: "w:t", title: `Pane ${id}`, harness: "fake", sessionId: null, state: "idle",
    actions: [], openAsks: 0, turnId: null, activeAt: "2026-12-02T14:00:00.000Z", ...over,
  };
}

/** A reset page with the given panes (empty views). */
export function resetPage(paneIds: string[], cursor = `${FAKE_INSTANCE}.1`): Record<string, unknown> {
  const panes = paneIds.map((id) => fakeSummary(id));
  return {
    cursor,
    reset: true,
    layout: { ready: true, workspaces: [{ id: "w", title: "Fake work" }], tabs: [{ id: "w:t", workspaceId: "w", title: "Tab" }], panes },
    views: panes.map((pane) => ({ pane, items: [], itemsCut: false, asks: [] })),
    events: [],
  };
}

export class FakeAgent {
  readonly requests: RecordedRequest[] = [];
  hello: Record<string, unknown>;
  /** The body of a read without `after` (a string is sent as it is). */
  initial: () => unknown;
  /** The reply to a write (POST): status and body (a string is sent as it is). */
  write: (path: string, body: string) => { status: number; body: unknown } = () => ({ status: 404, body: { error: "not-found", message: "No such route." } });
  /** The reply to any other read (history, items, starters, a pane): undefined answers 404. */
  read: (path: string) => { status: number; body: unknown } | undefined = () => undefined;
  /** Required as `Authorization: Bearer <token>` when set. */
  token: string | undefined;
  #queue: unknown[] = [];
  #cursor = `${FAKE_INSTANCE}.1`;
  #waiting: { res: ServerResponse; timer: NodeJS.Timeout }[] = [];
  readonly #server: Server;

  constructor(opts: { hello?: Record<string, unknown>; panes?: string[]; token?: string } = {}) {
    this.hello = opts.hello ?? fakeHello();
    const panes = opts.panes ?? ["f1"];
    this.initial = () => resetPage(panes);
    this.token = opts.token;
    this.#server = createServer((req, res) => this.#handle(req, res));
  }

  listen(where: { socket: string } | { tcp: true }): Promise<void> {
    return new Promise((resolve) => {
      if ("socket" in where) this.#server.listen(where.socket, resolve);
      else this.#server.listen(0, "127.0.0.1", resolve);
    });
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** Queues an events page (an object gets JSON; a string goes out as it is). */
  push(page: unknown): void {
    if (typeof page === "object" && page !== null && typeof (page as { cursor?: unknown }).cursor === "string") this.#cursor = (page as { cursor: string }).cursor;
    this.#queue.push(page);
    const w = this.#waiting.shift();
    if (w) {
      clearTimeout(w.timer);
      this.#send(w.res, 200, this.#queue.shift());
    }
  }

  /** The number of event reads that came after the first page. */
  get followReads(): number {
    return this.requests.filter((r) => r.path.includes("/events?after=")).length;
  }

  async close(): Promise<void> {
    for (const w of this.#waiting.splice(0)) {
      clearTimeout(w.timer);
      w.res.destroy();
    }
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    this.requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers });
    if (this.token !== undefined && req.headers.authorization !== `Bearer ${this.token}`) {
      this.#send(res, 401, { error: "unauthorized", message: "A valid bearer token is required." });
      return;
    }
    if (req.method === "POST") {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const reply = this.write(req.url ?? "", Buffer.concat(chunks).toString("utf8"));
        this.#send(res, reply.status, reply.body);
      });
      return;
    }
    const url = new URL(req.url ?? "/", "http://fake");
    if (url.pathname === "/durable/hello") return this.#send(res, 200, this.hello);
    if (url.pathname === "/durable/v1/events") {
      if (!url.searchParams.has("after")) return this.#send(res, 200, this.initial());
      if (this.#queue.length > 0) return this.#send(res, 200, this.#queue.shift());
      const wait = Number(url.searchParams.get("wait") ?? 0);
      const timer = setTimeout(() => {
        this.#waiting = this.#waiting.filter((w) => w.res !== res);
        this.#send(res, 200, { cursor: this.#cursor, reset: false, views: [], events: [] });
      }, wait);
      this.#waiting.push({ res, timer });
      res.once("close", () => {
        clearTimeout(timer);
        this.#waiting = this.#waiting.filter((w) => w.res !== res);
      });
      return;
    }
    const other = this.read(req.url ?? "");
    if (other) return this.#send(res, other.status, other.body);
    this.#send(res, 404, { error: "not-found", message: "No such route." });
  }

  #send(res: ServerResponse, status: number, body: unknown): void {
    if (res.headersSent || res.destroyed) return;
    const text = typeof body === "string" ? body : JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  }
}
