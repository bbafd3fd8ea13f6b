/**
 * A quiet line for an answer given from a phone (issue 21: answers leave a trace): `Allowed:
 * refund · Pixel · 14:05`, under the tool call the card was about. Agent text is text.
 */
import type { Decision } from "@colliepwa/shared";
import { shortTime } from "../../app/rules.ts";
import { CHAT_WORDS } from "./words.ts";

export function DecisionLine({ decision, today }: { decision: Decision; today: number }) {
  const what = decision.kind === "permission" ? (decision.tool ?? decision.title) : decision.title;
  return (
    <p className="decision-line muted" data-decision={decision.askId} data-option-kind={decision.optionKind}>
      {CHAT_WORDS.decided(decision.kind === "permission" ? decision.optionKind : undefined, what)}
      {" · "}{decision.device}{" · "}
      <time dateTime={decision.at}>{shortTime(decision.at, today)}</time>
    </p>
  );
}
