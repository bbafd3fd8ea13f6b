/**
 * What an ask card shows after a tap (P-15, P-16): one table from the reply Collie gave (the
 * agent's stable wire codes passed through, or Collie's own) to the card's outcome and its words.
 * A test checks that every code of the wire's catalogue is mapped.
 */
import { STRINGS } from "./strings.ts";

export type AnswerOutcome =
  | "accepted"
  | "held"
  | "decided-in-agent"
  | "timed-out"
  | "already-answered"
  | "not-taken"
  | "changed"
  | "not-sure"
  | "may-have-been-applied"
  | "refused"
  | "older-collie";

/** What the card does with an outcome. */
export interface OutcomeView {
  outcome: AnswerOutcome;
  /** The card's line; null when the card simply closes. */
  line: string | null;
  /** The buttons stop working: the ask is over (P-16). */
  frozen: boolean;
  /** Offer `Retry` with the same request id. */
  retry: boolean;
}

/** The reply to a tap: Collie's status and body, or no reply at all (the network failed). */
export type TapReply = { status: number; body: Record<string, unknown> } | null;

/** Codes meaning the ask is closed or changed: on a retry they may mean our first try landed. */
const CLOSED_OR_CHANGED = new Set(["ask-decided", "ask-timed-out", "ask-answered", "ask-not-open", "ask-changed"]);

/**
 * The card's outcome for a reply (P-15). `retry` is true when this reply answers a Retry of a
 * request id sent before.
 *
 * `receipt-dropped` is `May have been applied already. Check the chat.` at once, without Retry:
 * the agent keeps the ids it dropped, so it says this only for a request id it saw before (the
 * answer arrived); a Retry sends the same id and can only be dropped again (issue #34).
 */
export function answerOutcome(reply: TapReply, opts: { retry?: boolean } = {}): OutcomeView {
  const view = (outcome: AnswerOutcome, line: string | null, frozen = false, retry = false): OutcomeView => ({ outcome, line, frozen, retry });
  if (reply === null) return view("not-sure", STRINGS.notSureArrived, false, true);
  const { status, body } = reply;
  const code = typeof body.error === "string" ? body.error : null;
  if (status >= 200 && status < 300) {
    if (body.held === true) return view("held", null);
    return view("accepted", null);
  }
  if (opts.retry && code !== null && CLOSED_OR_CHANGED.has(code)) return view("may-have-been-applied", STRINGS.mayHaveBeenApplied, true);
  if (code === "receipt-dropped") return view("may-have-been-applied", STRINGS.mayHaveBeenApplied, true);
  switch (code) {
    case "ask-decided": return view("decided-in-agent", STRINGS.decidedInAgent, true);
    case "ask-timed-out": return view("timed-out", STRINGS.timedOut, true);
    case "ask-answered": return view("already-answered", STRINGS.alreadyAnswered, true);
    case "ask-not-open": return view("not-taken", STRINGS.notTaken);
    case "ask-changed": return view("changed", STRINGS.askChanged);
    case "agent-version-mismatch":
    case "version-mismatch":
      return view("older-collie", STRINGS.olderCollie, true);
    case "agent-unreachable":
    case "internal":
    case "agent-failed":
      return view("not-sure", STRINGS.notSureArrived, false, true);
  }
  if (status >= 500) return view("not-sure", STRINGS.notSureArrived, false, true);
  // Everything else is a refusal: Collie's (or the agent's) reason, else the plain line.
  const reason = typeof body.reason === "string" && body.reason ? body.reason : typeof body.message === "string" && body.message ? body.message : null;
  return view("refused", reason ?? STRINGS.answerRefused);
}

/** Every code a reply to an answer may carry, and the outcome it maps to on a first try. */
export const ANSWER_CODES = Object.freeze([
  "ask-decided", "ask-timed-out", "ask-answered", "ask-not-open", "ask-changed", "agent-version-mismatch",
  "version-mismatch", "agent-unreachable", "receipt-dropped", "internal", "agent-failed", "invalid-answer",
  "bad-request", "refused", "not-found", "not-supported", "caller-refused", "unauthorized", "moved-on",
  "too-large", "unknown-agent", "held-full", "storage-failed",
] as const);
