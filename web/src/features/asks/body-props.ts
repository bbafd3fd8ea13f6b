/** What every kind's answer controls get from the card. */
import type { Answer, Ask } from "@colliepwa/durable-sdk/wire";
import type { Sent } from "./card-state.ts";

export interface BodyProps<A extends Ask> {
  ask: A;
  /** The controls take taps (not while sending, held, not sure, or frozen). */
  enabled: boolean;
  /** The answer on its way, to show progress on the control that sent it. */
  busy: Sent | null;
  onAnswer(answer: Answer): void;
  /** The answer sent and held for the agent: its control stays marked while the others dim. */
  chosen?: Answer | null;
}
