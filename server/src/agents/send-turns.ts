/**
 * Whether a message goes on to the agent now or waits in Collie for the turn to end (issue 37,
 * docs/decisions.md "A message during a turn"). An agent that declares the `followUp` cap takes a
 * send while a turn runs (Pi queues it); any other may refuse it, so Collie holds it and delivers
 * it once the conversation is idle again: one send per turn, in the order they were sent, so
 * nothing typed ends `Not sent` because it came during a turn or behind another message.
 *
 * A send that started a turn names it (`turnId` in the agent's reply); the next one waits until the
 * mirror shows that turn over (the pane idle on it), so an events page that was on its way before
 * the turn began cannot let the next send in early. An agent that names a turn it never shows is
 * trusted again after `TURN_WAIT_MS`.
 */
import type { AgentMirror } from "./mirror.ts";
import type { Outcome } from "./gateway.ts";

/** How long a turn a send named may stay unseen before sends to its pane go on again. */
export const TURN_WAIT_MS = 10 * 60_000;

/** What this needs of a connection: the agent's caps and its mirror. */
export interface TurnSource {
  readonly hello: { caps: { followUp?: boolean } } | null;
  /** The agent process's start: a turn another start named will never show as over. */
  readonly instance: string | null;
  readonly mirror: Pick<AgentMirror, "turn">;
}

export class SendTurns {
  readonly #now: () => number;
  /** Per `agent\npane`: the turn a send started, until the mirror shows it over. */
  readonly #started = new Map<string, { turnId: string; at: number; instance: string | null }>();
  /** Per `agent\npane`: the request id of the newest send the agent took, with its process's start. */
  readonly #taken = new Map<string, { requestId: string; instance: string | null }>();

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Whether the agent takes a send during a turn (`followUp`): then nothing waits. */
  takesFollowUps(conn: TurnSource): boolean {
    return conn.hello?.caps.followUp === true;
  }

  /** Whether a send to this pane must wait: a turn runs, or one a send started has not shown as over. */
  mustWait(agent: string, paneId: string, conn: TurnSource): boolean {
    if (this.takesFollowUps(conn)) return false;
    const key = `${agent}\n${paneId}`;
    const pane = conn.mirror.turn(paneId);
    if (!pane) {
      // Not open (closed, or not laid out yet): the agent answers for itself.
      this.#started.delete(key);
      this.#taken.delete(key);
      return false;
    }
    if (pane.state !== "idle") return true;
    const started = this.#started.get(key);
    if (!started) return false;
    // The agent restarted since (another `instance`): it forgot that turn, and its panes are idle anew.
    if (pane.turnId === started.turnId || started.instance !== conn.instance || this.#now() - started.at >= TURN_WAIT_MS) {
      this.#started.delete(key);
      return false;
    }
    return true;
  }

  /**
   * Whether this request id is the newest send the agent took on this pane, in the same process:
   * the phone's retry of a send whose reply it never got. It goes to the agent at once, never held
   * behind the turn it started or the messages after it: the agent answers it from its receipt
   * (`replayed`, S-28) and runs nothing, so the phone learns at once that it landed.
   */
  isRetryOfTaken(agent: string, paneId: string, requestId: string, conn: TurnSource): boolean {
    const taken = this.#taken.get(`${agent}\n${paneId}`);
    return taken !== undefined && taken.requestId === requestId && taken.instance === conn.instance;
  }

  /** The agent took a send: the turn its reply names must show as over before the next send. */
  sent(agent: string, paneId: string, outcome: Outcome, conn: TurnSource, requestId: string): void {
    if (outcome.status !== 200) return;
    const key = `${agent}\n${paneId}`;
    this.#taken.set(key, { requestId, instance: conn.instance });
    if (this.takesFollowUps(conn)) return;
    const turnId = outcome.body.turnId;
    // A replay names the turn its first delivery started: that turn was awaited from then (or is
    // over, and a turn of the agent's own may have come since: waiting for it again would hold the
    // next send for TURN_WAIT_MS). A turn it still runs shows in the mirror, which holds sends anyway.
    if (outcome.body.replayed === true) return;
    if (typeof turnId === "string" && turnId) this.#started.set(key, { turnId, at: this.#now(), instance: conn.instance });
  }
}
