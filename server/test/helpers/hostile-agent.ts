/**
 * A scripted "agent" for the fuzz and fault suites: a bare `node:http` server on a Unix socket whose
 * every reply comes from a function of the request, and may be anything — bytes that are not JSON
 * or not UTF-8, any status, a reset connection, a reply that never comes (a stalled agent) or comes
 * late. It does not use the SDK, so it can send what the SDK never would (L-2).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface HostileRequest {
  method: string;
  url: URL;
  body: Buffer;
}

export type HostileReply =
  | { status: number; body: string | Buffer; headers?: Record<string, string> }
  /** Never answer (the connection stays open until the caller gives up or the agent closes). */
  | { stall: true }
  /** Reset the connection without a reply. */
  | { destroy: true }
  /** Answer after a delay. */
  | { delayMs: number; then: HostileReply };

export class HostileAgent {
  /** Requests received, by kind: `hello`, `events`, `write`, `read`. */
  readonly counts = { hello: 0, events: 0, write: 0, read: 0 };
  respond: (req: HostileRequest) => HostileReply;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #socketOf = new WeakMap<ServerResponse, Socket>();

  constructor(respond: (req: HostileRequest) => HostileReply) {
    this.respond = respond;
    this.#server = createServer((req, res) => this.#handle(req, res));
    this.#server.on("connection", (s: Socket) => {
      this.#sockets.add(s);
      s.once("close", () => this.#sockets.delete(s));
    });
    // A caller that sends garbage must not make this fake throw.
    this.#server.on("clientError", (_err, socket) => socket.destroy());
  }

  listen(socketPath: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(socketPath, () => resolve());
    });
  }

  /** Connections open right now (a stalled reply keeps one). */
  get connections(): number {
    return this.#sockets.size;
  }

  async close(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    // The request's socket, always set (a response queued behind another on the connection has
    // none yet), so a `destroy` reply resets the connection even then.
    this.#socketOf.set(res, req.socket);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("error", () => {});
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://agent");
      const method = req.method ?? "GET";
      if (url.pathname === "/durable/hello") this.counts.hello++;
      else if (url.pathname.endsWith("/events")) this.counts.events++;
      else if (method === "POST") this.counts.write++;
      else this.counts.read++;
      this.#send(res, this.respond({ method, url, body: Buffer.concat(chunks) }));
    });
  }

  #send(res: ServerResponse, reply: HostileReply): void {
    if (res.destroyed) return;
    if ("stall" in reply) return;
    if ("destroy" in reply) {
      this.#socketOf.get(res)?.destroy();
      return;
    }
    if ("delayMs" in reply) {
      const t = setTimeout(() => {
        this.#timers.delete(t);
        this.#send(res, reply.then);
      }, reply.delayMs);
      this.#timers.add(t);
      return;
    }
    const body = typeof reply.body === "string" ? Buffer.from(reply.body, "utf8") : reply.body;
    try {
      res.writeHead(reply.status, { "content-type": "application/json", "content-length": body.length, ...reply.headers });
      res.end(body);
    } catch {
      // a status or header node refuses to write: reset instead
      this.#socketOf.get(res)?.destroy();
    }
  }
}
