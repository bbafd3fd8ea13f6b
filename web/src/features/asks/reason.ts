/**
 * A long reason folds (P-9): more than 240 characters or more than 4 lines shows its start and a
 * `Show more` toggle. Pure.
 */
export const REASON_CHARS = 240;
export const REASON_LINES = 4;

export interface FoldedReason {
  long: boolean;
  /** What shows while folded (the whole text when it is short). */
  short: string;
}

export function foldReason(text: string): FoldedReason {
  const lines = text.split("\n");
  const chars = Array.from(text);
  if (chars.length <= REASON_CHARS && lines.length <= REASON_LINES) return { long: false, short: text };
  let short = lines.slice(0, REASON_LINES).join("\n");
  const shortChars = Array.from(short);
  if (shortChars.length > REASON_CHARS) short = shortChars.slice(0, REASON_CHARS).join("");
  return { long: true, short: `${short.trimEnd()}…` };
}
