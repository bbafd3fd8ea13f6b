/**
 * The phone's client of Collie's API (docs/phone-api.md): plain fetches, same origin. A network
 * failure is a NetworkError, so callers can tell "no reply" (retry with the same request id) from
 * a reply.
 */
import type { AlwaysAllowedPage, ConversationsPage, PaneDetail, PushKeyReply, PushSubscribeReply, PushSubscribeRequest, PushUnsubscribeReply, Snapshot } from "@colliepwa/shared";
import type { HistoryItemsPage, HistoryPage, StartersPage } from "@colliepwa/durable-sdk/wire";
import { phonePath } from "@colliepwa/shared/routes";

export class NetworkError extends Error {
  override name = "NetworkError";
}

export interface Reply<T = Record<string, unknown>> {
  status: number;
  body: T;
}

export class Api {
  readonly #base: string;
  readonly #fetch: typeof fetch;

  constructor(base = "", fetchImpl: typeof fetch = (...a) => fetch(...a)) {
    this.#base = base;
    this.#fetch = fetchImpl;
  }

  async #call<T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown, signal?: AbortSignal): Promise<Reply<T>> {
    let res: Response;
    try {
      res = await this.#fetch(`${this.#base}${path}`, {
        method,
        headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: "same-origin",
        cache: "no-store",
        signal,
      });
    } catch (err) {
      throw new NetworkError((err as Error).message || "network error");
    }
    let parsed: unknown = {};
    try {
      const text = await res.text();
      parsed = text ? JSON.parse(text) : {};
    } catch {
      throw new NetworkError(`reply ${res.status} was not JSON`);
    }
    return { status: res.status, body: parsed as T };
  }

  /** Whether this device is paired: 200 when it is, 401 `unpaired` when not. */
  me(): Promise<Reply<{ paired?: boolean; error?: string }>> {
    return this.#call("GET", phonePath("me", {}));
  }
  /** Trades a one-time pairing code for this device's pairing (an HttpOnly cookie). */
  pair(code: string, name: string): Promise<Reply<{ paired?: boolean; error?: string; message?: string }>> {
    return this.#call("POST", phonePath("pair", {}), { code, name });
  }
  snapshot(): Promise<Reply<Snapshot>> {
    return this.#call("GET", phonePath("snapshot", {}));
  }
  /** A further page of an agent's open conversations (the snapshot holds the first). */
  conversations(agent: string, q: { after?: string; limit?: number } = {}): Promise<Reply<ConversationsPage>> {
    return this.#call("GET", phonePath("conversations", { agent }, q));
  }
  pane(agent: string, pane: string): Promise<Reply<PaneDetail>> {
    return this.#call("GET", phonePath("pane", { agent, pane }));
  }
  history(agent: string, q: { after?: string; limit?: number } = {}): Promise<Reply<HistoryPage>> {
    return this.#call("GET", phonePath("history", { agent }, q));
  }
  historyItems(agent: string, session: string, q: { after?: string; limit?: number } = {}): Promise<Reply<HistoryItemsPage>> {
    return this.#call("GET", phonePath("historyItems", { agent, session }, q));
  }
  /** The tools a phone answered `Always allow` for (the agent's home lists them). */
  alwaysAllowed(agent: string): Promise<Reply<AlwaysAllowedPage>> {
    return this.#call("GET", phonePath("alwaysAllowed", { agent }));
  }
  starters(agent: string): Promise<Reply<StartersPage>> {
    return this.#call("GET", phonePath("starters", { agent }));
  }
  /** A phone action (P-14): the body carries the request id. */
  post(path: string, body: { requestId: string } & Record<string, unknown>): Promise<Reply> {
    return this.#call("POST", path, body);
  }
  /** Push opt-in (P-27, docs/push.md): the VAPID key, then this device's subscription. */
  pushKey(): Promise<Reply<PushKeyReply>> {
    return this.#call("GET", phonePath("pushKey", {}));
  }
  pushSubscribe(body: PushSubscribeRequest): Promise<Reply<PushSubscribeReply>> {
    return this.#call("POST", phonePath("pushSubscribe", {}), body);
  }
  pushUnsubscribe(endpoint: string): Promise<Reply<PushUnsubscribeReply>> {
    return this.#call("DELETE", phonePath("pushUnsubscribe", {}), { endpoint });
  }
}

/** Paths of the phone actions (docs/phone-api.md), from the one route table (shared phone-routes.ts). */
export const actionPath = {
  answer: (agent: string, pane: string, ask: string) => phonePath("answer", { agent, pane, ask }),
  send: (agent: string, pane: string) => phonePath("send", { agent, pane }),
  steer: (agent: string, pane: string) => phonePath("steer", { agent, pane }),
  stop: (agent: string, pane: string) => phonePath("stop", { agent, pane }),
  action: (agent: string, pane: string, action: string) => phonePath("action", { agent, pane, action }),
  rename: (agent: string) => phonePath("rename", { agent }),
  close: (agent: string) => phonePath("close", { agent }),
  reopen: (agent: string) => phonePath("reopen", { agent }),
  starter: (agent: string, starter: string) => phonePath("starter", { agent, starter }),
};
