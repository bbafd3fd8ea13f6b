/**
 * What `./pi` keeps about Pi sessions: which ones a live pane shows (the history's `open`, S-31),
 * which calls the phone refused (so history says `denied`), and where a stopped session was waiting.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AssistantMessage } from "@mariozechner/pi-ai";
import type { SessionManager } from "@mariozechner/pi-coding-agent";
import type { Pane } from "../core/layout.ts";
import { isAssistant, roleOf } from "./items.ts";

/** The custom entry (Pi's extension entries, left out of the model's context) that marks a refused call. */
export const DENIED_ENTRY = "collie.denied";

/** Panes showing a session, by session id; a closed pane no longer counts. */
const live = new Map<string, { pane: Pane; file: string | undefined }>();

/** Records that `pane` shows `session` (the history lists it as open). */
export function showSession(session: SessionManager, pane: Pane): void {
  live.set(session.getSessionId(), { pane, file: session.getSessionFile() });
}

/** The open pane showing a session, if any. */
export function livePane(sessionId: string): Pane | undefined {
  const shown = live.get(sessionId);
  if (!shown) return undefined;
  if (!shown.pane.closed) return shown.pane;
  live.delete(sessionId);
  return undefined;
}

/** Notes in the session that the phone refused a call; its result is only an error to Pi. */
export function markDenied(session: SessionManager, toolCallId: string): void {
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
export function lastAssistantEntry(session: SessionManager): string | undefined {
  const branch = session.getBranch();
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!;
    if (entry.type === "message" && roleOf(entry.message) === "assistant") return entry.id;
  }
  return undefined;
}
