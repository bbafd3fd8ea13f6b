/**
 * The wire's error catalog (W-5): every code with its HTTP status and what it means. An error body
 * is `{error, message, ...extra}`; the phone maps the ask outcomes to P-15's lines.
 */
export const WIRE_ERRORS = Object.freeze({
  "bad-request": { status: 400, means: "The request is malformed: bad JSON, a missing or invalid field, an invalid id." },
  "invalid-answer": { status: 400, means: "The answer does not fit the ask (unknown option, missing required field, text over the limit); the ask stays open." },
  unauthorized: { status: 401, means: "The bearer token is missing or wrong (https only)." },
  "caller-refused": { status: 403, means: "The caller is the agent's own process or one it started (S-7)." },
  "not-found": { status: 404, means: "No such route, pane, tab, workspace, starter, action or conversation." },
  "version-mismatch": { status: 404, means: "The path names a wire version this agent does not speak; `speaks` lists the ones it does." },
  "not-supported": { status: 409, means: "The cap is off, or neither a pane handler nor a hook takes this action (S-19, S-33)." },
  refused: { status: 409, means: "The agent's handler refused the action; `reason` says why when it gave one. No receipt is kept (S-29)." },
  "moved-on": { status: 409, means: "The turn the phone named is not the pane's turn any more; nothing ran (S-20, P-23)." },
  "ask-decided": { status: 409, means: "The agent decided the ask before this answer (decidedBy program)." },
  "ask-timed-out": { status: 409, means: "The ask expired before this answer (decidedBy timeout)." },
  "ask-answered": { status: 409, means: "Another answer from the phone came first." },
  "ask-not-open": { status: 409, means: "No such ask is open and the agent knows no reason; it may be raised again (e.g. after a restart)." },
  "ask-changed": { status: 409, means: "The ask's revision changed since the phone read it; `revision` is the current one." },
  "too-large": { status: 413, means: "The request body is larger than the agent reads." },
  "receipt-dropped": { status: 500, means: "The request id was seen, but its receipt is no longer kept; nothing ran (S-28)." },
  internal: { status: 500, means: "The agent failed while handling the request." },
} as const);

export type WireErrorCode = keyof typeof WIRE_ERRORS;

/** The ask outcomes the phone tells apart (P-15). */
export const ASK_OUTCOME_CODES = Object.freeze([
  "ask-decided", "ask-timed-out", "ask-answered", "ask-not-open", "ask-changed", "moved-on",
] as const satisfies readonly WireErrorCode[]);

export function isWireErrorCode(code: unknown): code is WireErrorCode {
  return typeof code === "string" && Object.hasOwn(WIRE_ERRORS, code);
}

/** The HTTP status of a code. */
export function statusOf(code: WireErrorCode): number {
  return WIRE_ERRORS[code].status;
}
