/**
 * The daemon end to end (U-1…U-4, R-1, P-27): a real `Daemon` with a scripted durable agent and a
 * local push service. The phone's opt-in routes work through the front door (a paired device);
 * an ask the agent raises is pushed (decrypted independently, VAPID verified), raised again it is
 * not, its end withdraws the notification, a restart keeps keys, subscriptions and dedupe; the
 * conversation list's titles and subtitles reach the phone masked.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { PushAskPayload, PushKeyReply, Snapshot } from "@colliepwa/shared";
import { Daemon } from "../../src/daemon.ts";
import { FakeAgent, FAKE_INSTANCE, fakeSummary } from "../helpers/fake-agent.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";
import { FakePushService } from "./helpers/push-service.ts";
import { decryptPush, makeSubscriber, verifyVapid, type TestSubscriber } from "./helpers/webpush-check.ts";

const GHP = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
const GHP_MASKED = `ghp_A${"•".repeat(GHP.length - 5)}`;

let dir: string;
let agent: FakeAgent;
let service: FakePushService;
let daemon: Daemon;
let url: string;
let token: string;
let logs: string[];
let seq = 1;

function resetPage() {
  const panes = [
    fakeSummary("f1", { title: `Deploy ${GHP}`, subtitle: "password=Zx81Lm9qWw" }),
    fakeSummary("f2", { title: "Billing" }),
  ];
  return {
    cursor: `${FAKE_INSTANCE}.1`,
    reset: true,
    layout: { ready: true, workspaces: [{ id: "w", title: "Work" }], tabs: [{ id: "w:t", workspaceId: "w", title: "Tab" }], panes },
    views: panes.map((pane) => ({ pane, items: [], itemsCut: false, asks: [] })),
    events: [],
  };
}

/** An ask id has the wire's shape (32 hex characters, `askIdFor`). */
const idOf = (toolCallId: string) => createHash("sha256").update(toolCallId).digest("hex").slice(0, 32);

const wireAsk = (toolCallId: string, pane = "f1", over: Record<string, unknown> = {}) => ({
  id: idOf(toolCallId),
  revision: "9f86d081884c7d65",
  paneId: pane,
  toolCallId,
  itemId: `tool-${toolCallId}`,
  createdAt: "2026-12-02T14:00:00.000Z",
  kind: "permission",
  title: `${toolCallId} wants to run`,
  push: { line: `${toolCallId} needs a yes` },
  options: [{ id: "allow", kind: "allow", label: "Allow" }, { id: "deny", kind: "deny", label: "Deny" }],
  ...over,
});

/** Queues events on the fake agent's tail, as the SDK would publish them. */
function emit(...events: Record<string, unknown>[]): void {
  const numbered = events.map((e) => ({ seq: ++seq, ...e }));
  agent.push({ cursor: `${FAKE_INSTANCE}.${seq}`, reset: false, views: [], events: numbered });
}

async function start(): Promise<void> {
  logs = [];
  daemon = await Daemon.create({
    sources: { fixed: [{ name: "fake", endpoint: { kind: "socket", path: join(dir, "agent.sock") }, key: "fake" }] },
    stateDir: join(dir, "state"),
    log: (l) => logs.push(l),
    tuning: { waitMs: 500, retryDelaysMs: [50, 100] },
    redact: true,
    push: { allowHttpEndpoints: true, retryDelaysMs: [5], host: "studio" },
  });
  url = await daemon.app.listen({ host: "127.0.0.1", port: 0 });
  const paired = daemon.devices.pair(daemon.devices.createCode().code, "push test phone", "test");
  if (!paired.ok) throw new Error("pairing failed");
  token = paired.token;
  await until(async () => (await get<Snapshot>("/api/snapshot")).body.agents[0]?.state === "ready", "the fake agent is ready");
}

async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
}
const get = <T>(path: string) => call<T>("GET", path);

const asks = (sub: TestSubscriber) => service.for(new URL(sub.endpoint).pathname.split("/").pop()!).map((r) => JSON.parse(decryptPush(r.body, sub)) as PushAskPayload);

before(async () => {
  dir = tempDir();
  agent = new FakeAgent();
  agent.initial = resetPage;
  await agent.listen({ socket: join(dir, "agent.sock") });
  service = await new FakePushService().listen();
  await start();
});

after(async () => {
  await daemon.push?.idle();
  await daemon.close();
  await agent.close();
  await service.close();
  removeTempDirs();
});

let phone: TestSubscriber;
let key: string;

describe("the push opt-in routes (P-27, U-4)", () => {
  test("GET /api/push/key: the VAPID public key, behind the paired-device gate", async () => {
    const r = await get<PushKeyReply>("/api/push/key");
    assert.equal(r.status, 200);
    assert.equal(Buffer.from(r.body.publicKey, "base64url").length, 65);
    key = r.body.publicKey;
    const anonymous = await fetch(`${url}/api/push/key`);
    assert.equal(anonymous.status, 401);
  });

  test("POST /api/push/subscriptions: 201 new, 200 known, 400 malformed, and a re-registration names the one it replaces", async () => {
    const first = makeSubscriber(service.endpoint("old-phone"));
    assert.deepEqual(await call("POST", "/api/push/subscriptions", { subscription: first.json }), { status: 201, body: { ok: true, replaced: false } });
    assert.deepEqual(await call("POST", "/api/push/subscriptions", { subscription: first.json }), { status: 200, body: { ok: true, replaced: false } });
    phone = makeSubscriber(service.endpoint("phone"));
    assert.deepEqual(await call("POST", "/api/push/subscriptions", { subscription: phone.json, replaces: first.endpoint }), { status: 201, body: { ok: true, replaced: true } });
    assert.deepEqual(daemon.push!.subscriptions.all().map((s) => s.endpoint), [phone.endpoint]);

    const bad = await call<{ error: string }>("POST", "/api/push/subscriptions", { subscription: { ...phone.json, keys: { ...phone.json.keys, auth: "short" } } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, "bad-request");
    const badKey = await call<{ error: string; message: string }>("POST", "/api/push/subscriptions", { subscription: { ...phone.json, keys: { ...phone.json.keys, p256dh: Buffer.alloc(65, 7).toString("base64url") } } });
    assert.equal(badKey.status, 400);
    assert.match(badKey.body.message, /P-256/);
  });

  test("DELETE /api/push/subscriptions: the device opts out", async () => {
    const other = makeSubscriber(service.endpoint("tablet"));
    await call("POST", "/api/push/subscriptions", { subscription: other.json });
    assert.deepEqual(await call("DELETE", "/api/push/subscriptions", { endpoint: other.endpoint }), { status: 200, body: { removed: true } });
    assert.deepEqual(await call("DELETE", "/api/push/subscriptions", { endpoint: other.endpoint }), { status: 200, body: { removed: false } });
  });
});

describe("masking in the conversation list (R-1)", () => {
  test("the snapshot and the pane read send masked titles and subtitles", async () => {
    const snap = (await get<Snapshot>("/api/snapshot")).body;
    const f1 = snap.conversations.find((c) => c.id === "f1")!;
    assert.equal(f1.title, `Deploy ${GHP_MASKED}`);
    assert.equal(f1.subtitle, `password=${"•".repeat(10)}`);
    assert.equal(snap.conversations.find((c) => c.id === "f2")!.title, "Billing");
    const detail = (await get<{ conversation: { title: string } }>("/api/agents/fake/panes/f1")).body;
    assert.equal(detail.conversation.title, `Deploy ${GHP_MASKED}`);
    assert.ok(!JSON.stringify(snap).includes(GHP));
  });
});

describe("asks push through the daemon (U-1…U-3)", () => {
  test("an ask pushes `Permission needed in <pane>` with the agent's line and its buttons, decryptable and VAPID-signed", async () => {
    emit({ type: "ask", pane: "f1", ask: wireAsk("call-1", "f1", { title: `call-1 with ${GHP}` }) });
    await service.waitFor((rs) => rs.some((r) => r.id === "phone"), "the first push");
    const [req] = service.for("phone");
    verifyVapid(req!.headers.authorization, phone.endpoint, key);
    assert.equal(req!.headers.urgency, "high");
    const [payload] = asks(phone);
    assert.deepEqual(payload, {
      v: 1, type: "ask", tag: "collie:fake", agent: "fake", machine: null,
      title: `Permission needed in Deploy ${GHP_MASKED}`, body: "call-1 needs a yes",
      paneId: "f1", askId: idOf("call-1"), url: `/#/agent/fake/pane/f1/ask/${idOf("call-1")}`,
      // Allow and Deny answer it from the notification (issue 30); what it names is masked too.
      answers: {
        kind: "permission", revision: "9f86d081884c7d65", what: `call-1 with ${GHP_MASKED}`,
        options: [{ id: "allow", title: "Allow", optionKind: "allow" }, { id: "deny", title: "Deny", optionKind: "deny" }],
      },
    });
    // The phone's UI still gets the ask with its text as the agent wrote it (asks are not masked).
    const detail = (await get<{ asks: { title: string }[] }>("/api/agents/fake/panes/f1")).body;
    assert.equal(detail.asks[0]!.title, `call-1 with ${GHP}`);
  });

  test("the same ask raised again does not push; the ask's end withdraws the notification", async () => {
    emit({ type: "ask", pane: "f1", ask: wireAsk("call-1") });
    emit({ type: "ask", pane: "f2", ask: wireAsk("call-2", "f2", { push: undefined }) });
    await service.waitFor((rs) => rs.filter((r) => r.id === "phone").length >= 2, "the second ask's push");
    assert.deepEqual(asks(phone).map((p) => [p.askId, p.title, p.body]), [
      [idOf("call-1"), `Permission needed in Deploy ${GHP_MASKED}`, "call-1 needs a yes"],
      [idOf("call-2"), "Permission needed in Billing", "call-2 wants to run"],
    ]);
    emit({ type: "ask-closed", pane: "f1", askId: idOf("call-1"), decidedBy: "phone", title: "call-1 wants to run", decidedAt: "2026-12-02T14:01:00.000Z" });
    await service.waitFor((rs) => rs.filter((r) => r.id === "phone").length >= 3, "the clear push");
    const clear = JSON.parse(decryptPush(service.for("phone")[2]!.body, phone)) as Record<string, unknown>;
    assert.deepEqual(clear, { v: 1, type: "clear", tag: "collie:fake", agent: "fake", machine: null, paneId: "f1", askId: idOf("call-1") });
  });

  test("over the pane's limit the ask reaches the phone's UI without a push", async () => {
    // call-2 pushed from f2 a moment ago: 2 more push, the 4th does not.
    for (const id of ["call-3", "call-4", "call-5"]) emit({ type: "ask", pane: "f2", ask: wireAsk(id, "f2") });
    await until(async () => (await get<{ asks: unknown[] }>("/api/agents/fake/panes/f2")).body.asks.length === 4, "four asks open in f2");
    await daemon.push!.idle();
    assert.deepEqual(asks(phone).filter((p) => p.type === "ask").map((p) => p.askId), ["call-1", "call-2", "call-3", "call-4"].map(idOf));
  });

  test("after a daemon restart: the same key and subscription, and an ask raised again does not push", async () => {
    await daemon.push!.idle();
    await daemon.close();
    const before = service.requests.length;
    await start();
    assert.equal((await get<PushKeyReply>("/api/push/key")).body.publicKey, key);
    assert.deepEqual(daemon.push!.subscriptions.all().map((s) => s.endpoint), [phone.endpoint]);
    // The agent raises call-1's ask again (e.g. its tool call ran again after a restart) and a new one.
    emit({ type: "ask", pane: "f1", ask: wireAsk("call-1") });
    emit({ type: "ask", pane: "f1", ask: wireAsk("call-9") });
    await service.waitFor((rs) => rs.length > before, "a push after the restart");
    await daemon.push!.idle();
    assert.deepEqual(asks(phone).slice(before).map((p) => p.askId), [idOf("call-9")]);
    assert.ok(!logs.some((l) => l.includes(service.endpoint("phone"))), "no endpoint in the logs");
  });

  test("a conversation the agent closes with asks open withdraws their notifications; one still being laid out keeps them", async () => {
    // f2's asks as the agent holds them (this daemon started after they were raised): raised again, they do not push.
    for (const id of ["call-2", "call-3", "call-4", "call-5"]) emit({ type: "ask", pane: "f2", ask: wireAsk(id, "f2") });
    await until(async () => (await get<{ asks: unknown[] }>("/api/agents/fake/panes/f2")).body.asks.length === 4, "four asks open in f2");
    await daemon.push!.idle();
    const before = service.requests.length;
    const f1 = fakeSummary("f1", { title: `Deploy ${GHP}`, subtitle: "password=Zx81Lm9qWw" });
    const layout = (ready: boolean, panes: unknown[]) => ({ ready, workspaces: [{ id: "w", title: "Work" }], tabs: [{ id: "w:t", workspaceId: "w", title: "Tab" }], panes });
    // The agent's complete layout drops f2, which has call-2…call-5 open (call-5 never pushed: over the limit).
    agent.push({ cursor: `${FAKE_INSTANCE}.${++seq}`, reset: false, layout: layout(true, [f1]), views: [], events: [] });
    await service.waitFor((rs) => rs.length >= before + 3, "three clear pushes");
    await daemon.push!.idle();
    assert.deepEqual(
      asks(phone).slice(before).map((p) => [p.type, p.paneId, p.askId]).sort(),
      ["call-2", "call-3", "call-4"].map((id) => ["clear", "f2", idOf(id)]).sort(),
    );
    // A restarted agent that is still laying out (not ready) shows no f1 yet: call-9 stays, it may come back.
    agent.push({ cursor: `${FAKE_INSTANCE}.${++seq}`, reset: true, layout: layout(false, []), views: [], events: [] });
    await until(async () => (await get<Snapshot>("/api/snapshot")).body.conversations.every((c) => c.id !== "f1"), "f1 left the snapshot");
    await daemon.push!.idle();
    assert.equal(service.requests.length, before + 3, "no clear for an ask of a layout still being laid out");
  });
});

describe("a subscription belongs to its device (X-1, U-4)", () => {
  test("after the device is revoked its subscription is gone, and pushes go only to the phone still paired", async () => {
    const other = daemon.devices.pair(daemon.devices.createCode().code, "tablet", "test");
    assert.ok(other.ok);
    const tablet = makeSubscriber(service.endpoint("revoked-tablet"));
    const res = await fetch(`${url}/api/push/subscriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${other.token}`, "content-type": "application/json" },
      body: JSON.stringify({ subscription: tablet.json }),
    });
    assert.equal(res.status, 201);
    assert.equal(daemon.devices.revoke(other.device.id), true);
    // The fan-out of every push reads exactly this list (push.ts #fanOut).
    assert.deepEqual(daemon.push!.subscriptions.all().map((s) => s.endpoint), [phone.endpoint]);
    assert.equal(daemon.push!.unregister(tablet.endpoint), false, "the row itself is gone, not only hidden");
  });
});
