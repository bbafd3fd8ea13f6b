/**
 * The answer Collie holds for an ask (D-5), as Collie tells every phone (`PaneDetail.decisions`,
 * the live `decision` message): after a reload, or on another phone, the card still shows which
 * answer waits (issue #34) instead of offering its buttons again.
 */
import type { Decision } from "@colliepwa/shared";
import type { Answer } from "@colliepwa/durable-sdk/wire";

export function heldAnswerOf(decisions: readonly Decision[] | undefined, askId: string): { requestId: string; answer: Answer } | undefined {
  const d = decisions?.find((x) => x.held === true && x.askId === askId && x.requestId !== undefined && x.answer !== undefined);
  return d ? { requestId: d.requestId!, answer: d.answer! } : undefined;
}
