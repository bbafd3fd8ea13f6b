/**
 * A hostile agent (L-2): a fake that answers hello correctly, then serves events pages with
 * malformed JSON, a 10 MB text, control and bidi characters, unknown event types, `__proto__` keys
 * and deeply nested junk. The daemon keeps running, other agents keep working, text is cut and
 * marked `textShortened` on the phone side, unknown events are dropped, a malformed page makes the
 * agent `unreachable` with a problem line that holds no token, and it comes back afterwards.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { PaneDetail } from "@colliepwa/shared";
import { isKnownAsk, LIMITS } from "@colliepwa/durable-sdk/wire";
import { killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { FAKE_INSTANCE, FakeAgent, fakeHello, fakeSummary } from "../helpers/fake-agent.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const TOKEN = "hostile-token-0123456789-abcdef";
const utf8 = (s: string) => Buffer.byteLength(s, "utf8");
// Control, bidi and invisible characters an agent must not get onto the phone (S-16, L-2).
const HOSTILE = "safe\u0000\u0007 text\u202E reversed\u2066 isolate\u200B zero-width\u001b[31m escape\u0085 nel";
const BAD_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

let seq = 10;
const cursor = () => `${FAKE_INSTANCE}.${seq}`;
const itemEvent = (pane: string, item: Record<string, unknown>) => ({ seq: ++seq, type: "item", pane, item });
const page = (events: unknown[]) => ({ cursor: cursor(), reset: false, views: [], events });
const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

let d: TestDaemon;
let hostile: FakeAgent;
let tcp: FakeAgent;
let live: LiveClient;
let desk: Awaited<ReturnType<typeof startAgent>>["agent"];

before(async () => {
  const dir = tempDir();
  hostile = new FakeAgent({ panes: ["f1", "__proto__"], hello: fakeHello({ name: "evil\u202Eliame\u0007 agent", runtime: "node\u0000 22.19" }) });
  await hostile.listen({ socket: join(dir, "hostile.sock") });
  tcp = new FakeAgent({ panes: ["t1"], token: TOKEN });
  await tcp.listen({ tcp: true });
  ({ agent: desk } = await startAgent("desk-agent.ts", ["--socket", join(dir, "desk.sock")]));
  d = await TestDaemon.start({
    sources: {
      fixed: [
        { name: "hostile", endpoint: { kind: "socket", path: join(dir, "hostile.sock") }, key: "hostile" },
        { name: "tcp", endpoint: { kind: "url", url: new URL(`http://127.0.0.1:${tcp.port}`), token: TOKEN }, key: "tcp" },
        { name: "desk", endpoint: { kind: "socket", path: join(dir, "desk.sock") }, key: "desk" },
      ],
    },
  });
  await d.waitState("hostile", "ready");
  await d.waitState("tcp", "ready");
  await d.waitState("desk", "ready");
  live = await LiveClient.connect(d.wsUrl);
  live.send({ type: "watch", agent: "hostile", pane: "f1" });
  await live.waitFor((m) => m.type === "view" && m.agent === "hostile", "the watched pane's view");
});

after(async () => {
  await closeAllLive();
  await closeAllDaemons();
  await killAllAgents();
  await hostile?.close();
  await tcp?.close();
  removeTempDirs();
});

async function detail(agent: string, pane: string): Promise<PaneDetail> {
  const r = await d.get<PaneDetail>(`/api/agents/${agent}/panes/${encodeURIComponent(pane)}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

/** Pushes a marker item and waits until the daemon shows it: every page before it was applied. */
async function settle(agent: FakeAgent, name: string, pane: string): Promise<void> {
  const id = `marker-${seq + 1}`;
  agent.push(page([itemEvent(pane, { kind: "notice", id, text: "marker" })]));
  await until(async () => (await d.get<PaneDetail>(`/api/agents/${name}/panes/${pane}`)).body.items?.some((i) => i.id === id), `marker ${id} applied`);
}

describe("hostile agent messages (L-2)", () => {
  test("a hello's name and runtime reach the phone cleaned of control and bidi characters", async () => {
    const row = (await d.agent("hostile"))!;
    assert.ok(!BAD_CHARS.test(row.selfName ?? ""), `selfName ${JSON.stringify(row.selfName)}`);
    assert.ok(!BAD_CHARS.test(row.runtime ?? ""), `runtime ${JSON.stringify(row.runtime)}`);
    assert.match(row.selfName!, /evil/);
  });

  test("a 10 MB text is cut to the item limit and marked textShortened, on the API and the WebSocket", async () => {
    const from = live.messages.length;
    hostile.push(page([itemEvent("f1", { kind: "reply", id: "big", text: "A".repeat(10 * 1024 * 1024) })]));
    const delta = await live.waitFor((m) => m.type === "item" && m.item.id === "big", "the big item's delta", from);
    assert.ok(delta.type === "item");
    const text = (delta.item as { text: string }).text;
    assert.ok(utf8(text) <= LIMITS.itemTextBytes, `${utf8(text)} bytes`);
    assert.ok(text.length > 0);
    assert.equal((delta.item as { textShortened?: boolean }).textShortened, true);
    const item = (await detail("hostile", "f1")).items.find((i) => i.id === "big") as { text: string; textShortened?: boolean };
    assert.ok(utf8(item.text) <= LIMITS.itemTextBytes);
    assert.equal(item.textShortened, true);
  });

  test("control, bidi and invisible characters are removed from items, asks and titles, and marked", async () => {
    const ask = {
      id: "0123456789abcdef0123456789abcdef", revision: "0123456789abcdef", kind: "permission", paneId: "f1",
      toolCallId: "call-1", itemId: "ctl", title: `${HOSTILE} ${"T".repeat(600)}`, reason: HOSTILE,
      tool: { name: `rm\u202Efdp.exe`, call: `rm(${HOSTILE})` },
      options: [{ id: "allow", kind: "allow", label: `Allow\u202E` }, { id: "deny", kind: "deny", label: "Deny" }],
      createdAt: "2026-12-02T14:00:00.000Z",
    };
    hostile.push(page([
      itemEvent("f1", { kind: "reply", id: "ctl", text: HOSTILE }),
      { seq: ++seq, type: "ask", pane: "f1", ask },
      { seq: ++seq, type: "state", pane: "f1", summary: fakeSummary("f1", { title: `Title${HOSTILE}`, subtitle: HOSTILE, state: "waiting", openAsks: 1 }) },
    ]));
    const askDelta = await live.waitFor((m) => m.type === "ask" && m.ask.id === ask.id, "the hostile ask");
    assert.ok(askDelta.type === "ask");
    const a = askDelta.ask;
    assert.equal(a.textShortened, true);
    assert.ok(utf8(a.title) <= LIMITS.askTitleBytes);
    for (const s of [a.title, a.reason ?? "", a.tool?.name ?? "", a.tool?.call ?? "", ...(isKnownAsk(a) && a.kind === "permission" ? a.options.map((o) => o.label) : [])]) {
      assert.ok(!BAD_CHARS.test(s), `still hostile: ${JSON.stringify(s)}`);
    }
    const view = await detail("hostile", "f1");
    const ctl = view.items.find((i) => i.id === "ctl") as { text: string; textShortened?: boolean };
    assert.ok(!BAD_CHARS.test(ctl.text), JSON.stringify(ctl.text));
    assert.match(ctl.text, /safe/);
    assert.equal(ctl.textShortened, true);
    assert.ok(!BAD_CHARS.test(view.conversation.title));
    assert.ok(!BAD_CHARS.test(view.conversation.subtitle ?? ""));
    assert.equal(view.conversation.pendingQuestion, a.title);
    assert.equal((await d.agent("hostile"))!.counts.waiting, 1);
  });

  test("an ask of a kind this Collie does not know (a newer agent's) reaches the phone with its common fields only (P-13)", async () => {
    const ask = {
      id: "fedcba9876543210fedcba9876543210", revision: "fedcba9876543210", kind: "signature", paneId: "f1",
      toolCallId: "call-sign", itemId: "sign", title: "Sign the delivery note", reason: "Draw your signature below.",
      tool: { name: "deliver" }, createdAt: "2026-12-02T14:00:00.000Z", expiresAt: "2026-12-02T16:00:00.000Z",
      canvas: { width: 300, height: 120 }, options: "not this wire's business",
    };
    hostile.push(page([{ seq: ++seq, type: "ask", pane: "f1", ask }]));
    const delta = await live.waitFor((m) => m.type === "ask" && m.ask.id === ask.id, "the newer kind's ask");
    assert.ok(delta.type === "ask");
    const { canvas: _canvas, options: _options, ...common } = ask;
    assert.deepEqual(delta.ask, common);
    assert.equal(isKnownAsk(delta.ask), false);
    const view = await detail("hostile", "f1");
    assert.deepEqual(view.asks?.find((a) => a.id === ask.id), common);
  });

  test("unknown event types and bad events are dropped, the rest of the page is kept", async () => {
    const logged = d.logs.length;
    hostile.push(page([
      { seq: ++seq, type: "telemetry", pane: "f1", data: { cpu: 99 } },
      { seq: ++seq, type: "item", pane: "f1", item: { kind: "hologram", id: "h1" } },
      { seq: ++seq, type: "item", pane: "f1" },
      42,
      null,
      itemEvent("f1", { kind: "notice", id: "kept", text: "kept" }),
    ]));
    await until(async () => (await detail("hostile", "f1")).items.some((i) => i.id === "kept"), "the good event of the page");
    const view = await detail("hostile", "f1");
    assert.ok(!view.items.some((i) => i.id === "h1"));
    const drops = d.logs.slice(logged).filter((l) => l.includes("dropped an event"));
    assert.equal(drops.length, 5, drops.join("\n"));
    assert.equal((await d.agent("hostile"))!.state, "ready");
  });

  test("__proto__ keys and deeply nested junk pollute nothing and crash nothing", async () => {
    const junk = nested(100_000);
    const s1 = ++seq, s2 = ++seq, s3 = ++seq, s4 = ++seq;
    const raw = `{"cursor":"${cursor()}","reset":false,"views":[],"__proto__":{"polluted":"page"},"events":[` +
      `{"seq":${s1},"type":"item","pane":"f1","__proto__":{"polluted":"event"},"item":{"kind":"reply","id":"proto","text":"p","__proto__":{"polluted":"item"},"constructor":{"prototype":{"polluted":"ctor"}}}},` +
      `{"seq":${s2},"type":"item","pane":"f1","item":{"kind":"reply","id":"deep","text":"deep ok","junk":${junk}}},` +
      `${junk},` +
      `{"seq":${s3},"type":"item","pane":"__proto__","item":{"kind":"reply","id":"__proto__","text":"in a pane named __proto__"}},` +
      `{"seq":${s4},"type":"state","pane":"f1","summary":{"__proto__":{"state":"working"}}}` +
      `]}`;
    hostile.push(raw);
    await until(async () => (await detail("hostile", "f1")).items.some((i) => i.id === "deep"), "the deep item");
    const view = await detail("hostile", "f1");
    const proto = view.items.find((i) => i.id === "proto")!;
    assert.ok(proto, "the item with __proto__ keys is kept");
    assert.equal(Object.hasOwn(proto, "__proto__"), false);
    assert.equal(Object.hasOwn(proto, "constructor"), false);
    const deep = view.items.find((i) => i.id === "deep")!;
    assert.equal(Object.hasOwn(deep, "junk"), false);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
    const weird = await detail("hostile", "__proto__");
    assert.equal(weird.conversation.id, "__proto__");
    assert.ok(weird.items.some((i) => i.id === "__proto__"));
    assert.equal((await d.get("/api/health")).body.ok, true);
  });

  test("an event with a seq Collie already has is ignored (W-3: nothing applied twice)", async () => {
    const itemSeq = ++seq;
    hostile.push(page([{ seq: itemSeq, type: "item", pane: "f1", item: { kind: "reply", id: "once", text: "first" } }]));
    await until(async () => (await detail("hostile", "f1")).items.some((i) => i.id === "once"), "the first write");
    // A buggy or hostile agent sends the same seq again with other content.
    hostile.push({ cursor: cursor(), reset: false, views: [], events: [{ seq: itemSeq, type: "item", pane: "f1", item: { kind: "reply", id: "once", text: "replayed" } }] });
    await settle(hostile, "hostile", "f1");
    const once = (await detail("hostile", "f1")).items.find((i) => i.id === "once") as { text: string };
    assert.equal(once.text, "first");
  });

  test("a write reply that is not a WriteOk or an ErrorBody is refused; a good one passes with its known keys only", async () => {
    const bodies: string[] = [];
    const replies: { status: number; body: unknown }[] = [
      { status: 200, body: { ok: "yes", turnId: "T".repeat(10 * 1024 * 1024) } },
      { status: 200, body: [1, 2, 3] },
      { status: 409, body: { error: "Not A Code!", message: 5 } },
      { status: 200, body: '{"ok":true,"turnId":"turn-1","__proto__":{"polluted":true},"html":"<script>alert(1)</script>"}' },
      { status: 409, body: { error: "refused", message: "No.", reason: "closed for the night" } },
      { status: 200, body: "{not json" },
    ];
    hostile.write = (_path, body) => {
      bodies.push(body);
      // The last reply again for every later write: Collie tries the held message again on later pages.
      return replies[Math.min(bodies.length, replies.length) - 1]!;
    };
    const send = (text: string) => d.post("/api/agents/hostile/panes/f1/send", { requestId: requestId(), text });
    const huge = await send("one");
    assert.equal(huge.status, 502);
    assert.equal(huge.body.error, "agent-failed");
    assert.ok(JSON.stringify(huge.body).length < 4096, "the bad reply is not passed on");
    const array = await send("two");
    assert.equal(array.status, 502);
    assert.equal(array.body.error, "agent-failed");
    const badError = await send("three");
    assert.equal(badError.status, 502);
    assert.equal(badError.body.error, "agent-failed");
    const good = await send("four");
    assert.deepEqual(good, { status: 200, body: { ok: true, turnId: "turn-1" } });
    const refused = await send("five");
    assert.deepEqual(refused, { status: 409, body: { error: "refused", message: "No.", reason: "closed for the night" } });
    // No reply Collie can read: the message may not have arrived, so Collie holds it for the agent
    // (docs/decisions.md, held sends) instead of losing it; its request id keeps a repeat harmless.
    const notJson = await send("six");
    assert.deepEqual(notJson, { status: 202, body: { held: true } });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    // The request id went out as the phone sent it.
    assert.match(bodies[0]!, /"requestId":"req-/);
    assert.equal((await d.get("/api/health")).status, 200);
  });

  test("a malformed page makes the agent unreachable with a problem line holding no token; it comes back; others keep working", async () => {
    tcp.push("{this is not JSON");
    const down = await d.waitState("tcp", "unreachable");
    assert.match(down.problem!, /not JSON/);
    assert.ok(!down.problem!.includes(TOKEN));
    // Collie sent the token (it reached the fake) and never logged it.
    assert.ok(tcp.requests.some((r) => r.headers.authorization === `Bearer ${TOKEN}`));
    // The other agents are untouched, and the daemon answers.
    assert.equal((await d.agent("hostile"))!.state, "ready");
    const id = requestId();
    const sent = await d.post("/api/agents/desk/panes/p2/send", { requestId: id, text: "still here" });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal((await desk.waitFor((m) => m.got === "send" && m.requestId === id)).text, "still here");
    // Next read is fine again: the same instance resumes from its cursor.
    await d.waitState("tcp", "ready");

    // A page that parses as JSON but has the wrong frame is refused the same way.
    tcp.push({ cursor: 12, reset: "no", views: "none", events: {} });
    const bad = await d.waitState("tcp", "unreachable");
    assert.match(bad.problem!, /malformed events page/);
    assert.match(bad.problem!, /cursor/);
    assert.ok(!bad.problem!.includes(TOKEN));
    await d.waitState("tcp", "ready");

    // A page with a 10 MB text in a view of a pane that fell behind is cut, not refused.
    tcp.push({
      cursor: `${FAKE_INSTANCE}.900`, reset: false, views: [{ pane: fakeSummary("t1"), items: [{ kind: "markdown", id: "m", text: `# ${"B".repeat(10 * 1024 * 1024)}` }], itemsCut: false, asks: [] }], events: [],
    });
    await until(async () => (await d.get<PaneDetail>("/api/agents/tcp/panes/t1")).body.items?.some((i) => i.id === "m"), "the view's item");
    const m = (await d.get<PaneDetail>("/api/agents/tcp/panes/t1")).body.items.find((i) => i.id === "m") as { text: string; textShortened?: boolean };
    assert.ok(utf8(m.text) <= LIMITS.itemTextBytes);
    assert.equal(m.textShortened, true);

    assert.ok(!d.logs.join("\n").includes(TOKEN), "the token is in the log");
    assert.ok(!JSON.stringify(live.messages).includes(TOKEN), "the token reached the phone");
    assert.equal((await d.get("/api/health")).status, 200);
  });
});
