/**
 * Text limits of asks (P-10): a `text` ask takes 500 characters or the agent's limit up to 2000,
 * a form's text field its own limit (500 by default). Characters are code points, as the agent
 * counts them (sdk checkAnswer), so an emoji is one. Pure.
 */
import { LIMITS } from "@colliepwa/durable-sdk/wire";

/** Characters as the agent counts them: code points. */
export const charCount = (s: string): number => Array.from(s).length;

/** The limit to apply: the agent's, else 500; never above 2000 nor below 1. */
export function textLimit(limit: number | undefined): number {
  if (typeof limit !== "number" || !Number.isFinite(limit)) return LIMITS.textDefaultLimit;
  return Math.min(LIMITS.textMaxLimit, Math.max(1, Math.floor(limit)));
}

/** The text cut to the limit: typing or pasting never goes over (P-10). */
export function clampText(s: string, limit: number): string {
  const chars = Array.from(s);
  return chars.length <= limit ? s : chars.slice(0, limit).join("");
}
