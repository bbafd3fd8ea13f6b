/**
 * Your own line before the agent's copy replaces it (P-20): a small clock while sending or sent;
 * `Sending, not confirmed` as a button that sends it again with the same request id; `May have been
 * applied already. Check the chat.` when the agent had seen its request id (no retry); `Not sent`
 * when it was refused or the conversation moved on (its text went back into the composer), with
 * Collie's words when it would hold no more for an agent that is away; a note
 * while Collie holds it for an agent that cannot be reached (it is delivered once the agent is back).
 */
import { STRINGS } from "@colliepwa/shared";
import type { OwnLine } from "./own-lines.ts";
import { useAgentAway } from "../../ui/AgentAway.tsx";
import { PendingClock } from "../../ui/PendingClock.tsx";
import { CHAT_WORDS } from "./words.ts";
import { WORDS } from "@colliepwa/shared/strings";

export function OwnLineView({ line, onRetry }: { line: OwnLine; onRetry: (requestId: string) => void }) {
  // Held for an agent that is away, or for the end of a turn it takes no message in.
  const away = useAgentAway();
  return (
    <div className={`item item-user own own-line own-${line.state}`} data-own-line={line.requestId} data-state={line.state}>
      <div className="bubble bubble-own text" dir="auto">{line.text}</div>
      <div className="item-meta">
        {(line.state === "sending" || line.state === "sent" || line.state === "held") && <PendingClock />}
        {line.state === "held" && <span className="own-held">{away ? CHAT_WORDS.held : CHAT_WORDS.heldForTurn}</span>}
        {line.state === "not-confirmed" && (
          <button type="button" className="own-retry" onClick={() => onRetry(line.requestId)}>
            {STRINGS.sendingNotConfirmed}
          </button>
        )}
        {line.state === "maybe-applied" && <span className="own-maybe-applied">{STRINGS.mayHaveBeenApplied}</span>}
        {line.state === "not-sent" && <span className="own-not-sent">{STRINGS.notSent}</span>}
        {line.heldFull && <span className="own-held-full">{CHAT_WORDS.heldFull}</span>}
      </div>
    </div>
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
