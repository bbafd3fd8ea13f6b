/**
 * Which answers leave a line in the chat (P-16, issue #34). An ask answered on the phone leaves
 * none: the tap had its own card. The one record the card cannot give is an answer Collie holds
 * for an agent that is away, whose ask the chat does not show open (the agent restarted and has
 * not raised it again, or is gone for now): it shows until it is delivered. While its ask is open,
 * the card itself says which answer waits.
 */
import type { Decision } from "@colliepwa/shared";
import type { Ask } from "@colliepwa/durable-sdk/wire";

/** `settled`: request ids Collie has delivered (or given up) since: `held-outcome` names them. */
export function answerLines(decisions: readonly Decision[], openAsks: readonly Ask[], settled: ReadonlyMap<string, unknown>): Decision[] {
  if (decisions.length === 0) return [];
  const open = new Set(openAsks.map((a) => a.id));
  return decisions.filter((d) => d.held === true && !open.has(d.askId) && !(d.requestId !== undefined && settled.has(d.requestId)));
}

