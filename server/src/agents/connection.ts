/**
 * One live connection to a durable agent (D-2, W-3): hello, version check, then the events
 * long-poll, re-issued the moment each reply lands (no poll delay between an agent's event and
 * the phone, N-1). On any failure the agent is `unreachable` and the loop retries on a fixed delay
 * table; a cursor of the same agent instance resumes without loss, another instance resyncs.
 */
import { lstatSync } from "node:fs";
import { parseEventsPage, parseHello, parsePaneView, routePath, wirePrefix, type Hello, type ReadOptions } from "@colliepwa/durable-sdk/wire";
import type { AgentState, AgentSummary, Conversation, PaneDetail } from "@colliepwa/shared";
import { AgentClient, AgentUnreachable, type AgentReply, type Endpoint } from "./client.ts";
import { agentReads, type Mask } from "./gateway.ts";
import { AgentMirror, MIRROR_TAIL_ITEMS, type MirrorChange } from "./mirror.ts";
import type { ViewCache } from "./view-cache.ts";
import { COLLIE_WIRE_VERSION, COLLIE_WIRE_VERSIONS } from "../version.ts";

/** Delays before each retry, in ms; the last one repeats (fixed table, STYLE: reconcile loop). */
export const RETRY_DELAYS_MS: readonly number[] = [250, 500, 1000, 2000, 5000, 10_000, 30_000];
/** How long a long-poll waits at the agent; the request deadline adds a margin for the reply. */
export const EVENTS_WAIT_MS = 25_000;
const HELLO_TIMEOUT_MS = 5_000;
/** How long a phone opening a chat waits for the agent's whole view before it gets the tail. */
const VIEW_READ_TIMEOUT_MS = 10_000;
const MARGIN_MS = 10_000;

export interface ConnectionOptions {
  name: string;
  endpoint: Endpoint;
  /** Called whenever the row of this agent changes (state, hello, counts). */
  onSummary: (summary: AgentSummary) => void;
  onChange: (change: MirrorChange) => void;
  /** Called after a page was applied: held answers check here for their asks (D-5). */
  onApplied?: () => void;
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

export class AgentConnection {
  readonly name: string;
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
  #sleeping: (() => void) | null = null;
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
    this.mirror = new AgentMirror(opts.name, (change) => {
      // A whole view that went stale is read again for its watchers; they never get a tail instead.
      if (change.type === "view-stale") return void this.#reread(change.paneId);
      opts.onChange(change);
      if (change.type === "counts" && this.#countsMoved()) this.#publish();
    }, opts.present, opts.views);
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
    this.#loop ??= this.#run();
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
          const reply = await this.client.get(`${this.prefix}${routePath("pane", { pane: paneId })}`, VIEW_READ_TIMEOUT_MS, this.#stop.signal);
          if (reply.status !== 200) return;
          const view = parsePaneView(reply.body, this.#reads);
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
    if (detail) this.#opts.onChange({ type: "view", paneId, detail });
  }

  /** Stops the loop and closes the connections; resolves when the loop has ended. */
  async stop(): Promise<void> {
    this.#stop.abort();
    this.#sleeping?.();
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
    this.#sleeping?.();
  }

  async #run(): Promise<void> {
    let attempt = 0;
    while (!this.#stop.signal.aborted) {
      try {
        await this.#connect();
        attempt = 0;
        await this.#follow(() => (attempt = 0));
      } catch (err) {
        if (this.#stop.signal.aborted) break;
        if (err instanceof VersionMismatch) {
          this.#set("version-mismatch", err.message);
        } else {
          const why = err instanceof AgentUnreachable || err instanceof MalformedReply ? err.message : "unexpected error";
          if (!(err instanceof AgentUnreachable) && !(err instanceof MalformedReply)) this.#opts.log(`agent ${this.name}: ${String(err)}`);
          else if (this.#state !== "unreachable" || this.#problem !== why) this.#opts.log(`agent ${this.name}: unreachable: ${why}`);
          this.#set("unreachable", why);
        }
        const delays = this.#opts.retryDelaysMs ?? RETRY_DELAYS_MS;
        await this.#sleep(delays[Math.min(attempt++, delays.length - 1)]!);
      }
    }
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
        this.#opts.onApplied?.();
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
    this.#opts.onSummary(summary);
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

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#sleeping = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#sleeping = done;
    });
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
