/**
 * `piPane` (S-35): one Pi conversation as one pane, wired both ways. It takes Pi's own
 * `AgentSession` (`createAgentSession` from `@mariozechner/pi-coding-agent`: Pi saves, checks and
 * runs its hooks; `./pi` reads) or a bare `Agent` (`@mariozechner/pi-agent-core`: nothing saves
 * unless a `SessionManager` is given, and then `./pi` saves each finished message once).
 *
 * Pi → phone: the pane's first page is what the session (or the agent) holds when it is attached;
 * then Pi's events through the one mapping of `live.ts`. Phone → Pi: send and steer through the
 * session's own `prompt` (its checks, templates and extension input hooks; a bare agent's
 * `prompt`, `followUp`, `steer`), stop through `abort`. A call that `risky` marks waits for the
 * phone's card (`asks.ts`) inside Pi's `beforeToolCall`, after the hooks already there.
 */
import type { Agent, AgentEvent, AgentMessage, BeforeToolCallContext, BeforeToolCallResult } from "@mariozechner/pi-agent-core";
import type { AgentSession, SessionManager } from "@mariozechner/pi-coding-agent";
import { Refusal } from "../core/hooks.ts";
import { randomId } from "../core/ids.ts";
import type { Pane, Tab } from "../core/layout.ts";
import type { DecidedBy } from "../wire/types.ts";
import { askForCall, DEFAULT_CARD_TIMEOUT_MS, refusalText, type PiCardWords, type PiToolCall } from "./asks.ts";
import { PI_HARNESS } from "./constants.ts";
import { roleOf, wireId } from "./items.ts";
import { PiLive, type PiSurface } from "./live.ts";
import { lastAssistantEntry, markDenied, waitingOnTools } from "./sessions.ts";
import { agentItems, sessionItems } from "./transcript.ts";

export type { PiCardWords, PiToolCall } from "./asks.ts";

export interface PiPaneOptions {
  /** The pane's id (S-11). */
  id: string;
  title?: string;
  /** An absolute path; the phone shows it with the conversation (S-10). */
  cwd?: string;
  /**
   * Only with a bare `Agent`: Pi's session storage for it. `./pi` appends each message Pi
   * finishes; an agent with no messages starts from it; a call it was waiting on when the process
   * stopped is raised again (same ask id, S-23). An `AgentSession` brings its own and saves it
   * itself, so this is refused with one.
   */
  session?: SessionManager;
  /** Which calls need the phone's yes; default none. */
  risky?: (call: PiToolCall) => boolean;
  /** The card's words for a risky call. */
  approval?: (call: PiToolCall) => PiCardWords;
  /** How long a card waits before it closes as `timeout` and the call is blocked; default 1 hour. */
  timeoutMs?: number;
  /** Offer `Always allow` on cards (where the core allows it, S-27); default true. */
  offerAlways?: boolean;
  /** The text Pi gets as the blocked call's result; default says who decided. */
  blockedReason?: (call: PiToolCall, decidedBy: DecidedBy) => string;
}

const wired = new WeakMap<Pane, object>();

/** A Pi `AgentSession` (duck-typed: `./pi` imports no Pi code at load time). */
function isAgentSession(target: unknown): target is AgentSession {
  const t = target as Partial<AgentSession> | null;
  return !!t && typeof t.prompt === "function" && typeof t.abort === "function" && typeof t.subscribe === "function"
    && typeof (t.agent as Partial<Agent> | undefined)?.subscribe === "function" && typeof t.sessionManager?.getSessionId === "function";
}

function isAgent(target: unknown): target is Agent {
  const t = target as Partial<Agent> | null;
  return !!t && typeof t.subscribe === "function" && typeof t.prompt === "function" && typeof t.abort === "function" && typeof t.state === "object";
}

/** Shows a Pi `AgentSession` or `Agent` as the pane `opts.id` in `tab` and returns the pane. */
export function piPane(tab: Tab, target: AgentSession | Agent, opts: PiPaneOptions): Pane {
  if (!tab || typeof tab.pane !== "function") throw new TypeError("piPane(tab, target, opts) needs a tab");
  const session = isAgentSession(target) ? target : undefined;
  if (!session && !isAgent(target)) {
    throw new TypeError("piPane(tab, target, opts) needs a Pi AgentSession (createAgentSession) or a Pi Agent from @mariozechner/pi-agent-core");
  }
  if (!opts || typeof opts.id !== "string") throw new TypeError("piPane needs opts.id, the pane's id");
  if (session && opts.session !== undefined) {
    throw new TypeError("an AgentSession saves to its own SessionManager (session.sessionManager): leave out opts.session");
  }
  const timeoutMs = opts.timeoutMs ?? DEFAULT_CARD_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new RangeError(`timeoutMs ${timeoutMs} must be a positive number of milliseconds`);
  const store = session ? session.sessionManager : opts.session;
  const pane = tab.pane(opts.id, {
    ...(opts.title !== undefined ? { title: opts.title } : {}),
    harness: PI_HARNESS,
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    ...(store ? { sessionId: wireId(store.getSessionId()) } : {}),
  });
  const already = wired.get(pane);
  if (already === target) return pane;
  if (already) throw new TypeError(`pane ${JSON.stringify(pane.id)} already shows another Pi agent`);
  wired.set(pane, target);
  new PiWiring(pane, session ? session.agent : (target as Agent), session, store, opts, timeoutMs).start();
  return pane;
}

/** A pane as the mapping's surface: a run is one turn (a phone send may have begun it already). */
class PaneSurface implements PiSurface {
  readonly #pane: Pane;
  #running = false;

  constructor(pane: Pane) {
    this.#pane = pane;
  }

  get closed(): boolean {
    return this.#pane.closed;
  }

  item(item: Parameters<Pane["item"]>[0] & { id: string }): void {
    if (!this.#pane.closed) this.#pane.item(item);
  }

  working(): void {
    if (this.#pane.closed) return;
    if (!this.#running || this.#pane.currentState() === "idle") this.begin();
  }

  idle(): void {
    this.#running = false;
    if (this.#pane.closed) return;
    this.#pane.flushPartials();
    this.#pane.endTurn();
  }

  /** Begins a turn now (a phone send while Pi is idle), so the reply names it. */
  begin(): string {
    this.#running = true;
    return this.#pane.beginTurn();
  }
}

class PiWiring {
  readonly #pane: Pane;
  readonly #agent: Agent;
  /** Pi's session when the target is one: it saves, and the phone goes through its entry points. */
  readonly #session: AgentSession | undefined;
  /** The SessionManager to read (and, for a bare agent, to write). */
  readonly #store: SessionManager | undefined;
  readonly #opts: PiPaneOptions;
  readonly #timeoutMs: number;
  readonly #surface: PaneSurface;
  readonly #live: PiLive;
  /** `Always allow` answers, per tool, for this pane alone (S-27). */
  readonly #alwaysAllowed = new Set<string>();
  /** A bare agent's message replayed after a restart: in the file already. */
  #replayed: object | undefined;
  /** Runs the agent started, counted as they start (not through the session's queue). */
  #runs = 0;

  constructor(pane: Pane, agent: Agent, session: AgentSession | undefined, store: SessionManager | undefined, opts: PiPaneOptions, timeoutMs: number) {
    this.#pane = pane;
    this.#agent = agent;
    this.#session = session;
    this.#store = store;
    this.#opts = opts;
    this.#timeoutMs = timeoutMs;
    this.#surface = new PaneSurface(pane);
    this.#live = new PiLive(this.#surface);
  }

  start(): void {
    const agent = this.#agent;
    const session = this.#session;
    const store = this.#store;
    // A bare agent with nothing yet starts from its session (S-35).
    if (!session && store && agent.state.messages.length === 0) agent.state.messages = store.buildSessionContext().messages;
    this.#firstPage();
    // Pi's events: an AgentSession's come after Pi saved them and ran its extensions.
    agent.subscribe((event) => {
      if (event.type === "agent_start") this.#runs++;
    });
    if (session) session.subscribe((event) => this.#live.event(event));
    else agent.subscribe((event) => this.#onAgentEvent(event));
    // Chained, not replaced: a hook already there (an AgentSession's extension `tool_call`s) runs first.
    const earlier = agent.beforeToolCall;
    agent.beforeToolCall = async (ctx, signal) => {
      const first = await earlier?.(ctx, signal);
      if (first?.block) return first;
      const ours = await this.#beforeToolCall(ctx, signal);
      return ours ?? first;
    };
    this.#pane.on({
      onSend: ({ text }) => this.#send(text, "followUp"),
      onSteer: ({ text }) => this.#send(text, "steer"),
      onStop: () => this.#stop(),
    });
    this.#resume();
  }

  /**
   * The pane's first page: the session's current branch (what came before the pane, after a
   * `continueRecent`), else the messages the agent holds (attached after it ran).
   */
  #firstPage(): void {
    const items = this.#store ? sessionItems(this.#store) : agentItems(this.#agent.state.messages);
    for (const item of items) this.#surface.item(item);
  }

  // ---- phone → Pi

  #send(text: string, whileRunning: "followUp" | "steer"): Promise<{ turnId?: string }> | { turnId?: string } {
    if (this.#session) return this.#sendToSession(text, whileRunning);
    const agent = this.#agent;
    const message = { role: "user" as const, content: [{ type: "text" as const, text }], timestamp: Date.now() };
    this.#live.fromPhone(message);
    if (agent.state.isStreaming) {
      agent[whileRunning](message);
      return this.#pane.turnId === null ? {} : { turnId: this.#pane.turnId };
    }
    const turnId = this.#surface.begin();
    this.#run(() => agent.prompt(message));
    return { turnId };
  }

  /**
   * Through the session's own `prompt` (issue 36): its model and key checks, prompt templates and
   * extension `input` hooks, `steer`/`followUp` while it runs. A refusal before Pi took the text
   * (no model, no key, a hook that throws) is the phone's refusal, with Pi's words.
   */
  async #sendToSession(text: string, whileRunning: "followUp" | "steer"): Promise<{ turnId?: string }> {
    const session = this.#session!;
    const streaming = session.isStreaming;
    const runs = this.#runs;
    this.#live.expectEcho(text);
    const turnId = streaming ? this.#pane.turnId : this.#surface.begin();
    let accepted = false;
    const outcome = await new Promise<{ ok: true } | { ok: false; error: unknown }>((resolve) => {
      session
        .prompt(text, {
          streamingBehavior: whileRunning,
          source: "rpc",
          preflightResult: (ok) => {
            accepted = ok;
            if (ok) resolve({ ok: true });
          },
        })
        .then(() => {
          resolve({ ok: true });
          // Taken without a run (an input hook handled it): the turn the send began ends.
          if (this.#runs === runs && !session.isStreaming && !streaming) this.#surface.idle();
        })
        .catch((error: unknown) => {
          resolve({ ok: false, error });
          if (accepted) this.#failed(error);
        });
    });
    if (!outcome.ok && !accepted) {
      this.#live.forgetEcho(text);
      if (!streaming) this.#surface.idle();
      const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
      throw new Refusal(message);
    }
    return turnId === null ? {} : { turnId };
  }

  async #stop(): Promise<void> {
    if (this.#session) {
      this.#session.clearQueue();
      await this.#session.abort();
      return;
    }
    this.#agent.clearAllQueues();
    this.#agent.abort();
    await this.#agent.waitForIdle();
  }

  /** Runs a Pi call without awaiting it: its failure becomes a notice, not an unhandled rejection. */
  #run(call: () => Promise<void>): void {
    call().catch((err: unknown) => this.#failed(err));
  }

  #failed(err: unknown): void {
    if (this.#pane.closed) return;
    this.#surface.item({ id: randomId("n-"), kind: "notice", text: err instanceof Error ? err.message : String(err) });
    if (!this.#agent.state.isStreaming) this.#surface.idle();
  }

  // ---- the card

  async #beforeToolCall(ctx: BeforeToolCallContext, signal?: AbortSignal): Promise<BeforeToolCallResult | undefined> {
    const call: PiToolCall = { toolName: ctx.toolCall.name, toolCallId: ctx.toolCall.id, args: ctx.args };
    if (!this.#opts.risky?.(call)) return undefined;
    if (this.#pane.closed) return this.#block(call, "program");
    const approval = await askForCall(this.#pane, call, {
      timeoutMs: this.#timeoutMs,
      offerAlways: this.#opts.offerAlways ?? true,
      alwaysAllowed: this.#alwaysAllowed,
      ...(this.#opts.approval ? { words: this.#opts.approval(call) } : {}),
      ...(signal ? { signal } : {}),
    });
    return approval.approved ? undefined : this.#block(call, approval.decidedBy);
  }

  #block(call: PiToolCall, decidedBy: DecidedBy): BeforeToolCallResult {
    this.#live.deny(call.toolCallId);
    if (this.#store) markDenied(this.#store, call.toolCallId);
    return { block: true, reason: this.#opts.blockedReason?.(call, decidedBy) ?? refusalText(call.toolName, decidedBy) };
  }

  // ---- Pi → phone (a bare agent: `./pi` saves too)

  #onAgentEvent(event: AgentEvent): void {
    if (event.type === "message_end") this.#save(event.message);
    this.#live.event(event);
    // A follow-up sent as the run ended, after Pi's last look at its queue, starts the next run.
    if (event.type === "agent_end" && this.#agent.hasQueuedMessages()) {
      void this.#agent.waitForIdle().then(() => {
        if (!this.#agent.state.isStreaming && this.#agent.hasQueuedMessages() && !this.#pane.closed) this.#run(() => this.#agent.continue());
      });
    }
  }

  /** Appends a finished message to a bare agent's session, once. */
  #save(message: AgentMessage): void {
    const store = this.#store;
    if (!store) return;
    if (this.#replayed !== undefined && message === this.#replayed) {
      this.#replayed = undefined; // the resumed call's message is in the file already
      return;
    }
    const role = roleOf(message);
    if (role === "user" || role === "assistant" || role === "toolResult") store.appendMessage(message as Parameters<SessionManager["appendMessage"]>[0]);
  }

  // ---- restart

  /**
   * When the session stopped while Pi waited on tool calls (no result saved: the process died with
   * a card open), runs them again: Pi replays the saved assistant message, so each call has its old
   * id and a risky one raises the same ask (S-23); an answer Collie held lands on it once.
   */
  #resume(): void {
    const store = this.#store;
    const agent = this.#agent;
    if (!store || agent.state.isStreaming) return;
    const waiting = waitingOnTools(agent.state.messages);
    if (!waiting) return;
    agent.state.messages = agent.state.messages.slice(0, waiting.index);
    // Results saved before the stop stay on an abandoned branch: the calls run again as one batch.
    const entryId = lastAssistantEntry(store);
    if (entryId !== undefined && store.getLeafId() !== entryId) store.branch(entryId);
    this.#live.skipNextAssistant();
    if (this.#session) this.#keepFromSaving(waiting.message, entryId);
    else this.#replayed = waiting.message;
    // Pi hands a run the streamFn it had at the start, so the replay answers the first model call
    // of this run and passes every later one to the agent's own.
    const original = agent.streamFn;
    let replayed = false;
    agent.streamFn = async (...args) => {
      if (replayed) return original(...args);
      replayed = true;
      agent.streamFn = original;
      const { createAssistantMessageEventStream } = await import("@mariozechner/pi-ai");
      const stream = createAssistantMessageEventStream();
      const message = waiting.message;
      queueMicrotask(() => {
        stream.push({ type: "start", partial: message });
        stream.push({ type: "done", reason: "toolUse", message });
        stream.end(message);
      });
      return stream;
    };
    this.#run(() => agent.continue());
  }

  /**
   * An AgentSession saves every message its agent finishes, the replayed one too, and Pi has no
   * way to resume a run from a saved tool call (`continue()` refuses an assistant message last).
   * So, for that one message object only, its SessionManager's `appendMessage` answers with the
   * entry already in the file; every other message is saved by Pi as usual. The patch is gone once
   * that message passed, or when the run ends without it.
   */
  #keepFromSaving(message: object, entryId: string | undefined): void {
    const store = this.#store!;
    const own = Object.hasOwn(store, "appendMessage");
    const save = store.appendMessage;
    const restore = () => {
      if (store.appendMessage !== patched) return;
      if (own) store.appendMessage = save;
      else delete (store as { appendMessage?: unknown }).appendMessage;
    };
    const patched: SessionManager["appendMessage"] = function (this: SessionManager, m) {
      if (m === message && entryId !== undefined) {
        restore();
        return entryId;
      }
      return save.call(this, m);
    };
    store.appendMessage = patched;
    const stop = this.#agent.subscribe((event) => {
      if (event.type !== "agent_end") return;
      stop();
      // After the session's own handling of this run's events, which it queues.
      setTimeout(restore, 0);
    });
  }
}
