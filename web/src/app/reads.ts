/**
 * The read layer: every read a screen makes goes through a Reader (in React, `useRead()`), which
 * has the one way to drop a stale answer. A `fresh` read replaces every read before it (a list read
 * again, the starters after `Try again`, the always-allowed tools after a new decision); a `more`
 * read (the next page) belongs to the fresh read it follows. A replaced read, and every read in
 * flight when the reader is dropped (the screen left), is aborted, and its answer never reaches
 * the caller: the promise it returned never settles. Reads are typed from the route table.
 */
import type { PhoneQuery, PhoneReply, PhoneRouteName, PhoneRouteParams } from "@colliepwa/shared";
import type { PHONE_ROUTES } from "@colliepwa/shared/routes";
import { NetworkError, type Api, type CallInput, type Reply } from "./api.ts";

/** The routes a screen reads: every GET of the table but the WebSocket. */
export type ReadRoute = Exclude<{ [N in PhoneRouteName]: (typeof PHONE_ROUTES)[N]["method"] extends "GET" ? N : never }[PhoneRouteName], "live">;

/** A route's query, for the routes that read one. */
export type ReadQuery<N extends ReadRoute> = [PhoneQuery<N>] extends [never] ? undefined : PhoneQuery<N>;

/** What a read came to: a reply (any status), no reply (the network failed, or the reply was not JSON), or a failure of the page itself. */
export type ReadResult<T> = { kind: "reply"; reply: Reply<T> } | { kind: "no-reply" } | { kind: "failed"; error: unknown };

export class Reader {
  readonly #api: Api;
  /** Grows with every fresh read and every drop: an answer of an older generation is dropped. */
  #generation = 0;
  readonly #inFlight = new Set<AbortController>();

  constructor(api: Api) {
    this.#api = api;
  }

  /** A read that replaces every read before it. */
  fresh<N extends ReadRoute>(name: N, params: PhoneRouteParams<N>, query?: ReadQuery<N>): Promise<ReadResult<PhoneReply<N>>> {
    this.drop();
    return this.#read(name, params, query);
  }

  /** A further page of the current fresh read: dropped with it. */
  more<N extends ReadRoute>(name: N, params: PhoneRouteParams<N>, query?: ReadQuery<N>): Promise<ReadResult<PhoneReply<N>>> {
    return this.#read(name, params, query);
  }

  /** Drops every read in flight: their fetches are aborted and their answers never arrive. */
  drop(): void {
    this.#generation++;
    for (const c of this.#inFlight) c.abort();
    this.#inFlight.clear();
  }

  #read<N extends ReadRoute>(name: N, params: PhoneRouteParams<N>, query: ReadQuery<N> | undefined): Promise<ReadResult<PhoneReply<N>>> {
    const mine = this.#generation;
    const controller = new AbortController();
    this.#inFlight.add(controller);
    const input = [query, { signal: controller.signal }] as unknown as CallInput<N>;
    return new Promise((resolve) => {
      void this.#api.call(name, params, ...input).then(
        (reply): ReadResult<PhoneReply<N>> => ({ kind: "reply", reply }),
        (error: unknown): ReadResult<PhoneReply<N>> => (error instanceof NetworkError ? { kind: "no-reply" } : { kind: "failed", error }),
      ).then((result) => {
        this.#inFlight.delete(controller);
        if (this.#generation === mine) resolve(result);
      });
    });
  }
}
