/**
 * The state of one ask card after taps (P-14, P-15, P-16), as a pure reducer. The outcome of a
 * reply comes from the shared table `answerOutcome`; this only says when it applies and what the
 * card does meanwhile:
 *
 *   idle ──tap──▶ sending ──reply──▶ closed (accepted)
 *                    │               held ──held-outcome──▶ closed | outcome
 *                    │               outcome: a line; frozen, or usable again, or not sure (Retry)
 *                    └─no reply──▶ outcome "not sure" ──retry──▶ sending (same request id)
 *
 * A tap is allowed when the card is idle or shows an outcome that is neither frozen nor waiting
 * for a Retry; each tap is a new request id. A Retry re-sends the same one, and its reply is read
 * as a retry (a closed or changed ask then `May have been applied already`). `receipt-dropped`
 * ends it the same way at once (shared/src/outcomes.ts): that id was seen, a Retry is futile.
 */
import { answerOutcome, type OutcomeView, type TapReply } from "@colliepwa/shared";
import type { Answer } from "@colliepwa/durable-sdk/wire";
import type { SendResult } from "../../app/actions.ts";

/** What a tap sent: its request id, the revision of the ask it answered, and the answer. */
export interface Sent {
  requestId: string;
  revision: string;
  answer: Answer;
}

export type Phase = "idle" | "sending" | "held" | "outcome" | "closed";

export interface CardState {
  readonly phase: Phase;
  /** The last tap (kept through Retry, held, and outcomes). */
  readonly sent: Sent | null;
  /** The attempt in flight re-sends `sent.requestId`. */
  readonly retry: boolean;
  /** The outcome shown (phase `outcome`). */
  readonly view: OutcomeView | null;
  /** The outbox result last taken in, so the same reply is never read twice. */
  readonly handled: SendResult | null;
}

export type CardEvent =
  | { type: "tap"; sent: Sent }
  | { type: "retry" }
  | { type: "result"; result: SendResult }
  | { type: "held-outcome"; reply: { status: number; body: Record<string, unknown> } };

export const IDLE: CardState = Object.freeze({ phase: "idle", sent: null, retry: false, view: null, handled: null });

/** A tap the outbox still holds from an earlier page (P-26): not sure it arrived, Retry offered. */
export function pendingState(sent: Sent): CardState {
  return { phase: "outcome", sent, retry: true, view: answerOutcome(null), handled: null };
}

/** An answer Collie holds for this ask (its record came from Collie: a reload, another phone). */
export function heldState(sent: Sent): CardState {
  return { phase: "held", sent, retry: false, view: null, handled: null };
}

/**
 * A card's state after a tap made elsewhere on this phone, a notification's button (issue 30): as
 * if the tap and its reply had come here. `resent`: the reply answers a second send of the request
 * (the first found no network), read as a Retry's.
 */
export function answeredElsewhere(sent: Sent, reply: { status: number; body: Record<string, unknown> }, resent = false): CardState {
  const tapped = reduceCard(IDLE, { type: "tap", sent });
  const before = resent ? reduceCard(tapped, { type: "result", result: { kind: "no-reply" } }) : tapped;
  return reduceCard(before, { type: "result", result: { kind: "reply", reply: reply as Extract<SendResult, { kind: "reply" }>["reply"] } });
}

/** Whether a new tap may send now. */
export function canTap(s: CardState): boolean {
  return s.phase === "idle" || (s.phase === "outcome" && s.view !== null && !s.view.frozen && !s.view.retry);
}

/** Whether `Retry` (the same request id again) is offered. */
export function canRetry(s: CardState): boolean {
  return s.phase === "outcome" && s.sent !== null && s.view !== null && s.view.retry;
}

/** Whether a reply for `sent` would be taken in now. */
function awaitsReply(s: CardState): boolean {
  return s.phase === "sending" || canRetry(s);
}

export function reduceCard(s: CardState, e: CardEvent): CardState {
  switch (e.type) {
    case "tap":
      return canTap(s) ? { phase: "sending", sent: e.sent, retry: false, view: null, handled: s.handled } : s;
    case "retry":
      return canRetry(s) ? { ...s, phase: "sending", retry: true } : s;
    case "result": {
      if (!awaitsReply(s) || e.result === s.handled) return s;
      const reply: TapReply = e.result.kind === "reply" ? { status: e.result.reply.status, body: e.result.reply.body } : null;
      // A reply that comes while the card says "not sure" answers a re-send (e.g. after a reconnect).
      const retry = s.phase === "sending" ? s.retry : true;
      return { ...toOutcome(s, answerOutcome(reply, { retry })), retry, handled: e.result };
    }
    case "held-outcome":
      if (s.phase !== "held") return s;
      return toOutcome(s, answerOutcome({ status: e.reply.status, body: e.reply.body }, { retry: s.retry }));
  }
}

function toOutcome(s: CardState, view: OutcomeView): CardState {
  if (view.outcome === "accepted") return { ...s, phase: "closed", view: null };
  // A held answer's later outcome cannot be held again; should it say so, the answer is Collie's.
  if (view.outcome === "held") return s.phase === "held" ? { ...s, phase: "closed", view: null } : { ...s, phase: "held", view: null };
  return { ...s, phase: "outcome", view };
}

/** What the card draws for a state. */
export interface CardLook {
  /** The card is gone (accepted). */
  hidden: boolean;
  /** The answer controls take taps. */
  enabled: boolean;
  /** A tap is on its way: show progress. */
  busy: boolean;
  /** Sent and held by Collie until the agent is back (202). */
  held: boolean;
  /**
   * The tapped answer's outcome is not known yet (on its way, held, or not sure it arrived): its
   * control stays marked while the others dim, so you can tell which you tapped (issue 37).
   */
  chosen: boolean;
  /** The outcome line, if any. */
  line: string | null;
  /** Offer `Retry`. */
  retry: boolean;
  /** The ask is over: controls stay disabled (P-16). */
  frozen: boolean;
}

export function cardLook(s: CardState, sendingNow = false): CardLook {
  const busy = s.phase === "sending" || (sendingNow && canRetry(s));
  return {
    hidden: s.phase === "closed",
    enabled: canTap(s) && !busy,
    busy,
    held: s.phase === "held",
    chosen: s.sent !== null && (s.phase === "sending" || s.phase === "held" || canRetry(s)),
    line: s.phase === "outcome" ? (s.view?.line ?? null) : null,
    retry: canRetry(s) && !busy,
    frozen: s.phase === "outcome" && s.view?.frozen === true,
  };
}
