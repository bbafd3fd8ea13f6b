/**
 * The belt's rules (P-1, P-22, P-23) as pure functions: which buttons draw, in which order, and
 * which can act now. A button that cannot act now is dimmed in place, so nothing shifts; the set
 * of buttons depends only on the caps and the agent's actions, never on the pane's state.
 */
import type { Action, Caps, IconName, PaneState } from "@colliepwa/durable-sdk/wire";
import { STRINGS } from "@colliepwa/shared";
import type { SendResult } from "../../app/actions.ts";
import { isIconName } from "./icons.tsx";
import { refusalLine } from "./refusal.ts";

/** At most this many of the agent's own buttons (S-18, P-22). */
export const MAX_ACTIONS = 4;

export interface BeltButton {
  /** `steer`, `stop`, or `action:<id>`: stable, so React keeps each button in its place. */
  key: string;
  kind: "steer" | "stop" | "action";
  label: string;
  /** Only one of the twelve names; another name draws no icon (S-18). */
  icon?: IconName;
  actionId?: string;
  /** The agent says it is busy: a spinner instead of the icon, and no tap (P-22). */
  busy: boolean;
  /** Your tap of it is on its way: the pending clock instead of the icon, and no tap (issue 37). */
  sending: boolean;
  /** Drawn dimmed, in place (P-22). */
  dimmed: boolean;
  /** Whether a tap does something now. */
  enabled: boolean;
}

export interface BeltInput {
  /** Null until the agent's hello: nothing is drawn for undeclared caps (P-1). */
  caps: Caps | null;
  state: PaneState;
  actions: readonly Action[];
  /** The composer's text: Steer sends it, so it needs some. */
  text: string;
  /** Keys of buttons whose tap is on its way (drawn with the pending clock). */
  inFlight?: ReadonlySet<string>;
  /** The agent cannot be reached: every button is dimmed in place, nothing can act. */
  away?: boolean;
}

/** A turn is running while the pane works or waits on you. */
export const turnRunning = (state: PaneState): boolean => state === "working" || state === "waiting";

export function beltButtons(input: BeltInput): BeltButton[] {
  const { caps, state, actions, text } = input;
  if (!caps) return [];
  const inFlight = input.inFlight ?? new Set<string>();
  const running = turnRunning(state);
  const out: BeltButton[] = [];
  if (caps.steer) {
    const sending = inFlight.has("steer");
    const enabled = running && text.trim().length > 0 && !sending;
    out.push({ key: "steer", kind: "steer", label: STRINGS.steer, busy: false, sending, dimmed: !enabled && !sending, enabled });
  }
  if (caps.stop) {
    const sending = inFlight.has("stop");
    const enabled = running && !sending;
    out.push({ key: "stop", kind: "stop", label: STRINGS.stop, busy: false, sending, dimmed: !enabled && !sending, enabled });
  }
  if (caps.actions) {
    for (const a of actions.slice(0, MAX_ACTIONS)) {
      const key = `action:${a.id}`;
      const sending = inFlight.has(key);
      const busy = Boolean(a.busy) && !sending;
      const disabled = Boolean(a.disabled);
      const b: BeltButton = { key, kind: "action", label: a.label, actionId: a.id, busy, sending, dimmed: disabled && !sending, enabled: !busy && !sending && !disabled };
      if (a.icon !== undefined && isIconName(a.icon)) b.icon = a.icon;
      out.push(b);
    }
  }
  if (input.away) return out.map((b) => ({ ...b, busy: false, sending: false, dimmed: true, enabled: false }));
  return out;
}

/**
 * The newest turn the phone saw (P-23): the conversation's own turn id, unless a later reply to a
 * send or steer named a turn the conversation has not caught up with yet. `replyTurn.base` is the
 * conversation's turn id when that reply came; once the conversation moves, it is newer.
 */
export function newestTurn(conversationTurn: string | null, replyTurn: { turnId: string; base: string | null } | null): string | null {
  if (replyTurn && replyTurn.base === conversationTurn) return replyTurn.turnId;
  return conversationTurn;
}

/**
 * What a belt tap's reply shows near the belt (P-23, P-20): nothing (it ran), `Not sent` (a steer
 * whose text goes back), `Sending, not confirmed` (no reply, or Collie could not reach the agent),
 * `May have been applied already. Check the chat.` (the agent had seen the request id:
 * `receipt-dropped`, P-15), or the refusal's line (refusal.ts): `The conversation moved on…`, the
 * agent's reason, or Collie's words.
 */
export type BeltNote =
  | { kind: "not-sent" }
  | { kind: "not-confirmed" }
  | { kind: "maybe-applied" }
  | { kind: "refused"; text: string }
  | null;

/**
 * What a tap of the button labelled `label` came to. Every refusal says so (issue 37): a Stop the
 * agent does not offer (`409 not-supported`) no longer leaves the reply streaming with nothing said.
 */
export function beltNote(tap: "steer" | "stop" | "action", result: SendResult, label: string): BeltNote {
  if (result.kind === "no-reply") return { kind: "not-confirmed" };
  const { status, body } = result.reply;
  if (status >= 200 && status < 300) return null;
  const code = typeof body.error === "string" ? body.error : "";
  // The agent saw this request id before and dropped its receipt: the tap landed once already (P-15).
  if (code === "receipt-dropped") return { kind: "maybe-applied" };
  if (status >= 500) return { kind: "not-confirmed" };
  // A steer that was refused or moved on is `Not sent`: its text goes back (wire.md §4, P-20).
  if (tap === "steer") return { kind: "not-sent" };
  return { kind: "refused", text: refusalLine(label, body) };
}

export function beltNoteText(note: BeltNote): string | null {
  if (!note) return null;
  switch (note.kind) {
    case "not-sent": return STRINGS.notSent;
    case "not-confirmed": return STRINGS.sendingNotConfirmed;
    case "maybe-applied": return STRINGS.mayHaveBeenApplied;
    case "refused": return note.text;
  }
}
