/**
 * The phone app's addresses (hash routes), one table for every place that makes or reads one: the
 * app's router, a push's tap target (`askUrl`, `agentUrl`) and the service worker's landing. The
 * app works from any static origin and survives a reload on any screen.
 */
export type PhoneRoute =
  | { name: "dashboard" }
  | { name: "settings" }
  | { name: "pair"; code: string }
  | { name: "home"; agent: string }
  /** A conversation; `ask` names the card a push's tap lands on. */
  | { name: "chat"; agent: string; pane: string; ask?: string }
  | { name: "closed"; agent: string; session: string }
  | { name: "new"; agent: string };

/** The route a hash (`#/agent/desk/pane/p1`) names; anything unknown is the dashboard. */
export function parseHashRoute(hash: string): PhoneRoute {
  const parts = hash.replace(/^#\/?/, "").split(/[?#]/)[0]!.split("/").filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  const [a, agent, b, c, d, e] = parts;
  if (a === "settings") return { name: "settings" };
  if (a === "pair" && agent) return { name: "pair", code: agent };
  if (a !== "agent" || !agent) return { name: "dashboard" };
  if (b === "pane" && c) return d === "ask" && e ? { name: "chat", agent, pane: c, ask: e } : { name: "chat", agent, pane: c };
  if (b === "closed" && c) return { name: "closed", agent, session: c };
  if (b === "new") return { name: "new", agent };
  return { name: "home", agent };
}

/** The hash of a route (`#/…`). */
export function hashOf(route: PhoneRoute): string {
  const e = encodeURIComponent;
  switch (route.name) {
    case "dashboard": return "#/";
    case "settings": return "#/settings";
    case "pair": return `#/pair/${e(route.code)}`;
    case "home": return `#/agent/${e(route.agent)}`;
    case "chat": return `#/agent/${e(route.agent)}/pane/${e(route.pane)}${route.ask ? `/ask/${e(route.ask)}` : ""}`;
    case "closed": return `#/agent/${e(route.agent)}/closed/${e(route.session)}`;
    case "new": return `#/agent/${e(route.agent)}/new`;
  }
}

/** The PWA's address of a conversation with one ask's card (where a push's tap goes). */
export function askUrl(agent: string, paneId: string, askId: string): string {
  return `/${hashOf({ name: "chat", agent, pane: paneId, ask: askId })}`;
}

/** The PWA's address of a durable agent's home. */
export function agentUrl(agent: string): string {
  return `/${hashOf({ name: "home", agent })}`;
}
