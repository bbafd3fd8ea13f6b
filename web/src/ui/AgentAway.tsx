/**
 * A durable agent Collie cannot reach (D-2 `unreachable`): the dashboard row says `Unreachable`
 * (P-2), and the agent's chats and conversation list say so too, at the same moment (the same
 * agent message), with what still works: answers and messages wait in Collie (D-5) and reach the
 * agent when it is back. What the chat drew stays drawn, as the agent last left it; `AgentAway`
 * lets the items and cards below it stop pretending to be live (no spinner, no countdown).
 */
import { createContext, useContext } from "react";
import type { AgentSummary } from "@colliepwa/shared";
import { WORDS } from "@colliepwa/shared/strings";
import { usePhoneState } from "../app/react.ts";
import { connectionBannerShown, usePhoneOnline } from "./ConnectionBanner.tsx";

/** The words of the notes; listed in docs/decisions.md. */
export const AWAY_WORDS = WORDS.away;

/** Whether the agent is away: Collie cannot reach it (not merely starting). */
export const agentAway = (summary: AgentSummary | undefined): boolean => summary?.state === "unreachable";

/** True inside a chat whose agent is away. */
export const AgentAway = createContext(false);

export const useAgentAway = (): boolean => useContext(AgentAway);

/**
 * The note itself, unless the connection banner shows (issue 37, item 5: one banner, not two):
 * while Collie is not heard, the agent's state is only what Collie said last, and the banner
 * already says what is away.
 */
export function AwayNote({ text }: { text: string }) {
  const state = usePhoneState();
  const online = usePhoneOnline();
  if (connectionBannerShown(state, online)) return null;
  return <p className="warning agent-away" role="status" data-away="">{text}</p>;
}
