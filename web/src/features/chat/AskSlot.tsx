/**
 * Where the ask cards go (P-9): under the tool item the ask names (`ask.itemId`), or at the end of
 * the chat when that item is not drawn (the placement is `arrange` in list.ts). The cards
 * themselves — kinds, taps, outcomes, `Show N more` — are the asks feature (features/asks).
 */
import type { Ask } from "@colliepwa/durable-sdk/wire";
import { AskCards } from "../asks/AskCards.tsx";
import { UnderToolCall } from "../asks/AskCard.tsx";

export interface AskSlotProps {
  agent: string;
  asks: readonly Ask[];
  /** The call the tool item right above shows: a card does not repeat the same text. */
  callAbove?: string | null;
}

export function AskSlot({ agent, asks, callAbove = null }: AskSlotProps) {
  if (asks.length === 0) return null;
  return <UnderToolCall.Provider value={callAbove}><AskCards agent={agent} asks={asks} /></UnderToolCall.Provider>;
}
