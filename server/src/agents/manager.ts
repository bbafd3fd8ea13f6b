/**
 * The reconcile loop (D-1, D-2): compares the agents sources.json wants with the live
 * connections and opens, closes or replaces connections to match. It is the one place the rest of
 * Collie asks for an agent.
 */
import { compareConversations, type AgentSummary, type Conversation } from "@colliepwa/shared";
import type { AgentSource } from "../sources/sources.ts";
import { AgentConnection, type ConnectionOptions } from "./connection.ts";
import type { MirrorChange } from "./mirror.ts";
import { ViewCache } from "./view-cache.ts";

export interface ManagerEvents {
  summary(summary: AgentSummary): void;
  removed(name: string): void;
  change(agent: string, change: MirrorChange): void;
  applied(agent: string): void;
}

export class AgentManager {
  readonly #live = new Map<string, { source: AgentSource; connection: AgentConnection }>();
  readonly #events: ManagerEvents;
  readonly #log: (line: string) => void;
  /** The whole views of open chats, one budget for every agent. */
  readonly views = new ViewCache();
  readonly #tuning: Pick<ConnectionOptions, "waitMs" | "retryDelaysMs" | "present" | "mask">;

  constructor(events: ManagerEvents, log: (line: string) => void, tuning: Pick<ConnectionOptions, "waitMs" | "retryDelaysMs" | "present" | "mask"> = {}) {
    this.#events = events;
    this.#log = log;
    this.#tuning = tuning;
  }

  /** Makes the live connections match `wanted`: new ones start, gone ones stop, changed ones restart. */
  async reconcile(wanted: AgentSource[]): Promise<void> {
    const byName = new Map(wanted.map((s) => [s.name, s]));
    const stopping: Promise<void>[] = [];
    for (const [name, live] of this.#live) {
      const want = byName.get(name);
      if (!want || want.key !== live.source.key) {
        this.#live.delete(name);
        stopping.push(live.connection.stop().then(() => {
          live.connection.mirror.clear();
          if (!want) this.#events.removed(name);
        }));
      }
    }
    await Promise.all(stopping);
    for (const source of wanted) {
      if (this.#live.has(source.name)) continue;
      const connection = new AgentConnection({
        name: source.name,
        endpoint: source.endpoint,
        onSummary: (s) => this.#events.summary(s),
        onChange: (c) => this.#events.change(source.name, c),
        onApplied: () => this.#events.applied(source.name),
        log: this.#log,
        views: this.views,
        ...this.#tuning,
      });
      this.#live.set(source.name, { source, connection });
      this.#events.summary(connection.summary());
      connection.start();
    }
  }

  get(name: string): AgentConnection | undefined {
    return this.#live.get(name)?.connection;
  }

  names(): string[] {
    return [...this.#live.keys()];
  }

  summaries(): AgentSummary[] {
    return [...this.#live.values()].map((l) => l.connection.summary());
  }

  /**
   * Every agent's open conversations as last seen, a down agent's included: a phone that reloads
   * while the agent is unreachable still finds its chats, and the agent's row says it is away
   * (its state), so nothing looks closed that is not.
   */
  conversations(): Conversation[] {
    return [...this.#live.values()].flatMap((l) => l.connection.mirror.conversations());
  }

  /**
   * One page of an agent's open conversations in the home's order (shared `compareConversations`),
   * from `offset`; `next` is the offset of the page after it. Null for an unknown agent.
   */
  conversationsPage(agent: string, offset: number, limit: number): { conversations: Conversation[]; next?: number } | null {
    const conn = this.get(agent);
    if (!conn) return null;
    // An agent that went away keeps its list drawn (what it last showed; its answers are held).
    const all = conn.mirror.conversations().sort(compareConversations);
    const page = all.slice(offset, offset + limit);
    return offset + limit < all.length ? { conversations: page, next: offset + limit } : { conversations: page };
  }

  async stopAll(): Promise<void> {
    const all = [...this.#live.values()];
    this.#live.clear();
    await Promise.all(all.map((l) => l.connection.stop()));
  }
}
