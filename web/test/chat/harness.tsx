/**
 * A Phone for chat tests: a fake Api (a fetch answering from a route table and recording every
 * call), the memory outbox (or a given storage, for reload tests), a fake WebSocket and a clock
 * the test moves.
 */
import { render, type RenderResult } from "@testing-library/react";
import type { ReactElement } from "react";
import type { AgentSummary, Conversation, LiveMessage, PaneDetail, Snapshot } from "@colliepwa/shared";
import type { Caps, Item } from "@colliepwa/durable-sdk/wire";
import { Api } from "../../src/app/api.ts";
import { memoryOutboxStorage, type OutboxStorage } from "../../src/app/outbox.ts";
import { Phone } from "../../src/app/phone.ts";
import type { ViewCacheStorage } from "../../src/app/view-cache.ts";
import { PhoneContext } from "../../src/app/react.ts";

export const T0 = new Date(2026, 11, 2, 15, 0, 0).getTime();

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown> | undefined;
}
export type FakeReply = { status: number; body: unknown } | "network";
export type Route = (call: Call) => FakeReply | Promise<FakeReply> | undefined;

export class FakeSocket {
  static last: FakeSocket | null = null;
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  onopen: ((e: unknown) => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  onclose: ((e: unknown) => void) | null = null;
  onerror: ((e: unknown) => void) | null = null;
  #seq = 0;
  readonly url: string;
  constructor(url: string) {
    this.url = url;
    FakeSocket.last = this;
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  close(): void {
    this.readyState = 3;
  }
  deliver(m: Record<string, unknown> & { type: LiveMessage["type"] }): void {
    this.onmessage?.({ data: JSON.stringify({ ...m, seq: ++this.#seq }) });
  }
}

export const CAPS: Caps = {
  asks: true, send: true, steer: true, stop: true, actions: true, rename: true, close: true, reopen: true, starters: true, history: true, terminal: false,
};

export function agentSummary(caps: Partial<Caps> | null = {}): AgentSummary {
  return {
    name: "desk", state: "ready", reach: "local", runtime: "node 22.23.5", selfName: "desk-agent", machine: null,
    caps: caps === null ? null : { ...CAPS, ...caps }, wire: { agent: 1, collie: 1 }, counts: { open: 1, waiting: 0 },
  };
}

export function conversation(over: Partial<Conversation> = {}): Conversation {
  return {
    id: "p1", tabId: "support:main", title: "Refund for order 5521", harness: "support-bot", sessionId: "p1", state: "idle",
    actions: [], openAsks: 0, turnId: "turn-7", activeAt: new Date(T0 - 60_000).toISOString(), agent: "desk",
    workspaceTitle: "Support", ...over,
  };
}

export function detail(items: Item[], over: Partial<PaneDetail> = {}, conv: Conversation = conversation()): PaneDetail {
  return { conversation: conv, items, itemsCut: false, asks: [], ...over };
}

export interface Harness {
  phone: Phone;
  socket: FakeSocket;
  clock: { t: number };
  calls: Call[];
  callsTo(path: string, method?: string): Call[];
  setRoutes(...routes: Route[]): void;
  deliver: FakeSocket["deliver"];
}

export async function startPhone(opts: {
  agents?: AgentSummary[];
  conversations?: Conversation[];
  routes?: Route[];
  storage?: OutboxStorage;
  snapshot?: boolean;
  viewCache?: ViewCacheStorage;
} = {}): Promise<Harness> {
  const calls: Call[] = [];
  let routes: Route[] = opts.routes ?? [];
  const clock = { t: T0 };
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input), "http://collie.test");
    const call: Call = {
      method: init?.method ?? "GET",
      path: decodeURIComponent(url.pathname),
      query: url.searchParams,
      body: typeof init?.body === "string" ? (JSON.parse(init.body) as Record<string, unknown>) : undefined,
    };
    calls.push(call);
    let reply: FakeReply | undefined;
    for (const r of routes) {
      reply = await r(call);
      if (reply !== undefined) break;
    }
    if (reply === undefined) reply = { status: 404, body: { error: "not-found", message: "No such route." } };
    if (reply === "network") throw new TypeError("Failed to fetch");
    return new Response(JSON.stringify(reply.body), { status: reply.status, headers: { "content-type": "application/json" } });
  };
  const phone = new Phone({
    api: new Api("", fetchImpl as typeof fetch),
    storage: opts.storage ?? memoryOutboxStorage(),
    createSocket: (url) => new FakeSocket(url) as unknown as WebSocket,
    liveUrl: () => "ws://collie.test/api/live",
    now: () => clock.t,
    ...(opts.viewCache ? { viewCache: opts.viewCache } : {}),
  });
  await phone.start();
  const socket = FakeSocket.last!;
  socket.open();
  if (opts.snapshot !== false) {
    const snapshot: Snapshot = {
      seq: 0,
      collie: { version: "0.1.0", wire: 1 },
      agents: opts.agents ?? [agentSummary()],
      conversations: opts.conversations ?? [conversation()],
    };
    socket.deliver({ type: "snapshot", snapshot });
  }
  return {
    phone, socket, clock, calls,
    callsTo: (path, method = "GET") => calls.filter((c) => c.path === path && c.method === method),
    setRoutes: (...r) => {
      routes = r;
    },
    deliver: (m) => socket.deliver(m),
  };
}

export function on(method: string, path: string, reply: FakeReply | ((call: Call) => FakeReply | Promise<FakeReply>)): Route {
  return (call) => (call.method === method && call.path === path ? (typeof reply === "function" ? reply(call) : reply) : undefined);
}

/** Answers with each reply in turn, the last one from then on. */
export function seq(method: string, path: string, ...replies: FakeReply[]): Route {
  let n = 0;
  return on(method, path, () => replies[Math.min(n++, replies.length - 1)]!);
}

export function renderWith(phone: Phone, ui: ReactElement): RenderResult {
  return render(<PhoneContext.Provider value={phone}>{ui}</PhoneContext.Provider>);
}

export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
