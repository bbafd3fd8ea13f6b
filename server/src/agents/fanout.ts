/**
 * Where every Upstream's events go (D-4, U-1…U-3, D-5): the live hub for the phones, Web Push for
 * an ask that opens or closes, and the audit log and the decisions for a held write delivered
 * later. An agent of this machine and a crew member's agent take the same path; the upstream says
 * which machine a push names (U-3) and what the chat is called (U-2).
 */
import type { Ask } from "@colliepwa/durable-sdk/wire";
import type { LiveHub, Unnumbered } from "./live.ts";
import type { Outcome } from "./gateway.ts";
import type { HeldDelivery, Upstream, UpstreamEvents } from "./upstream.ts";
import type { PushService } from "../push/push.ts";
import type { AuditLog } from "../security/audit.ts";
import type { Decisions } from "../store/decisions.ts";

/** Who an audit line names for a write Collie made itself: the delivery of a held answer or send. */
export const HELD_BY_COLLIE = "collie (held)";

export interface FanoutParts {
  live: LiveHub;
  /** Web Push, or null when it is off. */
  push: PushService | null;
  audit: AuditLog;
  decisions: Decisions;
  log: (line: string) => void;
}

export class Fanout implements UpstreamEvents {
  readonly #parts: FanoutParts;

  constructor(parts: FanoutParts) {
    this.#parts = parts;
  }

  live(upstream: Upstream, message: Unnumbered): void {
    this.#parts.live.publish(message);
    if (message.type === "ask") {
      this.openAsk(upstream, message.agent, message.paneId, message.ask);
      this.#askedAgain(message.agent, message.ask);
    }
    else if (message.type === "ask-closed") this.#pushClosed(upstream, message.agent, message.paneId, message.askId);
  }

  closedAsks(upstream: Upstream, agent: string, paneId: string, askIds: readonly string[]): void {
    for (const askId of askIds) this.#pushClosed(upstream, agent, paneId, askId);
  }

  /**
   * An ask starts a push under this Collie's limits (U-1…U-3; the push service masks it, R-1).
   * Never in the way of the live hub: a push problem is logged, the phone's UI has the ask regardless.
   */
  openAsk(upstream: Upstream, agent: string, paneId: string, ask: Ask, paneTitle = upstream.paneTitle(agent, paneId)): void {
    const push = this.#parts.push;
    if (!push) return;
    try {
      push.ask({ agent, machine: upstream.machine, paneId, paneTitle, ask });
    } catch (err) {
      this.#parts.log(`push: ${(err as Error).message}`);
    }
  }

  /**
   * Asked about a tool it was always allowed: it no longer is (issue #37). Only where this Collie
   * keeps the decisions; a crew key has none here (the member keeps its own).
   */
  #askedAgain(agent: string, ask: Ask): void {
    try {
      this.#parts.decisions.asked(agent, ask);
    } catch (err) {
      this.#parts.log(`decisions: ${(err as Error).message}`);
    }
  }

  /** An ask's end withdraws its notification. */
  #pushClosed(upstream: Upstream, agent: string, paneId: string, askId: string): void {
    const push = this.#parts.push;
    if (!push) return;
    try {
      push.askClosed({ agent, machine: upstream.machine, paneId, askId });
    } catch (err) {
      this.#parts.log(`push: ${(err as Error).message}`);
    }
  }

  /**
   * A held write reached its agent (or was refused): the phone's `held-outcome`, the audit line with
   * the phone's request id (its write was audited `202 held`), and a held answer's decision.
   */
  delivered(_upstream: Upstream, agent: string, requestId: string, outcome: Outcome, held: HeldDelivery): void {
    const { live, audit, decisions } = this.#parts;
    // A crew member that held it again for its own agent (202) says how it ended in its own
    // held-outcome, which reaches the phone through its live stream.
    if (outcome.status !== 202) live.publish({ type: "held-outcome", agent, requestId, status: outcome.status, body: outcome.body });
    const code = outcome.body.error;
    audit.write({
      action: held.action, agent, ...(held.pane !== undefined ? { pane: held.pane } : {}), requestId, device: HELD_BY_COLLIE, status: outcome.status,
      outcome: typeof code === "string" ? `delivered: ${code}` : outcome.body.replayed === true ? "delivered: replayed" : "delivered",
    });
    const settled = decisions.settle(agent, requestId, outcome.status === 200, outcome.body.replayed === true);
    if (settled) live.publish({ type: "decision", agent: settled.agent, decision: settled.decision });
  }

  log(line: string): void {
    this.#parts.log(line);
  }
}
