/**
 * Every error Collie itself answers on the phone API, with its status: one catalog for both ends
 * (the server sends only these codes, through `server/src/errors.ts`; the phone maps them). An
 * agent's own error codes pass through as the durable wire's catalog has them (`WIRE_ERRORS`).
 */
export const API_ERRORS = Object.freeze({
  "bad-request": { status: 400, meaning: "a body, query or path Collie cannot take (the wire's own checkers decide a write's body)" },
  "unsupported-type": { status: 415, meaning: "a body that is not JSON (its content type)" },
  "too-large": { status: 413, meaning: "a body over 256 KiB" },
  "not-found": { status: 404, meaning: "no such route, or no such open conversation" },
  "unknown-agent": { status: 404, meaning: "no durable agent of that name" },
  "agent-version-mismatch": { status: 409, meaning: "the agent (or the crew member) speaks another version" },
  "agent-unreachable": { status: 503, meaning: "the agent cannot be reached now, or did not answer in time" },
  "agent-failed": { status: 502, meaning: "the agent's reply was malformed" },
  "held-full": { status: 429, meaning: "Collie already holds as many writes as it keeps for this conversation, agent or in all, until the agent is back (docs/reliability.md); this one was not kept" },
  "storage-failed": { status: 507, meaning: "Collie could not write its state database (a full disk): nothing was kept" },
  unpaired: { status: 401, meaning: "this device is not paired (X-1)" },
  "bad-host": { status: 421, meaning: "the Host header does not name this Collie (X-1)" },
  "bad-origin": { status: 403, meaning: "a write or WebSocket from another origin (X-2)" },
  "pairing-wrong-code": { status: 403, meaning: "the pairing code is not valid" },
  "pairing-expired": { status: 403, meaning: "the pairing code has expired" },
  "pairing-too-many-tries": { status: 429, meaning: "too many wrong pairing codes" },
  "invite-wrong-invite": { status: 403, meaning: "the crew invite is not valid" },
  "invite-expired": { status: 403, meaning: "the crew invite has expired" },
  "invite-too-many-tries": { status: 429, meaning: "too many wrong crew invites" },
} as const);

export type ApiErrorCode = keyof typeof API_ERRORS;

/** An error body as Collie sends it. */
export type ApiErrorBody = { error: ApiErrorCode; message: string };

/**
 * The codes a phone action (a tap) can get from Collie itself: the ask card maps each to its words
 * (outcomes.ts, P-15). Status by code, from the catalog.
 */
export const COLLIE_ERRORS = Object.freeze({
  "unknown-agent": API_ERRORS["unknown-agent"].status,
  "agent-unreachable": API_ERRORS["agent-unreachable"].status,
  "agent-version-mismatch": API_ERRORS["agent-version-mismatch"].status,
  "bad-request": API_ERRORS["bad-request"].status,
  "agent-failed": API_ERRORS["agent-failed"].status,
  "held-full": API_ERRORS["held-full"].status,
  "storage-failed": API_ERRORS["storage-failed"].status,
} as const);
