/**
 * The durable core (S-6): the layout handle an agent builds its panes with, and `request()`, which
 * serves the durable wire v1 (docs/wire.md) for it as request → reply, with no transport. What
 * each route does is the handler map (handlers.ts); receipts are idempotency.ts; the parked events
 * read is long-poll.ts. `openCollie` mounts the core on a private Unix socket through the
 * `node:http` adapter (transport/node-http.ts); an agent serving over TLS mounts `core.handler`,
 * the same adapter, in its own `node:https` server, guarded by a bearer token.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ALL_CAPS, CAP_NAMES, COLLIE_WIRE_HEADER, LIMITS, WIRE_ROOT, WIRE_VERSION, WIRE_VERSIONS } from "../wire/constants.ts";
import { parseWith } from "../wire/check.ts";
import { WRITE_BODY_CHECKERS } from "../wire/messages.ts";
import {
  isWriteMatch, matchRoute, ROUTES, type ReadRouteName, type RouteMatch, type RouteParams, type RouteReplies, type WriteRouteName,
} from "../wire/routes.ts";
import { assertId, cleanText } from "../wire/rules.ts";
import type { CapName, Caps, Hello, Layout, Starter, WriteBodies } from "../wire/types.ts";
import { serveNode } from "../transport/node-http.ts";
import { systemClock, type Clock } from "./clock.ts";
import { EventLog } from "./event-log.ts";
import { readHandlers, writeHandlers, type HistoryProvider, type ReadHandlers, type WriteHandler, type WriteHandlers } from "./handlers.ts";
import { Refusal, type Hooks } from "./hooks.ts";
import { sha256 } from "./ids.ts";
import { Idempotency } from "./idempotency.ts";
import { Pane, Workspace, type PaneHost } from "./layout.ts";
import { MemoryReceiptStore, type ReceiptRecord, type ReceiptStore } from "./receipts.ts";
import {
  BodyTooLarge, errorOutcome, INTERNAL_MESSAGE, REPLY_HEADERS, TOO_LARGE_MESSAGE, WireFailure, type WireBody, type WireReply, type WireRequest,
} from "./request.ts";
import { SDK_NAME, SDK_VERSION } from "./version.ts";

export type { HistoryProvider } from "./handlers.ts";

/** Options both `openCollie` and `createCore` take. */
export interface CommonOptions {
  /** The name the agent gives itself; the phone shows it on line 2 (P-2). */
  hostName?: string;
  /** The complete cap list; omitted turns on everything (S-33). Spread ALL_CAPS to turn one off. */
  caps?: Partial<Caps>;
  /** Events each pane keeps for Collie's reads (S-32); default 500. */
  tailLimit?: number;
  /** Where the version-mismatch line goes (S-34); default console.warn. */
  warn?: (line: string) => void;
  hooks?: Hooks;
  starters?: Starter[];
  /** For tests: the clock the core reads and sets timers on. */
  clock?: Clock;
}

/** Options of `createCore` (S-6). */
export interface CoreOptions extends CommonOptions {
  /**
   * The bearer token every request must carry (at least 16 characters); compared in constant
   * time. Required by `createCore` (S-6): its handler is served without the socket's owner-only
   * gate, so the token is all that stands between the agent and the network.
   */
  token?: string;
  /** Where receipts live; default a MemoryReceiptStore (S-28). */
  receipts?: ReceiptStore;
  /** Whether asks may offer allow-always. Default false: over https the token is the only gate (S-27). */
  allowAlways?: boolean;
  /**
   * @internal set by a transport that can tell who calls (S-7): hello then says descendantCheck,
   * and a write runs only when its request carries a `callerAllowed` verdict that allows it.
   */
  callerCheck?: boolean;
}

const CLOSED_PANES_KEPT = 1000;
/** A versioned wire path: its version and the route's path under it. */
const VERSIONED_PATH = /^\/durable\/v(\d+)(\/.*)$/;
const BEARER = /^Bearer (.+)$/i;

export class DurableCore implements PaneHost {
  readonly log: EventLog;
  readonly clock: Clock;
  readonly allowAlways: boolean;
  readonly panes = new Map<string, Pane>();
  readonly alwaysAllowed = new Set<string>();
  readonly #workspaces = new Map<string, Workspace>();
  /** Panes this process closed, for reopen without a hook (S-30). */
  readonly #closedPanes = new Map<string, Pane>();
  readonly #name: string | null;
  readonly #capsGiven: Partial<Caps> | undefined;
  readonly #tokenDigest: Buffer | undefined;
  readonly #warn: (line: string) => void;
  readonly #warned = new Set<number>();
  /** The last Collie-Wire header that named a version this agent speaks. */
  #versionHeaderOk: string | undefined;
  readonly #callerCheck: boolean;
  readonly #idempotency: Idempotency;
  readonly #reads: ReadHandlers;
  readonly #writes: WriteHandlers;
  #starters: Starter[] = [];
  #history: HistoryProvider | undefined;
  #ready = false;

  constructor(opts: CoreOptions = {}) {
    const tailLimit = opts.tailLimit ?? LIMITS.tailLimit;
    if (!Number.isInteger(tailLimit) || tailLimit < 1) throw new RangeError(`tailLimit ${tailLimit} must be a positive integer`);
    if (opts.hostName !== undefined && typeof opts.hostName !== "string") throw new TypeError("hostName must be a string");
    if (opts.token !== undefined && (typeof opts.token !== "string" || opts.token.length < 16)) {
      throw new TypeError("token must be a string of at least 16 characters");
    }
    this.clock = opts.clock ?? systemClock;
    this.log = new EventLog(randomBytes(8).toString("hex"), tailLimit);
    this.allowAlways = opts.allowAlways ?? false;
    this.#name = opts.hostName ? cleanText(opts.hostName, LIMITS.titleBytes, { singleLine: true }).text : null;
    if (opts.caps !== undefined) {
      for (const key of Object.keys(opts.caps)) {
        if (!(CAP_NAMES as readonly string[]).includes(key)) throw new TypeError(`unknown cap ${JSON.stringify(key)}; caps are ${CAP_NAMES.join(", ")}`);
      }
    }
    this.#capsGiven = opts.caps;
    const hooks: Hooks = { ...opts.hooks };
    this.#idempotency = new Idempotency(opts.receipts ?? new MemoryReceiptStore());
    this.#tokenDigest = opts.token === undefined ? undefined : digest(opts.token);
    this.#warn = opts.warn ?? ((line) => console.warn(line));
    this.#callerCheck = opts.callerCheck === true;
    if (opts.starters) this.setStarters(opts.starters);
    const host = {
      log: this.log,
      panes: this.panes,
      workspaces: this.#workspaces,
      closedPanes: this.#closedPanes,
      hooks,
      layout: () => this.layout(),
      hello: () => this.hello(),
      history: () => this.#history,
      starters: () => this.#starters,
      removePane: (pane: Pane, by: "program" | "phone") => this.removePane(pane, by),
      layoutChanged: () => this.layoutChanged(),
    };
    this.#reads = readHandlers(host);
    this.#writes = writeHandlers(host);
    this.handler = this.handler.bind(this);
  }

  get hasHistory(): boolean {
    return this.#history !== undefined;
  }

  /** The effective caps (S-33): given caps are the complete list; history needs a provider; terminal is false. */
  get caps(): Caps {
    const on = (cap: CapName): boolean => this.#capOn(cap);
    return {
      asks: on("asks"), send: on("send"), steer: on("steer"), stop: on("stop"), actions: on("actions"), rename: on("rename"),
      close: on("close"), reopen: on("reopen"), starters: on("starters"), history: on("history"),
      followUp: on("followUp"), terminal: false,
    };
  }

  /** One effective cap (the rules of `caps`), without building the whole object: asked on every request. */
  #capOn(cap: CapName): boolean {
    if (cap === "terminal") return false;
    if (cap === "history" && this.#history === undefined) return false;
    const given = this.#capsGiven;
    return given === undefined ? ALL_CAPS[cap] : given[cap] === true;
  }

  /** Returns the workspace with this id, creating it the first time (S-9). */
  workspace(id: string, opts: { title?: string } = {}): Workspace {
    assertId(id, "workspace id", { noColon: true });
    const existing = this.#workspaces.get(id);
    if (existing) return existing;
    if (opts.title !== undefined && typeof opts.title !== "string") throw new TypeError("workspace title must be a string");
    const ws = new Workspace(this, id, cleanText(opts.title ?? "", LIMITS.titleBytes, { singleLine: true }).text);
    this.#workspaces.set(id, ws);
    this.layoutChanged();
    return ws;
  }

  /** Tells Collie the layout is complete (S-9). */
  ready(): void {
    if (this.#ready) return;
    this.#ready = true;
    this.layoutChanged();
  }

  /** Serves the agent's own history (S-31); turns the history cap on unless the given caps leave it out. */
  history(provider: HistoryProvider): void {
    if (!provider || typeof provider.list !== "function" || typeof provider.items !== "function") {
      throw new TypeError("history(provider) needs list() and items()");
    }
    this.#history = provider;
    provider.bind?.(this);
    this.layoutChanged();
  }

  /** Sets the starters the phone's New page lists (P-25). */
  setStarters(starters: Starter[]): void {
    if (!Array.isArray(starters) || starters.length > 64) throw new RangeError("starters must be an array of at most 64");
    const seen = new Set<string>();
    this.#starters = starters.map((s) => {
      assertId(s?.id, "starter id");
      if (seen.has(s.id)) throw new TypeError(`starter id ${JSON.stringify(s.id)} is used twice`);
      seen.add(s.id);
      if (typeof s.title !== "string" || s.title.length === 0) throw new TypeError("a starter needs a title");
      const out: Starter = { id: s.id, title: cleanText(s.title, LIMITS.titleBytes, { singleLine: true }).text };
      if (s.subtitle !== undefined) out.subtitle = cleanText(String(s.subtitle), LIMITS.subtitleBytes, { singleLine: true }).text;
      if (s.icon !== undefined) out.icon = String(s.icon).slice(0, 32);
      return out;
    });
  }

  /** Finds an open pane by id. */
  pane(id: string): Pane | undefined {
    return this.panes.get(id);
  }

  hello(): Hello {
    return {
      wire: [...WIRE_VERSIONS],
      sdk: { name: SDK_NAME, version: SDK_VERSION },
      runtime: runtimeName(),
      name: this.#name,
      caps: this.caps,
      descendantCheck: this.#callerCheck,
      allowAlways: this.allowAlways,
      instance: this.log.instance,
      limits: { tailLimit: this.log.tailLimit, viewItems: LIMITS.viewItems },
    };
  }

  layout(): Layout {
    const workspaces = [...this.#workspaces.values()];
    const tabs = workspaces.flatMap((ws) => [...ws.tabs.values()]);
    return {
      ready: this.#ready,
      workspaces: workspaces.map((w) => w.summary()),
      tabs: tabs.map((t) => t.summary()),
      panes: tabs.flatMap((t) => [...t.panes.values()].map((p) => p.summary())),
    };
  }

  /** @internal */
  layoutChanged(): void {
    this.log.layoutChanged();
  }

  /** @internal removes a pane from the layout; its open asks close as `program` (S-24, S-30). */
  removePane(pane: Pane, by: "program" | "phone"): void {
    pane.shutdown(by === "phone");
    pane.tab.panes.delete(pane.id);
    this.panes.delete(pane.id);
    this.log.removePane(pane.id);
    this.#closedPanes.set(pane.id, pane);
    if (this.#closedPanes.size > CLOSED_PANES_KEPT) this.#closedPanes.delete(this.#closedPanes.keys().next().value as string);
    this.#idempotency.dropGroup(`pane:${pane.id}`);
    this.layoutChanged();
  }

  /** The request handler for `node:http` / `node:https` servers (S-6): the node:http adapter over `request()`. */
  handler(req: IncomingMessage, res: ServerResponse): void {
    serveNode(this, req, res);
  }

  /**
   * Serves one request of the durable wire (S-6), transport-free: the token (constant time), the
   * route, the cap, the body and its checks, the descendant check's verdict (S-7), receipts (S-28)
   * and the route's handler, in that order. Never rejects: every failure is a reply (W-5).
   */
  async request(req: WireRequest): Promise<WireReply> {
    let outcome: { status: number; body: object };
    try {
      // Inside the try: a request that is no object at all (`request(null)`) is a reply too.
      if (this.#tokenDigest && !authorized(req?.headers?.authorization, this.#tokenDigest)) {
        return { status: 401, headers: { "www-authenticate": "Bearer", ...REPLY_HEADERS }, body: errorOutcome("unauthorized", "A valid bearer token is required.").body };
      }
      outcome = await this.#route(req);
    } catch (err) {
      outcome = err instanceof WireFailure ? err.outcome : errorOutcome("internal", INTERNAL_MESSAGE);
    }
    return { status: outcome.status, headers: { ...REPLY_HEADERS }, body: outcome.body };
  }

  async #route(req: WireRequest): Promise<{ status: number; body: object }> {
    this.#checkCollieVersion(req.headers?.[COLLIE_WIRE_HEADER]);
    let url: URL;
    try {
      url = new URL(req.path, "http://agent");
    } catch {
      // A request target a transport let through but no URL parser reads (`http://[`, `//[`): the
      // caller's mistake, not the agent's (W-5).
      throw new WireFailure("bad-request", "The request path is not a valid URL.");
    }
    const { method } = req;
    if (url.pathname === `${WIRE_ROOT}/hello`) {
      if (method !== "GET") throw new WireFailure("not-found", "hello is read with GET.");
      return { status: 200, body: await this.#read({ name: "hello", params: {} }, url.searchParams, req.signal) };
    }
    const m = VERSIONED_PATH.exec(url.pathname);
    if (!m) throw new WireFailure("not-found", `No route ${method} ${url.pathname}.`);
    const version = Number(m[1]);
    if (!WIRE_VERSIONS.includes(version)) {
      throw new WireFailure("version-mismatch", `This durable agent speaks wire v${WIRE_VERSION}, not v${version}.`, { speaks: [...WIRE_VERSIONS] });
    }
    const route = matchRoute(method, m[2]!);
    if (!route) throw new WireFailure("not-found", `No route ${method} ${url.pathname}.`);
    const { cap } = ROUTES[route.name];
    if (cap && !this.#capOn(cap)) throw new WireFailure("not-supported", `This durable agent does not support ${cap}.`);
    if (!isWriteMatch(route)) return { status: 200, body: await this.#read(route, url.searchParams, req.signal) };
    return this.#write(route, req);
  }

  #read<K extends ReadRouteName>(route: RouteMatch<K>, query: URLSearchParams, signal: AbortSignal | undefined): RouteReplies[K] | Promise<RouteReplies[K]> {
    return this.#reads[route.name]({ params: route.params, query, signal });
  }

  /** A write (W-4): its body checked, its caller allowed (S-7), then run once per request id (S-28). */
  async #write<K extends WriteRouteName>(route: RouteMatch<K>, req: WireRequest): Promise<ReceiptRecord> {
    const body = parseWith(WRITE_BODY_CHECKERS[route.name], await readJson(req.body));
    if (!body.ok) throw new WireFailure("bad-request", body.error);
    if (this.#callerCheck && !((await req.callerAllowed?.()) ?? false)) {
      throw new WireFailure("caller-refused", "Writes from the durable agent's own process or one it started are refused.");
    }
    const handler: WriteHandler<K> = this.#writes[route.name];
    return this.#idempotency.run(body.value.requestId, handler.group(route.params), () => execute(handler, route.params, body.value));
  }

  #checkCollieVersion(header: string | readonly string[] | undefined): void {
    // Collie sends the same header on every request: one it was fine with is not read again.
    if (typeof header !== "string" || header === this.#versionHeaderOk) return;
    const spoken = header.split(",").map((v) => Number(v.trim())).filter((v) => Number.isInteger(v) && v > 0);
    if (spoken.length === 0 || spoken.some((v) => WIRE_VERSIONS.includes(v))) {
      this.#versionHeaderOk = header;
      return;
    }
    const newest = Math.max(...spoken);
    if (this.#warned.has(newest)) return;
    this.#warned.add(newest);
    this.#warn(`collie: Collie speaks wire v${newest}, this durable agent speaks v${WIRE_VERSION}. Update the agent's SDK, or Collie.`);
  }
}

/** Runs a write's handler; a refusal or a failure becomes an error outcome, which keeps no receipt (S-29). */
async function execute<K extends WriteRouteName>(handler: WriteHandler<K>, params: RouteParams<K>, body: WriteBodies[K]): Promise<ReceiptRecord> {
  try {
    return { status: 200, body: { ok: true, ...(await handler.run({ params, body })) } };
  } catch (err) {
    if (err instanceof WireFailure) return err.outcome;
    if (err instanceof Refusal) return errorOutcome("refused", err.reason ?? "The durable agent refused.", err.reason ? { reason: err.reason } : {});
    return errorOutcome("internal", INTERNAL_MESSAGE);
  }
}

function authorized(header: string | readonly string[] | undefined, tokenDigest: Buffer): boolean {
  const m = typeof header === "string" ? BEARER.exec(header.trim()) : null;
  // Both sides are hashed to equal length first, so the comparison time says nothing about the token.
  return m !== null && timingSafeEqual(digest(m[1]!), tokenDigest);
}

function digest(token: string): Buffer {
  return sha256(token, "buffer");
}

/** The body as JSON: read now if the transport streams it, refused over `LIMITS.bodyBytes`. */
async function readJson(body: WireRequest["body"]): Promise<unknown> {
  const tooLarge = () => new WireFailure("too-large", TOO_LARGE_MESSAGE);
  let raw: WireBody;
  try {
    raw = typeof body === "function" ? await body() : (body ?? "");
  } catch (err) {
    throw err instanceof BodyTooLarge ? tooLarge() : err;
  }
  if (typeof raw !== "string" && !(raw instanceof Uint8Array)) {
    // A transport's mistake as much as the caller's, but no failure of the agent: not a 500.
    throw new WireFailure("bad-request", "The body must be JSON text or bytes.");
  }
  // Text is measured, not encoded and decoded again; `toWellFormed` gives what that round trip
  // gave (a lone surrogate read as U+FFFD).
  const size = typeof raw === "string" ? Buffer.byteLength(raw, "utf8") : raw.byteLength;
  if (size > LIMITS.bodyBytes) throw tooLarge();
  const text = typeof raw === "string" ? raw.toWellFormed() : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    throw new WireFailure("bad-request", "The body is not valid JSON.");
  }
}

function runtimeName(): string {
  const bun = (process.versions as Record<string, string | undefined>).bun;
  return bun ? `bun ${bun}` : `node ${process.versions.node}`;
}

/**
 * Creates the core without a transport (S-6). Mount `core.handler` in your own server, or call
 * `core.request()` from any other; every request must carry `Authorization: Bearer <token>`, so a
 * core without a token (or with one shorter than 16 characters) is a `TypeError` here rather than
 * a handler that serves anyone.
 */
export function createCore(options: CoreOptions): DurableCore {
  const token = (options as CoreOptions | undefined)?.token;
  if (typeof token !== "string" || token.length < 16) {
    throw new TypeError(
      token === undefined
        ? "createCore needs a token: every request must carry Authorization: Bearer <token> (S-6). Pass createCore({token}) with at least 16 characters, e.g. from an environment variable."
        : "createCore's token must be a string of at least 16 characters",
    );
  }
  return new DurableCore(options);
}
