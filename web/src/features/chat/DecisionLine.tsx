/**
 * An answer Collie holds for an agent that is away, where the chat shows no card for it (P-16,
 * issue #34; which ones: answer-lines.ts): `Allowed: refund · Pixel · 14:05`, under the tool call
 * the card was about, and that it waits in Collie until the agent is back. Agent text is text.
 */
import type { Decision } from "@colliepwa/shared";
import { shortTime } from "../../app/rules.ts";
import { CHAT_WORDS } from "./words.ts";

export function DecisionLine({ decision, today }: { decision: Decision; today: number }) {
  const what = decision.kind === "permission" ? (decision.tool ?? decision.title) : decision.title;
  return (
    <p className="decision-line muted" data-decision={decision.askId} data-option-kind={decision.optionKind} data-held={decision.held || undefined}>
      {CHAT_WORDS.decided(decision.kind === "permission" ? decision.optionKind : undefined, what)}
      {" · "}{decision.device}{" · "}
      <time dateTime={decision.at}>{shortTime(decision.at, today)}</time>
      {decision.held && <span className="decision-held"> {CHAT_WORDS.heldAnswer}</span>}
    </p>
  );
}
