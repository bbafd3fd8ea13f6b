/**
 * The routes of the durable wire v1 (docs/wire.md), one table both ends read: the SDK core
 * dispatches on it, Collie builds its requests from it. Paths are under `wirePrefix(1)` except
 * `hello`, which is unversioned so that a Collie of another version can still read it (S-34).
 *
 * The types below come from the same table: a route's path parameters from its path, which routes
 * are writes from `write`, and each route's request body and success reply by name, so the core's
 * handler map is typed per route without a cast.
 */
import type {
  CapName, EventsPage, Hello, HistoryItemsPage, HistoryPage, Layout, PaneViewPage, StartersPage, WriteBodies, WriteOk,
} from "./types.ts";

export type RouteName =
  | "hello" | "layout" | "events" | "pane" | "history" | "historyItems" | "starters"
  | "answer" | "send" | "steer" | "stop" | "action" | "rename" | "close" | "reopen" | "starter";

export interface RouteSpec {
  method: "GET" | "POST";
  /** Path after the version prefix; `:name` segments are ids (URI-encoded). */
  path: string;
  /** The cap that must be on, if any (S-33): off → 409 not-supported. */
  cap?: CapName;
  /** Writes carry a request id, keep receipts, and fall under the descendant check (S-7, S-28). */
  write: boolean;
}

const TABLE = {
  hello: { method: "GET", path: "/hello", write: false },
  layout: { method: "GET", path: "/layout", write: false },
  events: { method: "GET", path: "/events", write: false },
  pane: { method: "GET", path: "/panes/:pane", write: false },
  history: { method: "GET", path: "/history", cap: "history", write: false },
  historyItems: { method: "GET", path: "/history/:session/items", cap: "history", write: false },
  starters: { method: "GET", path: "/starters", cap: "starters", write: false },
  answer: { method: "POST", path: "/panes/:pane/asks/:ask/answer", cap: "asks", write: true },
  send: { method: "POST", path: "/panes/:pane/send", cap: "send", write: true },
  steer: { method: "POST", path: "/panes/:pane/steer", cap: "steer", write: true },
  stop: { method: "POST", path: "/panes/:pane/stop", cap: "stop", write: true },
  action: { method: "POST", path: "/panes/:pane/actions/:action", cap: "actions", write: true },
  rename: { method: "POST", path: "/rename", cap: "rename", write: true },
  close: { method: "POST", path: "/close", cap: "close", write: true },
  reopen: { method: "POST", path: "/reopen", cap: "reopen", write: true },
  starter: { method: "POST", path: "/starters/:starter", cap: "starters", write: true },
} as const satisfies Record<RouteName, RouteSpec>;

export const ROUTES: Readonly<Record<RouteName, RouteSpec>> = Object.freeze(TABLE);

type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}` ? Name | ParamNames<`/${Rest}`> : P extends `${string}:${infer Name}` ? Name : never;

/** A route's path parameters, by name, from its path (`{pane, ask}` for `answer`, `{}` for `layout`). */
export type RouteParams<K extends RouteName> = { [N in ParamNames<(typeof TABLE)[K]["path"]>]: string };

/** The routes marked `write` in the table (S-7, S-28). */
export type WriteRouteName = { [K in RouteName]: (typeof TABLE)[K]["write"] extends true ? K : never }[RouteName];
export type ReadRouteName = Exclude<RouteName, WriteRouteName>;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/** Compile-time: the writes of the table are exactly the writes `WriteBodies` (types.ts) gives a body. */
type WritesHaveBodies = Holds<Same<WriteRouteName, keyof WriteBodies>>;

/** The success reply (200) of every route. */
export type RouteReplies = {
  hello: Hello;
  layout: Layout;
  events: EventsPage;
  pane: PaneViewPage;
  history: HistoryPage;
  historyItems: HistoryItemsPage;
  starters: StartersPage;
} & { [K in WriteRouteName]: WriteOk };

/** A matched route with its decoded params; narrowing on `name` narrows `params`. */
export type RouteMatch<K extends RouteName = RouteName> = { [P in K]: { name: P; params: RouteParams<P> } }[K];

/** Whether a matched route is a write (S-7, S-28). */
export function isWriteMatch(match: RouteMatch): match is RouteMatch<WriteRouteName> {
  return ROUTES[match.name].write;
}

/** Fills a route's `:params` with URI-encoded values. */
export function routePath(name: RouteName, params: Record<string, string> = {}): string {
  return ROUTES[name].path.replace(/:([a-z]+)/g, (_, key: string) => {
    const value = params[key];
    if (value === undefined) throw new TypeError(`route ${name} needs :${key}`);
    return encodeURIComponent(value);
  });
}

/**
 * The table's paths split into their segments once, in the table's order: matching runs on every
 * request an agent serves, and splitting each route's path there again cost a request an array
 * per route (issue 31).
 */
const PATTERNS: readonly { name: RouteName; method: string; pattern: readonly string[] }[] = (Object.entries(ROUTES) as [RouteName, RouteSpec][])
  .filter(([name]) => name !== "hello")
  .map(([name, spec]) => ({ name, method: spec.method, pattern: spec.path.split("/") }));

/** Matches a path (after the prefix) against the table; returns the route and its decoded params. */
export function matchRoute(method: string, path: string): RouteMatch | null {
  const parts = path.split("/");
  for (const { name, method: wants, pattern } of PATTERNS) {
    if (wants !== method || pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      const want = pattern[i]!;
      const got = parts[i]!;
      if (want.startsWith(":")) {
        try {
          params[want.slice(1)] = decodeURIComponent(got);
        } catch {
          ok = false;
        }
        if (got === "") ok = false;
      } else if (want !== got) ok = false;
    }
    // The params are exactly the `:names` of this route's path, filled above: RouteParams<name>.
    if (ok) return { name, params } as RouteMatch;
  }
  return null;
}
