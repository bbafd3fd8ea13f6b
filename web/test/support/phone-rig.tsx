/**
 * One rig for the PWA's component tests: a Phone over a fake Api (a fetch answering from a route
 * table and recording every call), an outbox storage, a fake WebSocket that delivers the snapshot
 * and live messages the way Collie does, and a clock the test sets. The chat's and the home's
 * fixtures build their own data on it (chat/harness.tsx, home/fixtures.tsx).
 */
import { render, type RenderResult } from "@testing-library/react";
import type { ReactElement } from "react";
import type { AgentSummary, Conversation, LiveMessage, Snapshot } from "@colliepwa/shared";
import { ALL_CAPS, type Caps } from "@colliepwa/durable-sdk/wire";
import { Api } from "../../src/app/api.ts";
import { memoryDraftStorage, type DraftStorage } from "../../src/app/drafts.ts";
import { memoryOutboxStorage, type OutboxStorage } from "../../src/app/outbox.ts";
import type { NotificationAnswerStorage } from "../../src/app/notification-answers.ts";
import { Phone } from "../../src/app/phone.ts";
import type { ViewCacheStorage } from "../../src/app/view-cache.ts";
import { PhoneContext } from "../../src/app/react.ts";

/** Every cap an agent can declare, as the wire names them (`terminal` off). */
export const CAPS: Caps = { ...ALL_CAPS };

export interface Call {
  method: string;
  /** The path, percent-decoded. */
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
  /** Delivers a live message with the next sequence number. */
  deliver(m: Record<string, unknown> & { type: LiveMessage["type"] }): void {
    this.onmessage?.({ data: JSON.stringify({ ...m, seq: ++this.#seq }) });
  }
}

export interface Rig {
  phone: Phone;
  socket: FakeSocket;
  calls: Call[];
  callsTo(path: string, method?: string): Call[];
  setRoutes(...routes: Route[]): void;
  deliver: FakeSocket["deliver"];
}

/** A started Phone whose socket is open and (unless `snapshot: false`) has delivered the snapshot. */
export async function startRig(opts: {
  agents: AgentSummary[];
  conversations: Conversation[];
  now: () => number;
  routes?: Route[];
  storage?: OutboxStorage;
  snapshot?: boolean;
  viewCache?: ViewCacheStorage;
  notificationAnswers?: NotificationAnswerStorage;
  /** Composer drafts; a fresh map per rig unless a test passes one (a "reload" keeps it). */
  draftStorage?: DraftStorage;
  /** False: the WebSocket never opens (Collie is down), so nothing is flushed and no snapshot comes. */
  online?: boolean;
}): Promise<Rig> {
  const calls: Call[] = [];
  let routes: Route[] = opts.routes ?? [];
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
    now: opts.now,
    draftStorage: opts.draftStorage ?? memoryDraftStorage(),
    ...(opts.viewCache ? { viewCache: opts.viewCache } : {}),
    ...(opts.notificationAnswers ? { notificationAnswers: opts.notificationAnswers } : {}),
  });
  // Actions go as POSTs on this rig's fake fetch, where every test reads them; their way on the
  // live socket has its own tests (app/live.test.ts, the Chromium journeys).
  phone.api.actOn(null);
  await phone.start();
  const socket = FakeSocket.last!;
  if (opts.online !== false) socket.open();
  if (opts.snapshot !== false && opts.online !== false) {
    const snapshot: Snapshot = { seq: 0, collie: { version: "0.1.0", wire: 1 }, agents: opts.agents, conversations: opts.conversations };
    socket.deliver({ type: "snapshot", snapshot });
  }
  return {
    phone, socket, calls,
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

/** Answers with each reply in turn, the last one from then on. */
export function seq(method: string, path: string, ...replies: FakeReply[]): Route {
  let n = 0;
  return on(method, path, () => replies[Math.min(n++, replies.length - 1)]!);
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
