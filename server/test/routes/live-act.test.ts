/**
 * Actions on the live socket (D-5, docs/phone-api.md "Actions on the live socket"): an `act` on a
 * phone's real WebSocket is the POST it stands for, run through that very route — the same gate,
 * checks, words, request id and audit — and its `act-reply` is that POST's reply. A request id
 * lands once whichever way it went. Anything else on the socket (acts outside the contract, a
 * flood of them, a revoked device's) changes nothing and never stops the daemon.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import type { Ask } from "@colliepwa/shared";
import { ACT_LIMITS } from "@colliepwa/shared";
import { MemoryDesk } from "../helpers/memory-desk.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { fakeHello } from "../helpers/fake-agent.ts";
import { HostileAgent, type HostileReply } from "../helpers/hostile-agent.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { authHeaders } from "../helpers/tokens.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

let d: TestDaemon;
let agent: MemoryDesk;
let live: LiveClient;
let stateDir: string;
const hostile: HostileAgent[] = [];

const json = (v: unknown): HostileReply => ({ status: 200, body: JSON.stringify(v) });

before(async () => {
  const dir = tempDir();
  stateDir = join(dir, "state");
  agent = await MemoryDesk.open();
  // Ready, then never answers a write: its actions stay in flight.
  const mute = new HostileAgent((req) => {
    if (req.url.pathname === "/durable/hello") return json(fakeHello({ instance: "mute" }));
    if (req.url.pathname.endsWith("/events") && !req.url.searchParams.has("after")) {
      return json({
        cursor: "mute.1", reset: true, views: [], events: [],
        layout: { ready: true, workspaces: [{ id: "w", title: "W" }], tabs: [{ id: "w:t", workspaceId: "w", title: "T" }], panes: [{ id: "m1", tabId: "w:t", title: "m1", harness: "x", sessionId: null, state: "idle", actions: [], openAsks: 0, turnId: null, activeAt: "2026-12-02T14:00:00.000Z" }] },
      });
    }
    return { stall: true };
  });
  await mute.listen(join(dir, "mute.sock"));
  hostile.push(mute);
  d = await TestDaemon.start({
    stateDir,
    sources: { fixed: [{ name: "desk", endpoint: agent.endpoint, key: "desk" }, { name: "mute", endpoint: { kind: "socket", path: join(dir, "mute.sock") }, key: "mute" }] },
  });
  await d.waitState("desk", "ready");
  await d.waitState("mute", "ready");
  live = await LiveClient.connect(d.wsUrl);
});

after(async () => {
  await closeAllLive();
  await closeAllDaemons();
  for (const h of hostile) await h.close();
  removeTempDirs();
});

let commands = 0;
async function raise(toolCallId: string): Promise<Ask> {
  const id = `cmd-${++commands}`;
  agent.send({ id, cmd: "ask", toolCallId });
  await agent.waitFor((m) => m.done === id);
  const m = await live.waitFor((x) => x.type === "ask" && x.ask.toolCallId === toolCallId, `ask ${toolCallId}`);
  assert.ok(m.type === "ask");
  return m.ask;
}

const answerPath = (ask: Ask) => `/api/agents/desk/panes/${ask.paneId}/asks/${ask.id}/answer`;
const answeredFor = (toolCallId: string) => agent.all((m) => (m.answered as { toolCallId?: string } | undefined)?.toolCallId === toolCallId);

describe("an act is the POST it stands for", () => {
  test("an answer sent on the socket reaches the agent once; the same request id as a POST is a replay", async () => {
    const ask = await raise("c-act");
    const body = { requestId: requestId("act"), revision: ask.revision, answer: { kind: "permission", optionId: "allow" } };
    const acted = await live.act(answerPath(ask), body);
    assert.equal(acted.status, 200, JSON.stringify(acted.body));
    assert.equal(acted.body.ok, true);
    assert.equal(acted.body.replayed, undefined);
    await agent.waitFor((m) => (m.answered as { toolCallId?: string } | undefined)?.toolCallId === "c-act");
    // The phone's socket dropped before the reply, it sends the same request again as a POST:
    // the agent's first answer, replayed; ask() resolved once (D-5).
    const again = await d.post(answerPath(ask), body);
    assert.equal(again.status, 200);
    assert.equal(again.body.replayed, true);
    // And once more on the socket.
    const thrice = await live.act(answerPath(ask), body);
    assert.equal(thrice.body.replayed, true);
    assert.equal(answeredFor("c-act").length, 1);
    // The card closed for every phone, as after a POST.
    await live.waitFor((m) => m.type === "ask-closed" && m.askId === ask.id, "the ask closed");
  });

  test("what the route refuses, an act gets refused in the same status and words", async () => {
    const ask = await raise("c-words");
    const cases: [string, Record<string, unknown>][] = [
      [answerPath(ask), { requestId: requestId(), revision: "nothex", answer: { kind: "permission", optionId: "allow" } }],
      [answerPath(ask), { requestId: requestId(), revision: "0000000000000000", answer: { kind: "permission", optionId: "allow" } }],
      [answerPath(ask), { requestId: requestId(), revision: ask.revision, answer: { kind: "permission", optionId: "maybe" } }],
      [answerPath(ask), { revision: ask.revision, answer: { kind: "permission", optionId: "allow" } }],
      ["/api/agents/nobody/panes/p1/asks/0123456789abcdef0123456789abcdef/answer", { requestId: requestId(), revision: "0123456789abcdef", answer: { kind: "permission", optionId: "allow" } }],
      ["/api/agents/desk/panes/p1/send", { requestId: requestId(), text: "" }],
      ["/api/agents/desk/panes/p1/send", { requestId: "has space", text: "hi" }],
      ["/api/agents/desk/panes/p1/nowhere", { requestId: requestId() }],
      // What the router, the JSON parser and the validator's coercion make of a request.
      ["/api/agents/desk/panes/p1/send", JSON.parse(`{"__proto__": {"polluted": true}, "requestId": "${requestId()}", "text": "hi"}`) as Record<string, unknown>],
      [answerPath(ask), JSON.parse(`{"requestId": "${requestId()}", "revision": "${ask.revision}", "answer": {"kind": "permission", "optionId": "allow", "__proto__": {"polluted": true}}}`) as Record<string, unknown>],
      ["/api/agents/desk/panes/p1/send", { constructor: { prototype: { polluted: true } }, requestId: requestId(), text: "hi" }],
      ["/api/agents/desk/panes/p1/send", { requestId: 12345, text: ["not", "text"] }],
      [`/api/agents/desk/panes/${"p".repeat(600)}/send`, { requestId: requestId(), text: "hi" }],
      ["/api/agents/desk/panes/%E0%A4%A/send", { requestId: requestId(), text: "hi" }],
      ["/api/agents/desk/panes/p1/send/", { requestId: requestId(), text: "hi" }],
      ["/api/agents/desk/panes//send", { requestId: requestId(), text: "hi" }],
    ];
    // As deep as a POST's body may be: taken both ways (the agent refuses the unknown key alike).
    let nested: unknown = "bottom";
    for (let i = 0; i < 31; i++) nested = [nested];
    cases.push(["/api/agents/desk/panes/p1/send", { requestId: requestId(), text: "deep", extra: nested }]);
    for (const [path, body] of cases) {
      const acted = await live.act(path, body);
      // A body Collie takes is sent again under its own request id (the same one would be a replay).
      const taken = body.text === "deep";
      const posted = await d.post(path, taken ? { ...body, requestId: requestId() } : body);
      const same = (r: { status: number; body: Record<string, unknown> }) => ({ status: r.status, body: { ...r.body, ...(r.body.turnId ? { turnId: "t" } : {}) } });
      if (!taken) assert.ok(acted.status >= 400, `${path} ${JSON.stringify(body)}: ${acted.status}`);
      assert.deepEqual(same(acted), same(posted), `${path} ${JSON.stringify(body).slice(0, 200)}`);
    }
    // Nothing of it reached the agent: the ask is still open.
    assert.equal(answeredFor("c-words").length, 0);
  });

  test("an act leaves the audit line a POST leaves, with its device and request id", async () => {
    const id = requestId("audited");
    const acted = await live.act("/api/agents/desk/panes/p1/send", { requestId: id, text: "audit me" });
    assert.equal(acted.status, 200, JSON.stringify(acted.body));
    const line = await until(() => readFileSync(join(stateDir, "audit.log"), "utf8").split("\n").find((l) => l.includes(id)), "the audit line");
    const entry = JSON.parse(line) as Record<string, unknown>;
    assert.equal(entry.action, "send");
    assert.equal(entry.agent, "desk");
    assert.equal(entry.outcome, "ok");
    assert.equal(typeof entry.device, "string");
    assert.notEqual(entry.device, "unknown");
  });
});

describe("hostile acts (X-1, L-2)", () => {
  test("acts outside the contract get no reply and change nothing; the socket and the daemon go on", async () => {
    const phone = await LiveClient.connect(d.wsUrl);
    const frames = [
      { type: "act", id: 1, path: "/api/pair", body: { code: "AAAA-BBBB", name: "x" } },
      { type: "act", id: 2, path: "/api/push/subscriptions", body: {} },
      { type: "act", id: 3, path: "/api/agents/desk/panes/p1/send?x=1", body: { requestId: requestId(), text: "hi" } },
      { type: "act", id: 4, path: "/api/agents/desk/panes/p1/send", body: [1, 2] },
      { type: "act", id: 5, path: "/api/agents/desk/panes/p1/send", body: null },
      { type: "act", id: -1, path: "/api/agents/desk/panes/p1/send", body: { requestId: requestId(), text: "hi" } },
      { type: "act", id: 1.5, path: "/api/agents/desk/panes/p1/send", body: { requestId: requestId(), text: "hi" } },
      { type: "act", id: 6, path: `/api/agents/${"a".repeat(ACT_LIMITS.pathChars)}`, body: {} },
      { type: "act", path: "/api/agents/desk/panes/p1/send", body: { requestId: requestId(), text: "hi" } },
    ];
    for (const f of frames) phone.socket.send(JSON.stringify(f));
    phone.socket.send("{not json");
    // A body nested deeper than a POST's may be (32): no act of the contract, nothing built from it.
    const deep = (n: number): string => "[".repeat(n) + "]".repeat(n);
    phone.socket.send(`{"type":"act","id":8,"path":"/api/agents/desk/panes/p1/send","body":{"requestId":"${requestId()}","text":"hi","x":${deep(30_000)}}}`);
    // A GET address goes as a POST, which that address does not take: the route table's 404.
    const get = await phone.act("/api/agents/desk/panes/p1", {});
    assert.equal(get.status, 404);
    assert.deepEqual(phone.actReplies.map((r) => r.id), [0]);
    assert.equal(phone.closed, false);
    const ok = await phone.act("/api/agents/desk/panes/p1/send", { requestId: requestId("after"), text: "still here" });
    assert.equal(ok.status, 200);
    assert.equal((await d.get("/api/health")).body.ok, true);
  });

  test(`more than ${ACT_LIMITS.inFlight} acts waiting at once close that socket (1008); the daemon and other phones go on`, async () => {
    const phone = await LiveClient.connect(d.wsUrl);
    const closed = new Promise<number>((resolve) => phone.socket.once("close", (code) => resolve(code)));
    for (let i = 0; i <= ACT_LIMITS.inFlight; i++) {
      phone.send({ type: "act", id: i, path: "/api/agents/mute/panes/m1/stop", body: { requestId: requestId(`flood-${i}`), turnId: null } });
    }
    assert.equal(await closed, 1008);
    assert.equal((await d.get("/api/health")).body.ok, true);
    const ok = await live.act("/api/agents/desk/panes/p1/send", { requestId: requestId("other"), text: "another phone" });
    assert.equal(ok.status, 200);
  });

  test("a frame over the socket's limit closes that socket (1009) and nothing else", async () => {
    const phone = await LiveClient.connect(d.wsUrl);
    const closed = new Promise<number>((resolve) => phone.socket.once("close", (code) => resolve(code)));
    phone.send({ type: "act", id: 0, path: "/api/agents/desk/panes/p1/send", body: { requestId: requestId(), text: "x".repeat(70 * 1024) } });
    assert.equal(await closed, 1009);
    assert.equal((await d.get("/api/health")).body.ok, true);
  });

  test("a revoked device's socket is closed, and an act sent after the revocation does nothing", async () => {
    const paired = d.daemon.devices.pair(d.daemon.devices.createCode().code, "to revoke", "test");
    assert.ok(paired.ok);
    const socket = new WebSocket(`${d.wsUrl}/api/live`, { headers: { ...authHeaders(d.wsUrl), authorization: `Bearer ${paired.token}` } });
    const replies: unknown[] = [];
    socket.on("message", (data) => {
      const m = JSON.parse(String(data)) as { type: string };
      if (m.type === "act-reply") replies.push(m);
    });
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    const ask = await raise("c-revoked");
    d.daemon.devices.revoke(paired.device.id);
    // Sent at once after the revocation, before the close reached this end.
    socket.send(JSON.stringify({ type: "act", id: 0, path: answerPath(ask), body: { requestId: requestId(), revision: ask.revision, answer: { kind: "permission", optionId: "allow" } } }));
    assert.equal(await closed, 4401);
    assert.deepEqual(replies.filter((r) => (r as { status: number }).status === 200), []);
    assert.equal(answeredFor("c-revoked").length, 0);
  });
});
