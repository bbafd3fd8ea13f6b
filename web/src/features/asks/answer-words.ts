/**
 * An answer said back in a few words (issue: an answer held for a down agent must say which): the
 * permission's word (`Allow`, `Always allow`, `Deny`, `Cancel`), the choice's labels, the text in
 * quotes, or a form's plain "your answers". Pure.
 */
import type { Answer, Ask } from "@colliepwa/durable-sdk/wire";
import { STRINGS } from "@colliepwa/shared";

/** How much of a typed answer is repeated on the card. */
const TEXT_SHOWN = 60;

const PERMISSION_WORDS: Record<string, string> = {
  allow: STRINGS.allow,
  "allow-always": STRINGS.alwaysAllow,
  deny: STRINGS.deny,
  cancel: STRINGS.cancel,
};

export function answerWords(ask: Ask, answer: Answer): string {
  switch (answer.kind) {
    case "permission": {
      const option = ask.kind === "permission" && "options" in ask ? ask.options.find((o) => o.id === answer.optionId) : undefined;
      return (option && PERMISSION_WORDS[option.kind]) ?? answer.optionId;
    }
    case "choice": {
      const labels = answer.optionIds.map((id) => (ask.kind === "choice" && "options" in ask ? ask.options.find((o) => o.id === id)?.label : undefined) ?? id);
      return labels.length ? labels.join(", ") : "nothing picked";
    }
    case "text":
      return answer.text.length > TEXT_SHOWN ? `“${answer.text.slice(0, TEXT_SHOWN - 1)}…”` : `“${answer.text}”`;
    case "form":
      return "your answers";
    default:
      return "your answer";
  }
}
