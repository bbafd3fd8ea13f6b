/**
 * The ask cards of one place in the chat (P-9, P-13). The chat's first 5 asks are cards; a
 * `Show N more` row after the fifth opens the rest. A card whose answer was accepted is gone at
 * once. Without a phone (no PhoneContext) the cards are drawn read-only.
 */
import { Fragment, useContext, useSyncExternalStore } from "react";
import { STRINGS } from "@colliepwa/shared";
import type { Ask } from "@colliepwa/durable-sdk/wire";
import type { Phone } from "../../app/phone.ts";
import { PhoneContext, usePhoneState } from "../../app/react.ts";
import { paneKey } from "../../app/store.ts";
import { AskCard } from "./AskCard.tsx";
import { asksStoreFor } from "./asks-store.ts";
import { chatOrder, drawnAsks } from "./many-asks.ts";
import { useAskCard } from "./useAskCard.ts";
import "./asks.css";

export interface AskCardsProps {
  agent: string;
  /** The asks of this place in the chat (they all belong to one pane). */
  asks: readonly Ask[];
}

export function AskCards({ agent, asks }: AskCardsProps) {
  const phone = useContext(PhoneContext);
  if (asks.length === 0) return null;
  if (!phone) {
    return (
      <div className="ask-slot">
        {asks.map((a) => <AskCard key={a.id} agent={agent} ask={a} control={null} now={Date.now} />)}
      </div>
    );
  }
  return <LiveAskCards phone={phone} agent={agent} asks={asks} />;
}

function LiveAskCards({ phone, agent, asks }: AskCardsProps & { phone: Phone }) {
  const state = usePhoneState();
  const store = asksStoreFor(phone);
  useSyncExternalStore(store.subscribe, () => store.version);
  const pane = asks[0]!.paneId;
  const detail = state.details.get(paneKey(agent, pane));
  // The whole chat's open asks, less those just accepted, in the order the chat shows them.
  const closed = (a: Ask) => store.card(agent, pane, a.id)?.phase === "closed";
  const all = detail?.asks ?? asks;
  const { drawn, hidden, showMoreAfter } = drawnAsks(chatOrder(all.filter((a) => !closed(a)), detail?.items ?? []), store.opened(agent, pane));
  const here = asks.filter((a) => !closed(a) && (drawn.has(a.id) || !all.some((o) => o.id === a.id)));
  if (here.length === 0) return null;
  return (
    <div className="ask-slot">
      {here.map((a) => (
        <Fragment key={a.id}>
          <LiveAskCard phone={phone} agent={agent} ask={a} />
          {a.id === showMoreAfter && (
            <button type="button" className="ask-show-more" onClick={() => store.open(agent, pane)}>
              {STRINGS.showMore(hidden)}
            </button>
          )}
        </Fragment>
      ))}
    </div>
  );
}

function LiveAskCard({ phone, agent, ask }: { phone: Phone; agent: string; ask: Ask }) {
  const control = useAskCard(phone, agent, ask);
  if (control.look.hidden) return null;
  return <AskCard agent={agent} ask={ask} control={control} now={phone.now} />;
}
