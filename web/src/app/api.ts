/**
 * The phone's client of Collie's API (docs/phone-api.md): plain fetches, same origin. A network
 * failure is a NetworkError, so callers can tell "no reply" (retry with the same request id) from
 * a reply.
 */
import type { AlwaysAllowedPage, ConversationsPage, PaneDetail, PushKeyReply, PushSubscribeReply, PushSubscribeRequest, PushUnsubscribeReply, Snapshot } from "@colliepwa/shared";
import type { HistoryItemsPage, HistoryPage, StartersPage } from "@colliepwa/durable-sdk/wire";

export class NetworkError extends Error {
  override name = "NetworkError";
}

export interface Reply<T = Record<string, unknown>> {
  status: number;
  body: T;
}

const enc = encodeURIComponent;

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
    return this.#call("GET", "/api/me");
  }
  /** Trades a one-time pairing code for this device's pairing (an HttpOnly cookie). */
  pair(code: string, name: string): Promise<Reply<{ paired?: boolean; error?: string; message?: string }>> {
    return this.#call("POST", "/api/pair", { code, name });
  }
  snapshot(): Promise<Reply<Snapshot>> {
    return this.#call("GET", "/api/snapshot");
  }
  /** A further page of an agent's open conversations (the snapshot holds the first). */
  conversations(agent: string, q: { after?: string; limit?: number } = {}): Promise<Reply<ConversationsPage>> {
    return this.#call("GET", `/api/agents/${enc(agent)}/conversations${query(q)}`);
  }
  pane(agent: string, pane: string): Promise<Reply<PaneDetail>> {
    return this.#call("GET", `/api/agents/${enc(agent)}/panes/${enc(pane)}`);
  }
  history(agent: string, q: { after?: string; limit?: number } = {}): Promise<Reply<HistoryPage>> {
    return this.#call("GET", `/api/agents/${enc(agent)}/history${query(q)}`);
  }
  historyItems(agent: string, session: string, q: { after?: string; limit?: number } = {}): Promise<Reply<HistoryItemsPage>> {
    return this.#call("GET", `/api/agents/${enc(agent)}/history/${enc(session)}/items${query(q)}`);
  }
  /** The tools a phone answered `Always allow` for (the agent's home lists them). */
  alwaysAllowed(agent: string): Promise<Reply<AlwaysAllowedPage>> {
    return this.#call("GET", `/api/agents/${enc(agent)}/always-allowed`);
  }
  starters(agent: string): Promise<Reply<StartersPage>> {
    return this.#call("GET", `/api/agents/${enc(agent)}/starters`);
  }
  /** A phone action (P-14): the body carries the request id. */
  post(path: string, body: { requestId: string } & Record<string, unknown>): Promise<Reply> {
    return this.#call("POST", path, body);
  }
  /** Push opt-in (P-27, docs/push.md): the VAPID key, then this device's subscription. */
  pushKey(): Promise<Reply<PushKeyReply>> {
    return this.#call("GET", "/api/push/key");
  }
  pushSubscribe(body: PushSubscribeRequest): Promise<Reply<PushSubscribeReply>> {
    return this.#call("POST", "/api/push/subscriptions", body);
  }
  pushUnsubscribe(endpoint: string): Promise<Reply<PushUnsubscribeReply>> {
    return this.#call("DELETE", "/api/push/subscriptions", { endpoint });
  }
}

function query(q: { after?: string; limit?: number }): string {
  const s = new URLSearchParams();
  if (q.after) s.set("after", q.after);
  if (q.limit) s.set("limit", String(q.limit));
  return s.size ? `?${s}` : "";
}

/** Paths of the phone actions (docs/phone-api.md). */
export const actionPath = {
  answer: (agent: string, pane: string, ask: string) => `/api/agents/${enc(agent)}/panes/${enc(pane)}/asks/${enc(ask)}/answer`,
  send: (agent: string, pane: string) => `/api/agents/${enc(agent)}/panes/${enc(pane)}/send`,
  steer: (agent: string, pane: string) => `/api/agents/${enc(agent)}/panes/${enc(pane)}/steer`,
  stop: (agent: string, pane: string) => `/api/agents/${enc(agent)}/panes/${enc(pane)}/stop`,
  action: (agent: string, pane: string, action: string) => `/api/agents/${enc(agent)}/panes/${enc(pane)}/actions/${enc(action)}`,
  rename: (agent: string) => `/api/agents/${enc(agent)}/rename`,
  close: (agent: string) => `/api/agents/${enc(agent)}/close`,
  reopen: (agent: string) => `/api/agents/${enc(agent)}/reopen`,
  starter: (agent: string, starter: string) => `/api/agents/${enc(agent)}/starters/${enc(starter)}`,
};
