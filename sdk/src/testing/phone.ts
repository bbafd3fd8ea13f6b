/**
 * A fake Collie/phone for agent authors' own tests (S-2 `./testing`): it speaks the real durable
 * wire, reads the layout and panes, waits for asks, and sends every phone action with a request
 * id, so replays can be tested too. It connects over the real socket (or https with a token), or
 * in memory: `connectPhone({core})` calls `core.request()` directly, with no socket, for tests of
 * what the agent does rather than of how it is reached.
 */
import { randomUUID } from "node:crypto";
import { Agent as HttpAgent, request as httpRequest, type RequestOptions } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { WireEndpoint } from "../core/request.ts";
import { COLLIE_WIRE_HEADER, WIRE_VERSION, WIRE_VERSIONS, wirePrefix } from "../wire/constants.ts";
import { routePath, type RouteName } from "../wire/routes.ts";
import type {
  Answer, Ask, EventsPage, Hello, HistoryItemsPage, HistoryPage, Layout, PaneViewPage, StartersPage, Target,
} from "../wire/types.ts";

/** What the in-memory connection calls: a `DurableCore` (or anything with its `request()`). */
export type { WireEndpoint };

/**
 * Where the fake phone connects: a socket path, or an https/http URL with a token. A socket may
 * carry a token too, for a `createCore` handler an agent mounts on a socket of its own. `{core}`
 * connects in memory: each request is a `core.request()` call, its reply passed through JSON as
 * it would be on the wire.
 */
export type PhoneTarget =
  | string
  | { socket: string; token?: string }
  | { url: string; token?: string; ca?: string | Buffer }
  | { core: WireEndpoint; token?: string };

/** The reply to a request: HTTP status and parsed JSON body. */
export interface PhoneReply<T = Record<string, unknown>> {
  status: number;
  body: T;
}

export interface WriteOptions {
  /** Reuse a request id to test replays; default a fresh UUID. */
  requestId?: string;
}

/** How a request reaches the agent: as the JSON text the agent answered. */
interface Connection {
  send(method: string, path: string, headers: Record<string, string>, payload: string | undefined): Promise<{ status: number; text: string }>;
  close(): void;
}

/** Over `node:http` / `node:https`: a Unix socket, or a URL. */
class SocketConnection implements Connection {
  readonly #target: { socket: string } | { url: URL; ca?: string | Buffer };
  readonly #agent: HttpAgent;

  constructor(target: { socket: string } | { url: URL; ca?: string | Buffer }) {
    this.#target = target;
    this.#agent = "url" in target && target.url.protocol === "https:"
      ? new HttpsAgent({ keepAlive: true, ...(target.ca ? { ca: target.ca } : {}) })
      : new HttpAgent({ keepAlive: true });
  }

  send(method: string, path: string, headers: Record<string, string>, payload: string | undefined): Promise<{ status: number; text: string }> {
    const opts: RequestOptions = { method, path, agent: this.#agent, headers };
    let send = httpRequest;
    if ("socket" in this.#target) opts.socketPath = this.#target.socket;
    else {
      opts.hostname = this.#target.url.hostname;
      opts.port = this.#target.url.port;
      if (this.#target.url.protocol === "https:") send = httpsRequest as typeof httpRequest;
    }
    return new Promise((resolve, reject) => {
      const req = send(opts, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(payload);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

/**
 * In memory: each request is one `core.request()` call with header names in lower case, as
 * `node:http` gives them. `close()` is the phone going away: a request still waiting (a parked
 * long-poll) is aborted and rejects, as a cut connection would.
 */
class MemoryConnection implements Connection {
  readonly #core: WireEndpoint;
  readonly #open = new Set<AbortController>();

  constructor(core: WireEndpoint) {
    this.#core = core;
  }

  async send(method: string, path: string, headers: Record<string, string>, payload: string | undefined): Promise<{ status: number; text: string }> {
    const gone = new AbortController();
    this.#open.add(gone);
    try {
      const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
      const cut = new Promise<never>((_, reject) => gone.signal.addEventListener("abort", () => reject(new Error("the phone disconnected")), { once: true }));
      const reply = await Promise.race([
        this.#core.request({ method, path, headers: lower, ...(payload !== undefined ? { body: payload } : {}), signal: gone.signal }),
        cut,
      ]);
      return { status: reply.status, text: JSON.stringify(reply.body) };
    } finally {
      this.#open.delete(gone);
    }
  }

  close(): void {
    for (const gone of this.#open) gone.abort();
  }
}

export class FakePhone {
  readonly #connection: Connection;
  readonly #token: string | undefined;
  /** Sent as `Collie-Wire`; change it to test a version mismatch. */
  collieWire: string = WIRE_VERSIONS.join(", ");
  #cursor: string | undefined;

  constructor(target: PhoneTarget) {
    if (typeof target === "string") this.#connection = new SocketConnection({ socket: target });
    else if ("core" in target) this.#connection = new MemoryConnection(target.core);
    else if ("socket" in target) this.#connection = new SocketConnection({ socket: target.socket });
    else this.#connection = new SocketConnection({ url: new URL(target.url), ...(target.ca ? { ca: target.ca } : {}) });
    this.#token = typeof target === "string" ? undefined : target.token || undefined;
  }

  /** Sends a raw request; `path` is the full path (e.g. `/durable/v1/layout`). */
  async request<T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<PhoneReply<T>> {
    const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const all: Record<string, string> = {
      [COLLIE_WIRE_HEADER]: this.collieWire,
      ...(payload !== undefined ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) } : {}),
      ...headers,
    };
    if (this.#token && !("authorization" in headers)) all.authorization = `Bearer ${this.#token}`;
    const { status, text } = await this.#connection.send(method, path, all, payload);
    try {
      return { status, body: (text ? JSON.parse(text) : {}) as T };
    } catch {
      throw new Error(`not JSON (${status}): ${text.slice(0, 200)}`);
    }
  }

  #get<T>(name: RouteName, params: Record<string, string> = {}, query = ""): Promise<PhoneReply<T>> {
    return this.request<T>("GET", `${wirePrefix(WIRE_VERSION)}${routePath(name, params)}${query}`);
  }

  #post(name: RouteName, params: Record<string, string>, body: Record<string, unknown>, opts: WriteOptions): Promise<PhoneReply> {
    return this.request("POST", `${wirePrefix(WIRE_VERSION)}${routePath(name, params)}`, { requestId: opts.requestId ?? randomUUID(), ...body });
  }

  async hello(): Promise<Hello> {
    return ok(await this.request<Hello>("GET", "/durable/hello"));
  }
  async layout(): Promise<Layout> {
    return ok(await this.#get<Layout>("layout"));
  }
  async pane(paneId: string): Promise<PaneViewPage> {
    return ok(await this.#get<PaneViewPage>("pane", { pane: paneId }));
  }
  /** One events read; `after` defaults to where the last read ended. */
  async events(opts: { after?: string | null; wait?: number; viewItems?: number } = {}): Promise<EventsPage> {
    const after = opts.after === undefined ? this.#cursor : opts.after ?? undefined;
    const q = new URLSearchParams();
    if (after) q.set("after", after);
    if (opts.wait) q.set("wait", String(opts.wait));
    if (opts.viewItems !== undefined) q.set("viewItems", String(opts.viewItems));
    const page = ok(await this.#get<EventsPage>("events", {}, q.size ? `?${q}` : ""));
    this.#cursor = page.cursor;
    return page;
  }
  async history(query: { after?: string; limit?: number } = {}): Promise<PhoneReply<HistoryPage>> {
    const q = pageParams(query);
    return this.#get<HistoryPage>("history", {}, q.size ? `?${q}` : "");
  }
  async historyItems(sessionId: string, query: { after?: string; limit?: number } = {}): Promise<PhoneReply<HistoryItemsPage>> {
    const q = pageParams(query);
    return this.#get<HistoryItemsPage>("historyItems", { session: sessionId }, q.size ? `?${q}` : "");
  }
  async starters(): Promise<PhoneReply<StartersPage>> {
    return this.#get<StartersPage>("starters");
  }

  /**
   * Waits for an open ask (in `paneId`, if given, matching `where`, if given), following the
   * events long-poll: no fixed poll delay. Rejects after `timeoutMs`.
   */
  async waitForAsk(opts: { paneId?: string; where?: (ask: Ask) => boolean; timeoutMs?: number } = {}): Promise<Ask> {
    const deadline = Date.now() + (opts.timeoutMs ?? 5000);
    const fits = (a: Ask) => (!opts.paneId || a.paneId === opts.paneId) && (!opts.where || opts.where(a));
    const open = new Map<string, Ask>();
    let page = await this.events({ after: null });
    for (;;) {
      if (page.reset) open.clear();
      for (const view of page.views) {
        for (const [id, a] of open) if (a.paneId === view.pane.id) open.delete(id);
        for (const a of view.asks) open.set(a.id, a);
      }
      for (const e of page.events) {
        if (e.type === "ask") open.set(e.ask.id, e.ask);
        if (e.type === "ask-closed") open.delete(e.askId);
      }
      const found = [...open.values()].find(fits);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("no matching ask appeared in time");
      page = await this.events({ wait: Math.min(left, 60_000) });
    }
  }

  answer(ask: Pick<Ask, "paneId" | "id" | "revision">, answer: Answer, opts: WriteOptions & { revision?: string } = {}): Promise<PhoneReply> {
    return this.#post("answer", { pane: ask.paneId, ask: ask.id }, { revision: opts.revision ?? ask.revision, answer }, opts);
  }
  send(paneId: string, text: string, opts: WriteOptions = {}): Promise<PhoneReply> {
    return this.#post("send", { pane: paneId }, { text }, opts);
  }
  steer(paneId: string, text: string, turnId: string | null, opts: WriteOptions = {}): Promise<PhoneReply> {
    return this.#post("steer", { pane: paneId }, { text, turnId }, opts);
  }
  stop(paneId: string, turnId: string | null, opts: WriteOptions = {}): Promise<PhoneReply> {
    return this.#post("stop", { pane: paneId }, { turnId }, opts);
  }
  action(paneId: string, actionId: string, turnId: string | null, opts: WriteOptions = {}): Promise<PhoneReply> {
    return this.#post("action", { pane: paneId, action: actionId }, { turnId }, opts);
  }
  rename(target: Target, title: string, opts: WriteOptions = {}): Promise<PhoneReply> {
    return this.#post("rename", {}, { target, title }, opts);
  }
  close(target: Target, opts: WriteOptions = {}): Promise<PhoneReply> {
    return this.#post("close", {}, { target }, opts);
  }
  reopen(target: Target, opts: WriteOptions = {}): Promise<PhoneReply> {
    return this.#post("reopen", {}, { target }, opts);
  }
  starter(starterId: string, opts: WriteOptions = {}): Promise<PhoneReply> {
    return this.#post("starter", { starter: starterId }, {}, opts);
  }

  /** Closes the keep-alive connections (in memory: cuts the requests still waiting). */
  disconnect(): void {
    this.#connection.close();
  }
}

function pageParams(query: { after?: string; limit?: number }): URLSearchParams {
  const q = new URLSearchParams();
  if (query.after !== undefined) q.set("after", query.after);
  if (query.limit !== undefined) q.set("limit", String(query.limit));
  return q;
}

function ok<T>(reply: PhoneReply<T>): T {
  if (reply.status !== 200) throw new Error(`durable agent answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** Connects a fake phone to an agent's socket (or URL), or in memory to a core (`{core}`). */
export function connectPhone(target: PhoneTarget): FakePhone {
  return new FakePhone(target);
}
