/**
 * What `./pi` reads from and notes in Pi's sessions: which calls were refused (so history says
 * `denied`), and where a stopped session was waiting on tool calls (so a restart raises the same
 * card again, S-23).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AssistantMessage } from "@mariozechner/pi-ai";
import type { SessionManager } from "@mariozechner/pi-coding-agent";
import { isAssistant, roleOf } from "./items.ts";
import { DENIED_ENTRY } from "./transcript.ts";

/**
 * Notes in the session that a call was refused: a custom entry, Pi's own way for an extension to
 * keep state beside the conversation (left out of the model's context). Its result message is
 * only an error to Pi; this is how the history tells a refusal from a failure.
 */
export function markDenied(session: Pick<SessionManager, "appendCustomEntry">, toolCallId: string): void {
  session.appendCustomEntry(DENIED_ENTRY, { toolCallId });
}

/**
 * The assistant message whose tool calls have no results yet, when the conversation ends there:
 * the session stopped while Pi waited on them (a restart, a crash).
 */
export function waitingOnTools(messages: readonly AgentMessage[]): { index: number; message: AssistantMessage } | undefined {
  let index = messages.length - 1;
  while (index >= 0 && roleOf(messages[index]) === "toolResult") index--;
  const message = messages[index];
  if (!isAssistant(message) || message.stopReason !== "toolUse") return undefined;
  const calls = message.content.filter((b) => b.type === "toolCall").map((b) => b.id);
  const answered = new Set(messages.slice(index + 1).map((m) => (m as { toolCallId?: unknown }).toolCallId));
  if (calls.length === 0 || calls.every((id) => answered.has(id))) return undefined;
  return { index, message: message as AssistantMessage };
}

/** The id of the newest assistant message entry on the session's current branch. */
export function lastAssistantEntry(session: Pick<SessionManager, "getBranch">): string | undefined {
  const branch = session.getBranch();
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!;
    if (entry.type === "message" && roleOf(entry.message) === "assistant") return entry.id;
  }
  return undefined;
}
