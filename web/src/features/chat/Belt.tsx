/**
 * The belt (P-22, P-23): `Steer` and `Stop` when the agent declared them (P-1), then up to 4 of
 * the agent's own buttons. A button that cannot act now is dimmed in place, so nothing shifts;
 * busy → a spinner and no tap; disabled → dimmed and no tap. Each tap is a phone action with a new
 * request id (`phone.actions.steer/stop/action`, P-14) and names the newest turn the phone saw; a `moved-on` reply says
 * `The conversation moved on, so the action did not run.` near the belt. The chat owns the taps
 * (`useBelt`): the composer's main button is Steer while a turn runs, and it taps the same Steer.
 */
import { useState } from "react";
import type { Action, Caps, PaneState } from "@colliepwa/durable-sdk/wire";
import type { SendResult } from "../../app/actions.ts";
import { usePhone } from "../../app/react.ts";
import { beltButtons, beltNote, beltNoteText, type BeltButton, type BeltNote } from "./belt.ts";
import { PendingClock } from "../../ui/PendingClock.tsx";
import { Icon } from "./icons.tsx";
import { WORDS } from "@colliepwa/shared/strings";

export interface BeltInput {
  agent: string;
  pane: string;
  caps: Caps | null;
  state: PaneState;
  actions: readonly Action[];
  /** The newest turn the phone saw (P-23). */
  turnId: string | null;
  /** The composer's text: Steer sends it and clears the composer. */
  text: string;
  setText: (update: (prev: string) => string) => void;
  /** Every reply, so the chat can learn a newer turn id from it. */
  onReply?: (result: SendResult) => void;
  /** The agent cannot be reached: every button dims (the chat says why). */
  away?: boolean;
}

export interface BeltState {
  buttons: BeltButton[];
  note: BeltNote;
  tap: (b: BeltButton) => Promise<void>;
}

/** The belt's buttons and what their taps came to; the chat passes it to `Belt` and the composer. */
export function useBelt({ agent, pane, caps, state, actions, turnId, text, setText, onReply, away = false }: BeltInput): BeltState {
  const phone = usePhone();
  const [inFlight, setInFlight] = useState<ReadonlySet<string>>(new Set());
  const [note, setNote] = useState<BeltNote>(null);
  const buttons = beltButtons({ caps, state, actions, text, inFlight, away });

  const tap = async (b: BeltButton) => {
    if (!b.enabled) return;
    setNote(null);
    let steered = "";
    if (b.kind === "steer") {
      steered = text.trim();
      if (!steered) return;
      setText(() => "");
    }
    const sent = b.kind === "steer"
      ? phone.actions.steer({ agent, pane }, { text: steered, turnId })
      : b.kind === "stop"
        ? phone.actions.stop({ agent, pane }, { turnId })
        : phone.actions.action({ agent, pane, action: b.actionId! }, { turnId });
    setInFlight((s) => new Set(s).add(b.key));
    let result: SendResult;
    try {
      result = await sent.result;
    } finally {
      setInFlight((s) => {
        const next = new Set(s);
        next.delete(b.key);
        return next;
      });
    }
    onReply?.(result);
    const n = beltNote(b.kind, result, b.label);
    if (n?.kind === "not-sent") {
      // Refused or moved on: the steer's text goes back into the composer (P-20).
      void phone.actions.discard(sent.requestId);
      setText((prev) => (prev.trim() ? `${steered}\n${prev}` : steered));
    }
    setNote(n);
  };
  return { buttons, note, tap };
}

export function Belt({ belt }: { belt: BeltState }) {
  const { buttons, note, tap } = belt;
  if (buttons.length === 0) return null;
  const noteText = beltNoteText(note);
  return (
    <div className="belt-area">
      {noteText && <p className="belt-note" role="status">{noteText}</p>}
      <div className="belt" role="toolbar" aria-label={WORDS.screen.belt}>
        {buttons.map((b) => (
          <button
            key={b.key}
            type="button"
            className={`belt-button belt-${b.kind}${b.dimmed ? " dimmed" : ""}${b.busy ? " busy" : ""}${b.sending ? " sending" : ""}`}
            data-belt={b.key}
            data-dimmed={b.dimmed || undefined}
            data-busy={b.busy || undefined}
            data-sending={b.sending || undefined}
            disabled={!b.enabled}
            aria-busy={b.busy || b.sending || undefined}
            onClick={() => void tap(b)}
          >
            {/* The spinner (the agent is busy) or the clock (your tap is on its way) lies over the
                button's own content, which keeps its width: nothing shifts. */}
            {b.icon && <Icon name={b.icon} />}
            <span className="belt-label">{b.label}</span>
            {b.busy && <span className="spinner belt-spinner" aria-hidden="true" />}
            {b.sending && <span className="belt-spinner belt-clock"><PendingClock inside /></span>}
          </button>
        ))}
      </div>
    </div>
  );
}
