/**
 * Where the ask cards go (P-9): under the tool item the ask names (`ask.itemId`), or at the end of
 * the chat when that item is not drawn (the placement is `arrange` in list.ts). The cards
 * themselves — kinds, taps, outcomes, `Show N more` — are the asks feature (features/asks).
 */
import type { Ask } from "@colliepwa/durable-sdk/wire";
import { AskCards } from "../asks/AskCards.tsx";

export interface AskSlotProps {
  agent: string;
  asks: readonly Ask[];
}

export function AskSlot({ agent, asks }: AskSlotProps) {
  if (asks.length === 0) return null;
  return <AskCards agent={agent} asks={asks} />;
}
