/**
 * What a lead keeps of one crew member (C-1), bounded before anything is kept or published (the
 * security issues: a member once grew its lead to 677 MB with 200 000 conversations): its agents'
 * rows, and per agent its open conversations, at most MAX_PANES_PER_AGENT each as for the lead's
 * own agents, and for the member as a whole at most MEMBER_LIMITS' count and bytes. A member
 * that is a real Collie never reaches these (it keeps 1000 per agent itself); past them, what is
 * new is not kept, counted in `refused` for the log. Names here are the member's own.
 */
import { compareConversations, type AgentSummary, type Conversation } from "@colliepwa/shared";
import { MAX_PANES_PER_AGENT } from "../agents/mirror.ts";

/** The bounds a lead puts on one member (docs/crew.md, docs/security.md). */
export const MEMBER_LIMITS = Object.freeze({
  /** The largest WebSocket frame taken from a member; a larger one ends the connection (1009). */
  frameBytes: 16 * 1024 * 1024,
  /** Agents kept of one member. */
  agents: 256,
  /** Open conversations kept of one member's agent: as for the lead's own (mirror.ts). */
  conversationsPerAgent: MAX_PANES_PER_AGENT,
  /** Open conversations kept of one member, all its agents together. */
  conversations: 20_000,
  /** What those conversations may take, as JSON text. */
  bytes: 32 * 1024 * 1024,
  /** Malformed messages in a minute after which the member is disconnected. */
  badPerMinute: 20,
});

interface Kept {
  conversation: Conversation;
  bytes: number;
}

export class MemberKeep {
  readonly #agents = new Map<string, AgentSummary>();
  /** Per agent, its open conversations by id. */
  readonly #conversations = new Map<string, Map<string, Kept>>();
  #count = 0;
  #bytes = 0;
  /** What was not kept for a bound since the last `takeRefused`. */
  #refused = 0;

  get agentCount(): number {
    return this.#agents.size;
  }

  get conversationCount(): number {
    return this.#count;
  }

  get bytes(): number {
    return this.#bytes;
  }

  has(agent: string): boolean {
    return this.#agents.has(agent);
  }

  agents(): IterableIterator<AgentSummary> {
    return this.#agents.values();
  }

  /** Keeps an agent's row; false when it is new and the member has its most agents already. */
  setAgent(row: AgentSummary): boolean {
    if (!this.#agents.has(row.name) && this.#agents.size >= MEMBER_LIMITS.agents) {
      this.#refused++;
      return false;
    }
    this.#agents.set(row.name, row);
    return true;
  }

  /** Forgets an agent and its conversations; returns those conversations. */
  removeAgent(name: string): Conversation[] {
    this.#agents.delete(name);
    const gone = this.#conversations.get(name);
    this.#conversations.delete(name);
    if (!gone) return [];
    for (const k of gone.values()) {
      this.#count--;
      this.#bytes -= k.bytes;
    }
    return [...gone.values()].map((k) => k.conversation);
  }

  /**
   * Keeps a conversation of a known agent (new, or in place of the one with its id); false when it
   * is not kept: an unknown agent, or a new one past a bound, or a larger one past the bytes.
   */
  setConversation(c: Conversation): boolean {
    if (!this.#agents.has(c.agent)) return false;
    let byId = this.#conversations.get(c.agent);
    const old = byId?.get(c.id);
    const bytes = JSON.stringify(c).length;
    const over = this.#bytes - (old?.bytes ?? 0) + bytes > MEMBER_LIMITS.bytes
      || (!old && (this.#count >= MEMBER_LIMITS.conversations || (byId?.size ?? 0) >= MEMBER_LIMITS.conversationsPerAgent));
    if (over) {
      this.#refused++;
      return false;
    }
    if (!byId) this.#conversations.set(c.agent, (byId = new Map()));
    byId.set(c.id, { conversation: c, bytes });
    this.#bytes += bytes - (old?.bytes ?? 0);
    if (!old) this.#count++;
    return true;
  }

  removeConversation(agent: string, id: string): boolean {
    const byId = this.#conversations.get(agent);
    const old = byId?.get(id);
    if (!byId || !old) return false;
    byId.delete(id);
    this.#count--;
    this.#bytes -= old.bytes;
    return true;
  }

  conversation(agent: string, id: string): Conversation | undefined {
    return this.#conversations.get(agent)?.get(id)?.conversation;
  }

  /** Every conversation kept, by agent. */
  *conversations(): IterableIterator<Conversation> {
    for (const byId of this.#conversations.values()) for (const k of byId.values()) yield k.conversation;
  }

  /** An agent's first `limit` conversations in the home's order (P-5), as the snapshot carries them. */
  firstPage(agent: string, limit: number): Conversation[] {
    const byId = this.#conversations.get(agent);
    if (!byId) return [];
    return [...byId.values()].map((k) => k.conversation).sort(compareConversations).slice(0, limit);
  }

  /** Forgets every agent and conversation. */
  clear(): void {
    this.#agents.clear();
    this.#conversations.clear();
    this.#count = 0;
    this.#bytes = 0;
  }

  /** How many things were not kept for a bound since the last call. */
  takeRefused(): number {
    const n = this.#refused;
    this.#refused = 0;
    return n;
  }
}
