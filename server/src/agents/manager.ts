/**
 * The reconcile loop (D-1, D-2): compares the agents sources.json wants with the live
 * connections and opens, closes or replaces connections to match. The Upstreams of this machine's
 * own agents, one per agent (`UpstreamSource`).
 */
import type { AgentSource } from "../sources/sources.ts";
import { AgentConnection, type ConnectionOptions } from "./connection.ts";
import type { AgentGateway } from "./gateway.ts";
import type { UpstreamEvents, UpstreamSource } from "./upstream.ts";
import { ViewCache } from "./view-cache.ts";

export type ManagerTuning = Pick<ConnectionOptions, "waitMs" | "retryDelaysMs" | "present" | "mask">;

export class AgentManager implements UpstreamSource {
  readonly #live = new Map<string, { source: AgentSource; connection: AgentConnection }>();
  readonly #events: UpstreamEvents;
  readonly #gateway: AgentGateway;
  /** The whole views of open chats, one budget for every agent. */
  readonly views = new ViewCache();
  readonly #tuning: ManagerTuning;

  constructor(events: UpstreamEvents, gateway: AgentGateway, tuning: ManagerTuning = {}) {
    this.#events = events;
    this.#gateway = gateway;
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
          if (!want) this.#events.live(live.connection, { type: "agent-removed", name });
        }));
      }
    }
    await Promise.all(stopping);
    for (const source of wanted) {
      if (this.#live.has(source.name)) continue;
      const connection = new AgentConnection({
        name: source.name,
        endpoint: source.endpoint,
        events: this.#events,
        gateway: this.#gateway,
        log: (line) => this.#events.log(line),
        views: this.views,
        ...this.#tuning,
      });
      this.#live.set(source.name, { source, connection });
      this.#events.live(connection, { type: "agent", agent: connection.summary() });
      connection.start();
    }
  }

  get(name: string): AgentConnection | undefined {
    return this.#live.get(name)?.connection;
  }

  find(agent: string): AgentConnection | undefined {
    return this.get(agent);
  }

  *all(): IterableIterator<AgentConnection> {
    for (const l of this.#live.values()) yield l.connection;
  }

  names(): string[] {
    return [...this.#live.keys()];
  }

  async stopAll(): Promise<void> {
    const all = [...this.#live.values()];
    this.#live.clear();
    await Promise.all(all.map((l) => l.connection.stop()));
  }
}
