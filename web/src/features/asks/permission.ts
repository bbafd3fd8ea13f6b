/**
 * The buttons of a `permission` ask (P-10, P-11, P-12): one per option, at most 6, in Collie's
 * words; the agent's own label goes on a quiet second line when it says something else.
 * `Always allow` is only offered when the ask names its tool and Collie showed its whole text.
 * Pure.
 */
import { STRINGS } from "@colliepwa/shared";
import { LIMITS, type Ask, type PermissionAsk, type PermissionOption, type PermissionOptionKind } from "@colliepwa/durable-sdk/wire";

const WORDS: Record<PermissionOptionKind, string> = {
  allow: STRINGS.allow,
  "allow-always": STRINGS.alwaysAllow,
  deny: STRINGS.deny,
  cancel: STRINGS.cancel,
};

export interface PermissionButton {
  option: PermissionOption;
  /** Collie's word for the option's kind. */
  word: string;
  /** The agent's label, when it differs from Collie's word. */
  label: string | null;
  /** Takes two taps (P-11). */
  twoTaps: boolean;
}

/** `Always allow` is offered only for an ask that names its tool and was not shortened (P-11, P-12). */
export function alwaysAllowOffered(ask: Pick<Ask, "tool" | "textShortened">): boolean {
  return Boolean(ask.tool?.name) && ask.textShortened !== true;
}

export function permissionButtons(ask: PermissionAsk): PermissionButton[] {
  const always = alwaysAllowOffered(ask);
  return ask.options
    .slice(0, LIMITS.permissionOptions)
    .filter((o) => o.kind in WORDS && (o.kind !== "allow-always" || always))
    .map((option) => {
      const word = WORDS[option.kind];
      const own = option.label.trim();
      return { option, word, label: own && own.toLowerCase() !== word.toLowerCase() ? own : null, twoTaps: option.kind === "allow-always" };
    });
}
