/**
 * What each route of the wire does (W-2, W-4), as one handler map keyed by the route names of the
 * wire's `ROUTES`. A handler gets its route's own params, query and checked body, typed from the
 * table, and returns its route's success reply; an error it throws as a `WireFailure` (a refusal
 * from the agent's code as a `Refusal`). The core (core.ts) does everything around it: the token,
 * routing, caps, reading and checking the body, the descendant check and receipts.
 */
import { LIMITS } from "../wire/constants.ts";
import { parseWith } from "../wire/check.ts";
import { historyItemsPageChecker, historyPageChecker } from "../wire/messages.ts";
import type { ReadRouteName, RouteParams, RouteReplies, WriteRouteName } from "../wire/routes.ts";
import { isValidCursor } from "../wire/rules.ts";
import type { Hello, HistoryItemsPage, HistoryPage, Starter, Target, WriteBodies, WriteOk } from "../wire/types.ts";
import type { HandlerResult, Hooks, TargetRef } from "./hooks.ts";
import { Pane, type Tab, type Workspace } from "./layout.ts";
import { readEvents, type EventsSource } from "./long-poll.ts";
import { WireFailure } from "./request.ts";

/** Reads the agent's own history (S-31). Cursors are the agent's own strings. */
export interface HistoryProvider {
  list(query: { after?: string; limit: number }): HistoryPage | Promise<HistoryPage>;
  /** A conversation's items; null when the session is unknown. */
  items(sessionId: string, query: { after?: string; limit: number }): HistoryItemsPage | null | Promise<HistoryItemsPage | null>;
  /**
   * Called once the core serves this provider, with the core's open panes: a provider that says
   * which conversations are `open` asks the core that shows them (S-31), not a registry of its own.
   */
  bind?(core: { readonly panes: ReadonlyMap<string, Pane> }): void;
}

/** What the handlers need of the core: its registry and hooks. */
export interface RouteHost extends EventsSource {
  readonly panes: Map<string, Pane>;
  readonly workspaces: Map<string, Workspace>;
  /** Panes this process closed, for reopen without a hook (S-30). */
  readonly closedPanes: Map<string, Pane>;
  readonly hooks: Hooks;
  hello(): Hello;
  history(): HistoryProvider | undefined;
  starters(): readonly Starter[];
  removePane(pane: Pane, by: "program" | "phone"): void;
  layoutChanged(): void;
}

export interface ReadContext<K extends ReadRouteName> {
  params: RouteParams<K>;
  query: URLSearchParams;
  /** Aborted when the caller goes away. */
  signal: AbortSignal | undefined;
}

export interface WriteContext<K extends WriteRouteName> {
  params: RouteParams<K>;
  /** The body, checked with the route's `WRITE_BODY_CHECKERS` entry. */
  body: WriteBodies[K];
}

/** A write's success beyond `ok: true` (the core adds `ok`, receipts add `replayed`). */
export type WriteResult = Omit<WriteOk, "ok" | "replayed">;

export type ReadHandlers = {
  readonly [K in ReadRouteName]: (ctx: ReadContext<K>) => RouteReplies[K] | Promise<RouteReplies[K]>;
};

export interface WriteHandler<K extends WriteRouteName> {
  /** The receipt group of a request (S-28): `pane:<id>` for pane actions, one group per other kind. */
  group(params: RouteParams<K>): string;
  run(ctx: WriteContext<K>): Promise<WriteResult>;
}

export type WriteHandlers = { readonly [K in WriteRouteName]: WriteHandler<K> };

export function readHandlers(host: RouteHost): ReadHandlers {
  return {
    hello: () => host.hello(),
    layout: () => host.layout(),
    events: ({ query, signal }) => readEvents(host, query, signal),
    pane: ({ params }) => {
      const pane = host.panes.get(params.pane);
      if (!pane) throw new WireFailure("not-found", `No pane ${JSON.stringify(params.pane)}.`);
      return { ...pane.view(), cursor: host.log.cursor() };
    },
    history: async ({ query }) => {
      const page = await historyOf(host).list(pageQuery(query, LIMITS.historyPage, LIMITS.historyPageMax));
      const checked = parseWith(historyPageChecker, page);
      if (!checked.ok) throw new WireFailure("internal", `The history provider returned a bad page: ${checked.error}`);
      return checked.value;
    },
    historyItems: async ({ params, query }) => {
      const page = await historyOf(host).items(params.session, pageQuery(query, 500, LIMITS.viewItems));
      if (page === null || page === undefined) throw new WireFailure("not-found", `No conversation ${JSON.stringify(params.session)}.`);
      const checked = parseWith(historyItemsPageChecker, page);
      if (!checked.ok) throw new WireFailure("internal", `The history provider returned a bad page: ${checked.error}`);
      return checked.value;
    },
    starters: () => ({ starters: host.starters().map((s) => ({ ...s })) }),
  };
}

const paneGroup = ({ pane }: { pane: string }): string => `pane:${pane}`;

export function writeHandlers(host: RouteHost): WriteHandlers {
  const { hooks } = host;
  return {
    answer: {
      group: paneGroup,
      async run({ params, body }) {
        // An unknown pane is "not open", not "not found": after a restart the agent may raise the
        // same ask again, and Collie holds the answer for it (D-5).
        const pane = host.panes.get(params.pane);
        if (!pane) throw new WireFailure("ask-not-open", "No such ask is open; it may be raised again in a moment.");
        const r = pane.answer(params.ask, body.revision, body.answer);
        if (!r.ok) throw new WireFailure(r.code, r.message, r.extra);
        return { decidedAt: r.decidedAt };
      },
    },
    send: {
      group: paneGroup,
      async run({ params, body: { text, requestId } }) {
        const pane = paneOr404(host, params.pane);
        const handler = pane.handlers.onSend ?? hooks.onSend;
        if (!handler) throw new WireFailure("not-supported", "This conversation takes no messages.");
        const result = await pane.withEcho(text, requestId, () => handler({ pane, text, requestId }));
        return turnOf(result, pane);
      },
    },
    steer: {
      group: paneGroup,
      async run({ params, body: { text, turnId, requestId } }) {
        const pane = paneOr404(host, params.pane);
        const handler = pane.handlers.onSteer ?? hooks.onSteer;
        if (!handler) throw new WireFailure("not-supported", "This conversation cannot be steered.");
        if (pane.currentState() === "idle" || turnId !== pane.turnId) throw movedOn();
        const result = await pane.withEcho(text, requestId, () => handler({ pane, text, turnId, requestId }), true);
        return turnOf(result, pane);
      },
    },
    stop: {
      group: paneGroup,
      async run({ params, body: { turnId, requestId } }) {
        const pane = paneOr404(host, params.pane);
        const handler = pane.handlers.onStop ?? hooks.onStop;
        if (!handler) throw new WireFailure("not-supported", "This conversation cannot be stopped.");
        // Nothing runs in an idle pane: the turn the phone saw is over (S-20, P-23).
        if ((turnId !== null && turnId !== pane.turnId) || pane.currentState() === "idle") throw movedOn();
        await pane.phoneEnding(() => handler({ pane, turnId, requestId }));
        pane.stopTurn();
        return {};
      },
    },
    action: {
      group: paneGroup,
      async run({ params, body: { turnId, requestId } }) {
        const pane = paneOr404(host, params.pane);
        const action = pane.action(params.action);
        if (!action) throw new WireFailure("not-found", `No button ${JSON.stringify(params.action)} in this conversation.`);
        const handler = pane.handlers.onAction ?? hooks.onAction;
        if (!handler) throw new WireFailure("not-supported", "This conversation's buttons do nothing here.");
        if (turnId !== pane.turnId) throw movedOn(); // S-20: the conversation moved on
        if (action.busy || action.disabled) throw new WireFailure("refused", `The button is ${action.busy ? "busy" : "disabled"}.`, { reason: action.busy ? "busy" : "disabled" });
        await handler({ pane, actionId: action.id, turnId, requestId });
        return {};
      },
    },
    rename: {
      group: () => "renames",
      async run({ body: { target, title, requestId } }) {
        const ref = resolve(host, target);
        await hooks.onRename?.({ target, ref, title, requestId });
        if (ref.kind === "pane") ref.pane.setTitle(title);
        else if (ref.kind === "tab") ref.tab.setTitle(title);
        else ref.workspace.setTitle(title);
        return {};
      },
    },
    close: {
      group: () => "closes",
      async run({ body: { target, requestId } }) {
        const ref = resolve(host, target);
        const panes = ref.kind === "pane" ? [ref.pane] : ref.kind === "tab" ? [...ref.tab.panes.values()] : [...ref.workspace.tabs.values()].flatMap((t) => [...t.panes.values()]);
        const runHook = async () => hooks.onClose?.({ target, ref, requestId });
        // Asks the hook ends while the phone closes their pane ended because of the phone (P-16).
        await panes.reduceRight<() => Promise<unknown>>((next, pane) => () => pane.phoneEnding(next), runHook)();
        close(host, ref);
        return {};
      },
    },
    reopen: {
      group: () => "reopens",
      async run({ body: { target, requestId } }) {
        if (hooks.onReopen) {
          const pane = await hooks.onReopen({ target, requestId });
          if (pane === null) throw new WireFailure("not-found", "There is no such conversation to reopen.");
          if (!(pane instanceof Pane)) throw new Error("onReopen must return a Pane or null");
          return { paneId: pane.id };
        }
        const closed = target.kind === "pane" ? host.closedPanes.get(target.id) : undefined;
        if (!closed) throw new WireFailure("not-found", "This process did not close that conversation; reopening it needs onReopen (S-30).");
        if (host.panes.has(closed.id)) throw new WireFailure("refused", "A conversation with this id is open again.", { reason: "open" });
        host.closedPanes.delete(closed.id);
        reattach(host, closed);
        return { paneId: closed.id };
      },
    },
    starter: {
      group: () => "starters",
      async run({ params, body: { requestId } }) {
        const starter = host.starters().find((s) => s.id === params.starter);
        if (!starter) throw new WireFailure("not-found", `No starter ${JSON.stringify(params.starter)}.`);
        if (!hooks.onStarter) throw new WireFailure("not-supported", "This durable agent opens no conversations from starters.");
        const pane = await hooks.onStarter({ starterId: starter.id, requestId });
        if (pane === null) throw new WireFailure("not-found", `The starter ${JSON.stringify(starter.id)} opens nothing now.`);
        if (!(pane instanceof Pane)) throw new Error("onStarter must return a Pane or null");
        return { paneId: pane.id };
      },
    },
  };
}

function movedOn(): WireFailure {
  return new WireFailure("moved-on", "The conversation moved on, so the action did not run.");
}

function turnOf(result: Awaited<HandlerResult>, pane: Pane): WriteResult {
  const turnId = (result && typeof result === "object" && typeof result.turnId === "string" ? result.turnId : null) ?? pane.turnId;
  return turnId ? { turnId } : {};
}

/** The history provider; the history cap is off without one, so the route is refused before this. */
function historyOf(host: RouteHost): HistoryProvider {
  const provider = host.history();
  if (!provider) throw new WireFailure("not-supported", "This durable agent does not support history.");
  return provider;
}

function pageQuery(query: URLSearchParams, def: number, max: number): { after?: string; limit: number } {
  const after = query.get("after");
  const limitParam = query.get("limit");
  const limit = limitParam === null ? def : Number(limitParam);
  if (!Number.isInteger(limit) || limit < 1 || limit > max) throw new WireFailure("bad-request", `limit must be an integer from 1 to ${max}`);
  if (after !== null && !isValidCursor(after)) throw new WireFailure("bad-request", "after must be 1 to 512 bytes of printable ASCII without space");
  return after === null ? { limit } : { after, limit };
}

function paneOr404(host: RouteHost, id: string): Pane {
  const pane = host.panes.get(id);
  if (!pane) throw new WireFailure("not-found", `No open conversation ${JSON.stringify(id)}.`);
  return pane;
}

function resolve(host: RouteHost, target: Target): TargetRef {
  if (target.kind === "pane") return { kind: "pane", pane: paneOr404(host, target.id) };
  if (target.kind === "workspace") {
    const workspace = host.workspaces.get(target.id);
    if (!workspace) throw new WireFailure("not-found", `No workspace ${JSON.stringify(target.id)}.`);
    return { kind: "workspace", workspace };
  }
  const [wsId, tabId] = target.id.split(":") as [string, string];
  const tab = host.workspaces.get(wsId)?.tabs.get(tabId);
  if (!tab) throw new WireFailure("not-found", `No tab ${JSON.stringify(target.id)}.`);
  return { kind: "tab", tab };
}

/** Closes a target with everything in it (S-30). */
function close(host: RouteHost, ref: TargetRef): void {
  const tabs: Tab[] = ref.kind === "pane" ? [] : ref.kind === "tab" ? [ref.tab] : [...ref.workspace.tabs.values()];
  const panes = ref.kind === "pane" ? [ref.pane] : tabs.flatMap((t) => [...t.panes.values()]);
  for (const pane of panes) host.removePane(pane, "phone");
  if (ref.kind === "tab") ref.tab.workspace.tabs.delete(ref.tab.localId);
  if (ref.kind === "workspace") host.workspaces.delete(ref.workspace.id);
  host.layoutChanged();
}

/** Puts a pane this process closed back where it was, re-adding its tab and workspace if they went too. */
function reattach(host: RouteHost, pane: Pane): void {
  const tab = pane.tab;
  const ws = tab.workspace;
  if (!host.workspaces.has(ws.id)) host.workspaces.set(ws.id, ws);
  if (!ws.tabs.has(tab.localId)) ws.tabs.set(tab.localId, tab);
  tab.panes.set(pane.id, pane);
  host.panes.set(pane.id, pane);
  pane.restore();
  host.layoutChanged();
}
