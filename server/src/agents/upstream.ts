/**
 * Something that answers for durable agents (D-2, D-4, D-5, C-1): a durable agent's connection
 * (`AgentConnection`, one agent) or a crew member (`CrewMember`, the agents of another machine,
 * keyed `<agent>@<member>`). The phone API's routes, the WebSocket and the fan-out of events talk
 * to Upstreams and never ask which kind: each one reads, writes (holding what it cannot deliver
 * now, D-5) and reports its changes as live messages in this Collie's names.
 */
import type { AgentState, AgentSummary, Conversation, PaneDetail } from "@colliepwa/shared";
import type { Ask, WriteRouteName } from "@colliepwa/durable-sdk/wire";
import type { Outcome } from "./gateway.ts";
import type { Unnumbered } from "./live.ts";

/** The reads an upstream answers from its agent (P-7), never on a timer. */
export type UpstreamRead = "history" | "historyItems" | "starters";

export interface Upstream {
  /** Its name in sources.json: the agent's, or the crew member's. */
  readonly name: string;
  /** The machine its agents run on, as a push names it (U-3): null for this machine's own. */
  readonly machine: string | null;
  readonly state: AgentState;
  /** Whether it answers for this agent (the agent's key on this Collie). */
  answers(agent: string): boolean;
  /** Its agents' rows (P-2). */
  summaries(): AgentSummary[];
  /** Each of its agents' first `limit` open conversations in the home's order, for the snapshot. */
  firstPages(limit: number): Conversation[];
  /** A page of an agent's open conversations from `offset` (`next` continues). */
  conversationsPage(agent: string, offset: number, limit: number): Promise<Outcome>;
  /** A chat's content (`PaneDetail`), or its error. */
  pane(agent: string, pane: string): Promise<Outcome>;
  /** History, a closed conversation's items, starters: read from the agent when the phone asks. */
  read(agent: string, route: UpstreamRead, params: Record<string, string>, query: string): Promise<Outcome>;
  /**
   * A phone action, the phone's request id unchanged (D-5): the agent's reply, or `202 held`.
   * `phone` is the paired phone's name, which a crew member records as who answered (issue #37).
   */
  write(agent: string, route: WriteRouteName, params: Record<string, string>, body: { requestId: string } & Record<string, unknown>, phone?: string): Promise<Outcome>;
  /** The open ask a phone answers, when this Collie keeps it (its answer then leaves a decision here). */
  openAsk(agent: string, pane: string, askId: string): Ask | undefined;
  /**
   * Resolves once the asks this Collie keeps for the agent are known (a start or reconnect has
   * concluded), or after `ms`; at once when they are, or when it keeps none.
   */
  asksKnown(agent: string, ms: number): Promise<void>;
  /**
   * A phone shows this chat (D-4): its items flow from now on; its whole content now, or undefined
   * when it comes as a live `view` (a crew member's).
   */
  watch(agent: string, pane: string): Promise<PaneDetail | undefined>;
  /** The chat's title as its list shows it, for a push (U-2). */
  paneTitle(agent: string, pane: string): string;
  /** Tries to connect now instead of waiting for its next delay. */
  retryNow(): void;
  start(): void;
  stop(): Promise<void>;
}

/** What a held write was, when its delivery is reported (the audit log names it). */
export interface HeldDelivery {
  action: string;
  /** The pane, when the hold knew it. */
  pane?: string;
}

/** Where an upstream's events go (fanout.ts: the live hub, push, the audit log). */
export interface UpstreamEvents {
  /** A change for the phones, in this Collie's names; an `ask` and an `ask-closed` push too. */
  live(upstream: Upstream, message: Unnumbered): void;
  /** Asks of a conversation that closed while they were open: their notifications go (U-2). */
  closedAsks(upstream: Upstream, agent: string, paneId: string, askIds: readonly string[]): void;
  /**
   * An open ask that came without a live message (open on a member when the lead connected): it
   * pushes (U-3), under `paneTitle` when the chat's content was read for it (the upstream may keep
   * no row of that chat).
   */
  openAsk(upstream: Upstream, agent: string, paneId: string, ask: Ask, paneTitle?: string): void;
  /** A held write was delivered (or refused) later: the phone's `held-outcome`, its audit line, a held answer's decision. */
  delivered(upstream: Upstream, agent: string, requestId: string, outcome: Outcome, held: HeldDelivery): void;
  log(line: string): void;
}

/** Every upstream of this Collie, looked up by agent key. */
export interface UpstreamSource {
  /** The upstream that answers for this agent key, if any. */
  find(agent: string): Upstream | undefined;
  all(): Iterable<Upstream>;
}

/** This Collie's upstreams: its own agents' connections and its crew members (daemon.ts puts them together). */
export class Upstreams {
  readonly #sources: readonly UpstreamSource[];

  constructor(...sources: UpstreamSource[]) {
    this.#sources = sources;
  }

  find(agent: string): Upstream | undefined {
    for (const s of this.#sources) {
      const found = s.find(agent);
      if (found) return found;
    }
    return undefined;
  }

  *all(): IterableIterator<Upstream> {
    for (const s of this.#sources) yield* s.all();
  }

  /** Every agent's row: this machine's, then its crew members' (C-1). */
  summaries(): AgentSummary[] {
    return [...this.all()].flatMap((u) => u.summaries());
  }
}
