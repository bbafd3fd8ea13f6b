/**
 * Delivery against a local push service (U-2…U-4): every push is decrypted by an independent
 * RFC 8291 decryptor and its VAPID JWT verified (RFC 8292); title, body and data are what the
 * service worker needs; urgency, TTL and Topic are set; 404/410 drop the subscription; other
 * failures are retried with a bound and logged without the endpoint's secrets; an ask pushes once
 * (also after a restart); a closed ask's notification is withdrawn with a clear push.
 */
import assert from "node:assert/strict";
import { after, afterEach, beforeEach, describe, test } from "node:test";
import type { PushPayload } from "@colliepwa/shared";
import { PushService, type PushOptions } from "../../src/push/push.ts";
import { askTopic, DEFAULT_ASK_TTL_S, MANY_ASKS_TTL_S } from "../../src/push/payload.ts";
import { openStateDb, type StateDb } from "../../src/store/db.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";
import { pairedDevice } from "../helpers/paired-device.ts";
import { FakePushService, type PushRequest } from "./helpers/push-service.ts";
import { decryptPush, makeSubscriber, verifyVapid, type TestSubscriber } from "./helpers/webpush-check.ts";

let service: FakePushService;
let state: StateDb;
let push: PushService;
let logs: string[];
let clock: number;

const T0 = Date.parse("2026-12-02T14:00:00.000Z");

function open(over: Partial<PushOptions> = {}, db = state): PushService {
  return PushService.open({
    db: db.db,
    log: (l) => logs.push(l),
    host: "studio",
    now: () => clock,
    allowHttpEndpoints: true,
    retryDelaysMs: [5, 5],
    ...over,
  });
}

beforeEach(async () => {
  service = await new FakePushService().listen();
  state = openStateDb(":memory:");
  logs = [];
  clock = T0;
  push = open();
});

afterEach(async () => {
  await push.idle();
  push.close();
  state.close();
  await service.close();
});

after(() => removeTempDirs());

function subscribe(id: string, p = push): TestSubscriber {
  const sub = makeSubscriber(service.endpoint(id));
  p.register(sub.json, { device: pairedDevice(state).id });
  return sub;
}

const ask = (id: string, over: Record<string, unknown> = {}) => ({ id, title: "refund wants to run", push: { line: "refund needs a yes" }, ...over });
const ctx = (id: string, over: Record<string, unknown> = {}) => ({ agent: "desk", machine: null, paneId: "ticket-5521", paneTitle: "Maria Lopez", ask: ask(id, over) });

/** Decrypts and checks one recorded request end to end; returns its payload. */
function open1(req: PushRequest, sub: TestSubscriber, p = push): PushPayload {
  assert.equal(req.headers["content-encoding"], "aes128gcm");
  assert.equal(req.headers["content-type"], "application/octet-stream");
  verifyVapid(req.headers.authorization, sub.endpoint, p.publicKey);
  return JSON.parse(decryptPush(req.body, sub)) as PushPayload;
}

describe("an ask's push, decrypted independently", () => {
  test("title, body and data, urgency high, a TTL and a Topic, to every subscription", async () => {
    const a = subscribe("a");
    const b = subscribe("b");
    assert.equal(push.ask(ctx("ask-1")), "pushed");
    await push.idle();
    assert.equal(service.requests.length, 2);
    for (const [id, sub] of [["a", a], ["b", b]] as const) {
      const [req] = service.for(id);
      assert.ok(req);
      const payload = open1(req, sub);
      assert.deepEqual(payload, {
        v: 1, type: "ask", tag: "collie:desk", agent: "desk", machine: null,
        title: "Permission needed in Maria Lopez", body: "refund needs a yes",
        paneId: "ticket-5521", askId: "ask-1", url: "/#/agent/desk/pane/ticket-5521/ask/ask-1",
      });
      assert.equal(req.headers.urgency, "high");
      assert.equal(req.headers.ttl, String(DEFAULT_ASK_TTL_S));
      const topic = String(req.headers.topic);
      assert.equal(topic, askTopic(null, "desk", "ask-1"));
      assert.ok(topic.length <= 32 && topic.length % 4 !== 1 && /^[A-Za-z0-9_-]+$/.test(topic));
    }
    // Different keys per subscription: a's body does not open with b's keys.
    assert.throws(() => decryptPush(service.for("a")[0]!.body, b));
  });

  test("an ask with an expiry is kept by the push service only until it expires", async () => {
    const a = subscribe("a");
    push.ask(ctx("ask-1", { expiresAt: new Date(T0 + 90_000).toISOString() }));
    await push.idle();
    assert.equal(service.for("a")[0]!.headers.ttl, "90");
    open1(service.for("a")[0]!, a);
    assert.equal(push.ask(ctx("ask-2", { expiresAt: new Date(T0 - 1).toISOString() })), "expired");
  });

  test("the agent's own title, and masking of title and body", async () => {
    const a = subscribe("a");
    const key = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    push.ask({ ...ctx("ask-1", { push: { title: "Support desk", line: `uses ${key}` } }), paneTitle: "x" });
    push.ask({ ...ctx("ask-2", { push: undefined, title: `deploy with ${key}` }), paneTitle: `Deploy ${key}`, paneId: "other" });
    await push.idle();
    const [p1, p2] = service.for("a").map((r) => open1(r, a));
    assert.ok(p1?.type === "ask" && p2?.type === "ask");
    assert.equal(p1.title, "Permission needed in x · Support desk");
    assert.equal(p1.body, `uses ghp_A${"•".repeat(key.length - 5)}`);
    assert.equal(p2.title, `Permission needed in Deploy ghp_A${"•".repeat(key.length - 5)}`);
    assert.equal(p2.body, `deploy with ghp_A${"•".repeat(key.length - 5)}`);
    for (const r of service.requests) assert.ok(!decryptPush(r.body, a).includes("C3d4"));
  });

  test("COLLIE_REDACT off: the push carries the text as it is", async () => {
    push.close();
    push = open({ redact: false });
    const a = subscribe("a");
    push.ask(ctx("ask-1", { push: { line: "token=Zx81Lm9qWw" } }));
    await push.idle();
    const p = open1(service.for("a")[0]!, a);
    assert.ok(p.type === "ask" && p.body === "token=Zx81Lm9qWw");
  });

  test("a permission ask's push carries the buttons that answer it: ids, revision, Allow and Deny (issue 30)", async () => {
    const a = subscribe("a");
    const key = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    push.ask(ctx("ask-1", {
      kind: "permission", revision: "0123456789abcdef", tool: { name: `deploy ${key}` },
      options: [{ id: "yes", kind: "allow", label: "Go" }, { id: "always", kind: "allow-always", label: "Always" }, { id: "no", kind: "deny", label: "Stop" }],
    }));
    push.ask(ctx("ask-2", { kind: "text", revision: "0123456789abcdef", paneId: "other" }));
    await push.idle();
    const [p1, p2] = service.for("a").map((r) => open1(r, a));
    assert.ok(p1?.type === "ask" && p2?.type === "ask");
    assert.deepEqual(p1.answers, {
      kind: "permission", revision: "0123456789abcdef", what: `deploy ghp_A${"•".repeat(key.length - 5)}`,
      options: [{ id: "yes", title: "Allow", optionKind: "allow" }, { id: "no", title: "Deny", optionKind: "deny" }],
    });
    assert.equal(p2.answers, undefined);
  });

  test("with no subscription nothing is sent and no limit is used", async () => {
    assert.equal(push.ask(ctx("ask-1")), "no-subscriptions");
    assert.equal(push.limits.counts({ machine: "studio", agent: "desk", pane: "ticket-5521" }).agentHour, 0);
    await push.idle();
    assert.equal(service.requests.length, 0);
  });
});

describe("once per tool call (U-3)", () => {
  test("the same ask again pushes nothing; another ask does", async () => {
    subscribe("a");
    assert.equal(push.ask(ctx("ask-1")), "pushed");
    assert.equal(push.ask(ctx("ask-1")), "duplicate");
    assert.equal(push.ask({ ...ctx("ask-1"), paneId: "elsewhere" }), "duplicate");
    assert.equal(push.ask({ ...ctx("ask-1"), agent: "billing" }), "pushed", "another agent's ask with the same id");
    assert.equal(push.ask({ ...ctx("ask-1"), machine: "workshop" }), "pushed", "the same agent name on another machine");
    await push.idle();
    assert.equal(service.requests.length, 3);
  });

  test("an ask raised again after a daemon restart shows and does not push", async () => {
    const dir = tempDir();
    let disk = openStateDb(dir);
    let p = open({}, disk);
    const sub = makeSubscriber(service.endpoint("a"));
    p.register(sub.json, { device: pairedDevice(disk).id });
    assert.equal(p.ask(ctx("ask-1")), "pushed");
    await p.idle();
    const key = p.publicKey;
    p.close();
    disk.close();

    disk = openStateDb(dir);
    p = open({}, disk);
    assert.equal(p.publicKey, key, "the same VAPID key after the restart");
    assert.equal(p.subscriptions.size, 1, "the subscription is kept");
    assert.equal(p.ask(ctx("ask-1")), "duplicate");
    assert.equal(p.ask(ctx("ask-2")), "pushed");
    await p.idle();
    assert.deepEqual(service.requests.map((r) => (JSON.parse(decryptPush(r.body, sub)) as { askId: string }).askId), ["ask-1", "ask-2"]);
    for (const r of service.requests) verifyVapid(r.headers.authorization, sub.endpoint, key);
    p.close();
    disk.close();
  });
});

describe("withdrawing a notification", () => {
  test("a closed ask that pushed sends a silent clear with its tag and topic", async () => {
    const a = subscribe("a");
    push.ask(ctx("ask-1"));
    await push.idle();
    assert.equal(push.askClosed({ agent: "desk", machine: null, paneId: "ticket-5521", askId: "ask-1" }), true);
    await push.idle();
    const clear = service.for("a")[1]!;
    assert.deepEqual(open1(clear, a), { v: 1, type: "clear", tag: "collie:desk", agent: "desk", machine: null, paneId: "ticket-5521", askId: "ask-1" });
    assert.equal(clear.headers.topic, service.for("a")[0]!.headers.topic, "replaces an undelivered push of the ask");
    assert.equal(clear.headers.urgency, "normal");
    // Only once, and never for an ask that did not push.
    assert.equal(push.askClosed({ agent: "desk", machine: null, paneId: "ticket-5521", askId: "ask-1" }), false);
    assert.equal(push.askClosed({ agent: "desk", machine: null, paneId: "ticket-5521", askId: "never" }), false);
    await push.idle();
    assert.equal(service.requests.length, 2);
  });

  test("an ask skipped by a limit sends no clear either", async () => {
    subscribe("a");
    for (let i = 1; i <= 4; i++) push.ask(ctx(`ask-${i}`));
    await push.idle();
    assert.equal(service.requests.length, 3);
    assert.equal(push.askClosed({ agent: "desk", machine: null, paneId: "ticket-5521", askId: "ask-4" }), false);
  });
});

describe("limits at the service (U-1)", () => {
  test("the 4th ask of a pane in a minute shows without a push; the 31st of the hour is the many-asks push", async () => {
    const a = subscribe("a");
    const results: string[] = [];
    for (let i = 1; i <= 4; i++) results.push(push.ask(ctx(`p-${i}`)));
    assert.deepEqual(results, ["pushed", "pushed", "pushed", "skipped:pane-minute"]);
    // 27 more over a few minutes from other panes, then the 31st.
    for (let i = 0; i < 27; i++) {
      clock = T0 + 61_000 + i * 7000; // past the first minute, at most 9 a minute
      assert.equal(push.ask({ ...ctx(`h-${i}`), paneId: `pane-${i}` }), "pushed");
    }
    clock += 7000;
    assert.equal(push.ask({ ...ctx("h-31"), paneId: "pane-31" }), "many-asks");
    assert.equal(push.ask({ ...ctx("h-32"), paneId: "pane-32" }), "skipped:quiet");
    await push.idle();
    const last = service.for("a").at(-1)!;
    const payload = open1(last, a);
    assert.deepEqual(payload, {
      v: 1, type: "many-asks", tag: "collie:desk", agent: "desk", machine: null,
      title: "A durable agent on studio is raising many asks", body: payload.type === "many-asks" ? payload.body : "", url: "/#/agent/desk",
    });
    assert.equal(last.headers.urgency, "high");
    assert.equal(last.headers.ttl, String(MANY_ASKS_TTL_S));
    assert.equal(service.requests.length, 31, "30 asks and one many-asks push");
    assert.match(logs.join("\n"), /desk on studio raised more than 30 asks in an hour/);
  });
});

describe("failures (U-4)", () => {
  test("404 and 410 drop the subscription; the others keep theirs", async () => {
    subscribe("ok");
    subscribe("gone404");
    subscribe("gone410");
    service.respond("gone404", 404);
    service.respond("gone410", 410);
    push.ask(ctx("ask-1"));
    await push.idle();
    assert.deepEqual(push.subscriptions.all().map((s) => s.endpoint), [service.endpoint("ok")]);
    assert.equal(service.for("gone404").length, 1, "no retry for a gone subscription");
    // The next ask goes to the one left.
    push.ask(ctx("ask-2"));
    await push.idle();
    assert.equal(service.for("gone404").length + service.for("gone410").length, 2);
    assert.equal(service.for("ok").length, 2);
  });

  test("500 is retried with a bound, then logged without the endpoint's secret path; the subscription stays", async () => {
    subscribe("flaky-secret-path");
    service.respond("flaky-secret-path", 500);
    push.ask(ctx("ask-1"));
    await push.idle();
    assert.equal(service.for("flaky-secret-path").length, 3, "1 try and 2 retries");
    assert.equal(push.subscriptions.size, 1);
    assert.equal(push.subscriptions.health(service.endpoint("flaky-secret-path"))?.failures, 1);
    const text = logs.join("\n");
    assert.match(text, /failed after 3 attempt\(s\): 500/);
    assert.ok(text.includes(service.origin), "the log names the push service");
    assert.ok(!text.includes("flaky-secret-path"), "but not the endpoint's path");
    assert.ok(!text.includes("p256dh") && !/[A-Za-z0-9_-]{80,}/.test(text), "nor keys");
  });

  test("a 503 then 201 is sent on the retry; 429 is retried too; 400 is not", async () => {
    subscribe("retry");
    subscribe("busy");
    subscribe("bad");
    service.respond("retry", 503, 201);
    service.respond("busy", 429, 201);
    service.respond("bad", 400);
    push.ask(ctx("ask-1"));
    await push.idle();
    assert.equal(service.for("retry").length, 2);
    assert.equal(service.for("busy").length, 2);
    assert.equal(service.for("bad").length, 1);
    assert.equal(push.subscriptions.health(service.endpoint("retry"))?.failures, 0);
    assert.equal(push.subscriptions.health(service.endpoint("bad"))?.failures, 1);
    assert.equal(push.subscriptions.size, 3);
  });

  test("a push service that does not answer is a bounded failure", async () => {
    push.close();
    push = open({ fetch: async () => { throw new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:9") }); } });
    subscribe("down");
    assert.equal(push.ask(ctx("ask-1")), "pushed");
    await push.idle();
    assert.equal(push.subscriptions.health(service.endpoint("down"))?.failures, 1);
    assert.match(logs.join("\n"), /failed after 3 attempt\(s\): network: connect ECONNREFUSED/);
  });
});
