/**
 * A fake crew member (C-1) on loopback: a real HTTP server that answers the crew hello and the
 * phone API's reads and writes as a test scripts them, and a real WebSocket at `/api/live` that
 * sends what the test scripts on each connection. For what a hostile or broken member can do that
 * a real member Collie never would.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { WebSocketServer, type WebSocket } from "ws";
import { CREW_HELLO_PATH, CREW_PROTOCOL_VERSION } from "../../src/crew/protocol.ts";

export interface FakeReply {
  status: number;
  /** JSON-encoded unless it is a string already (written as it is). */
  body: unknown;
  /** Bytes written to the socket instead of a reply (a status line no HTTP server writes). */
  raw?: string;
}

export interface FakeMemberOptions {
  /** On each live connection (the lead's), what to send; `n` counts connections from 1. */
  onLive?: (socket: WebSocket, n: number) => void;
  /** Any other request than the hello; 404 when absent or it answers undefined. */
  route?: (req: IncomingMessage, body: string) => FakeReply | undefined;
  /** The hello's reply; `{crew: CREW_PROTOCOL_VERSION}` by default. */
  hello?: (req: IncomingMessage) => FakeReply;
}

const write = (res: ServerResponse, r: FakeReply) => {
  if (r.raw !== undefined) {
    res.socket?.end(r.raw);
    return;
  }
  res.writeHead(r.status, { "content-type": "application/json" });
  res.end(typeof r.body === "string" ? r.body : JSON.stringify(r.body));
};

export class FakeMember {
  readonly server: Server;
  readonly wss: WebSocketServer;
  /** Every request the lead made, in order (method, url, the crew protocol header). */
  readonly requests: { method: string; url: string; crew: string | undefined }[] = [];
  connections = 0;
  #opts: FakeMemberOptions;

  private constructor(opts: FakeMemberOptions) {
    this.#opts = opts;
    this.server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        this.requests.push({ method: req.method ?? "", url: req.url ?? "", crew: req.headers["collie-crew"] as string | undefined });
        if (req.url === CREW_HELLO_PATH) return write(res, this.#opts.hello?.(req) ?? { status: 200, body: { crew: CREW_PROTOCOL_VERSION, collie: "9.0.0" } });
        const r = this.#opts.route?.(req, body);
        write(res, r ?? { status: 404, body: { error: "not-found", message: "No such route." } });
      });
    });
    this.wss = new WebSocketServer({ server: this.server, maxPayload: 256 * 1024 * 1024 });
    this.wss.on("connection", (socket) => {
      this.connections++;
      socket.on("error", () => {});
      this.#opts.onLive?.(socket, this.connections);
    });
  }

  static async start(opts: FakeMemberOptions = {}): Promise<FakeMember> {
    const m = new FakeMember(opts);
    await new Promise<void>((r) => m.server.listen(0, "127.0.0.1", () => r()));
    return m;
  }

  /** Scripts the member anew (the next connection or request reads it). */
  set(opts: FakeMemberOptions): void {
    this.#opts = { ...this.#opts, ...opts };
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  /** The lead's open live connections. */
  get sockets(): WebSocket[] {
    return [...this.wss.clients];
  }

  async close(): Promise<void> {
    for (const c of this.wss.clients) c.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

const AT = "2026-12-02T14:00:00.000Z";

/** A member's agent row as a real member sends it (the live contract). */
export const memberRow = (name: string, extra: Record<string, unknown> = {}) => ({
  name, state: "ready", reach: "local", runtime: "node 22", selfName: null, machine: null, caps: null,
  wire: { agent: 1, collie: 1 }, counts: { open: 1, waiting: 0 }, ...extra,
});

/** A member's open conversation as a real member sends it (the live contract). */
export const memberConversation = (agent: string, id: string, extra: Record<string, unknown> = {}) => ({
  id, tabId: "w:t", title: id, harness: "h", sessionId: null, state: "idle", actions: [], openAsks: 0, turnId: null,
  activeAt: AT, agent, workspaceTitle: "w", ...extra,
});

/** A member's snapshot message. */
export const memberSnapshot = (agents: unknown[], conversations: unknown[] = []) =>
  JSON.stringify({ type: "snapshot", seq: 1, snapshot: { seq: 1, collie: { version: "9.0.0", wire: 1 }, agents, conversations } });
