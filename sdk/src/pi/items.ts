/**
 * Pi's messages as the phone's items (S-14), shared by the live pane and the history (S-35), so a
 * conversation reads the same while it runs and after it ended.
 */
import { createHash } from "node:crypto";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { ToolItem } from "../wire/types.ts";
import { callSummary } from "../core/approval.ts";
import { isValidId } from "../wire/rules.ts";

/**
 * A Pi id as a wire id (S-11). Provider ids almost always pass the ID rule and are kept as they
 * are; one that does not becomes a stable hash, so it is the same after a restart.
 */
export function wireId(piId: string): string {
  return isValidId(piId) ? piId : `h-${createHash("sha256").update(piId, "utf8").digest("hex").slice(0, 32)}`;
}

/** The id of a tool call's item; the card for the call sits under it (S-22). */
export const toolItemId = (toolCallId: string): string => wireId(toolCallId);

type ContentBlock = { type: string; text?: string };

/** The text of a user message or a tool result: its text blocks, one after another. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as ContentBlock[])
    .filter((b) => b?.type === "text" && typeof b.text === "string")
    .map((b) => b.text)
    .join("\n");
}

/** A tool's line before it has a result. */
export function runningTool(toolCallId: string, toolName: string, args: unknown): ToolItem {
  return { id: toolItemId(toolCallId), kind: "tool", name: toolName, status: "running", call: safeCall(toolName, args) };
}

/** A tool's line with its result: done, failed, or denied when the phone refused it. */
export function finishedTool(running: ToolItem, result: { content?: unknown; isError: boolean }, denied: boolean): ToolItem {
  const output = contentText(result.content);
  const status = denied ? "denied" : result.isError ? "failed" : "done";
  return { ...running, status, ...(output.length > 0 ? { output } : {}) };
}

function safeCall(toolName: string, args: unknown): string | undefined {
  try {
    return toolName.length > 0 ? callSummary(toolName, args) : undefined;
  } catch {
    return undefined;
  }
}

/** What one role of Pi's messages holds, read defensively: session files are the user's own. */
export interface AssistantLike {
  role: "assistant";
  content: { type: string; text?: string; thinking?: string; redacted?: boolean; id?: string; name?: string; arguments?: unknown }[];
  stopReason?: string;
  errorMessage?: string;
}
export const isAssistant = (m: AgentMessage | undefined): m is AgentMessage & AssistantLike =>
  (m as { role?: unknown } | undefined)?.role === "assistant" && Array.isArray((m as { content?: unknown }).content);
export const roleOf = (m: unknown): string | undefined => (m as { role?: unknown } | null)?.role as string | undefined;
