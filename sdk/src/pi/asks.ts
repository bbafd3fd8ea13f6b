/**
 * A risky Pi tool call as a permission card (S-21…S-25, S-35): the one place that builds it, for
 * `piPane` (the agent's own process) and for the Pi desk (on behalf of a `pi` process). The card is
 * `requireApproval`'s, built from the call itself; its words come from options (S-35).
 */
import { requireApproval, type Approval } from "../core/approval.ts";
import type { Pane } from "../core/layout.ts";
import type { DecidedBy } from "../wire/types.ts";
import { toolItemId, wireId } from "./items.ts";

/** A tool call as `risky` and `approval` see it. */
export interface PiToolCall {
  toolName: string;
  toolCallId: string;
  /** The arguments after Pi validated them against the tool's schema. */
  args: unknown;
}

/** The words of a call's card (S-22); what is left out keeps `requireApproval`'s own (S-25). */
export interface PiCardWords {
  title?: string;
  reason?: string;
  push?: { title?: string; line?: string };
}

export interface PiCardOptions {
  /** How long the card waits before it closes as `timeout`. */
  timeoutMs: number;
  /** Offer `Always allow` (where the core allows it, S-27). */
  offerAlways: boolean;
  /** Where `Always allow` is remembered: per conversation (S-27). */
  alwaysAllowed: Set<string>;
  words?: PiCardWords;
  signal?: AbortSignal;
}

/** One hour: long enough to reach the phone, short enough that a forgotten card ends. */
export const DEFAULT_CARD_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * Raises the call's card in `pane` and waits for it: the ask id is `askIdFor(pane.id, call id)`
 * (S-23), so the same call raised again after a restart is the same card, and the card sits under
 * the call's tool item. Deny, a stop, a timeout or a closed pane all come back `approved: false`.
 */
export function askForCall(pane: Pane, call: PiToolCall, opts: PiCardOptions): Promise<Approval> {
  const words = opts.words ?? {};
  return requireApproval(call.toolName, call.args, {
    pane,
    toolCallId: wireId(call.toolCallId),
    itemId: toolItemId(call.toolCallId),
    timeoutMs: opts.timeoutMs,
    offerAlways: opts.offerAlways,
    alwaysAllowed: opts.alwaysAllowed,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(words.title !== undefined ? { title: words.title } : {}),
    ...(words.reason !== undefined ? { reason: words.reason } : {}),
    ...(words.push !== undefined ? { push: words.push } : {}),
  });
}

/** Who refused a call, as the text Pi's model gets as the blocked call's result. */
export type RefusedBy = DecidedBy | "terminal" | "away";

/** The default text Pi gets for a call that was not allowed. */
export function refusalText(toolName: string, by: RefusedBy): string {
  const why =
    by === "phone" ? "the user refused it on the phone"
    : by === "terminal" ? "the user refused it in the terminal"
    : by === "timeout" ? "nobody answered in time"
    : by === "away" ? "Collie went away before anyone answered"
    : "the run was stopped";
  return `${toolName} was not run: ${why}.`;
}
