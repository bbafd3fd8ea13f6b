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
import { PendingClock } from "../../ui/PendingClock.tsx";

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
            {/* A two-tap button keeps the room of both its states (the other state's text is
                reserved, unseen, by CSS), so arming it reflows nothing. */}
            <span className="ask-word">
              <Reserve other={b.twoTaps ? (isArmed ? b.word : STRINGS.tapAgainToAlwaysAllow) : null}>
                {isArmed ? STRINGS.tapAgainToAlwaysAllow : b.word}
              </Reserve>
              {sendingId === b.option.id && <PendingClock inside />}
            </span>
            {(sub || b.twoTaps) && (
              <span className="ask-sub" dir="auto">
                <Reserve other={b.twoTaps ? ((isArmed ? b.label : ask.tool?.name) ?? "") : null}>{sub ?? ""}</Reserve>
              </span>
            )}
          </button>
        );
      })}
    </div>
  );
}

/** Text that keeps room for `other` too (CSS draws it hidden in the same cell: no reflow on change). */
function Reserve({ other, children }: { other: string | null; children: string }) {
  if (other === null) return <>{children}</>;
  return <span className="ask-reserve" data-reserve={other}><span>{children}</span></span>;
}
