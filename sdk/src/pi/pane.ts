/**
 * `piPane` (S-35): one Pi `Agent` as one pane, wired both ways.
 *
 * Pi → phone: a streamed text block is a `reply` item with `partial` while it grows (the pane
 * coalesces to one write per 250 ms, S-15), a thinking block a `thinking` item, each tool
 * execution a `tool` item (running → done / failed, denied when the phone refused it), a run a
 * turn, an error a `notice`.
 *
 * Phone → Pi: send → `prompt` when idle, `followUp` while running (so the agent declares the
 * `followUp` cap); steer → `steer`; stop → `abort`. A call that `risky` marks waits for the phone (`requireApproval`, ask id
 * `askIdFor(pane.id, toolCall.id)`) inside Pi's `beforeToolCall`; every answer but Allow blocks it.
 */
import type {
  Agent, AgentEvent, AgentMessage, BeforeToolCallContext, BeforeToolCallResult,
} from "@mariozechner/pi-agent-core";
import type { SessionManager } from "@mariozechner/pi-coding-agent";
import type { DecidedBy, ToolItem } from "../wire/types.ts";
import { requireApproval } from "../core/approval.ts";
import { randomId } from "../core/ids.ts";
import type { Pane, Tab } from "../core/layout.ts";
import { PI_HARNESS } from "./constants.ts";
import { contentText, finishedTool, isAssistant, roleOf, runningTool, toolItemId, wireId, type AssistantLike } from "./items.ts";
import { lastAssistantEntry, markDenied, showSession, waitingOnTools } from "./sessions.ts";

/** A tool call as `risky` and `approval` see it. */
export interface PiToolCall {
  toolName: string;
  toolCallId: string;
  /** The arguments after Pi validated them against the tool's schema. */
  args: unknown;
}

/** The words of a call's card (S-22); what is left out keeps `requireApproval`'s own (S-25). */
export interface PiCardWords {
  title?: string;
  reason?: string;
  push?: { title?: string; line?: string };
}

export interface PiPaneOptions {
  /** The pane's id (S-11). */
  id: string;
  title?: string;
  /** An absolute path; the phone shows it with the conversation (S-10). */
  cwd?: string;
  /**
   * Pi's session storage for this conversation. Every message Pi finishes is appended to it; when
   * it already holds messages and the agent has none, the agent starts from them, and a tool call
   * it was waiting on is raised again (same ask id, S-23). The pane's `sessionId` is the session's.
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

const DEFAULT_TIMEOUT_MS = 60 * 60 * 1000;

const wired = new WeakMap<Pane, Agent>();

/** Shows `agent` as the pane `opts.id` in `tab` and returns the pane. */
export function piPane(tab: Tab, agent: Agent, opts: PiPaneOptions): Pane {
  if (!tab || typeof tab.pane !== "function") throw new TypeError("piPane(tab, agent, opts) needs a tab");
  if (!agent || typeof agent.subscribe !== "function" || typeof agent.prompt !== "function") {
    throw new TypeError("piPane(tab, agent, opts) needs a Pi Agent from @mariozechner/pi-agent-core");
  }
  if (!opts || typeof opts.id !== "string") throw new TypeError("piPane needs opts.id, the pane's id");
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new RangeError(`timeoutMs ${timeoutMs} must be a positive number of milliseconds`);
  const session = opts.session;
  const pane = tab.pane(opts.id, {
    ...(opts.title !== undefined ? { title: opts.title } : {}),
    harness: PI_HARNESS,
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    ...(session ? { sessionId: wireId(session.getSessionId()) } : {}),
  });
  const already = wired.get(pane);
  if (already === agent) return pane;
  if (already) throw new TypeError(`pane ${JSON.stringify(pane.id)} already shows another Pi agent`);
  wired.set(pane, agent);
  new PiWiring(pane, agent, opts, timeoutMs).start();
  return pane;
}

/** One assistant message as it streams: its blocks' item ids. */
interface Streaming {
  key: string;
  /** Blocks already shown, by content index. */
  shown: Set<number>;
}

class PiWiring {
  readonly #pane: Pane;
  readonly #agent: Agent;
  readonly #opts: PiPaneOptions;
  readonly #timeoutMs: number;
  /** `Always allow` answers, per tool, for this pane alone (S-27). */
  readonly #alwaysAllowed = new Set<string>();
  /** Tool calls not allowed (Deny, a stop, a timeout, a closed pane): their items end `denied`. */
  readonly #denied = new Set<string>();
  /** Running tool items by tool call id. */
  readonly #tools = new Map<string, ToolItem>();
  /** Messages the phone sent: the core already echoed them (P-20). */
  readonly #fromPhone = new WeakSet<object>();
  /** Error messages already shown as a notice. */
  readonly #noticed = new WeakSet<object>();
  /** A message Pi replays from the session after a restart: saved once already. */
  #replayed: object | undefined;
  #streaming: Streaming | undefined;
  /** The turn was begun by a phone send before Pi's `agent_start`. */
  #turnBegun = false;

  constructor(pane: Pane, agent: Agent, opts: PiPaneOptions, timeoutMs: number) {
    this.#pane = pane;
    this.#agent = agent;
    this.#opts = opts;
    this.#timeoutMs = timeoutMs;
  }

  start(): void {
    const pane = this.#pane;
    const agent = this.#agent;
    if (this.#opts.session) showSession(this.#opts.session, pane);
    agent.subscribe((event) => this.#onEvent(event));
    // Chained, not replaced: a beforeToolCall the agent already had runs first (S-35).
    const earlier = agent.beforeToolCall;
    agent.beforeToolCall = async (ctx, signal) => {
      const first = await earlier?.(ctx, signal);
      if (first?.block) return first;
      const ours = await this.#beforeToolCall(ctx, signal);
      return ours ?? first;
    };
    pane.on({
      onSend: ({ text }) => this.#send(text, "followUp"),
      onSteer: ({ text }) => this.#send(text, "steer"),
      onStop: async () => {
        agent.clearAllQueues();
        agent.abort();
        await agent.waitForIdle();
      },
    });
    this.#resume();
  }

  // ---- phone → Pi

  #send(text: string, whileRunning: "followUp" | "steer"): { turnId?: string } {
    const agent = this.#agent;
    const message = { role: "user" as const, content: [{ type: "text" as const, text }], timestamp: Date.now() };
    this.#fromPhone.add(message);
    if (agent.state.isStreaming) {
      agent[whileRunning](message);
      return this.#pane.turnId === null ? {} : { turnId: this.#pane.turnId };
    }
    const turnId = this.#beginTurn();
    this.#run(() => agent.prompt(message));
    return { turnId };
  }

  #beginTurn(): string {
    this.#turnBegun = true;
    return this.#pane.beginTurn();
  }

  /** Runs a Pi call without awaiting it: its failure becomes a notice, not an unhandled rejection. */
  #run(call: () => Promise<void>): void {
    call().catch((err: unknown) => {
      if (this.#pane.closed) return;
      this.#pane.item({ kind: "notice", text: err instanceof Error ? err.message : String(err) });
      if (!this.#agent.state.isStreaming) this.#endTurn();
    });
  }

  #endTurn(): void {
    this.#turnBegun = false;
    if (!this.#pane.closed) this.#pane.endTurn();
  }

  // ---- the card

  async #beforeToolCall(ctx: BeforeToolCallContext, signal?: AbortSignal): Promise<BeforeToolCallResult | undefined> {
    const call: PiToolCall = { toolName: ctx.toolCall.name, toolCallId: ctx.toolCall.id, args: ctx.args };
    if (!this.#opts.risky?.(call)) return undefined;
    const pane = this.#pane;
    if (pane.closed) return this.#block(call, "program");
    const words = this.#opts.approval?.(call) ?? {};
    const approval = await requireApproval(call.toolName, call.args, {
      pane,
      toolCallId: wireId(call.toolCallId),
      itemId: toolItemId(call.toolCallId),
      timeoutMs: this.#timeoutMs,
      offerAlways: this.#opts.offerAlways ?? true,
      alwaysAllowed: this.#alwaysAllowed,
      ...(signal ? { signal } : {}),
      ...(words.title !== undefined ? { title: words.title } : {}),
      ...(words.reason !== undefined ? { reason: words.reason } : {}),
      ...(words.push !== undefined ? { push: words.push } : {}),
    });
    return approval.approved ? undefined : this.#block(call, approval.decidedBy);
  }

  #block(call: PiToolCall, decidedBy: DecidedBy): BeforeToolCallResult {
    this.#denied.add(call.toolCallId);
    if (this.#opts.session) markDenied(this.#opts.session, call.toolCallId);
    const reason = this.#opts.blockedReason?.(call, decidedBy) ?? `${call.toolName} was not run: ${decidedBy === "phone" ? "the user refused it" : decidedBy === "timeout" ? "nobody answered in time" : "the run was stopped"}.`;
    return { block: true, reason };
  }

  // ---- Pi → phone

  #onEvent(event: AgentEvent): void {
    const pane = this.#pane;
    if (event.type === "message_end") this.#save(event.message);
    if (pane.closed) return;
    switch (event.type) {
      case "agent_start":
        if (!this.#turnBegun || pane.currentState() === "idle") this.#beginTurn();
        break;
      case "message_start":
        if (isAssistant(event.message)) this.#streaming = { key: randomId("m-"), shown: new Set() };
        else if (roleOf(event.message) === "user" && !this.#fromPhone.has(event.message as object)) {
          const text = contentText((event.message as { content?: unknown }).content);
          if (text.length > 0) pane.item({ kind: "user", text });
        }
        break;
      case "message_update": {
        // Only text and thinking grow on the phone; a tool call shows once it runs.
        const kind = event.assistantMessageEvent.type;
        if (isAssistant(event.message) && (kind.startsWith("text_") || kind.startsWith("thinking_"))) this.#showBlocks(event.message, true);
        break;
      }
      case "message_end":
        if (isAssistant(event.message)) {
          this.#showBlocks(event.message, false);
          this.#streaming = undefined;
          this.#noticeError(event.message);
        }
        break;
      case "tool_execution_start": {
        const item = runningTool(event.toolCallId, event.toolName, event.args);
        this.#tools.set(event.toolCallId, item);
        pane.item(item);
        break;
      }
      case "tool_execution_update": {
        const item = this.#tools.get(event.toolCallId);
        const output = contentText((event.partialResult as { content?: unknown } | undefined)?.content);
        if (item && output.length > 0) pane.item({ ...item, output });
        break;
      }
      case "tool_execution_end": {
        const item = this.#tools.get(event.toolCallId) ?? runningTool(event.toolCallId, event.toolName, undefined);
        this.#tools.delete(event.toolCallId);
        const result = event.result as { content?: unknown } | undefined;
        pane.item(finishedTool(item, { content: result?.content, isError: event.isError }, this.#denied.delete(event.toolCallId)));
        break;
      }
      case "agent_end":
        for (const m of event.messages) if (isAssistant(m)) this.#noticeError(m);
        pane.flushPartials();
        this.#endTurn();
        // A follow-up sent as the run ended, after Pi's last look at its queue, starts the next run.
        if (this.#agent.hasQueuedMessages()) {
          void this.#agent.waitForIdle().then(() => {
            if (!this.#agent.state.isStreaming && this.#agent.hasQueuedMessages() && !pane.closed) this.#run(() => this.#agent.continue());
          });
        }
        break;
      default:
        break;
    }
  }

  /** Writes the message's text and thinking blocks; `partial` while it streams. */
  #showBlocks(message: AssistantLike, partial: boolean): void {
    const streaming = this.#streaming ?? (this.#streaming = { key: randomId("m-"), shown: new Set() });
    message.content.forEach((block, index) => {
      const text = block.type === "text" ? block.text : block.type === "thinking" && block.redacted !== true ? block.thinking : undefined;
      if (typeof text !== "string") return;
      if (text.length === 0 && !streaming.shown.has(index)) return;
      streaming.shown.add(index);
      this.#pane.item({ id: `${streaming.key}-${index}`, kind: block.type === "text" ? "reply" : "thinking", text, ...(partial ? { partial: true } : {}) });
    });
  }

  #noticeError(message: AssistantLike): void {
    if (message.stopReason !== "error" || this.#noticed.has(message)) return;
    this.#noticed.add(message);
    this.#pane.item({ kind: "notice", text: message.errorMessage ?? message.stopReason });
  }

  /** Appends a finished message to the session (Pi's own storage), once. */
  #save(message: AgentMessage): void {
    const session = this.#opts.session;
    if (!session) return;
    if (this.#replayed !== undefined && isAssistant(message)) {
      this.#replayed = undefined; // the resumed call's message is in the file already
      return;
    }
    const role = roleOf(message);
    if (role === "user" || role === "assistant" || role === "toolResult") session.appendMessage(message as Parameters<SessionManager["appendMessage"]>[0]);
  }

  // ---- restart

  /**
   * Starts the agent from its session and, when the session stopped while Pi waited on tool calls
   * (no result saved), runs them again: Pi replays the saved assistant message, so each call has
   * its old id and a risky one raises the same ask (S-23); an answer Collie held lands on it.
   */
  #resume(): void {
    const session = this.#opts.session;
    const agent = this.#agent;
    if (!session || agent.state.isStreaming) return;
    if (agent.state.messages.length === 0) agent.state.messages = session.buildSessionContext().messages;
    const waiting = waitingOnTools(agent.state.messages);
    if (!waiting) return;
    agent.state.messages = agent.state.messages.slice(0, waiting.index);
    // Results saved before the stop stay on an abandoned branch: the calls run again as one batch.
    const entryId = lastAssistantEntry(session);
    if (entryId !== undefined && session.getLeafId() !== entryId) session.branch(entryId);
    this.#replayed = waiting.message;
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
}
