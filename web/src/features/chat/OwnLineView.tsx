/**
 * Your own line before the agent's copy replaces it (P-20): a small clock while sending or sent;
 * `Sending, not confirmed` as a button that sends it again with the same request id; `Not sent`
 * when it was refused or the conversation moved on (its text went back into the composer), with
 * Collie's words when it would hold no more for an agent that is away; a note
 * while Collie holds it for an agent that cannot be reached (it is delivered once the agent is back).
 */
import { STRINGS } from "@colliepwa/shared";
import type { OwnLine } from "./own-lines.ts";
import { CHAT_WORDS } from "./words.ts";
import { WORDS } from "@colliepwa/shared/strings";

export function OwnLineView({ line, onRetry }: { line: OwnLine; onRetry: (requestId: string) => void }) {
  return (
    <div className={`item item-user own own-line own-${line.state}`} data-own-line={line.requestId} data-state={line.state}>
      <div className="bubble bubble-own text">{line.text}</div>
      <div className="item-meta">
        {(line.state === "sending" || line.state === "sent" || line.state === "held") && <Clock />}
        {line.state === "held" && <span className="own-held">{CHAT_WORDS.held}</span>}
        {line.state === "not-confirmed" && (
          <button type="button" className="own-retry" onClick={() => onRetry(line.requestId)}>
            {STRINGS.sendingNotConfirmed}
          </button>
        )}
        {line.state === "not-sent" && <span className="own-not-sent">{STRINGS.notSent}</span>}
        {line.heldFull && <span className="own-held-full">{CHAT_WORDS.heldFull}</span>}
      </div>
    </div>
  );
}

/** The small clock of a line on its way. */
function Clock() {
  return (
    <svg className="own-clock" data-clock="" viewBox="0 0 16 16" width="12" height="12" role="img" aria-label={WORDS.screen.sending}
      fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round">
      <circle cx="8" cy="8" r="6.2" />
      <path d="M8 4.5V8l2.4 1.6" />
    </svg>
  );
}

/** Three dots: the agent is working on your line (P-20). */
export function WorkingDots() {
  return (
    <div className="working-dots" data-dots="" role="status" aria-label={WORDS.screen.working}>
      <span /><span /><span />
    </div>
  );
}
