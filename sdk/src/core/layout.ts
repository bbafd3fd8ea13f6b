/**
 * What the phone shows: workspace → tab → pane (S-9…S-20). A pane is one conversation; its methods
 * write items, state, progress and buttons, and raise asks. Every change becomes an event on the
 * pane's tail (event-log.ts), so Collie learns it without polling.
 */
import { LIMITS, PARTIAL_INTERVAL_MS } from "../wire/constants.ts";
import type { WireErrorCode } from "../wire/errors.ts";
import { assertId, cleanText } from "../wire/rules.ts";
import type {
  Action, Answer, Ask, DecidedBy, KnownAsk, Item, PaneState, PaneSummary, PaneView, Progress, TabSummary,
  WorkspaceSummary,
} from "../wire/types.ts";
import { buildAsk, checkAnswer, type AskAnswer, type AskInput } from "./asks.ts";
import type { Clock } from "./clock.ts";
import type { EventLog } from "./event-log.ts";
import { askIdFor, randomId } from "./ids.ts";
import { normalizeActions, normalizeBadge, normalizeItem, normalizeProgress, type ItemInput } from "./items.ts";
import type { ActionEvent, SendEvent, SteerEvent, StopEvent, HandlerResult } from "./hooks.ts";

/** What panes need from the core that owns them. */
export interface PaneHost {
  readonly log: EventLog;
  readonly clock: Clock;
  readonly allowAlways: boolean;
  /** Tools the phone answered `Always allow` for: later calls pass without a card (S-27). */
  readonly alwaysAllowed: Set<string>;
  /** A history provider is set: sessionId defaults to the pane id (S-31). */
  readonly hasHistory: boolean;
  /** Every open pane of the core by id: pane ids are unique across tabs. */
  readonly panes: Map<string, Pane>;
  layoutChanged(): void;
  removePane(pane: Pane, reason: "program" | "phone"): void;
}

/** `ask()` rejects with this when the ask closes without a phone answer (S-24). */
export class AskClosed extends Error {
  readonly askId: string;
  readonly decidedBy: DecidedBy;
  constructor(askId: string, decidedBy: DecidedBy, message: string) {
    super(message);
    this.name = "AskClosed";
    this.askId = askId;
    this.decidedBy = decidedBy;
  }
}

const cleanTitle = (title: unknown, what: string): string => {
  if (title === undefined) return "";
  if (typeof title !== "string") throw new TypeError(`${what} must be a string`);
  return cleanText(title, LIMITS.titleBytes, { singleLine: true }).text;
};

export class Workspace {
  readonly id: string;
  #title: string;
  readonly #host: PaneHost;
  readonly tabs = new Map<string, Tab>();

  /** @internal */
  constructor(host: PaneHost, id: string, title: string) {
    this.#host = host;
    this.id = id;
    this.#title = title;
  }

  get title(): string {
    return this.#title;
  }

  /** Renames the workspace (also what an accepted rename from the phone does). */
  setTitle(title: string): void {
    this.#title = cleanTitle(title, "workspace title");
    this.#host.layoutChanged();
  }

  /** Returns the tab with this id, creating it the first time (S-9). */
  tab(id: string, opts: { title?: string } = {}): Tab {
    assertId(id, "tab id", { noColon: true });
    const existing = this.tabs.get(id);
    if (existing) return existing;
    const tab = new Tab(this.#host, this, id, cleanTitle(opts.title, "tab title"));
    this.tabs.set(id, tab);
    this.#host.layoutChanged();
    return tab;
  }

  /** @internal */
  summary(): WorkspaceSummary {
    return { id: this.id, title: this.#title };
  }
}

export class Tab {
  readonly workspace: Workspace;
  readonly localId: string;
  #title: string;
  readonly #host: PaneHost;
  readonly panes = new Map<string, Pane>();

  /** @internal */
  constructor(host: PaneHost, workspace: Workspace, localId: string, title: string) {
    this.#host = host;
    this.workspace = workspace;
    this.localId = localId;
    this.#title = title;
  }

  /** The wire id: `<workspace>:<tab>` (S-11). */
  get id(): string {
    return `${this.workspace.id}:${this.localId}`;
  }

  get title(): string {
    return this.#title;
  }

  setTitle(title: string): void {
    this.#title = cleanTitle(title, "tab title");
    this.#host.layoutChanged();
  }

  /**
   * Returns the pane with this id, creating it the first time (S-9): one conversation shown twice
   * needs no second pane. Titles are cut to 256 bytes and harness to 64 (S-10); a relative `cwd`
   * is dropped.
   */
  pane(id: string, opts: PaneOptions = {}): Pane {
    assertId(id, "pane id");
    const existing = this.#host.panes.get(id);
    if (existing) return existing;
    const pane = new Pane(this.#host, this, id, opts);
    this.#host.panes.set(id, pane);
    this.panes.set(id, pane);
    this.#host.log.addPane(id);
    this.#host.layoutChanged();
    return pane;
  }

  /** @internal */
  summary(): TabSummary {
    return { id: this.id, workspaceId: this.workspace.id, title: this.#title };
  }
}

export interface PaneOptions {
  title?: string;
  harness?: string;
  /** An absolute path; anything else is dropped (S-10). */
  cwd?: string;
  /** The conversation's id in the agent's history; null when it cannot stay the same across a restart (S-31). */
  sessionId?: string | null;
}

/**
 * What `pane.state(…)` writes (S-17, S-18): `idle` or `working` (`waiting` follows from open
 * asks), and the summary's subtitle, progress, badge and agent buttons. A key left out stays as it
 * is; `null` clears.
 */
export interface PaneStateInput {
  state?: "idle" | "working";
  subtitle?: string | null;
  progress?: Progress | null;
  badge?: string | null;
  /** Up to 4 (S-18); `[]` clears them. */
  actions?: readonly Action[];
}

/** A pane's own handlers; they take precedence over the core's hooks (S-19). */
export interface PaneHandlers {
  onSend?: (event: SendEvent) => HandlerResult;
  onSteer?: (event: SteerEvent) => HandlerResult;
  onStop?: (event: StopEvent) => HandlerResult;
  onAction?: (event: ActionEvent) => HandlerResult;
}

interface OpenAsk {
  ask: KnownAsk;
  resolve: (answer: AskAnswer) => void;
  reject: (err: AskClosed) => void;
  timer: unknown;
  unlisten?: () => void;
}

/** How an ask ended, kept so a late answer learns why it was not taken (P-15). */
interface ClosedAsk {
  decidedBy: DecidedBy;
  revision: string;
  /** Closed because the phone stopped the turn or closed the pane. */
  byPhone: boolean;
}

const CLOSED_ASKS_KEPT = 1000;
/** The keys `pane.state({…})` takes. */
const STATE_KEYS: readonly string[] = ["state", "subtitle", "progress", "badge", "actions"];

export class Pane {
  readonly id: string;
  readonly tab: Tab;
  /** @internal */ readonly handlers: PaneHandlers = {};
  #title: string;
  readonly #harness: string;
  readonly #cwd: string | undefined;
  readonly #sessionId: string | null | undefined;
  #state: Exclude<PaneState, "waiting"> = "idle";
  #subtitle: string | undefined;
  #progress: Progress | undefined;
  #badge: string | undefined;
  #actions: Action[] = [];
  #turnId: string | null = null;
  #activeAt: number;
  #closed = false;
  readonly #host: PaneHost;
  /** The newest items by id, in order; at most LIMITS.viewItems (S-32). */
  readonly #items = new Map<string, Item>();
  #itemsCut = false;
  readonly #asks = new Map<string, OpenAsk>();
  readonly #closedAsks = new Map<string, ClosedAsk>();
  /** Partial writes held back by the 250 ms coalescing (S-15). */
  readonly #pending = new Map<string, { item: Item; timer: unknown }>();
  readonly #lastWrite = new Map<string, number>();
  /** Echoes of sends whose handlers are still running, oldest first (P-20). */
  #phoneEnding = 0;
  readonly #pendingEchoes: { text: string; requestId: string; steered: boolean }[] = [];
  #writingEchoes = false;

  /** @internal */
  constructor(host: PaneHost, tab: Tab, id: string, opts: PaneOptions) {
    this.#host = host;
    this.tab = tab;
    this.id = id;
    this.#title = cleanTitle(opts.title, "pane title");
    if (opts.harness !== undefined && typeof opts.harness !== "string") throw new TypeError("harness must be a string");
    this.#harness = cleanText(opts.harness ?? "", LIMITS.harnessBytes, { singleLine: true }).text;
    this.#cwd = typeof opts.cwd === "string" && opts.cwd.startsWith("/") ? cleanText(opts.cwd, 4096, { singleLine: true }).text : undefined;
    if (opts.sessionId !== undefined && opts.sessionId !== null) assertId(opts.sessionId, "sessionId");
    this.#sessionId = opts.sessionId;
    this.#activeAt = host.clock.now();
  }

  /** @internal the core this pane belongs to. */
  get host(): PaneHost {
    return this.#host;
  }

  /** The id an ask for this tool call gets here (S-23). */
  askIdFor(toolCallId: string): string {
    return askIdFor(this.id, toolCallId);
  }

  /** The conversation's id in the agent's history (S-31). */
  get sessionId(): string | null {
    if (this.#sessionId !== undefined) return this.#sessionId;
    return this.#host.hasHistory ? this.id : null;
  }
  /** The running turn or the last one (S-13). */
  get turnId(): string | null {
    return this.#turnId;
  }
  /** How many asks are open. */
  get openAsks(): number {
    return this.#asks.size;
  }
  get title(): string {
    return this.#title;
  }
  get closed(): boolean {
    return this.#closed;
  }
  /** @internal what the phone sees: `waiting` while an ask is open (S-18). */
  currentState(): PaneState {
    return this.#asks.size > 0 ? "waiting" : this.#state;
  }

  /** Writes an item; an item with a known id replaces the earlier one in place (S-14). Returns its id. */
  item(input: ItemInput): string {
    this.#assertOpen();
    const id = input?.id ?? randomId("i-");
    const item = normalizeItem({ ...input, id }, this.#host.clock.now());
    const partial = "partial" in item && item.partial === true;
    const pending = this.#pending.get(id);
    if (partial) {
      const last = this.#lastWrite.get(id);
      const now = this.#host.clock.now();
      if (last !== undefined && now - last < PARTIAL_INTERVAL_MS) {
        // Coalesce (S-15): keep the newest text, write it when the window ends.
        if (pending) pending.item = item;
        else this.#pending.set(id, { item, timer: this.#host.clock.setTimeout(() => this.#flush(id), last + PARTIAL_INTERVAL_MS - now) });
        return id;
      }
    }
    if (pending) {
      this.#host.clock.clearTimeout(pending.timer);
      this.#pending.delete(id);
    }
    this.#writeItem(item, partial);
    return id;
  }

  /** Starts a turn: the pane works, and `turnId` names it. Returns the turn id. */
  beginTurn(turnId?: string): string {
    this.#assertOpen();
    const id = turnId ?? randomId("t-");
    assertId(id, "turn id");
    this.#turnId = id;
    this.#state = "working";
    this.#emitState();
    return id;
  }

  /** Ends the running turn: pending partial text is written, the pane goes idle. */
  endTurn(): void {
    this.state("idle");
  }

  /**
   * Writes the pane's state (S-17, S-18): `pane.state("working")`, or any of state, subtitle,
   * progress, badge and actions at once, as one state event. Everything is checked before anything
   * changes: an invalid progress, badge or action is a TypeError or RangeError and writes nothing
   * (S-16). Leaving `working` writes pending partial text first (S-15).
   */
  state(input: "idle" | "working" | PaneStateInput): void {
    this.#assertOpen();
    const update: PaneStateInput = typeof input === "string" ? { state: input } : input;
    if (typeof update !== "object" || update === null || Array.isArray(update)) {
      throw new TypeError("state() takes \"idle\", \"working\" or {state, subtitle, progress, badge, actions}");
    }
    for (const key of Object.keys(update)) {
      if (!STATE_KEYS.includes(key)) throw new TypeError(`state() does not take ${JSON.stringify(key)}; it takes ${STATE_KEYS.join(", ")}`);
    }
    const { state } = update;
    if (state !== undefined && state !== "idle" && state !== "working") {
      throw new TypeError(`state ${JSON.stringify(state)} must be idle or working (waiting follows from open asks)`);
    }
    const subtitle = update.subtitle === undefined ? this.#subtitle
      : update.subtitle === null ? undefined : cleanText(String(update.subtitle), LIMITS.subtitleBytes, { singleLine: true }).text;
    const progress = update.progress === undefined ? this.#progress : update.progress === null ? undefined : normalizeProgress(update.progress);
    const badge = update.badge === undefined ? this.#badge : update.badge === null ? undefined : normalizeBadge(update.badge);
    const actions = update.actions === undefined ? this.#actions : normalizeActions(update.actions);
    if (state !== undefined && state !== "working") this.flushPartials();
    const changed = (state !== undefined && state !== this.#state) || update.subtitle !== undefined || update.progress !== undefined
      || update.badge !== undefined || update.actions !== undefined;
    if (state !== undefined) this.#state = state;
    this.#subtitle = subtitle;
    this.#progress = progress;
    this.#badge = badge;
    this.#actions = actions;
    if (changed) this.#emitState();
  }

  /** Renames the conversation (also what an accepted rename from the phone does). */
  setTitle(title: string): void {
    this.#assertOpen();
    this.#title = cleanTitle(title, "pane title");
    this.#emitState();
    this.#host.layoutChanged();
  }

  /** Sets this pane's own handlers; they win over the core's hooks (S-19). */
  on(handlers: PaneHandlers): this {
    Object.assign(this.handlers, handlers);
    return this;
  }
  onSend(fn: PaneHandlers["onSend"]): this { return this.on({ onSend: fn }); }
  onSteer(fn: PaneHandlers["onSteer"]): this { return this.on({ onSteer: fn }); }
  onStop(fn: PaneHandlers["onStop"]): this { return this.on({ onStop: fn }); }
  onAction(fn: PaneHandlers["onAction"]): this { return this.on({ onAction: fn }); }

  /**
   * Shows a card and resolves with the answer in the kind's shape (S-21). Rejects with AskClosed
   * when the ask expires (`timeout`), the signal aborts, or the pane closes (`program`) (S-24).
   * Raising an id that is already open is a TypeError (S-23).
   */
  ask(input: AskInput): Promise<AskAnswer> {
    this.#assertOpen();
    const ask = buildAsk(this.id, input, { now: this.#host.clock.now(), allowAlways: this.#host.allowAlways });
    if (this.#asks.has(ask.id)) throw new TypeError(`ask ${ask.id} for tool call ${JSON.stringify(input.toolCallId)} is already open in pane ${JSON.stringify(this.id)}`);
    if (input.signal?.aborted) return Promise.reject(new AskClosed(ask.id, "program", "the signal was aborted before the ask opened"));
    this.#closedAsks.delete(ask.id);
    return new Promise<AskAnswer>((resolve, reject) => {
      const open: OpenAsk = { ask, resolve, reject, timer: undefined };
      this.#asks.set(ask.id, open);
      if (ask.expiresAt !== undefined) {
        const ms = Date.parse(ask.expiresAt) - this.#host.clock.now();
        open.timer = this.#host.clock.setTimeout(() => this.#closeAsk(ask.id, "timeout", false), Math.max(0, ms));
      }
      if (input.signal) {
        const onAbort = () => this.#closeAsk(ask.id, "program", false);
        input.signal.addEventListener("abort", onAbort, { once: true });
        open.unlisten = () => input.signal!.removeEventListener("abort", onAbort);
      }
      this.#touch();
      this.#host.log.append({ type: "ask", pane: this.id, ask });
      this.#emitState();
    });
  }

  /** The open asks. */
  get asks(): KnownAsk[] {
    return [...this.#asks.values()].map((o) => o.ask);
  }

  /** Closes the conversation: it leaves the layout, its open asks close as decided by `program` (S-24, S-30). */
  close(): void {
    if (this.#closed) return;
    this.#host.removePane(this, "program");
  }

  /** @internal the core's part of closing: asks and timers. */
  shutdown(byPhone: boolean): void {
    for (const askId of [...this.#asks.keys()]) this.#closeAsk(askId, "program", byPhone, { silent: true });
    for (const p of this.#pending.values()) this.#host.clock.clearTimeout(p.timer);
    this.#pending.clear();
    this.#closed = true;
  }

  /** @internal a closed pane this process may restore on reopen (S-30). */
  restore(): void {
    this.#closed = false;
    this.#host.log.addPane(this.id);
    this.#touch();
  }

  /** @internal accepts an answer from the phone; returns the wire error code when it is not taken. */
  answer(askId: string, revision: string, answer: Answer): { ok: true; decidedAt: string } | { ok: false; code: WireErrorCode; message: string; extra?: Record<string, unknown> } {
    const open = this.#asks.get(askId);
    if (!open) {
      const closed = this.#closedAsks.get(askId);
      if (!closed) return { ok: false, code: "ask-not-open", message: "No such ask is open; it may be raised again in a moment." };
      if (closed.decidedBy === "phone") return { ok: false, code: "ask-answered", message: "Another answer came first." };
      if (closed.decidedBy === "timeout") return { ok: false, code: "ask-timed-out", message: "The ask timed out before this answer." };
      return { ok: false, code: "ask-decided", message: "The durable agent decided the ask before this answer." };
    }
    if (open.ask.revision !== revision) {
      return { ok: false, code: "ask-changed", message: "The ask changed; read it again.", extra: { revision: open.ask.revision } };
    }
    const checked = checkAnswer(open.ask, answer);
    if (!checked.ok) return { ok: false, code: "invalid-answer", message: checked.reason };
    const decidedAt = new Date(this.#host.clock.now()).toISOString();
    // Resolved before it is closed: the agent's code after `await ask()` is then queued ahead of
    // the events reader's wake (which closing queues), so what the answer allowed starts before
    // the page that tells Collie the card closed is built (issue 31). The ask is closed in the log
    // before either runs: both are microtasks of this tick.
    open.resolve(checked.value);
    this.#closeAsk(askId, "phone", true);
    return { ok: true, decidedAt };
  }

  /** @internal Runs the handler of a phone stop or close; asks it ends count as ended by the phone (P-16). */
  async phoneEnding<T>(run: () => T | Promise<T>): Promise<T> {
    this.#phoneEnding++;
    try {
      return await run();
    } finally {
      this.#phoneEnding--;
    }
  }

  /** @internal the phone stopped the turn: open asks end as `program` without a chat line (P-16), a `stopped` note stays (P-19). */
  stopTurn(): void {
    for (const askId of [...this.#asks.keys()]) this.#closeAsk(askId, "program", true);
    this.flushPartials();
    this.item({ id: `stopped-${this.#turnId ?? randomId()}`, kind: "notice", text: "stopped", stopped: true });
    if (this.#state !== "idle") {
      this.#state = "idle";
      this.#emitState();
    }
  }

  /**
   * @internal Runs a send or steer handler, then echoes the user's line with the phone's request
   * id so the phone can replace its own copy (P-20). When the handler writes items before it
   * returns, the echo goes first, so the chat keeps the order things happened in. A refusal before
   * any write leaves no echo.
   */
  async withEcho<T>(text: string, requestId: string, run: () => T | Promise<T>, steered = false): Promise<T> {
    // One entry per send: several sends may run at once, each keeps its own text and request id.
    const echo = { text, requestId, steered };
    this.#pendingEchoes.push(echo);
    try {
      const result = await run();
      if (this.#pendingEchoes.includes(echo)) this.#writeEchoes(echo);
      return result;
    } finally {
      const i = this.#pendingEchoes.indexOf(echo);
      if (i >= 0) this.#pendingEchoes.splice(i, 1);
    }
  }

  /**
   * Writes one pending echo (its send was accepted), or every pending one (an item is being
   * written while their handlers run: they came first), oldest first.
   */
  #writeEchoes(only?: { text: string; requestId: string; steered: boolean }): void {
    if (this.#closed) return;
    const echoes = only === undefined ? this.#pendingEchoes.splice(0) : this.#pendingEchoes.splice(this.#pendingEchoes.indexOf(only), 1);
    this.#writingEchoes = true; // an echo is not an item the handler wrote: it does not pull the later echoes in
    try {
      for (const echo of echoes) {
        this.item({ id: `user-${echo.requestId}`, kind: "user", text: echo.text, requestId: echo.requestId, ...(echo.steered ? { steered: true } : {}) });
      }
    } finally {
      this.#writingEchoes = false;
    }
  }

  /** Writes every coalesced partial now. */
  flushPartials(): void {
    for (const id of [...this.#pending.keys()]) this.#flush(id);
  }

  /** @internal */
  summary(): PaneSummary {
    const s: PaneSummary = {
      id: this.id,
      tabId: this.tab.id,
      title: this.#title,
      harness: this.#harness,
      sessionId: this.sessionId,
      state: this.currentState(),
      actions: this.#actions.map((a) => ({ ...a })),
      openAsks: this.#asks.size,
      turnId: this.#turnId,
      activeAt: new Date(this.#activeAt).toISOString(),
    };
    if (this.#cwd !== undefined) s.cwd = this.#cwd;
    if (this.#subtitle !== undefined) s.subtitle = this.#subtitle;
    if (this.#progress !== undefined) s.progress = { ...this.#progress };
    if (this.#badge !== undefined) s.badge = this.#badge;
    return s;
  }

  /**
   * The pane's current view as the phone reads it (S-32): summary, the newest items (including
   * those the SDK writes itself: `user-<requestId>` echoes, `stopped-<turnId>` notes and
   * `ask-closed-<askId>` lines) and the open asks. An agent that keeps its own history reads here.
   */
  /** The pane's whole view, or only its newest `maxItems` items (`viewItems` of an events read, W-3). */
  view(maxItems: number = LIMITS.viewItems): PaneView {
    const all = [...this.#items.values()];
    const items = all.length > maxItems ? all.slice(all.length - maxItems) : all;
    return { pane: this.summary(), items, itemsCut: this.#itemsCut || items.length < all.length, asks: this.asks };
  }

  /** @internal finds an action by id. */
  action(id: string): Action | undefined {
    return this.#actions.find((a) => a.id === id);
  }

  #flush(id: string): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#host.clock.clearTimeout(pending.timer);
    this.#pending.delete(id);
    if (!this.#closed) this.#writeItem(pending.item, true);
  }

  #writeItem(item: Item, partial: boolean): void {
    if (this.#pendingEchoes.length > 0 && !this.#writingEchoes) this.#writeEchoes();
    if (partial) this.#lastWrite.set(item.id, this.#host.clock.now());
    else this.#lastWrite.delete(item.id);
    this.#items.set(item.id, item);
    if (this.#items.size > LIMITS.viewItems) {
      this.#items.delete(this.#items.keys().next().value as string);
      this.#itemsCut = true;
    }
    this.#touch();
    this.#host.log.append({ type: "item", pane: this.id, item });
  }

  #closeAsk(askId: string, decidedBy: DecidedBy, byPhone: boolean, opts: { silent?: boolean } = {}): void {
    const open = this.#asks.get(askId);
    if (!open) return;
    // While the phone's stop or close runs its handler, an ask the handler ends (e.g. by aborting
    // the turn's signal) ended because of the phone: no "Decided in the durable agent" line (P-16).
    if (this.#phoneEnding > 0) byPhone = true;
    this.#asks.delete(askId);
    this.#host.clock.clearTimeout(open.timer);
    open.unlisten?.();
    this.#closedAsks.set(askId, { decidedBy, revision: open.ask.revision, byPhone });
    if (this.#closedAsks.size > CLOSED_ASKS_KEPT) this.#closedAsks.delete(this.#closedAsks.keys().next().value as string);
    const decidedAt = new Date(this.#host.clock.now()).toISOString();
    if (!opts.silent) {
      this.#host.log.append({ type: "ask-closed", pane: this.id, askId, decidedBy, title: open.ask.title, decidedAt });
      // An ask that ended without the phone leaves a line in the chat (S-24, P-16).
      if (!byPhone) {
        const line = decidedBy === "timeout" ? "Timed out before an answer" : "Decided in the durable agent";
        this.item({ id: `ask-closed-${askId}`, kind: "notice", text: `${line}: ${open.ask.title}` });
      }
      this.#emitState();
    }
    if (decidedBy !== "phone") {
      const why = decidedBy === "timeout" ? "the ask expired before an answer" : "the ask was closed by the program";
      open.reject(new AskClosed(askId, decidedBy, why));
    }
  }

  #emitState(): void {
    if (this.#closed) return;
    this.#touch();
    this.#host.log.append({ type: "state", pane: this.id, summary: this.summary() });
  }

  #touch(): void {
    this.#activeAt = this.#host.clock.now();
  }

  #assertOpen(): void {
    if (this.#closed) throw new TypeError(`pane ${JSON.stringify(this.id)} is closed`);
  }
}
