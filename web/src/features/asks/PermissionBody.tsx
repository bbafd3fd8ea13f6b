/**
 * A `permission` ask's buttons (P-10, P-11): Collie's word, the agent's own label quietly below
 * when it differs; `Always allow` takes two taps — the first turns it into `Tap again to always
 * allow` with the tool's name, the second sends.
 */
import { useState } from "react";
import { STRINGS } from "@colliepwa/shared";
import type { PermissionAsk } from "@colliepwa/durable-sdk/wire";
import type { BodyProps } from "./body-props.ts";
import { permissionButtons } from "./permission.ts";
import { Spinner } from "./Spinner.tsx";

export function PermissionBody({ ask, enabled, busy, onAnswer, chosen }: BodyProps<PermissionAsk>) {
  const [armed, setArmed] = useState(false);
  const sendingId = busy?.answer.kind === "permission" ? busy.answer.optionId : null;
  const chosenId = chosen?.kind === "permission" ? chosen.optionId : null;
  return (
    <div className="ask-buttons">
      {permissionButtons(ask).map((b) => {
        const isArmed = b.twoTaps && armed;
        const sub = isArmed ? (ask.tool?.name ?? null) : b.label;
        return (
          <button
            type="button"
            key={b.option.id}
            className={`ask-button ask-${b.option.kind}${isArmed ? " ask-armed" : ""}${chosenId === b.option.id ? " ask-chosen" : ""}`}
            data-option={b.option.id}
            data-chosen={chosenId === b.option.id || undefined}
            disabled={!enabled}
            aria-busy={sendingId === b.option.id || undefined}
            onClick={() => {
              if (b.twoTaps && !armed) {
                setArmed(true);
                return;
              }
              setArmed(false);
              onAnswer({ kind: "permission", optionId: b.option.id });
            }}
          >
            <span className="ask-word">
              {isArmed ? STRINGS.tapAgainToAlwaysAllow : b.word}
              {sendingId === b.option.id && <Spinner />}
            </span>
            {sub && <span className="ask-sub">{sub}</span>}
          </button>
        );
      })}
    </div>
  );
}
