/**
 * An ask card (P-9…P-16): caption `Needs your answer · <agent>`, the title, the countdown when
 * the ask expires, the tool line, the reason (folded when long), `Text shortened`, then the
 * answer controls of its kind, and after a tap the outcome line (and `Retry` when not sure).
 * A kind this Collie does not know shows its text and `This ask cannot be answered from the phone.`
 * Agent text is always plain text. Without `control` the card is read-only.
 */
import { createContext, useContext, type ReactNode } from "react";
import { STRINGS } from "@colliepwa/shared";
import type { Ask, ChoiceAsk, FormAsk, PermissionAsk, TextAsk } from "@colliepwa/durable-sdk/wire";
import type { BodyProps } from "./body-props.ts";
import { ChoiceBody } from "./ChoiceBody.tsx";
import { FormBody } from "./FormBody.tsx";
import { PermissionBody } from "./PermissionBody.tsx";
import { Reason } from "./Reason.tsx";
import { PendingClock } from "../../ui/PendingClock.tsx";
import { TextBody } from "./TextBody.tsx";
import { agentName } from "../../app/rules.ts";
import type { AskCardControl } from "./useAskCard.ts";
import { answerWords } from "./answer-words.ts";
import { useCountdown } from "./useCountdown.ts";
import { WORDS } from "./words.ts";

const KNOWN = new Set<string>(["permission", "choice", "text", "form"]);

/**
 * The call the tool item right above the cards shows (P-9), if any: a card whose call is that same
 * text does not repeat it (the same call showed up to three times).
 */
export const UnderToolCall = createContext<string | null>(null);

export interface AskCardProps {
  agent: string;
  ask: Ask;
  /** The card's taps; null draws it read-only. */
  control: AskCardControl | null;
  now: () => number;
}

export function AskCard({ agent, ask, control, now }: AskCardProps) {
  // The deadline stays in sight while the agent is away (issue 32): the agent answers a late tap
  // itself (P-9), and a held answer reaches it only if the ask is still open when it is back.
  const left = useCountdown(ask.expiresAt, now);
  const known = KNOWN.has(ask.kind);
  const look = control?.look ?? null;
  const shownAbove = useContext(UnderToolCall);
  const own = ask.tool?.call ?? ask.tool?.name;
  const call = own !== undefined && own === shownAbove ? undefined : own;
  const outcome = control?.state.view?.outcome;
  return (
    <section
      className={`ask-card${look?.frozen ? " ask-frozen" : ""}${look?.busy ? " ask-busy" : ""}`}
      data-ask-id={ask.id}
      data-ask-kind={ask.kind}
      data-phase={control?.state.phase}
      data-outcome={outcome}
      aria-label={ask.title}
      aria-busy={look?.busy || undefined}
    >
      {/* The agent as the dashboard names it, never the crew key `desk@workshop` (C-1); the name is
          isolated, so a right-to-left name cannot turn the caption around (issue 37). */}
      <div className="ask-caption">{STRINGS.needsYourAnswer("")}<bdi>{agentName(agent)}</bdi></div>
      <div className="ask-title" dir="auto">{ask.title}</div>
      {left && <div className={`ask-expiry${left.expired ? " ask-expired" : ""}`}>{left.text}</div>}
      {call && <code className="ask-call" dir="ltr">{call}</code>}
      {ask.reason && <Reason text={ask.reason} />}
      {ask.textShortened && <div className="shortened">{STRINGS.textShortened}</div>}
      {!known && <p className="ask-cannot">{STRINGS.cannotAnswer}</p>}
      {known && control && look && (
        <div className="ask-answer">
          {/* A changed ask gets fresh controls (a text line keeps what was typed). */}
          <Body key={ask.kind === "text" ? "text" : ask.revision} ask={ask} enabled={look.enabled} busy={look.busy ? control.state.sent : null} onAnswer={control.answer}
            chosen={look.chosen ? (control.state.sent?.answer ?? null) : null} />
        </div>
      )}
      {look?.held && control?.state.sent && <p className="ask-line ask-held" role="status">{WORDS.held(answerWords(ask, control.state.sent.answer))}</p>}
      {look?.line && <p className={`ask-line${look.frozen ? " ask-line-final" : ""}`} role="status">{look.line}</p>}
      {control && (look?.retry || (look?.busy && control.state.retry)) && (
        <button type="button" className="ask-retry" disabled={!look.retry} onClick={control.retry}>
          {WORDS.retry}{look.busy && <PendingClock inside />}
        </button>
      )}
    </section>
  );
}

function Body(props: BodyProps<Ask>): ReactNode {
  const { ask } = props;
  switch (ask.kind) {
    case "permission": return <PermissionBody {...props} ask={ask as PermissionAsk} />;
    case "choice": return <ChoiceBody {...props} ask={ask as ChoiceAsk} />;
    case "text": return <TextBody {...props} ask={ask as TextAsk} />;
    case "form": return <FormBody {...props} ask={ask as FormAsk} />;
    default: return null;
  }
}
