/**
 * Pi's saved messages as the phone's items (S-14, S-35): what a session holds before a pane shows
 * it (its first page, issue 36) and what the history serves after it ended (S-31) are read by this
 * one function, so a conversation reads the same while it runs and after.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { SessionEntry, SessionManager } from "@mariozechner/pi-coding-agent";
import type { Item, ToolItem } from "../wire/types.ts";
import { contentText, finishedTool, isAssistant, roleOf, runningTool, wireId } from "./items.ts";

/** The custom entry (Pi's extension entries, left out of the model's context) that marks a call the phone or the terminal refused. */
export const DENIED_ENTRY = "collie.denied";

/** One saved message and what names its items: the entry id (stable across restarts) and its time. */
export interface SavedMessage {
  key: string;
  message: AgentMessage;
  ts?: string;
}

/**
 * Messages as items: a user line, each text and thinking block of a reply, one tool item per call
 * (ending done, failed, or denied when `denied` names it), a model error as a notice. Item ids
 * come from `key`, so reading the same messages again gives the same ids.
 */
export function transcriptItems(messages: readonly SavedMessage[], denied: ReadonlySet<string> = new Set()): Item[] {
  const items: Item[] = [];
  const tools = new Map<string, number>();
  for (const { key, message, ts } of messages) {
    const at = ts !== undefined ? { ts } : {};
    const role = roleOf(message);
    if (role === "user") {
      const text = contentText((message as { content?: unknown }).content);
      if (text.length > 0) items.push({ id: `${key}-u`, kind: "user", text, ...at });
    } else if (isAssistant(message)) {
      message.content.forEach((block, i) => {
        if (block?.type === "text" && typeof block.text === "string" && block.text.length > 0) {
          items.push({ id: `${key}-${i}`, kind: "reply", text: block.text, ...at });
        } else if (block?.type === "thinking" && typeof block.thinking === "string" && block.thinking.length > 0 && block.redacted !== true) {
          items.push({ id: `${key}-${i}`, kind: "thinking", text: block.thinking, ...at });
        } else if (block?.type === "toolCall" && typeof block.id === "string" && typeof block.name === "string" && block.name.length > 0) {
          tools.set(block.id, items.length);
          items.push({ ...runningTool(block.id, block.name, block.arguments), ...at });
        }
      });
      if (message.stopReason === "error" && typeof message.errorMessage === "string" && message.errorMessage.length > 0) {
        items.push({ id: `${key}-error`, kind: "notice", text: message.errorMessage, ...at });
      }
    } else if (role === "toolResult") {
      const result = message as { toolCallId?: unknown; toolName?: unknown; content?: unknown; isError?: unknown };
      if (typeof result.toolCallId !== "string") continue;
      const index = tools.get(result.toolCallId);
      const name = typeof result.toolName === "string" && result.toolName.length > 0 ? result.toolName : "tool";
      const running = index === undefined ? { ...runningTool(result.toolCallId, name, undefined), ...at } : (items[index] as ToolItem);
      const done = finishedTool(running, { content: result.content, isError: result.isError === true }, denied.has(result.toolCallId));
      if (index === undefined) items.push(done);
      else items[index] = done;
    }
  }
  return items;
}

/** The calls a session records as refused (`DENIED_ENTRY`). */
export function deniedCalls(entries: readonly SessionEntry[]): Set<string> {
  const denied = new Set<string>();
  for (const e of entries) {
    if (e.type !== "custom" || e.customType !== DENIED_ENTRY) continue;
    const id = (e.data as { toolCallId?: unknown } | undefined)?.toolCallId;
    if (typeof id === "string") denied.add(id);
  }
  return denied;
}

/** A session's current branch as items (its entries' ids name them). */
export function sessionItems(session: Pick<SessionManager, "getEntries" | "getBranch">): Item[] {
  const messages: SavedMessage[] = [];
  for (const entry of session.getBranch()) {
    if (entry.type !== "message") continue;
    const ms = Date.parse(entry.timestamp);
    messages.push({ key: wireId(entry.id), message: entry.message, ...(Number.isFinite(ms) ? { ts: new Date(ms).toISOString() } : {}) });
  }
  return transcriptItems(messages, deniedCalls(session.getEntries()));
}

/** Messages an agent holds without a session (attached after it ran): keyed by their place. */
export function agentItems(messages: readonly AgentMessage[]): Item[] {
  return transcriptItems(messages.map((message, i) => ({ key: `pre-${i}`, message })));
}
