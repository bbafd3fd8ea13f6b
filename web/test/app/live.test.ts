/**
 * The phone's live connection (live.ts) carrying actions (issue 31; docs/phone-api.md "Actions on
 * the live socket"): an act goes on the open socket and its reply settles it without touching the
 * resume number; what cannot go that way (no open socket, too many waiting, too big) is left to a
 * POST; an act whose socket closes, or whose reply does not come in time, is lost — and the Api
 * turns that into "no reply", so the outbox sends it again with the same request id (D-5).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ACT_LIMITS } from "@colliepwa/shared/routes";
import { ActLost, LiveConnection } from "../../src/app/live.ts";
import { Api, NetworkError } from "../../src/app/api.ts";
import { memoryOutboxStorage, Outbox } from "../../src/app/outbox.ts";

class Socket {
  static all: Socket[] = [];
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  onclose: (() => void) | null = null;
  onerror: (() => void) | null = null;
  readonly url: string;
  constructor(url: string) {
    this.url = url;
    Socket.all.push(this);
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.();
  }
  send(text: string): void {
    this.sent.push(JSON.parse(text) as Record<string, unknown>);
  }
  close(): void {
    this.readyState = 3;
    this.onclose?.();
  }
  frame(m: Record<string, unknown>): void {
    this.onmessage?.({ data: JSON.stringify(m) });
  }
  get acts(): { id: number; path: string; body: unknown }[] {
    return this.sent.filter((m) => m.type === "act") as never;
  }
}

function connection(): { live: LiveConnection; urls: (number | null)[]; socket: () => Socket } {
  Socket.all = [];
  const urls: (number | null)[] = [];
  const live = new LiveConnection({
    url: (since) => {
      urls.push(since);
      return "ws://collie.test/api/live";
    },
    onMessage: () => {},
    onStatus: () => {},
    createSocket: (u) => new Socket(u) as unknown as WebSocket,
  });
  live.start();
  return { live, urls, socket: () => Socket.all.at(-1)! };
}

const SEND = "/api/agents/desk/panes/p1/send";
const ANSWER = "/api/agents/desk/panes/p1/asks/0123456789abcdef0123456789abcdef/answer";

afterEach(() => {
  vi.useRealTimers();
});

describe("LiveConnection.act", () => {
  it("sends the request as an act on the open socket; its reply settles it and is no numbered message", async () => {
    const { live, urls, socket } = connection();
    socket().open();
    socket().frame({ type: "snapshot", seq: 41, snapshot: { seq: 41, collie: { version: "x", wire: 1 }, agents: [], conversations: [] } });
    const reply = live.act(SEND, { requestId: "r-1", text: "hi" })!;
    expect(socket().acts).toEqual([{ type: "act", id: 0, path: SEND, body: { requestId: "r-1", text: "hi" } }]);
    socket().frame({ type: "act-reply", id: 0, status: 200, body: { ok: true, turnId: "t1" } });
    await expect(reply).resolves.toEqual({ status: 200, body: { ok: true, turnId: "t1" } });
    // A reconnect resumes after the last numbered message, not after the reply.
    vi.useFakeTimers();
    socket().close();
    vi.advanceTimersByTime(10_000);
    expect(urls).toEqual([null, 41]);
  });

  it("replies settle their own acts, in whatever order they come; a reply to no act is ignored", async () => {
    const { live, socket } = connection();
    socket().open();
    const a = live.act(SEND, { requestId: "a", text: "a" })!;
    const b = live.act(SEND, { requestId: "b", text: "b" })!;
    socket().frame({ type: "act-reply", id: 99, status: 200, body: {} });
    socket().frame({ type: "act-reply", id: 1, status: 409, body: { error: "busy", message: "Busy." } });
    socket().frame({ type: "act-reply", id: 0, status: 200, body: { ok: true } });
    await expect(b).resolves.toEqual({ status: 409, body: { error: "busy", message: "Busy." } });
    await expect(a).resolves.toEqual({ status: 200, body: { ok: true } });
  });

  it("is null without an open socket, past the acts one socket may have waiting, and for a frame too big", () => {
    const { live, socket } = connection();
    expect(live.act(SEND, { requestId: "r", text: "x" })).toBeNull();
    socket().open();
    for (let i = 0; i < ACT_LIMITS.inFlight; i++) expect(live.act(SEND, { requestId: `r-${i}`, text: "x" })).not.toBeNull();
    expect(live.act(SEND, { requestId: "one-more", text: "x" })).toBeNull();
    expect(socket().acts).toHaveLength(ACT_LIMITS.inFlight);
    const { live: other, socket: otherSocket } = connection();
    otherSocket().open();
    // 16 500 three-byte characters: 49 500 bytes of text, over the frame's 48 KiB.
    expect(other.act(SEND, { requestId: "big", text: "€".repeat(16_500) })).toBeNull();
    expect(other.act(SEND, { requestId: "fits", text: "€".repeat(15_000) })).not.toBeNull();
  });

  it("an act whose socket closes before its reply is lost; one without a reply in time too", async () => {
    vi.useFakeTimers();
    const { live, socket } = connection();
    socket().open();
    const dropped = live.act(SEND, { requestId: "d", text: "x" })!;
    socket().close();
    await expect(dropped).rejects.toBeInstanceOf(ActLost);
    vi.advanceTimersByTime(1000);
    socket().open();
    const silent = live.act(SEND, { requestId: "s", text: "x" })!;
    const settled = expect(silent).rejects.toBeInstanceOf(ActLost);
    vi.advanceTimersByTime(ACT_LIMITS.replyMs);
    await settled;
    // A late reply finds nothing to settle.
    socket().frame({ type: "act-reply", id: 1, status: 200, body: {} });
    // A socket that let an act go unanswered (a Collie that knows no acts) is sent none again:
    // the retry goes as a POST. A new socket is asked again.
    expect(live.act(SEND, { requestId: "s", text: "x" })).toBeNull();
    socket().close();
    vi.advanceTimersByTime(2000);
    socket().open();
    expect(live.act(SEND, { requestId: "s", text: "x" })).not.toBeNull();
  });

  it("an act on a socket a reconnect replaced while it was closing is lost at that socket's close; the new socket takes acts", async () => {
    const { live, socket } = connection();
    socket().open();
    const old = socket();
    const sent = live.act(SEND, { requestId: "o", text: "x" })!;
    // Closing, not closed yet: the browser came back online and the phone reconnects at once.
    old.readyState = 2;
    live.retryNow();
    const fresh = socket();
    expect(fresh).not.toBe(old);
    fresh.open();
    expect(live.act(SEND, { requestId: "n", text: "x" })).not.toBeNull();
    old.close();
    await expect(sent).rejects.toBeInstanceOf(ActLost);
    // The new socket is no unanswering one: it still takes acts.
    expect(live.act(SEND, { requestId: "m", text: "x" })).not.toBeNull();
  });
});

describe("Api with a live socket to act on", () => {
  const fetched: { method: string; path: string; body: unknown }[] = [];
  const fetchImpl = (async (input: string, init?: RequestInit) => {
    fetched.push({ method: init?.method ?? "GET", path: input, body: init?.body === undefined ? undefined : JSON.parse(String(init.body)) });
    return new Response(JSON.stringify({ ok: true, via: "http" }), { status: 200 });
  }) as unknown as typeof fetch;
  /** An Api acting on a live connection whose socket is open; nothing fetched yet. */
  const apiOnOpenSocket = () => {
    fetched.length = 0;
    const { live, socket } = connection();
    socket().open();
    const api = new Api("", fetchImpl);
    api.actOn(live);
    return { api, socket };
  };

  it("answers go on the socket while it is open; reads, other actions and writes, and an abortable call go by fetch", async () => {
    const { api, socket } = apiOnOpenSocket();
    const acted = api.send({ method: "POST", path: ANSWER, body: { requestId: "r-1", text: "hi" } });
    socket().frame({ type: "act-reply", id: 0, status: 200, body: { ok: true, via: "socket" } });
    expect(await acted).toEqual({ status: 200, body: { ok: true, via: "socket" } });
    await api.send({ method: "GET", path: "/api/agents/desk/panes/p1" });
    await api.send({ method: "POST", path: "/api/push/subscriptions", body: {} });
    await api.send({ method: "POST", path: SEND, body: { requestId: "r-send", text: "hi" } });
    await api.send({ method: "POST", path: ANSWER, body: { requestId: "r-2", text: "hi" } }, { signal: new AbortController().signal });
    expect(fetched.map((f) => `${f.method} ${f.path}`)).toEqual(["GET /api/agents/desk/panes/p1", "POST /api/push/subscriptions", `POST ${SEND}`, `POST ${ANSWER}`]);
    expect(socket().acts).toHaveLength(1);
  });

  it("an act lost with its socket is no reply: the outbox keeps it and sends it again, by POST, with the same request id", async () => {
    const { api, socket } = apiOnOpenSocket();
    const storage = memoryOutboxStorage();
    const outbox = new Outbox(api, storage);
    const body = { requestId: "r-lost", revision: "0123456789abcdef", answer: { kind: "permission", optionId: "allow" } };
    const first = outbox.submit({ requestId: "r-lost", kind: "answer", agent: "desk", pane: "p1", path: ANSWER, body });
    await vi.waitFor(() => expect(socket().acts).toHaveLength(1));
    socket().close();
    expect(await first).toEqual({ kind: "no-reply" });
    await expect(api.send({ method: "POST", path: "/x/y", body: {} })).resolves.toBeTruthy();
    expect(outbox.pending.map((p) => p.requestId)).toEqual(["r-lost"]);
    expect((await storage.all()).map((p) => p.requestId)).toEqual(["r-lost"]);
    // The socket is down: the retry is a POST of the very same request.
    const again = await outbox.send("r-lost");
    expect(again.kind).toBe("reply");
    expect(fetched.filter((f) => f.path === ANSWER)).toEqual([{ method: "POST", path: ANSWER, body }]);
    expect(outbox.pending).toEqual([]);
  });

  it("a lost act is a NetworkError to its caller", async () => {
    const { api, socket } = apiOnOpenSocket();
    const call = api.send({ method: "POST", path: ANSWER, body: { requestId: "r", text: "x" } });
    socket().close();
    await expect(call).rejects.toBeInstanceOf(NetworkError);
  });
});
