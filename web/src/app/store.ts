/**
 * What the phone knows (D-4): Collie's snapshot, kept current by the live messages, and the
 * content of the chats on screen. Immutable updates and a version number, so React reads it with
 * useSyncExternalStore. Plain class, no React. A drawn list stays drawn when the connection drops
 * (P-8, P-26): nothing here is cleared on disconnect.
 */
import type { AgentSummary, Conversation, Decision, LiveMessage, PaneDetail } from "@colliepwa/shared";
import type { LiveStatus } from "./live.ts";
import type { NotificationAnswer } from "./notification-answers.ts";
import type { CachedView } from "./view-cache.ts";

export interface PhoneState {
  status: LiveStatus;
  /** True once a snapshot arrived. */
  loaded: boolean;
  collie: { version: string; wire: number } | null;
  agents: ReadonlyMap<string, AgentSummary>;
  /** Open conversations by `paneKey(agent, pane)`. */
  conversations: ReadonlyMap<string, Conversation>;
  /** The content of chats the phone has opened, by `paneKey`. */
  details: ReadonlyMap<string, PaneDetail>;
  /** Answers given from a phone, per chat (`paneKey`), oldest first: the chat's quiet lines. */
  decisions: ReadonlyMap<string, readonly Decision[]>;
  /** Outcomes of held answers Collie delivered later (D-5), by request id. */
  heldOutcomes: ReadonlyMap<string, { status: number; body: Record<string, unknown> }>;
  /** Answers given from notifications and what came of them (issue 30), by request id: the cards take them in. */
  notificationAnswers: ReadonlyMap<string, NotificationAnswer>;
  /** True when Collie said this device is not paired: the app shows how to pair. */
  unpaired: boolean;
  /**
   * When what is drawn came from the phone's own copy (view-cache.ts) instead of Collie: the time
   * it was saved. Null once Collie's snapshot came (what is drawn is current).
   */
  cachedAt: number | null;
}

export const paneKey = (agent: string, pane: string): string => `${agent}\n${pane}`;

export class PhoneStore {
  #state: PhoneState = {
    status: "connecting",
    loaded: false,
    collie: null,
    agents: new Map(),
    conversations: new Map(),
    details: new Map(),
    decisions: new Map(),
    heldOutcomes: new Map(),
    notificationAnswers: new Map(),
    unpaired: false,
    cachedAt: null,
  };
  readonly #listeners = new Set<() => void>();
  /** How many `view` messages came per chat: a read that a view overtook is not drawn again. */
  readonly #views = new Map<string, number>();

  getState = (): PhoneState => this.#state;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  setUnpaired(unpaired: boolean): void {
    if (unpaired !== this.#state.unpaired) this.#set({ unpaired });
  }

  setStatus(status: LiveStatus): void {
    if (status !== this.#state.status) this.#set({ status });
  }

  /** Adds a page of an agent's open conversations (GET /api/agents/:agent/conversations). */
  addConversations(list: readonly Conversation[]): void {
    if (list.length === 0) return;
    const conversations = new Map(this.#state.conversations);
    for (const c of list) conversations.set(paneKey(c.agent, c.id), c);
    this.#set({ conversations });
  }

  /** Puts a chat's content in place (a read of GET /api/agents/:agent/panes/:pane). */
  setDetail(agent: string, detail: PaneDetail): void {
    const details = new Map(this.#state.details);
    details.set(paneKey(agent, detail.conversation.id), detail);
    this.#set({ details });
  }

  /** How many `view` messages this chat got so far (see Phone.openPane). */
  viewsOf(agent: string, pane: string): number {
    return this.#views.get(paneKey(agent, pane)) ?? 0;
  }

  /** A chat's decisions as the HTTP read gave them (the live `decision` messages add to them). */
  setDecisions(agent: string, pane: string, list: readonly Decision[]): void {
    const decisions = new Map(this.#state.decisions);
    decisions.set(paneKey(agent, pane), list);
    this.#set({ decisions });
  }

  /** Answers the service worker gave from notifications, with their replies (issue 30). */
  addNotificationAnswers(list: readonly NotificationAnswer[]): void {
    if (list.length === 0) return;
    const notificationAnswers = new Map(this.#state.notificationAnswers);
    for (const a of list) notificationAnswers.set(a.request.requestId, a);
    this.#set({ notificationAnswers });
  }

  /** Draws the phone's saved copy while Collie has not sent anything (offline start). */
  restore(view: CachedView): void {
    if (this.#state.loaded) return;
    const details = new Map(this.#state.details);
    for (const [agent, d] of view.details) {
      const key = paneKey(agent, d.conversation.id);
      if (!details.has(key)) details.set(key, d);
    }
    this.#set({
      loaded: true,
      cachedAt: view.savedAt,
      collie: view.collie,
      agents: new Map(view.agents.map((a) => [a.name, a])),
      conversations: new Map(view.conversations.map((c) => [paneKey(c.agent, c.id), c])),
      details,
    });
  }

  apply(m: LiveMessage): void {
    const s = this.#state;
    switch (m.type) {
      case "snapshot": {
        const agents = new Map(m.snapshot.agents.map((a) => [a.name, a]));
        const conversations = new Map(m.snapshot.conversations.map((c) => [paneKey(c.agent, c.id), c]));
        // Chats whose conversation is gone stay readable until the next view replaces them.
        this.#set({ loaded: true, cachedAt: null, collie: m.snapshot.collie, agents, conversations });
        return;
      }
      case "resumed":
        return;
      case "agent": {
        const agents = new Map(s.agents);
        agents.set(m.agent.name, m.agent);
        this.#set({ agents });
        return;
      }
      case "agent-removed": {
        const agents = new Map(s.agents);
        agents.delete(m.name);
        const conversations = new Map([...s.conversations].filter(([, c]) => c.agent !== m.name));
        this.#set({ agents, conversations });
        return;
      }
      case "conversation": {
        const key = paneKey(m.conversation.agent, m.conversation.id);
        const conversations = new Map(s.conversations);
        conversations.set(key, m.conversation);
        const detail = s.details.get(key);
        if (detail) {
          const details = new Map(s.details);
          details.set(key, { ...detail, conversation: m.conversation });
          this.#set({ conversations, details });
        } else this.#set({ conversations });
        return;
      }
      case "conversation-removed": {
        const conversations = new Map(s.conversations);
        conversations.delete(paneKey(m.agent, m.id));
        this.#set({ conversations });
        return;
      }
      case "item":
        this.#updateDetail(m.agent, m.paneId, (d) => {
          const at = d.items.findIndex((i) => i.id === m.item.id);
          const items = at >= 0 ? d.items.map((i, n) => (n === at ? m.item : i)) : [...d.items, m.item];
          return { ...d, items };
        });
        return;
      case "ask":
        this.#updateDetail(m.agent, m.paneId, (d) => ({ ...d, asks: [...d.asks.filter((a) => a.id !== m.ask.id), m.ask] }));
        return;
      case "ask-closed":
        this.#updateDetail(m.agent, m.paneId, (d) => ({ ...d, asks: d.asks.filter((a) => a.id !== m.askId) }));
        return;
      case "view":
        this.#views.set(paneKey(m.agent, m.paneId), this.viewsOf(m.agent, m.paneId) + 1);
        this.setDetail(m.agent, m.detail);
        return;
      case "decision": {
        const key = paneKey(m.agent, m.decision.paneId);
        const list = (s.decisions.get(key) ?? []).filter((d) => d.askId !== m.decision.askId);
        const decisions = new Map(s.decisions);
        decisions.set(key, [...list, m.decision]);
        this.#set({ decisions });
        return;
      }
      case "held-outcome": {
        const heldOutcomes = new Map(s.heldOutcomes);
        heldOutcomes.set(m.requestId, { status: m.status, body: m.body });
        this.#set({ heldOutcomes });
        return;
      }
    }
  }

  #updateDetail(agent: string, pane: string, fn: (d: PaneDetail) => PaneDetail): void {
    const key = paneKey(agent, pane);
    const detail = this.#state.details.get(key);
    if (!detail) return;
    const details = new Map(this.#state.details);
    details.set(key, fn(detail));
    this.#set({ details });
  }

  #set(patch: Partial<PhoneState>): void {
    this.#state = { ...this.#state, ...patch };
    for (const l of this.#listeners) l();
  }
}
