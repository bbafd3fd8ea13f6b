/** Hash routes: the app works from any static origin and survives reloads on any screen. */
import { useSyncExternalStore } from "react";

export type Route =
  | { name: "dashboard" }
  | { name: "settings" }
  | { name: "pair"; code: string }
  | { name: "home"; agent: string }
  | { name: "chat"; agent: string; pane: string }
  | { name: "closed"; agent: string; session: string }
  | { name: "new"; agent: string };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  const [a, agent, b, c] = parts;
  if (a === "settings") return { name: "settings" };
  if (a === "pair" && agent) return { name: "pair", code: agent };
  if (a !== "agent" || !agent) return { name: "dashboard" };
  if (b === "pane" && c) return { name: "chat", agent, pane: c };
  if (b === "closed" && c) return { name: "closed", agent, session: c };
  if (b === "new") return { name: "new", agent };
  return { name: "home", agent };
}

export function href(route: Route): string {
  const e = encodeURIComponent;
  switch (route.name) {
    case "dashboard": return "#/";
    case "settings": return "#/settings";
    case "pair": return `#/pair/${e(route.code)}`;
    case "home": return `#/agent/${e(route.agent)}`;
    case "chat": return `#/agent/${e(route.agent)}/pane/${e(route.pane)}`;
    case "closed": return `#/agent/${e(route.agent)}/closed/${e(route.session)}`;
    case "new": return `#/agent/${e(route.agent)}/new`;
  }
}

export function go(route: Route): void {
  location.hash = href(route);
}

const subscribe = (fn: () => void) => {
  window.addEventListener("hashchange", fn);
  return () => window.removeEventListener("hashchange", fn);
};

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => location.hash);
  return parseRoute(hash);
}
