/**
 * Where the ask cards go (P-9): under the tool item the ask names (`ask.itemId`), or at the end of
 * the chat when that item is not drawn. For now each ask is drawn read-only — caption, title, the
 * tool call and the reason; the buttons come with the ask-card feature (P-10…P-16), which replaces
 * the body of `AskCard` and keeps this slot.
 */
import { STRINGS } from "@colliepwa/shared";
import type { Ask } from "@colliepwa/durable-sdk/wire";

export interface AskSlotProps {
  agent: string;
  asks: readonly Ask[];
}

export function AskSlot({ agent, asks }: AskSlotProps) {
  if (asks.length === 0) return null;
  return (
    <div className="ask-slot">
      {asks.map((a) => <AskCard key={a.id} agent={agent} ask={a} />)}
    </div>
  );
}

function AskCard({ agent, ask }: { agent: string; ask: Ask }) {
  const call = ask.tool?.call ?? ask.tool?.name;
  return (
    <section className="ask-card" data-ask-id={ask.id} data-ask-kind={ask.kind} aria-label={ask.title}>
      <div className="ask-caption">{STRINGS.needsYourAnswer(agent)}</div>
      <div className="ask-title">{ask.title}</div>
      {call && <code className="ask-call">{call}</code>}
      {ask.reason && <p className="ask-reason">{ask.reason}</p>}
      {ask.textShortened && <div className="shortened">{STRINGS.textShortened}</div>}
    </section>
  );
}
