/**
 * One live connection to a durable agent (D-2, W-3), the Upstream of one agent of this machine:
 * hello, version check, then the events long-poll, re-issued the moment each reply lands (no poll
 * delay between an agent's event and the phone, N-1). On any failure the agent is `unreachable`
 * and the loop retries on the fixed delay table (reconnect.ts); a cursor of the same agent
 * instance resumes without loss, another instance resyncs. What changes is reported as live
 * messages (`UpstreamEvents`); reads and writes go through the gateway (gateway.ts).
 */
import { lstatSync } from "node:fs";
import {
  parseEventsPage, parseHello, parseHistoryItemsPage, parseHistoryPage, parsePaneView, parseStartersPage, routePath, wirePrefix,
  type Ask, type Hello, type HistoryPage, type Parsed, type ReadOptions, type WriteRouteName,
} from "@colliepwa/durable-sdk/wire";
import { compareConversations, type AgentState, type AgentSummary, type Conversation, type ConversationsPage, type PaneDetail } from "@colliepwa/shared";
import { AgentClient, AgentUnreachable, type AgentReply, type Endpoint } from "./client.ts";
import { agentReads, type AgentGateway, type Mask, type Outcome } from "./gateway.ts";
import type { Unnumbered } from "./live.ts";
import { AgentMirror, MIRROR_TAIL_ITEMS, type MirrorChange } from "./mirror.ts";
import { Reconnect } from "./reconnect.ts";
import type { Upstream, UpstreamEvents, UpstreamRead } from "./upstream.ts";
import type { ViewCache } from "./view-cache.ts";
import { maskHistoryPage } from "../push/mask.ts";
import { apiError } from "../errors.ts";
import { COLLIE_WIRE_VERSION, COLLIE_WIRE_VERSIONS } from "../version.ts";

/** How long a long-poll waits at the agent; the request deadline adds a margin for the reply. */
export const EVENTS_WAIT_MS = 25_000;
const HELLO_TIMEOUT_MS = 5_000;
/** How long a phone opening a chat waits for the agent's whole view before it gets the tail. */
const VIEW_READ_TIMEOUT_MS = 10_000;
const MARGIN_MS = 10_000;

/** The wire's checker for each read an agent answers through the gateway. */
const READ_PARSERS: Record<UpstreamRead, (v: unknown, opts: ReadOptions) => Parsed<unknown>> = {
  history: parseHistoryPage,
  historyItems: parseHistoryItemsPage,
  starters: parseStartersPage,
};

export interface ConnectionOptions {
  name: string;
  endpoint: Endpoint;
  /** Where its changes go, as live messages (fanout.ts): its row, conversations, items, asks, views. */
  events: UpstreamEvents;
  /** Its reads and writes, and the held ones it delivers after each page (D-5). */
  gateway: AgentGateway;
  log: (line: string) => void;
  /** Shapes every Conversation of this agent (secret masking, R-1); see AgentMirror. */
  present?: (c: Conversation) => Conversation;
  /** Secret masking of one text (R-1): the self-name, and masked texts before they are cut. */
  mask?: Mask;
  /** The whole views of open chats, shared by every agent (view-cache.ts). */
  views?: ViewCache;
  /** For tests: shorter waits and delays. */
  waitMs?: number;
  retryDelaysMs?: readonly number[];
}

export class AgentConnection implements Upstream {
  readonly name: string;
  /** This machine's own agent: a push names no machine. */
  readonly machine = null;
  readonly client: AgentClient;
  readonly mirror: AgentMirror;
  #state: AgentState = "starting";
  #hello: Hello | null = null;
  #version: number | null = null;
  #problem: string | undefined;
  #cursor: string | null = null;
  #instance: string | null = null;
  /** The highest event seq applied from this instance: a repeated or older seq is ignored (W-3). */
  #seq = 0;
  /** The row as last published, so an unchanged row is not sent again. */
  #published = "";
  readonly #opts: ConnectionOptions;
  /** How every reply of the agent is read (cut, and masked with the options' mask): set once. */
  readonly #reads: ReadOptions;
  readonly #stop = new AbortController();
  readonly #reconnect: Reconnect;
  #loop: Promise<void> | null = null;
  /** Reads of whole views in flight, by pane. */
  readonly #reading = new Map<string, Promise<void>>();
  /** The counts in the row last published (`#countsMoved`). */
  #shown = { open: 0, waiting: 0, notShown: 0 };
  /** Who waits for the agent to leave `starting` (see `settled`). */
  readonly #settling = new Set<() => void>();

  constructor(opts: ConnectionOptions) {
    this.#opts = opts;
    this.#reads = agentReads(opts.mask);
    this.name = opts.name;
    this.client = new AgentClient(opts.endpoint, COLLIE_WIRE_VERSIONS);
    this.#reconnect = new Reconnect(opts.retryDelaysMs);
    this.mirror = new AgentMirror(opts.name, (change) => {
      // A whole view that went stale is read again for its watchers; they never get a tail instead.
      if (change.type === "view-stale") return void this.#reread(change.paneId);
      this.#changed(change);
      if (change.type === "counts" && this.#countsMoved()) this.#publish();
    }, opts.present, opts.views);
  }

  /** A change of the mirror, as the live message the phones get (D-4). */
  #changed(change: MirrorChange): void {
    const live = (m: Unnumbered) => this.#opts.events.live(this, m);
    const agent = this.name;
    switch (change.type) {
      case "conversation": return live({ type: "conversation", conversation: change.conversation });
      case "conversation-removed":
        live({ type: "conversation-removed", agent, id: change.id });
        // A conversation closed with asks open: their notifications go too (U-2).
        if (change.closedAsks.length > 0) this.#opts.events.closedAsks(this, agent, change.id, change.closedAsks);
        return;
      case "item": return live({ type: "item", agent, paneId: change.paneId, item: change.item });
      case "ask": return live({ type: "ask", agent, paneId: change.paneId, ask: change.ask });
      case "ask-closed": return live({ type: "ask-closed", agent, paneId: change.paneId, askId: change.askId, decidedBy: change.decidedBy, title: change.title });
      case "view": return live({ type: "view", agent, paneId: change.paneId, detail: change.detail });
      case "counts":
      case "view-stale":
        return; // the row is published when its counts move; a stale view is read again
    }
  }

  answers(agent: string): boolean {
    return agent === this.name;
  }

  summaries(): AgentSummary[] {
    return [this.summary()];
  }

  /**
   * One page of the agent's open conversations in the home's order (shared `compareConversations`),
   * from `offset`; `next` is the offset of the page after it. An agent that went away keeps its
   * list drawn (what it last showed; its answers are held).
   */
  page(offset: number, limit: number): { conversations: Conversation[]; next?: number } {
    const all = this.mirror.conversations().sort(compareConversations);
    const page = all.slice(offset, offset + limit);
    return offset + limit < all.length ? { conversations: page, next: offset + limit } : { conversations: page };
  }

  firstPages(limit: number): Conversation[] {
    return this.page(0, limit).conversations;
  }

  async conversationsPage(_agent: string, offset: number, limit: number): Promise<Outcome> {
    const page = this.page(offset, limit);
    const body: ConversationsPage = { conversations: page.conversations };
    if (page.next !== undefined) body.next = String(page.next);
    return { status: 200, body: body as unknown as Record<string, unknown> };
  }

  async pane(_agent: string, pane: string): Promise<Outcome> {
    const detail = await this.paneDetail(pane);
    if (!detail) return apiError("not-found", "No such open conversation.");
    return { status: 200, body: detail as unknown as Record<string, unknown> };
  }

  /**
   * History, a closed conversation's items and starters, read from the agent through the gateway
   * and its checkers; the closed conversations' titles and subtitles masked as the open ones (R-1).
   */
  async read(_agent: string, route: UpstreamRead, params: Record<string, string>, query: string): Promise<Outcome> {
    const r = await this.#opts.gateway.read(this, route, params, query, READ_PARSERS[route]);
    if (route !== "history" || r.status !== 200 || !this.#opts.mask) return r;
    return { status: 200, body: maskHistoryPage(r.body as unknown as HistoryPage, this.#opts.mask) as unknown as Record<string, unknown> };
  }

  write(_agent: string, route: WriteRouteName, params: Record<string, string>, body: { requestId: string } & Record<string, unknown>): Promise<Outcome> {
    return this.#opts.gateway.write(this, route, params, body);
  }

  openAsk(_agent: string, pane: string, askId: string): Ask | undefined {
    return this.mirror.ask(pane, askId);
  }

  asksKnown(_agent: string, ms: number): Promise<void> {
    return this.settled(ms);
  }

  watch(_agent: string, pane: string): Promise<PaneDetail | undefined> {
    return this.paneDetail(pane);
  }

  paneTitle(_agent: string, pane: string): string {
    // The row alone: not the chat's whole content (a held view is 2000 items), issue 31.
    return this.mirror.conversation(pane)?.title ?? "";
  }

  get state(): AgentState {
    return this.#state;
  }
  /** The agent process start this connection last said hello to (hello `instance`): another start forgot its turns. */
  get instance(): string | null {
    return this.#instance;
  }

  get hello(): Hello | null {
    return this.#hello;
  }
  /** The wire version both sides speak, once known. */
  get version(): number | null {
    return this.#version;
  }
  /** The path prefix of the negotiated version. */
  get prefix(): string {
    return wirePrefix(this.#version ?? COLLIE_WIRE_VERSION);
  }

  summary(): AgentSummary {
    const ready = this.#state === "ready";
    const s: AgentSummary = {
      name: this.name,
      state: this.#state,
      reach: this.client.reach,
      runtime: this.#hello?.runtime ?? null,
      selfName: this.#hello?.name != null && this.#opts.mask ? this.#opts.mask(this.#hello.name) : (this.#hello?.name ?? null),
      machine: null,
      caps: this.#hello?.caps ?? null,
      wire: { agent: this.#hello ? Math.max(...this.#hello.wire) : null, collie: COLLIE_WIRE_VERSION },
      counts: ready ? this.mirror.counts : { open: 0, waiting: 0 },
    };
    if (this.#problem && this.#state !== "ready") s.problem = this.#problem;
    if (ready && this.mirror.notShown > 0) s.notShown = this.mirror.notShown;
    return s;
  }

  start(): void {
    this.#loop ??= this.#reconnect.run({ connect: (progress) => this.#session(progress), ended: (err) => this.#ended(err) });
  }

  /**
   * A chat's content for a phone that opens it (D-4): the pane's whole view, read from the agent
   * when Collie does not hold it (`GET /panes/:pane`), then held and kept current while it is. When
   * the agent cannot answer, what Collie has: the tail. Undefined for a pane that is not open.
   */
  async paneDetail(paneId: string): Promise<PaneDetail | undefined> {
    if (!this.mirror.has(paneId)) return undefined;
    if (this.#state === "ready" && !this.mirror.holdsWholeView(paneId)) await this.#readView(paneId);
    return this.mirror.detail(paneId);
  }

  /** Reads a pane's whole view once, however many phones ask for it at the same time. */
  #readView(paneId: string): Promise<void> {
    let reading = this.#reading.get(paneId);
    if (!reading) {
      reading = (async () => {
        try {
          // In turn with every agent's view reads (view-cache.ts VIEW_READS_AT_ONCE): the reply and
          // its checked copy are let go of before the next read starts.
          const view = await this.mirror.views.read(async () => {
            const reply = await this.client.get(`${this.prefix}${routePath("pane", { pane: paneId })}`, VIEW_READ_TIMEOUT_MS, this.#stop.signal);
            return reply.status === 200 ? parsePaneView(reply.body, this.#reads) : null;
          });
          if (!view) return;
          if (!view.ok || view.value.pane.id !== paneId) {
            if (!view.ok) this.#opts.log(`agent ${this.name}: malformed view of a pane: ${view.error}`);
            return;
          }
          this.mirror.holdView(paneId, view.value.items, view.value.itemsCut);
        } catch (err) {
          if (!(err instanceof AgentUnreachable)) throw err;
        }
      })().finally(() => this.#reading.delete(paneId));
      this.#reading.set(paneId, reading);
    }
    return reading;
  }

  /** A held view went stale (mirror.ts `view-stale`): read it again and send it to its watchers. */
  async #reread(paneId: string): Promise<void> {
    // Called while a page is applied, often the first page after a reconnect (the state is still
    // `starting` then): read regardless; the agent just answered.
    if (!this.mirror.has(paneId)) return;
    await this.#readView(paneId);
    const detail = this.mirror.detail(paneId);
    if (detail) this.#opts.events.live(this, { type: "view", agent: this.name, paneId, detail });
  }

  /** Stops the loop and closes the connections; resolves when the loop has ended. */
  async stop(): Promise<void> {
    this.#stop.abort();
    this.#reconnect.stop();
    for (const done of [...this.#settling]) done();
    this.client.close();
    await this.#loop;
  }

  /**
   * Resolves once the agent is no longer `starting` (its connect concluded: ready, unreachable or
   * version-mismatch), or after `ms`. An action that comes in during the first moments after a start
   * or a reconnect waits for this instead of being told the agent cannot be reached.
   */
  settled(ms: number): Promise<void> {
    if (this.#state !== "starting" || this.#stop.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#settling.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#settling.add(done);
    });
  }

  /** Wakes a connection that is waiting to retry (e.g. sources.json changed, or an action needs it). */
  retryNow(): void {
    this.#reconnect.wake();
  }

  /** One connection: hello, then the events long-poll until it fails or the connection stops. */
  async #session(progress: () => void): Promise<void> {
    await this.#connect();
    progress();
    await this.#follow(progress);
  }

  /** Why the connection ended, drawn on the agent's row; the next try follows the table. */
  #ended(err: unknown): "next" {
    if (this.#stop.signal.aborted || err === null) return "next";
    if (err instanceof VersionMismatch) {
      this.#set("version-mismatch", err.message);
    } else {
      const why = err instanceof AgentUnreachable || err instanceof MalformedReply ? err.message : "unexpected error";
      if (!(err instanceof AgentUnreachable) && !(err instanceof MalformedReply)) this.#opts.log(`agent ${this.name}: ${String(err)}`);
      else if (this.#state !== "unreachable" || this.#problem !== why) this.#opts.log(`agent ${this.name}: unreachable: ${why}`);
      this.#set("unreachable", why);
    }
    return "next";
  }

  async #connect(): Promise<void> {
    // A socket someone else owns could be an impostor waiting for our answers (X-3): refuse it.
    if (this.#opts.endpoint.kind === "socket") checkSocketOwner(this.#opts.endpoint.path);
    const reply = await this.client.get("/durable/hello", HELLO_TIMEOUT_MS, this.#stop.signal);
    if (reply.status !== 200) throw new AgentUnreachable(`hello answered ${reply.status}${errorCode(reply.body)}`);
    const hello = parseHello(reply.body, this.#reads);
    if (!hello.ok) throw new MalformedReply(`malformed hello: ${hello.error}`);
    this.#hello = hello.value;
    const common = hello.value.wire.filter((v) => COLLIE_WIRE_VERSIONS.includes(v));
    if (common.length === 0) {
      this.#version = null;
      throw new VersionMismatch(`the agent speaks wire v${Math.max(...hello.value.wire)}, this Collie speaks v${COLLIE_WIRE_VERSION}`);
    }
    this.#version = Math.max(...common);
    if (hello.value.instance !== this.#instance) {
      // Another process start: its cursors mean nothing to us, resync from scratch.
      this.#instance = hello.value.instance;
      this.#cursor = null;
      this.#seq = 0;
    }
    if (this.#state !== "ready") this.#set("starting", undefined);
  }

  async #follow(onProgress: () => void): Promise<void> {
    const wait = this.#opts.waitMs ?? EVENTS_WAIT_MS;
    const read = () => {
      // Views in pages are cut to the tail Collie keeps; a whole view is read when a chat opens.
      const q = `${this.#cursor === null ? "wait=0" : `after=${encodeURIComponent(this.#cursor)}&wait=${wait}`}&viewItems=${MIRROR_TAIL_ITEMS}`;
      return this.client.get(`${this.prefix}/events?${q}`, wait + MARGIN_MS, this.#stop.signal);
    };
    let next = read();
    try {
      while (!this.#stop.signal.aborted) {
        const reply = await next;
        this.#applyPage(reply);
        // The next page is asked for as soon as this one is applied (its changes published), before
        // the rest of its work: an event the agent raises meanwhile (the next ask, right after an
        // answer) finds the long-poll parked instead of waiting for that work (N-1, issue 31).
        next = read();
        onProgress();
        this.#set(this.mirror.ready ? "ready" : "starting", undefined);
        // Held answers look for their asks after each page, held sends for the agent's return (D-5).
        this.#opts.gateway.deliverHeld(this);
      }
    } finally {
      // A read in flight when the loop ends (stopped, or a page that broke it) is let go quietly.
      next.catch(() => {});
    }
  }

  /** Checks one events page and applies it to the mirror; throws for a page that is not one. */
  #applyPage(reply: AgentReply): void {
    if (reply.status !== 200) throw new AgentUnreachable(`events answered ${reply.status}${errorCode(reply.body)}`);
    const page = parseEventsPage(reply.body, this.#reads);
    if (!page.ok) throw new MalformedReply(`malformed events page: ${page.error}`);
    for (const dropped of page.dropped) this.#opts.log(`agent ${this.name}: dropped an event: ${dropped}`);
    if (page.value.reset) this.#seq = 0;
    // seq only grows: an event at or below what was applied is a repeat, never applied twice (W-3).
    let last = this.#seq;
    let repeats = 0;
    for (const e of page.value.events) {
      if (e.seq > last) last = e.seq;
      else repeats++;
    }
    if (repeats === 0) this.mirror.apply(page.value);
    else {
      let applied = this.#seq;
      const events = page.value.events.filter((e) => e.seq > applied && (applied = e.seq) === e.seq);
      this.#opts.log(`agent ${this.name}: ignored ${repeats} repeated event(s)`);
      this.mirror.apply({ ...page.value, events });
    }
    this.#seq = last;
    this.#cursor = page.value.cursor;
  }

  #set(state: AgentState, problem: string | undefined): void {
    if (state === this.#state && problem === this.#problem) return;
    this.#state = state;
    this.#problem = problem;
    this.#publish();
    if (state !== "starting") for (const done of [...this.#settling]) done();
  }

  /** Publishes the agent's row when it changed: an idle long-poll's empty page is no delta (D-4). */
  #publish(): void {
    const summary = this.summary();
    const text = JSON.stringify(summary);
    if (text === this.#published) return;
    this.#published = text;
    this.#shown = { open: summary.counts.open, waiting: summary.counts.waiting, notShown: summary.notShown ?? 0 };
    this.#opts.events.live(this, { type: "agent", agent: summary });
  }

  /**
   * Whether the mirror's counts differ from those in the row last published. Every events page
   * ends with a `counts` change; most leave them as they were, and then the row is not built and
   * serialized again (issue 18: the garbage of a daemon under streaming load). A row that is not
   * ready shows no counts.
   */
  #countsMoved(): boolean {
    if (this.#state !== "ready") return false;
    const c = this.mirror.counts;
    return c.open !== this.#shown.open || c.waiting !== this.#shown.waiting || this.mirror.notShown !== this.#shown.notShown;
  }
}

class VersionMismatch extends Error {}

/** Throws AgentUnreachable when the socket is not a socket or belongs to another user. */
function checkSocketOwner(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return; // missing: the request says so in its own words
  }
  if (!st.isSocket()) throw new AgentUnreachable("the socket path is not a socket");
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw new AgentUnreachable("the socket belongs to another user; Collie refuses it");
}
class MalformedReply extends Error {}

function errorCode(body: unknown): string {
  const code = (body as { error?: unknown } | null)?.error;
  return typeof code === "string" && /^[a-z-]{1,40}$/.test(code) ? ` ${code}` : "";
}
