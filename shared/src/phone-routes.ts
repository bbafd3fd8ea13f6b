/**
 * The phone API's routes, one table for both ends (D-4, D-5): the server registers every route
 * from it (a test checks that what is registered is exactly this table), and the phone builds every
 * address from it (`phonePath`). A route's path parameters come from its path, typed. Request and
 * reply shapes are in api.ts and phone-types.ts, the server's schemas per route in phone-schemas.ts;
 * this module imports nothing, so the phone's bundle carries no schema.
 */
export const PHONE_ROUTES = Object.freeze({
  health: { method: "GET", path: "/api/health" },
  me: { method: "GET", path: "/api/me" },
  pair: { method: "POST", path: "/api/pair" },
  snapshot: { method: "GET", path: "/api/snapshot" },
  agents: { method: "GET", path: "/api/agents" },
  live: { method: "GET", path: "/api/live" },
  conversations: { method: "GET", path: "/api/agents/:agent/conversations" },
  pane: { method: "GET", path: "/api/agents/:agent/panes/:pane" },
  alwaysAllowed: { method: "GET", path: "/api/agents/:agent/always-allowed" },
  history: { method: "GET", path: "/api/agents/:agent/history" },
  historyItems: { method: "GET", path: "/api/agents/:agent/history/:session/items" },
  starters: { method: "GET", path: "/api/agents/:agent/starters" },
  answer: { method: "POST", path: "/api/agents/:agent/panes/:pane/asks/:ask/answer" },
  send: { method: "POST", path: "/api/agents/:agent/panes/:pane/send" },
  steer: { method: "POST", path: "/api/agents/:agent/panes/:pane/steer" },
  stop: { method: "POST", path: "/api/agents/:agent/panes/:pane/stop" },
  action: { method: "POST", path: "/api/agents/:agent/panes/:pane/actions/:action" },
  rename: { method: "POST", path: "/api/agents/:agent/rename" },
  close: { method: "POST", path: "/api/agents/:agent/close" },
  reopen: { method: "POST", path: "/api/agents/:agent/reopen" },
  starter: { method: "POST", path: "/api/agents/:agent/starters/:starter" },
  pushKey: { method: "GET", path: "/api/push/key" },
  pushSubscribe: { method: "POST", path: "/api/push/subscriptions" },
  pushUnsubscribe: { method: "DELETE", path: "/api/push/subscriptions" },
  crewHello: { method: "GET", path: "/api/crew/hello" },
  crewJoin: { method: "POST", path: "/api/crew/join" },
} as const);

export type PhoneRouteName = keyof typeof PHONE_ROUTES;

/** Which of them a phone may send on its live socket instead (act.ts). */
export { ACT_LIMITS, ACT_PATH, mayAct, phoneActs } from "./act.ts";

type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}` ? Name | ParamNames<`/${Rest}`> : P extends `${string}:${infer Name}` ? Name : never;

/** The path parameters of a route, by name (`{agent, pane}` for `send`). */
export type PhoneRouteParams<N extends PhoneRouteName> = { [K in ParamNames<(typeof PHONE_ROUTES)[N]["path"]>]: string };

/** A route's address with its parameters percent-encoded, and an optional query. */
export function phonePath<N extends PhoneRouteName>(name: N, params: PhoneRouteParams<N>, query?: Record<string, string | number | undefined>): string {
  const path = PHONE_ROUTES[name].path.replace(/:(\w+)/g, (_m, key: string) => encodeURIComponent((params as Record<string, string>)[key] ?? ""));
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== "") q.set(k, String(v));
  return q.size ? `${path}?${q}` : path;
}
