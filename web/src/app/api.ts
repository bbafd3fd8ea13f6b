/**
 * The phone's client of Collie's API (docs/phone-api.md): one typed call per route of the shared
 * table (`PHONE_ROUTES` for the method and path, `PhoneContract` for the query, body and reply), so
 * a body of the wrong shape does not compile. Plain fetches, same origin; an answer goes on the
 * live socket instead while it is open (`actOn`). A network failure is a NetworkError, so callers
 * can tell "no reply" (retry with the same request id) from a reply.
 *
 * Components do not call it: actions go through the action layer (actions.ts), reads through the
 * read layer (reads.ts).
 */
import type { PhoneBody, PhoneQuery, PhoneReply, PhoneRouteName, PhoneRouteParams } from "@colliepwa/shared";
import { PHONE_ROUTES, phoneActs, phonePath } from "@colliepwa/shared/routes";

export class NetworkError extends Error {
  override name = "NetworkError";
}

export interface Reply<T = Record<string, unknown>> {
  status: number;
  /** The 2xx body as the route declares it; with another status, an error body. */
  body: T;
}

/** A route's request, its address built from the table: what the outbox keeps and sends again unchanged. */
export interface RouteRequest<N extends PhoneRouteName = PhoneRouteName> {
  route: N;
  method: (typeof PHONE_ROUTES)[N]["method"];
  path: string;
  body?: PhoneBody<N>;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** What a call takes after the route's path parameters: its body when it takes one, else its query. */
export type CallInput<N extends PhoneRouteName> = [PhoneBody<N>] extends [never]
  ? [PhoneQuery<N>] extends [never] ? [query?: undefined, options?: CallOptions] : [query?: PhoneQuery<N>, options?: CallOptions]
  : [body: PhoneBody<N>, options?: CallOptions];

/** Builds a route's request from the table: its method, its address, its typed body or query. */
export function request<N extends PhoneRouteName>(name: N, params: PhoneRouteParams<N>, ...[input]: CallInput<N>): RouteRequest<N> {
  const { method } = PHONE_ROUTES[name];
  if (method === "GET") return { route: name, method, path: phonePath(name, params, input as Record<string, string | number | undefined> | undefined) };
  return { route: name, method, path: phonePath(name, params), body: input as PhoneBody<N> };
}

/** The `message` of an error reply (Collie's catalog and the agent's errors both carry one). */
export function errorMessage(body: unknown): string | undefined {
  const m = body !== null && typeof body === "object" ? (body as { message?: unknown }).message : undefined;
  return typeof m === "string" ? m : undefined;
}

/**
 * Where an action may go instead of a POST: the phone's live socket (live.ts `act`). Null when it
 * cannot take this one now; a rejection means no reply.
 */
export interface ActChannel {
  act(path: string, body: unknown): Promise<Reply> | null;
}

export class Api {
  readonly #base: string;
  readonly #fetch: typeof fetch;
  #acts: ActChannel | null = null;

  constructor(base = "", fetchImpl: typeof fetch = (...a) => fetch(...a)) {
    this.#base = base;
    this.#fetch = fetchImpl;
  }

  /**
   * Sends answers (`phoneActs`) on this channel while it takes them (docs/phone-api.md "Actions
   * on the live socket"), POSTs otherwise: the same request, the same reply, one route table.
   */
  actOn(channel: ActChannel | null): void {
    this.#acts = channel;
  }

  /** Calls a route of the table: `api.call("send", {agent, pane}, {requestId, text})`. */
  call<N extends PhoneRouteName>(name: N, params: PhoneRouteParams<N>, ...input: CallInput<N>): Promise<Reply<PhoneReply<N>>> {
    const [, options] = input;
    return this.send<PhoneReply<N>>(request(name, params, ...input), options);
  }

  /** Sends a request built by `request` (or kept by the outbox), unchanged. */
  async send<T = Record<string, unknown>>(req: { method: RouteRequest["method"]; path: string; body?: unknown }, options: CallOptions = {}): Promise<Reply<T>> {
    const body = req.body;
    // An answer on the live socket when it is open (issue 31). Not with a signal: an act cannot
    // be called back once sent, and a caller that may abort wants a fetch it can abort.
    const acted = body !== undefined && options.signal === undefined && phoneActs(req.method, req.path) ? this.#acts?.act(req.path, body) : null;
    if (acted) {
      try {
        return (await acted) as Reply<T>;
      } catch (err) {
        throw new NetworkError((err as Error).message || "no reply on the live connection");
      }
    }
    let res: Response;
    try {
      res = await this.#fetch(`${this.#base}${req.path}`, {
        method: req.method,
        headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: "same-origin",
        cache: "no-store",
        signal: options.signal,
      });
    } catch (err) {
      throw new NetworkError((err as Error).message || "network error");
    }
    let parsed: unknown = {};
    try {
      const text = await res.text();
      parsed = text ? JSON.parse(text) : {};
    } catch {
      // A refusal is final whatever its body (a proxy's HTML 404 or 413): an empty error body, so
      // the outbox lets it go. A 5xx or a 2xx that is not JSON says nothing sure: no reply.
      if (res.status >= 400 && res.status < 500) return { status: res.status, body: {} as T };
      throw new NetworkError(`reply ${res.status} was not JSON`);
    }
    return { status: res.status, body: parsed as T };
  }
}
