/**
 * Errors outside the catalog (issue 38, item 11): a deeply nested phone body overflowed the stack
 * where Collie serialized the body and answered Fastify's bare `{"error":"Internal Server Error"}`;
 * a failure on Collie's own side (its state database locked or full while holding a send) did the
 * same, with no log line. Every error now has a catalog code, and a failure of Collie's own a log
 * line. And Collie reached over https through its front door sends HSTS.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import type { DatabaseSync as Db } from "node:sqlite";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import { MAX_BODY_DEPTH, nestedDeeperThan } from "../../src/app.ts";
import { HSTS } from "../../src/security/gate.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { FakeAgent } from "../helpers/fake-agent.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

const { DatabaseSync } = process.getBuiltinModule("node:sqlite") as typeof import("node:sqlite");

let d: TestDaemon;
let fake: FakeAgent;
let stateDir: string;

before(async () => {
  const dir = tempDir();
  stateDir = join(dir, "state");
  fake = new FakeAgent({ panes: ["f1"] });
  fake.write = () => ({ status: 200, body: { ok: true } });
  await fake.listen({ socket: join(dir, "fake.sock") });
  d = await TestDaemon.start({
    sources: { fixed: [{ name: "f", endpoint: { kind: "socket", path: join(dir, "fake.sock") }, key: "f" }, { name: "down", endpoint: { kind: "socket", path: join(dir, "nobody.sock") }, key: "down" }] },
    stateDir,
  });
  await d.waitState("f", "ready");
  await d.waitState("down", "unreachable");
});

after(async () => {
  await closeAllDaemons();
  await fake.close();
  removeTempDirs();
});

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${d.url}${path}`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${d.token}`, ...headers }, body });

describe("a deeply nested body", () => {
  const deep = (depth: number, kind: "array" | "object") => (kind === "array" ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth));
  const routes: [string, Record<string, unknown>][] = [
    ["/api/agents/f/panes/f1/asks/0123456789abcdef0123456789abcdef/answer", { revision: "0123456789abcdef", answer: { kind: "permission", optionId: "allow" } }],
    ["/api/agents/f/panes/f1/send", { text: "hi" }],
    ["/api/agents/f/panes/f1/steer", { text: "hi", turnId: "t" }],
    ["/api/agents/f/panes/f1/stop", { turnId: "t" }],
    ["/api/agents/f/panes/f1/actions/go", { turnId: "t" }],
    ["/api/agents/f/rename", { target: { pane: "f1" }, title: "x" }],
    ["/api/agents/f/close", { target: { pane: "f1" } }],
    ["/api/agents/f/reopen", { target: { pane: "f1" } }],
    ["/api/agents/f/starters/s1", {}],
    ["/api/agents/down/panes/f1/send", { text: "hi" }],
    ["/api/pair", { code: "x", name: "y" }],
    ["/api/crew/join", { invite: "x", name: "y" }],
    ["/api/push/subscriptions", { subscription: { endpoint: "https://push.example.net/x", keys: { p256dh: "x", auth: "y" } } }],
  ];

  test("is a 400 bad-request on every route, under any key, never a 500; the agent gets nothing", async () => {
    const writes = () => fake.requests.filter((r) => r.method === "POST").length;
    const before = writes();
    for (const [path, base] of routes) {
      for (const key of ["requestId", ...Object.keys(base), "extra"]) {
        for (const kind of ["array", "object"] as const) {
          const body = JSON.stringify({ requestId: requestId("deep"), ...base, [key]: "__DEEP__" }).replace('"__DEEP__"', deep(10_000, kind));
          const res = await post(path, body);
          const reply = (await res.json()) as { error: string; message: string };
          assert.equal(res.status, 400, `${path} ${key} ${kind}: ${JSON.stringify(reply)}`);
          assert.deepEqual(reply, { error: "bad-request", message: `The body is nested more than ${MAX_BODY_DEPTH} levels deep.` });
        }
      }
    }
    assert.equal(writes(), before);
    // Just within the bound is read as before (and refused or taken on its merits).
    const within = JSON.stringify({ requestId: requestId("ok"), text: "hi", extra: "__DEEP__" }).replace('"__DEEP__"', deep(MAX_BODY_DEPTH - 1, "array"));
    assert.equal((await post("/api/agents/f/panes/f1/send", within)).status, 200);
  });

  test("on the WebSocket, a deeply nested message is dropped and the socket stays", { timeout: 60_000 }, async () => {
    const ws = new WebSocket(`${d.wsUrl}/api/live`, { headers: { authorization: `Bearer ${d.token}` } });
    await new Promise((r) => ws.once("message", r));
    ws.send(JSON.stringify({ type: "watch", agent: "f", pane: "f1", extra: "__DEEP__" }).replace('"__DEEP__"', deep(10_000, "object")));
    ws.send(deep(10_000, "array"));
    ws.send(JSON.stringify({ type: "watch", agent: "f", pane: "f1" }));
    const view = await new Promise<{ type: string }>((r) => ws.on("message", (m) => r(JSON.parse(String(m)))));
    assert.equal(view.type, "view");
    ws.close();
  });

  test("the depth scan skips strings and escapes", () => {
    assert.equal(nestedDeeperThan(JSON.stringify({ a: "[[[[[[[[[[" }), 2), false);
    assert.equal(nestedDeeperThan(JSON.stringify({ a: "\\\"[[[[[[" }), 2), false);
    assert.equal(nestedDeeperThan("[[[]]]", 3), false);
    assert.equal(nestedDeeperThan("[[[[]]]]", 3), true);
    assert.equal(nestedDeeperThan('{"a":{"b":{"c":{}}}}', 3), true);
  });
});

describe("what Node's HTTP parser refuses", () => {
  /** Sends raw bytes; the whole answer, once Collie closed the connection. */
  const raw = (bytes: string) => new Promise<string>((resolve, reject) => {
    const s = connect(d.port, "127.0.0.1", () => s.write(bytes));
    let answer = "";
    s.setEncoding("utf8").on("data", (c: string) => (answer += c));
    s.on("close", () => resolve(answer));
    s.on("error", reject);
  });
  const body = (answer: string) => JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as { error: string; message: string };

  test("answers in the catalog's shape, not Fastify's Client Error", async () => {
    // Not HTTP at all; a DELETE whose body has no length (the body reads as the next request); a
    // header over 16 KiB.
    const cases: [string, number, string][] = [
      ["HELLO COLLIE\r\n\r\n", 400, "bad-request"],
      [`DELETE /api/push/subscriptions HTTP/1.1\r\nHost: 127.0.0.1:${d.port}\r\nAuthorization: Bearer ${d.token}\r\nContent-Type: application/json\r\n\r\n{"endpoint":"https://push.example.net/x"}`, 400, "bad-request"],
      [`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${d.port}\r\nX-Big: ${"x".repeat(20_000)}\r\n\r\n`, 431, "headers-too-large"],
    ];
    for (const [bytes, status, code] of cases) {
      const answer = await raw(bytes);
      const last = answer.slice(answer.lastIndexOf("HTTP/1.1 "));
      assert.match(last, new RegExp(`^HTTP/1\\.1 ${status} `), answer.slice(0, 200));
      assert.equal(body(last).error, code);
      assert.ok(!answer.includes("Client Error"));
    }
  });
});

describe("a failure on Collie's own side", () => {
  test("a held send the state database cannot take is 507 storage-failed with a log line; the same request id lands once it can", async () => {
    const other: Db = new DatabaseSync(join(stateDir, "collie.db"));
    const id = requestId("held");
    const body = JSON.stringify({ requestId: id, text: "while the database is busy" });
    other.exec("BEGIN IMMEDIATE"); // another writer holds the database, as a full disk would refuse it
    try {
      const res = await post("/api/agents/down/panes/f1/send", body);
      // Nothing was kept, and the phone is told so in the catalog's words (store/held.ts holdWrite).
      assert.equal(res.status, 507);
      assert.equal(((await res.json()) as { error: string }).error, "storage-failed");
      assert.ok(d.logs.some((l) => /^could not hold send .* could not be written: database is locked/.test(l)), d.logs.slice(-3).join("\n"));
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    // The phone sends the same request again (P-20): held now, once.
    const again = await post("/api/agents/down/panes/f1/send", body);
    assert.equal(again.status, 202);
    assert.deepEqual(await again.json(), { held: true });
  });
});

describe("HSTS", () => {
  test("sent when the configured front door says https, not over plain loopback or to another name", async () => {
    const front = await TestDaemon.start({ sources: { fixed: [] } });
    // The front door's name is configured the way `--allow-host` does.
    const allowed = await TestDaemon.start({ sources: { fixed: [] }, extraHosts: ["collie.example.ts.net"] });
    // node:http, not fetch: fetch does not let a client name its own Host.
    const get = (t: TestDaemon, headers: Record<string, string>, path = "/api/health") => new Promise<string | null>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: t.port, path, headers: { host: `127.0.0.1:${t.port}`, ...headers } }, (res) => {
        res.resume();
        resolve((res.headers["strict-transport-security"] as string | undefined) ?? null);
      });
      req.on("error", reject);
      req.end();
    });
    assert.equal(await get(allowed, { host: "collie.example.ts.net", "x-forwarded-proto": "https" }), HSTS);
    assert.equal(await get(allowed, { host: "collie.example.ts.net:443", "x-forwarded-proto": "https" }), HSTS);
    assert.equal(await get(allowed, { host: "collie.example.ts.net", "x-forwarded-proto": "http" }), null);
    assert.equal(await get(allowed, { "x-forwarded-proto": "https" }), null, "a loopback name is not the front door");
    assert.equal(await get(front, { "x-forwarded-proto": "https" }), null);
    // The app's pages too.
    assert.equal(await get(allowed, { host: "collie.example.ts.net", "x-forwarded-proto": "https" }, "/"), HSTS);
  });
});
