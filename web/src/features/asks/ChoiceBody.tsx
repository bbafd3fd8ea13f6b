/**
 * A `choice` ask (P-10): one row per option (label and description, at most 8); a tap sends it.
 * With `multiple`, rows toggle under `Pick any` and `Send` sends the set, an empty one included.
 */
import { useState } from "react";
import { STRINGS } from "@colliepwa/shared";
import { LIMITS, type ChoiceAsk } from "@colliepwa/durable-sdk/wire";
import type { BodyProps } from "./body-props.ts";
import { PendingClock } from "../../ui/PendingClock.tsx";

export function ChoiceBody({ ask, enabled, busy, onAnswer, chosen: held }: BodyProps<ChoiceAsk>) {
  const chosenIds = held?.kind === "choice" ? held.optionIds : [];
  const options = ask.options.slice(0, LIMITS.choiceOptions);
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const sending = busy?.answer.kind === "choice" ? busy.answer.optionIds : null;

  if (!ask.multiple) {
    return (
      <div className="ask-rows">
        {options.map((o) => (
          <button type="button" key={o.id} className={`ask-row${chosenIds.includes(o.id) ? " ask-chosen" : ""}`} data-option={o.id} disabled={!enabled}
            data-chosen={chosenIds.includes(o.id) || undefined}
            aria-busy={sending?.includes(o.id) || undefined}
            onClick={() => onAnswer({ kind: "choice", optionIds: [o.id] })}>
            <span className="ask-row-label"><bdi>{o.label}</bdi>{sending?.includes(o.id) && <PendingClock inside />}</span>
            {o.description && <span className="ask-sub" dir="auto">{o.description}</span>}
          </button>
        ))}
      </div>
    );
  }

  // Send in the agent's order, only ids the ask (still) has.
  const chosen = options.filter((o) => picked.has(o.id)).map((o) => o.id);
  const toggle = (id: string) =>
    setPicked((p) => {
      const next = new Set(p);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return (
    <div className="ask-rows" role="group" aria-label={STRINGS.pickAny}>
      <div className="ask-pick-any">{STRINGS.pickAny}</div>
      {options.map((o) => (
        <button type="button" key={o.id} className="ask-row ask-toggle-row" data-option={o.id} disabled={!enabled}
          aria-pressed={picked.has(o.id)} onClick={() => toggle(o.id)}>
          <span className="ask-row-label"><span className="ask-check" aria-hidden="true" /><bdi>{o.label}</bdi></span>
          {o.description && <span className="ask-sub" dir="auto">{o.description}</span>}
        </button>
      ))}
      {/* Nothing picked is an answer too (wire: 0..8 ids with `multiple`). */}
      <button type="button" className="ask-send" disabled={!enabled} aria-busy={sending !== null || undefined}
        onClick={() => onAnswer({ kind: "choice", optionIds: chosen })}>
        {STRINGS.send}{sending && <PendingClock inside />}
      </button>
    </div>
  );
}
