/**
 * Test fixtures for the agent's home and the New page: a Phone over a fake Api (a fetch that answers
 * from a route table and records every call), the memory outbox, and a fake WebSocket that
 * delivers the snapshot and live messages the way Collie would.
 */
import { render, type RenderResult } from "@testing-library/react";
import type { ReactElement } from "react";
import type { AgentSummary, Conversation, LiveMessage, Snapshot } from "@colliepwa/shared";
import type { Caps, HistoryRow } from "@colliepwa/durable-sdk/wire";
import { Api } from "../../src/app/api.ts";
import { memoryOutboxStorage } from "../../src/app/outbox.ts";
import { Phone } from "../../src/app/phone.ts";
import { PhoneContext } from "../../src/app/react.ts";

/** 2026-12-02 15:00 local time: "now" for every test. */
export const NOW = new Date(2026, 11, 2, 15, 0, 0).getTime();
export const minutesAgo = (m: number): string => new Date(NOW - m * 60_000).toISOString();

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown> | undefined;
}

/** What the fake server answers: a reply, a network failure, or a promise of either. */
export type FakeReply = { status: number; body: unknown } | "network";
export type Route = (call: Call) => FakeReply | Promise<FakeReply> | undefined;

export class FakeSocket {
  static last: FakeSocket | null = null;
  readyState = 0;
  sent: unknown[] = [];
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
    this.sent.push(JSON.parse(data));
  }
  close(): void {
    this.readyState = 3;
  }
  /** Delivers a live message with the next sequence number. */
  deliver(m: Record<string, unknown> & { type: LiveMessage["type"] }): void {
    this.onmessage?.({ data: JSON.stringify({ ...m, seq: ++this.#seq }) });
  }
}

export const ALL_CAPS: Caps = {
  asks: true, send: true, steer: true, stop: true, actions: true, rename: true, close: true, reopen: true, starters: true, history: true, terminal: false,
};

export function agentSummary(over: Omit<Partial<AgentSummary>, "caps"> & { caps?: Partial<Caps> | null } = {}): AgentSummary {
  const { caps, ...rest } = over;
  return {
    name: "desk",
    state: "ready",
    reach: "local",
    runtime: "node 22.23.5",
    selfName: "desk-agent",
    machine: null,
    caps: caps === null ? null : { ...ALL_CAPS, ...caps },
    wire: { agent: 1, collie: 1 },
    counts: { open: 0, waiting: 0 },
    ...rest,
  };
}

let paneN = 0;
export function conversation(over: Partial<Conversation> = {}): Conversation {
  const id = over.id ?? `p${++paneN}`;
  return {
    id,
    tabId: "main:t1",
    title: `Conversation ${id}`,
    harness: "durable",
    sessionId: id,
    state: "idle",
    actions: [],
    openAsks: 0,
    turnId: null,
    activeAt: minutesAgo(10),
    agent: "desk",
    workspaceTitle: "Main",
    ...over,
  };
}

export function historyRow(over: Partial<HistoryRow> & { id: string }): HistoryRow {
  return {
    title: `History ${over.id}`,
    startedAt: minutesAgo(600),
    endedAt: minutesAgo(500),
    state: "closed",
    items: 3,
    ...over,
  };
}

export interface Harness {
  phone: Phone;
  socket: FakeSocket;
  calls: Call[];
  /** Calls to one path (without the query). */
  callsTo(path: string, method?: string): Call[];
  /** Replaces the route table. */
  setRoutes(...routes: Route[]): void;
  deliver: FakeSocket["deliver"];
}

/** A started Phone whose socket is open and has delivered the snapshot. */
export async function startPhone(opts: { agents?: AgentSummary[]; conversations?: Conversation[]; routes?: Route[]; snapshot?: boolean } = {}): Promise<Harness> {
  const calls: Call[] = [];
  let routes: Route[] = opts.routes ?? [];
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input), "http://collie.test");
    const call: Call = {
      method: init?.method ?? "GET",
      path: url.pathname,
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
    storage: memoryOutboxStorage(),
    createSocket: (url) => new FakeSocket(url) as unknown as WebSocket,
    liveUrl: () => "ws://collie.test/api/live",
    now: () => NOW,
  });
  await phone.start();
  const socket = FakeSocket.last!;
  socket.open();
  if (opts.snapshot !== false) {
    const snapshot: Snapshot = {
      seq: 0,
      collie: { version: "0.1.0", wire: 1 },
      agents: opts.agents ?? [agentSummary()],
      conversations: opts.conversations ?? [],
    };
    socket.deliver({ type: "snapshot", snapshot });
  }
  return {
    phone,
    socket,
    calls,
    callsTo: (path, method = "GET") => calls.filter((c) => c.path === path && c.method === method),
    setRoutes: (...r) => {
      routes = r;
    },
    deliver: (m) => socket.deliver(m),
  };
}

/** Answers one method and path. */
export function on(method: string, path: string, reply: FakeReply | ((call: Call) => FakeReply | Promise<FakeReply>)): Route {
  return (call) => (call.method === method && call.path === path ? (typeof reply === "function" ? reply(call) : reply) : undefined);
}

export function renderWith(phone: Phone, ui: ReactElement): RenderResult {
  return render(<PhoneContext.Provider value={phone}>{ui}</PhoneContext.Provider>);
}

/** A promise with its resolve, for replies that arrive when the test says. */
export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
