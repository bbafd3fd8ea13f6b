/**
 * Pi's live events as the phone's items (S-14, S-15, S-35): the one mapping `piPane` (a Pi `Agent`
 * or `AgentSession` in the agent's process) and the `pi` CLI's extension (through the Pi desk) both
 * use. Pi's `Agent`, its `AgentSession` and its extensions see the same event shapes; this reads
 * only the fields they share, defensively.
 *
 * A streamed text block is a `reply` item with `partial` while it grows, a thinking block a
 * `thinking` item, each tool execution a `tool` item (running → done / failed, denied when it was
 * refused), a run a turn, a model error a `notice`.
 */
import type { ItemInput } from "../core/items.ts";
import { randomId } from "../core/ids.ts";
import type { ToolItem } from "../wire/types.ts";
import { contentText, finishedTool, isAssistant, roleOf, runningTool, type AssistantLike } from "./items.ts";

/** Where the mapping writes: a pane in this process, or the desk's pane for a `pi` process. */
export interface PiSurface {
  readonly closed: boolean;
  /** Writes an item (with its id; a known id replaces the earlier one, S-14). */
  item(item: ItemInput & { id: string }): void;
  /** A run started: the conversation works (a turn begins unless one is running). */
  working(): void;
  /** The run ended: pending partial text is written, the conversation is idle. */
  idle(): void;
}

/** The parts of a Pi event the mapping reads (Agent, AgentSession and extension events share them). */
export interface PiEvent {
  type: string;
  message?: unknown;
  messages?: unknown;
  assistantMessageEvent?: { type?: unknown };
  toolCallId?: unknown;
  toolName?: unknown;
  args?: unknown;
  partialResult?: unknown;
  result?: unknown;
  isError?: unknown;
}

/** How many phone texts wait for their user message at most (sends that never became one are forgotten). */
const ECHOES_KEPT = 32;

export class PiLive {
  readonly #surface: PiSurface;
  /** Calls that were not allowed: their items end `denied`. */
  readonly #denied = new Set<string>();
  /** Running tool items by tool call id. */
  readonly #tools = new Map<string, ToolItem>();
  /** User messages the phone sent, by object: the core echoed them already (P-20). */
  readonly #fromPhone = new WeakSet<object>();
  /** Texts the phone sent through an entry point that builds its own message (AgentSession, the CLI). */
  readonly #echoes: string[] = [];
  readonly #noticed = new WeakSet<object>();
  /** The next assistant message is one the page shows already (a call replayed after a restart). */
  #skipNext = false;
  #streaming: { key: string; shown: Set<number>; skip: boolean } | undefined;

  constructor(surface: PiSurface) {
    this.#surface = surface;
  }

  /** This message object came from the phone, whose line the core wrote already. */
  fromPhone(message: object): void {
    this.#fromPhone.add(message);
  }

  /** The phone sent `text`; the user message Pi builds from it is not shown again. */
  expectEcho(text: string): void {
    this.#echoes.push(text);
    if (this.#echoes.length > ECHOES_KEPT) this.#echoes.shift();
  }

  /** The phone's text was refused before Pi took it: no message will echo it. */
  forgetEcho(text: string): void {
    const i = this.#echoes.lastIndexOf(text);
    if (i >= 0) this.#echoes.splice(i, 1);
  }

  /** The next assistant message is shown already (its saved copy is on the page). */
  skipNextAssistant(): void {
    this.#skipNext = true;
  }

  /** The call was not allowed: its tool item ends `denied`. */
  deny(toolCallId: string): void {
    this.#denied.add(toolCallId);
  }

  /** What the tool item of a call shows now, if it is running. */
  runningTool(toolCallId: string): ToolItem | undefined {
    return this.#tools.get(toolCallId);
  }

  event(event: PiEvent): void {
    const surface = this.#surface;
    if (surface.closed) return;
    switch (event.type) {
      case "agent_start":
        surface.working();
        break;
      case "message_start":
        if (isAssistant(event.message as never)) {
          this.#streaming = { key: randomId("m-"), shown: new Set(), skip: this.#skipNext };
          this.#skipNext = false;
        } else if (roleOf(event.message) === "user") this.#userLine(event.message as object);
        break;
      case "message_update": {
        // Only text and thinking grow on the phone; a tool call shows once it runs.
        const kind = event.assistantMessageEvent?.type;
        if (typeof kind === "string" && (kind.startsWith("text_") || kind.startsWith("thinking_")) && isAssistant(event.message as never)) {
          this.#blocks(event.message as AssistantLike, true);
        }
        break;
      }
      case "message_end":
        if (isAssistant(event.message as never)) {
          this.#blocks(event.message as AssistantLike, false);
          this.#streaming = undefined;
          this.#noticeError(event.message as AssistantLike);
        }
        break;
      case "tool_execution_start": {
        if (typeof event.toolCallId !== "string") break;
        const item = runningTool(event.toolCallId, typeof event.toolName === "string" ? event.toolName : "tool", event.args);
        this.#tools.set(event.toolCallId, item);
        surface.item(item);
        break;
      }
      case "tool_execution_update": {
        if (typeof event.toolCallId !== "string") break;
        const item = this.#tools.get(event.toolCallId);
        const output = contentText((event.partialResult as { content?: unknown } | undefined)?.content);
        if (item && output.length > 0) surface.item({ ...item, output });
        break;
      }
      case "tool_execution_end": {
        if (typeof event.toolCallId !== "string") break;
        const item = this.#tools.get(event.toolCallId) ?? runningTool(event.toolCallId, typeof event.toolName === "string" ? event.toolName : "tool", undefined);
        this.#tools.delete(event.toolCallId);
        const result = event.result as { content?: unknown } | undefined;
        surface.item(finishedTool(item, { content: result?.content, isError: event.isError === true }, this.#denied.delete(event.toolCallId)));
        break;
      }
      case "agent_end":
        // A run that failed before any message (an aborted or broken run) reports its error here only.
        if (Array.isArray(event.messages)) for (const m of event.messages) if (isAssistant(m)) this.#noticeError(m as AssistantLike);
        this.#streaming = undefined;
        surface.idle();
        break;
      default:
        break;
    }
  }

  #userLine(message: object): void {
    if (this.#fromPhone.has(message)) return;
    const text = contentText((message as { content?: unknown }).content);
    if (text.length === 0) return;
    const echo = this.#echoes.indexOf(text);
    if (echo >= 0) {
      this.#echoes.splice(echo, 1);
      return;
    }
    this.#surface.item({ id: randomId("u-"), kind: "user", text });
  }

  /** Writes the message's text and thinking blocks; `partial` while it streams. */
  #blocks(message: AssistantLike, partial: boolean): void {
    const streaming = this.#streaming ?? (this.#streaming = { key: randomId("m-"), shown: new Set(), skip: false });
    if (streaming.skip) return;
    message.content.forEach((block, index) => {
      const text = block?.type === "text" ? block.text : block?.type === "thinking" && block.redacted !== true ? block.thinking : undefined;
      if (typeof text !== "string") return;
      if (text.length === 0 && !streaming.shown.has(index)) return;
      streaming.shown.add(index);
      this.#surface.item({ id: `${streaming.key}-${index}`, kind: block.type === "text" ? "reply" : "thinking", text, ...(partial ? { partial: true } : {}) });
    });
  }

  #noticeError(message: AssistantLike): void {
    if (message.stopReason !== "error" || this.#noticed.has(message)) return;
    this.#noticed.add(message);
    this.#surface.item({ id: randomId("n-"), kind: "notice", text: message.errorMessage || "The model answered with an error." });
  }
}
