/**
 * The durable core (S-6): the layout handle an agent builds its panes with, and the request
 * handler that serves the durable wire v1 (docs/wire.md) for it. `openCollie` mounts it on a
 * private Unix socket; an agent serving over TLS mounts `core.handler` in its own `node:https`
 * server, guarded by a bearer token.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ALL_CAPS, CAP_NAMES, COLLIE_WIRE_HEADER, LIMITS, WIRE_ROOT, WIRE_VERSION, WIRE_VERSIONS } from "../wire/constants.ts";
import { statusOf, type WireErrorCode } from "../wire/errors.ts";
import { parseWith, type Checker } from "../wire/check.ts";
import { historyItemsPageChecker, historyPageChecker, WRITE_BODY_CHECKERS } from "../wire/messages.ts";
import { matchRoute, ROUTES, type RouteName } from "../wire/routes.ts";
import { assertId, cleanText, isValidCursor } from "../wire/rules.ts";
import type {
  Caps, EventsPage, Hello, HistoryItemsPage, HistoryPage, Layout, Starter, Target,
} from "../wire/types.ts";
import { systemClock, type Clock } from "./clock.ts";
import { EventLog } from "./event-log.ts";
import { Refusal, type HandlerResult, type Hooks, type TargetRef } from "./hooks.ts";
import { Pane, Workspace, type PaneHost, type Tab } from "./layout.ts";
import { MemoryReceiptStore, type ReceiptRecord, type ReceiptStore } from "./receipts.ts";
import { SDK_NAME, SDK_VERSION } from "./version.ts";

/** Reads the agent's own history (S-31). Cursors are the agent's own strings. */
export interface HistoryProvider {
  list(query: { after?: string; limit: number }): HistoryPage | Promise<HistoryPage>;
  /** A conversation's items; null when the session is unknown. */
  items(sessionId: string, query: { after?: string; limit: number }): HistoryItemsPage | null | Promise<HistoryItemsPage | null>;
}

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
  /** @internal set by a transport that can tell who calls (S-7): false refuses a write. */
  callerCheck?: { active: boolean; allow(req: IncomingMessage): boolean | Promise<boolean> };
}

type Reply = ReceiptRecord;
const json = (status: number, body: Record<string, unknown>): Reply => ({ status, body });
const error = (code: WireErrorCode, message: string, extra: Record<string, unknown> = {}): Reply =>
  json(statusOf(code), { error: code, message, ...extra });
const ok = (extra: Record<string, unknown> = {}): Reply => json(200, { ok: true, ...extra });

class HttpError extends Error {
  readonly reply: Reply;
  constructor(reply: Reply) {
    super(String(reply.body.message));
    this.reply = reply;
  }
}

const WRITE_BODIES: Partial<Record<RouteName, Checker<{ requestId: string }>>> = WRITE_BODY_CHECKERS;

const CLOSED_PANES_KEPT = 1000;

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
  readonly #hooks: Hooks;
  readonly #receipts: ReceiptStore;
  readonly #tokenDigest: Buffer | undefined;
  readonly #warn: (line: string) => void;
  readonly #warned = new Set<number>();
  readonly #callerCheck: CoreOptions["callerCheck"];
  readonly #inFlight = new Map<string, Promise<Reply>>();
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
    this.#hooks = { ...opts.hooks };
    this.#receipts = opts.receipts ?? new MemoryReceiptStore();
    this.#tokenDigest = opts.token === undefined ? undefined : digest(opts.token);
    this.#warn = opts.warn ?? ((line) => console.warn(line));
    this.#callerCheck = opts.callerCheck;
    if (opts.starters) this.setStarters(opts.starters);
    this.handler = this.handler.bind(this);
  }

  get hasHistory(): boolean {
    return this.#history !== undefined;
  }

  /** The effective caps (S-33): given caps are the complete list; history needs a provider; terminal is false. */
  get caps(): Caps {
    const base: Record<string, boolean> = { ...(this.#capsGiven === undefined ? ALL_CAPS : Object.fromEntries(CAP_NAMES.map((c) => [c, this.#capsGiven![c] === true]))) };
    base.history = base.history === true && this.#history !== undefined;
    base.terminal = false;
    return base as unknown as Caps;
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
      descendantCheck: this.#callerCheck?.active ?? false,
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
    (this.#receipts as { dropGroup?: (g: string) => void }).dropGroup?.(`pane:${pane.id}`);
    this.layoutChanged();
  }

  /** The request handler for `node:http` / `node:https` servers (S-6). */
  handler(req: IncomingMessage, res: ServerResponse): void {
    this.#handle(req, res).then(
      (reply) => send(res, reply),
      (err: unknown) => send(res, err instanceof HttpError ? err.reply : error("internal", "The durable agent failed while handling the request.")),
    );
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<Reply> {
    if (this.#tokenDigest && !this.#authorized(req)) {
      res.setHeader("www-authenticate", "Bearer");
      return error("unauthorized", "A valid bearer token is required.");
    }
    this.#checkCollieVersion(req.headers[COLLIE_WIRE_HEADER]);
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://agent");
    } catch {
      // A request target node:http let through but no URL parser reads (`http://[`, `//[`): the
      // caller's mistake, not the agent's (W-5).
      return error("bad-request", "The request path is not a valid URL.");
    }
    const method = req.method ?? "GET";
    if (url.pathname === `${WIRE_ROOT}/hello`) {
      return method === "GET" ? json(200, this.hello() as unknown as Record<string, unknown>) : error("not-found", "hello is read with GET.");
    }
    const m = /^\/durable\/v(\d+)(\/.*)$/.exec(url.pathname);
    if (!m) return error("not-found", `No route ${method} ${url.pathname}.`);
    const version = Number(m[1]);
    if (!WIRE_VERSIONS.includes(version)) {
      return error("version-mismatch", `This durable agent speaks wire v${WIRE_VERSION}, not v${version}.`, { speaks: [...WIRE_VERSIONS] });
    }
    const route = matchRoute(method, m[2]!);
    if (!route) return error("not-found", `No route ${method} ${url.pathname}.`);
    const spec = ROUTES[route.name];
    if (spec.cap && !this.caps[spec.cap]) return error("not-supported", `This durable agent does not support ${spec.cap}.`);
    if (!spec.write) return this.#read(route.name, route.params, url, req);

    const body = parseWith(WRITE_BODIES[route.name]!, await readJson(req));
    if (!body.ok) return error("bad-request", body.error);
    if (this.#callerCheck && !(await this.#callerCheck.allow(req))) {
      return error("caller-refused", "Writes from the durable agent's own process or one it started are refused.");
    }
    return this.#write(route.name, route.params, body.value);
  }

  #authorized(req: IncomingMessage): boolean {
    const header = req.headers.authorization;
    const m = typeof header === "string" ? /^Bearer (.+)$/i.exec(header.trim()) : null;
    // Both sides are hashed to equal length first, so the comparison time says nothing about the token.
    return m !== null && timingSafeEqual(digest(m[1]!), this.#tokenDigest!);
  }

  #checkCollieVersion(header: string | string[] | undefined): void {
    if (typeof header !== "string") return;
    const spoken = header.split(",").map((v) => Number(v.trim())).filter((v) => Number.isInteger(v) && v > 0);
    if (spoken.length === 0 || spoken.some((v) => WIRE_VERSIONS.includes(v))) return;
    const newest = Math.max(...spoken);
    if (this.#warned.has(newest)) return;
    this.#warned.add(newest);
    this.#warn(`collie: Collie speaks wire v${newest}, this durable agent speaks v${WIRE_VERSION}. Update the agent's SDK, or Collie.`);
  }

  async #read(name: RouteName, params: Record<string, string>, url: URL, req: IncomingMessage): Promise<Reply> {
    switch (name) {
      case "layout":
        return json(200, this.layout() as unknown as Record<string, unknown>);
      case "events":
        return json(200, (await this.#events(url, req)) as unknown as Record<string, unknown>);
      case "pane": {
        const pane = this.panes.get(params.pane!);
        if (!pane) return error("not-found", `No pane ${JSON.stringify(params.pane)}.`);
        return json(200, { ...pane.view(), cursor: this.log.cursor() });
      }
      case "history": {
        const q = pageQuery(url, LIMITS.historyPage, LIMITS.historyPageMax);
        const page = await this.#history!.list(q);
        const checked = parseWith(historyPageChecker, page);
        if (!checked.ok) return error("internal", `The history provider returned a bad page: ${checked.error}`);
        return json(200, checked.value as unknown as Record<string, unknown>);
      }
      case "historyItems": {
        const q = pageQuery(url, 500, LIMITS.viewItems);
        const page = await this.#history!.items(params.session!, q);
        if (page === null || page === undefined) return error("not-found", `No conversation ${JSON.stringify(params.session)}.`);
        const checked = parseWith(historyItemsPageChecker, page);
        if (!checked.ok) return error("internal", `The history provider returned a bad page: ${checked.error}`);
        return json(200, checked.value as unknown as Record<string, unknown>);
      }
      case "starters":
        return json(200, { starters: this.#starters.map((s) => ({ ...s })) });
      default:
        return error("not-found", "No such read.");
    }
  }

  async #events(url: URL, req: IncomingMessage): Promise<EventsPage> {
    const waitParam = url.searchParams.get("wait");
    const wait = waitParam === null ? 0 : Number(waitParam);
    if (!Number.isInteger(wait) || wait < 0 || wait > LIMITS.maxWaitMs) {
      throw new HttpError(error("bad-request", `wait must be an integer from 0 to ${LIMITS.maxWaitMs}`));
    }
    // viewItems (W-3): a reader that mirrors only a tail of each pane asks for views cut to it;
    // it reads a whole view with GET /panes/:pane when it needs one.
    const viewItemsParam = url.searchParams.get("viewItems");
    const viewItems = viewItemsParam === null ? LIMITS.viewItems : Number(viewItemsParam);
    if (!Number.isInteger(viewItems) || viewItems < 1 || viewItems > LIMITS.viewItems) {
      throw new HttpError(error("bad-request", `viewItems must be an integer from 1 to ${LIMITS.viewItems}`));
    }
    const after = this.log.parseCursor(url.searchParams.get("after"));
    if (after !== null && wait > 0) {
      // Long-poll (W-3): hold the reply until the next change, or until the reader goes away.
      const gone = new AbortController();
      const onClose = () => gone.abort();
      req.socket.once("close", onClose);
      try {
        await this.log.changed(after, wait, gone.signal);
      } finally {
        req.socket.off("close", onClose);
      }
    }
    if (after === null) {
      const panes = [...this.panes.values()];
      return { cursor: this.log.cursor(), reset: true, layout: this.layout(), views: panes.map((p) => p.view(viewItems)), events: [] };
    }
    const read = this.log.read(after);
    const page: EventsPage = { cursor: this.log.cursor(read.seq), reset: false, views: [], events: read.events };
    if (read.layoutChanged) page.layout = this.layout();
    for (const id of read.viewPanes) {
      const pane = this.panes.get(id);
      if (pane) page.views.push(pane.view(viewItems));
    }
    return page;
  }

  /** A write with receipts (S-28): a replay gets the first answer, a dropped id runs nothing. */
  async #write(name: RouteName, params: Record<string, string>, body: { requestId: string }): Promise<Reply> {
    const { requestId } = body;
    const inFlight = this.#inFlight.get(requestId);
    if (inFlight) {
      // A duplicate that came while the first ran gets its answer; only a success is a stored answer.
      const first = await inFlight;
      return first.status >= 200 && first.status < 300 ? replayed(first) : first;
    }
    const known = await this.#receipts.get(requestId);
    if (known === "dropped") return error("receipt-dropped", "This request id was seen before, but its receipt is no longer kept; nothing ran.");
    if (known) return replayed(known);
    const run = this.#execute(name, params, body as never).catch((err: unknown): Reply => {
      if (err instanceof HttpError) return err.reply;
      if (err instanceof Refusal) return error("refused", err.reason ?? "The durable agent refused.", err.reason ? { reason: err.reason } : {});
      return error("internal", "The durable agent failed while handling the request.");
    });
    this.#inFlight.set(requestId, run);
    try {
      const reply = await run;
      if (reply.status >= 200 && reply.status < 300) await this.#receipts.put(requestId, reply, receiptGroup(name, params));
      return reply;
    } finally {
      this.#inFlight.delete(requestId);
    }
  }

  async #execute(name: RouteName, params: Record<string, string>, body: Record<string, unknown> & { requestId: string }): Promise<Reply> {
    const requestId = body.requestId;
    switch (name) {
      case "answer": {
        // An unknown pane is "not open", not "not found": after a restart the agent may raise the
        // same ask again, and Collie holds the answer for it (D-5).
        const pane = this.panes.get(params.pane!);
        if (!pane) return error("ask-not-open", "No such ask is open; it may be raised again in a moment.");
        const b = body as unknown as import("../wire/types.ts").AnswerBody;
        const r = pane.answer(params.ask!, b.revision, b.answer);
        return r.ok ? ok({ decidedAt: r.decidedAt }) : error(r.code as WireErrorCode, r.message, r.extra);
      }
      case "send": {
        const pane = this.#paneOr404(params.pane!);
        const text = body.text as string;
        const handler = pane.handlers.onSend ?? this.#hooks.onSend;
        if (!handler) return error("not-supported", "This conversation takes no messages.");
        const result = await pane.withEcho(text, requestId, () => handler({ pane, text, requestId }));
        return ok(turnOf(result, pane));
      }
      case "steer": {
        const pane = this.#paneOr404(params.pane!);
        const handler = pane.handlers.onSteer ?? this.#hooks.onSteer;
        if (!handler) return error("not-supported", "This conversation cannot be steered.");
        const turnId = body.turnId as string | null;
        if (pane.currentState() === "idle" || turnId !== pane.turnId) return movedOn();
        const text = body.text as string;
        const result = await pane.withEcho(text, requestId, () => handler({ pane, text, turnId, requestId }), true);
        return ok(turnOf(result, pane));
      }
      case "stop": {
        const pane = this.#paneOr404(params.pane!);
        const handler = pane.handlers.onStop ?? this.#hooks.onStop;
        if (!handler) return error("not-supported", "This conversation cannot be stopped.");
        const turnId = body.turnId as string | null;
        // Nothing runs in an idle pane: the turn the phone saw is over (S-20, P-23).
        if ((turnId !== null && turnId !== pane.turnId) || pane.currentState() === "idle") return movedOn();
        await pane.phoneEnding(() => handler({ pane, turnId, requestId }));
        pane.stopTurn();
        return ok();
      }
      case "action": {
        const pane = this.#paneOr404(params.pane!);
        const action = pane.action(params.action!);
        if (!action) return error("not-found", `No button ${JSON.stringify(params.action)} in this conversation.`);
        const handler = pane.handlers.onAction ?? this.#hooks.onAction;
        if (!handler) return error("not-supported", "This conversation's buttons do nothing here.");
        const turnId = body.turnId as string | null;
        if (turnId !== pane.turnId) return movedOn(); // S-20: the conversation moved on
        if (action.busy || action.disabled) return error("refused", `The button is ${action.busy ? "busy" : "disabled"}.`, { reason: action.busy ? "busy" : "disabled" });
        await handler({ pane, actionId: action.id, turnId, requestId });
        return ok();
      }
      case "rename": {
        const target = body.target as Target;
        const ref = this.#resolve(target);
        const title = body.title as string;
        await this.#hooks.onRename?.({ target, ref, title, requestId });
        if (ref.kind === "pane") ref.pane.setTitle(title);
        else if (ref.kind === "tab") ref.tab.setTitle(title);
        else ref.workspace.setTitle(title);
        return ok();
      }
      case "close": {
        const target = body.target as Target;
        const ref = this.#resolve(target);
        const panes = ref.kind === "pane" ? [ref.pane] : ref.kind === "tab" ? [...ref.tab.panes.values()] : [...ref.workspace.tabs.values()].flatMap((t) => [...t.panes.values()]);
        const runHook = async () => this.#hooks.onClose?.({ target, ref, requestId });
        // Asks the hook ends while the phone closes their pane ended because of the phone (P-16).
        await panes.reduceRight<() => Promise<unknown>>((next, pane) => () => pane.phoneEnding(next), runHook)();
        this.#close(ref);
        return ok();
      }
      case "reopen": {
        const target = body.target as Target;
        if (this.#hooks.onReopen) {
          const pane = await this.#hooks.onReopen({ target, requestId });
          if (pane === null) return error("not-found", "There is no such conversation to reopen.");
          if (!(pane instanceof Pane)) throw new Error("onReopen must return a Pane or null");
          return ok({ paneId: pane.id });
        }
        const closed = target.kind === "pane" ? this.#closedPanes.get(target.id) : undefined;
        if (!closed) return error("not-found", "This process did not close that conversation; reopening it needs onReopen (S-30).");
        if (this.panes.has(closed.id)) return error("refused", "A conversation with this id is open again.", { reason: "open" });
        this.#closedPanes.delete(closed.id);
        this.#reattach(closed);
        return ok({ paneId: closed.id });
      }
      case "starter": {
        const starter = this.#starters.find((s) => s.id === params.starter);
        if (!starter) return error("not-found", `No starter ${JSON.stringify(params.starter)}.`);
        if (!this.#hooks.onStarter) return error("not-supported", "This durable agent opens no conversations from starters.");
        const pane = await this.#hooks.onStarter({ starterId: starter.id, requestId });
        if (pane === null) return error("not-found", `The starter ${JSON.stringify(starter.id)} opens nothing now.`);
        if (!(pane instanceof Pane)) throw new Error("onStarter must return a Pane or null");
        return ok({ paneId: pane.id });
      }
      default:
        return error("not-found", "No such write.");
    }
  }

  #paneOr404(id: string): Pane {
    const pane = this.panes.get(id);
    if (!pane) throw new HttpError(error("not-found", `No open conversation ${JSON.stringify(id)}.`));
    return pane;
  }

  #resolve(target: Target): TargetRef {
    if (target.kind === "pane") return { kind: "pane", pane: this.#paneOr404(target.id) };
    if (target.kind === "workspace") {
      const workspace = this.#workspaces.get(target.id);
      if (!workspace) throw new HttpError(error("not-found", `No workspace ${JSON.stringify(target.id)}.`));
      return { kind: "workspace", workspace };
    }
    const [wsId, tabId] = target.id.split(":") as [string, string];
    const tab = this.#workspaces.get(wsId)?.tabs.get(tabId);
    if (!tab) throw new HttpError(error("not-found", `No tab ${JSON.stringify(target.id)}.`));
    return { kind: "tab", tab };
  }

  /** Closes a target with everything in it (S-30). */
  #close(ref: TargetRef): void {
    const tabs: Tab[] = ref.kind === "pane" ? [] : ref.kind === "tab" ? [ref.tab] : [...ref.workspace.tabs.values()];
    const panes = ref.kind === "pane" ? [ref.pane] : tabs.flatMap((t) => [...t.panes.values()]);
    for (const pane of panes) this.removePane(pane, "phone");
    if (ref.kind === "tab") ref.tab.workspace.tabs.delete(ref.tab.localId);
    if (ref.kind === "workspace") this.#workspaces.delete(ref.workspace.id);
    this.layoutChanged();
  }

  /** Puts a pane this process closed back where it was, re-adding its tab and workspace if they went too. */
  #reattach(pane: Pane): void {
    const tab = pane.tab;
    const ws = tab.workspace;
    if (!this.#workspaces.has(ws.id)) this.#workspaces.set(ws.id, ws);
    if (!ws.tabs.has(tab.localId)) ws.tabs.set(tab.localId, tab);
    tab.panes.set(pane.id, pane);
    this.panes.set(pane.id, pane);
    pane.restore();
    this.layoutChanged();
  }
}

function movedOn(): Reply {
  return error("moved-on", "The conversation moved on, so the action did not run.");
}

function turnOf(result: Awaited<HandlerResult>, pane: Pane): Record<string, unknown> {
  const turnId = (result && typeof result === "object" && typeof result.turnId === "string" ? result.turnId : null) ?? pane.turnId;
  return turnId ? { turnId } : {};
}

function replayed(reply: Reply): Reply {
  return { status: reply.status, body: { ...reply.body, replayed: true } };
}

function receiptGroup(name: RouteName, params: Record<string, string>): string {
  switch (name) {
    case "rename": return "renames";
    case "close": return "closes";
    case "reopen": return "reopens";
    case "starter": return "starters";
    default: return `pane:${params.pane}`;
  }
}

function pageQuery(url: URL, def: number, max: number): { after?: string; limit: number } {
  const after = url.searchParams.get("after");
  const limitParam = url.searchParams.get("limit");
  const limit = limitParam === null ? def : Number(limitParam);
  if (!Number.isInteger(limit) || limit < 1 || limit > max) throw new HttpError(error("bad-request", `limit must be an integer from 1 to ${max}`));
  if (after !== null && !isValidCursor(after)) throw new HttpError(error("bad-request", "after must be 1 to 512 bytes of printable ASCII without space"));
  return after === null ? { limit } : { after, limit };
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > LIMITS.bodyBytes) throw new HttpError(error("too-large", `The body is larger than ${LIMITS.bodyBytes} bytes.`));
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(error("bad-request", "The body is not valid JSON."));
  }
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  res.end(body);
}

function runtimeName(): string {
  const bun = (process.versions as Record<string, string | undefined>).bun;
  return bun ? `bun ${bun}` : `node ${process.versions.node}`;
}

/**
 * Creates the core without a transport (S-6). Mount `core.handler` in your own server; every
 * request must carry `Authorization: Bearer <token>`, so a core without a token (or with one
 * shorter than 16 characters) is a `TypeError` here rather than a handler that serves anyone.
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
