/**
 * The front door (X-1, X-2, X-3): every API route needs a paired device; pairing codes are
 * one-time, short-lived and die after wrong guesses; a revoked phone is cut off at once; foreign
 * hosts and cross-origin writes are refused; the app carries a strict CSP; a socket owned by
 * another user is refused; tokens stay out of every log line and reply.
 */
import assert from "node:assert/strict";
import { chownSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import WebSocket from "ws";
import Fastify from "fastify";
import { DEVICE, requireAccess } from "../../src/security/access.ts";
import { oddForms, rawTarget } from "../helpers/odd-paths.ts";
import { Devices, MAX_WRONG_TRIES, CODE_TTL_MS } from "../../src/security/devices.ts";
import { isLoopbackAddress } from "../../src/net/loopback.ts";
import { adminRequest } from "../../src/security/admin.ts";
import { openStateDb } from "../../src/store/db.ts";
import { closeAllDaemons, TestDaemon } from "../helpers/daemon.ts";
import { authHeaders } from "../helpers/tokens.ts";
import { killAllAgents } from "../helpers/child-agent.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

after(async () => {
  await closeAllDaemons();
  await killAllAgents();
  removeTempDirs();
});

const none = { fixed: [] };

describe("every API route needs a paired device (X-1)", () => {
  test("an unpaired request gets 401 on every registered /api route but health, pairing and the crew invite exchange", async () => {
    const d = await TestDaemon.start({ sources: none });
    const routes = d.daemon.app.collieRoutes.filter((r) => r.url.startsWith("/api/") && r.method !== "HEAD");
    assert.ok(routes.length >= 15, `routes found: ${routes.length}`);
    const open = new Set(["/api/health", "/api/pair", "/api/crew/join"]);
    // What each route declares is what this test expects: only these three are public (an invite
    // is the crew join's credential, as a pairing code is the pairing's, C-1).
    assert.deepEqual(new Set(routes.filter((r) => r.access === "public").map((r) => r.url)), open);
    for (const r of routes) {
      const url = r.url.replace(/:(\w+)/g, "x");
      const res = await fetch(`${d.url}${url}`, {
        method: r.method,
        headers: r.method === "GET" ? {} : { "content-type": "application/json" },
        body: r.method === "GET" ? undefined : JSON.stringify({ requestId: "r1" }),
      });
      if (open.has(r.url)) {
        assert.notEqual(res.status, 401, `${r.method} ${r.url} is open`);
        continue;
      }
      assert.equal(res.status, 401, `${r.method} ${r.url}`);
      assert.equal(((await res.json()) as { error: string }).error, "unpaired");
    }
  });

  test("the WebSocket refuses an unpaired phone", async () => {
    const d = await TestDaemon.start({ sources: none });
    const ws = new WebSocket(`${d.wsUrl}/api/live`);
    const status = await upgradeStatus(ws);
    assert.equal(status, 401);
  });

  test("a paired device passes with its token, and a wrong token does not", async () => {
    const d = await TestDaemon.start({ sources: none });
    assert.equal((await fetch(`${d.url}/api/snapshot`, { headers: authHeaders(d.url) })).status, 200);
    assert.equal((await fetch(`${d.url}/api/snapshot`, { headers: { authorization: "Bearer nope" } })).status, 401);
    assert.equal((await fetch(`${d.url}/api/snapshot`, { headers: { cookie: `collie_device=${d.token}x` } })).status, 401);
    assert.equal((await fetch(`${d.url}/api/snapshot`, { headers: { cookie: `collie_device=${d.token}` } })).status, 200);
  });
});

describe("the gate decides on the matched route, never on the URL text (X-1)", () => {
  test("a route that declares no access does not start", () => {
    const app = Fastify();
    app.addHook("onRoute", requireAccess);
    assert.throws(() => app.get("/api/forgot", async () => ({})), /declares no access/);
    assert.throws(() => app.get("/api/odd", { config: { access: "admin" as never } }, async () => ({})), /declares no access/);
    assert.doesNotThrow(() => app.get("/api/said", DEVICE, async () => ({})));
    void app.close();
  });

  test("every protected route, in every encoded and odd spelling, is refused over HTTP, never a 2xx", async () => {
    const d = await TestDaemon.start({ sources: none });
    const routes = d.daemon.app.collieRoutes.filter((r) => r.access === "device" && r.method !== "HEAD");
    let tried = 0;
    const statuses = new Map<number, number>();
    for (const r of routes) {
      const path = r.url.replace(/:(\w+)/g, "x");
      const body = r.method === "GET" ? undefined : JSON.stringify({ requestId: "r1", text: "hi", answer: { kind: "permission", decision: "allow" } });
      for (const target of oddForms(path, d.url)) {
        const res = await rawTarget(d.port, r.method, target, body === undefined ? {} : { body });
        tried++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        assert.ok(res.status >= 400, `${r.method} ${target} answered ${res.status}`);
        assert.ok([400, 401, 403, 404].includes(res.status), `${r.method} ${target} answered ${res.status}`);
      }
    }
    assert.ok(tried > routes.length * 30, `tried ${tried}`);
    console.log(`# SECURITY gate-odd-paths routes=${routes.length} tried=${tried} statuses=${[...statuses].sort().map(([k, v]) => `${k}:${v}`).join(",")} passed=0`);
    assert.ok((statuses.get(401) ?? 0) > 0 && (statuses.get(404) ?? 0) > 0, `statuses: ${JSON.stringify([...statuses])}`);
  });

  test("the live WebSocket, in every encoded and odd spelling, never opens for an unpaired client", async () => {
    const d = await TestDaemon.start({ sources: none });
    for (const target of oddForms("/api/live", d.url)) {
      const res = await rawTarget(d.port, "GET", target, { upgrade: true });
      assert.ok([400, 401, 403, 404].includes(res.status), `upgrade ${target} answered ${res.status}`);
    }
    const plain = await rawTarget(d.port, "GET", "/api/live", { upgrade: true, headers: { authorization: `Bearer ${d.token}` } });
    assert.equal(plain.status, 101, "the plain path with a device opens: the probe can tell");
  });

  test("the encoded API path that used to pass the gate reads nothing and starts nothing", async () => {
    const d = await TestDaemon.start({ sources: none });
    assert.equal((await rawTarget(d.port, "GET", "/%61pi/snapshot")).status, 401);
    assert.equal((await rawTarget(d.port, "GET", `${d.url}/api/snapshot`)).status, 401);
    assert.equal((await rawTarget(d.port, "POST", "/%61pi/push/subscriptions", { body: "{}" })).status, 401);
    assert.equal((await rawTarget(d.port, "GET", "/%61pi/unknown")).status, 404);
    assert.equal((await rawTarget(d.port, "POST", "/nothing/here", { body: "{}" })).status, 404);
  });
});

describe("pairing codes (X-1)", () => {
  const devicesAt = (clock: { now: number }) => new Devices(openStateDb(":memory:"), () => clock.now);

  test("a code is traded once for a device token, and only its hash is kept", () => {
    const clock = { now: Date.parse("2026-12-02T14:00:00Z") };
    const state = openStateDb(":memory:");
    const devices = new Devices(state, () => clock.now);
    const { code } = devices.createCode();
    const first = devices.pair(code, "Pixel", "1.2.3.4");
    assert.ok(first.ok);
    assert.equal(devices.pair(code, "Pixel", "1.2.3.4").ok, false, "reused");
    const dump = JSON.stringify(state.db.prepare("SELECT * FROM devices").all()) + JSON.stringify(state.db.prepare("SELECT * FROM pairing_codes").all());
    assert.ok(!dump.includes(first.token), "the token is not stored");
    assert.ok(!dump.includes(code.replace("-", "")), "the code is not stored");
    assert.equal(devices.check(first.token)?.name, "Pixel");
  });

  test("an expired code is refused", () => {
    const clock = { now: 0 };
    const devices = devicesAt(clock);
    const { code } = devices.createCode();
    clock.now += CODE_TTL_MS + 1;
    assert.deepEqual(devices.pair(code, "p", "s"), { ok: false, reason: "expired" });
  });

  test("codes are accepted in any case and with or without the dash", () => {
    const devices = devicesAt({ now: 0 });
    const { code } = devices.createCode();
    assert.ok(devices.pair(code.toLowerCase().replace("-", ""), "p", "s").ok);
  });

  test("a guesser with too many wrong codes is refused, even with the right one, until its window passed; the code lives on", () => {
    const clock = { now: 0 };
    const devices = devicesAt(clock);
    const { code } = devices.createCode();
    for (let i = 0; i < MAX_WRONG_TRIES; i++) assert.deepEqual(devices.pair("AAAA-AAAA", "p", "attacker"), { ok: false, reason: "wrong-code" });
    assert.deepEqual(devices.pair(code, "p", "attacker"), { ok: false, reason: "too-many-tries" });
    // Many more guessers, wrong every time: the owner's code is untouched.
    for (let i = 0; i < 40; i++) devices.pair("BBBB-BBBB", "p", `other-${i}`);
    assert.ok(devices.pair(code, "p", "honest").ok, "the owner pairs");
    clock.now += CODE_TTL_MS + 1;
    assert.ok(devices.pair(devices.createCode().code, "p", "attacker").ok, "the guesser is judged again once its window passed");
  });

  test("behind a front door a stranger's flood of wrong codes never vetoes the owner's code or invite (issue 38, item 8)", async () => {
    const stateDir = tempDir();
    const d = await TestDaemon.start({ sources: none, stateDir });
    const post = (path: string, body: unknown, client?: string) => fetch(`${d.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(client ? { "x-forwarded-for": client } : {}) },
      body: JSON.stringify(body),
    });
    // The attack: two wrong codes a second, for a while, with no credentials; through the front
    // door (its X-Forwarded-For names the stranger) and straight from this machine.
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      statuses.push((await post("/api/pair", { code: `WRNG-${i % 10}${i % 10}ZZ`, name: "x" }, "203.0.113.9")).status);
      statuses.push((await post("/api/crew/join", { invite: `WRNG-${i % 10}${i % 10}ZZ-ZZZZ`, name: "x" }, "203.0.113.9")).status);
      statuses.push((await post("/api/pair", { code: `WRNG-${i % 10}${i % 10}YY`, name: "x" })).status);
    }
    assert.deepEqual([...new Set(statuses)].sort(), [403, 429]);
    const locked = await post("/api/pair", { code: "AAAA-AAAA", name: "x" }, "203.0.113.9");
    assert.equal(locked.status, 429);
    assert.deepEqual(await locked.json(), { error: "pairing-too-many-tries", message: "Too many tries. Wait 10 minutes, then try again." });
    // The owner's fresh code and a fresh invite (`collie pair`, `collie crew invite`: the admin
    // socket), from the owner's phone and lead behind the same front door.
    const { code } = (await adminRequest(stateDir, "POST", "/pair-codes")).body as { code: string };
    assert.equal((await post("/api/pair", { code, name: "Pixel" }, "198.51.100.20")).status, 200, "the owner's code pairs");
    const { invite } = (await adminRequest(stateDir, "POST", "/crew-invites")).body as { invite: string };
    assert.equal((await post("/api/crew/join", { invite, name: "lead" }, "198.51.100.21")).status, 200, "a fresh invite redeems");
  });

  test("loopback peers are told apart from other addresses", () => {
    for (const ip of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) assert.equal(isLoopbackAddress(ip), true, ip);
    for (const ip of ["10.0.0.1", "::ffff:10.0.0.1", "100.64.1.2", "fe80::1", "1127.0.0.1"]) assert.equal(isLoopbackAddress(ip), false, ip);
  });

  test("the pairing route sets an HttpOnly, SameSite=Strict cookie and never returns the token", async () => {
    const d = await TestDaemon.start({ sources: none });
    const { code } = d.daemon.devices.createCode();
    const res = await fetch(`${d.url}/api/pair`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code, name: "Pixel" }) });
    assert.equal(res.status, 200);
    const cookie = res.headers.get("set-cookie")!;
    assert.match(cookie, /^collie_device=[A-Za-z0-9_-]{20,}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    const token = cookie.split(";")[0]!.split("=")[1]!;
    assert.ok(!JSON.stringify(await res.json()).includes(token));
    const again = await fetch(`${d.url}/api/pair`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code, name: "Pixel" }) });
    assert.equal(again.status, 403);
  });
});

describe("revoking a device (X-1)", () => {
  test("cuts the phone off at once, its open WebSocket included", async () => {
    const d = await TestDaemon.start({ sources: none });
    const paired = d.daemon.devices.pair(d.daemon.devices.createCode().code, "Pixel", "test");
    assert.ok(paired.ok);
    const ws = new WebSocket(`${d.wsUrl}/api/live`, { headers: { authorization: `Bearer ${paired.token}` } });
    await new Promise((r) => ws.once("message", r));
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    assert.equal(d.daemon.devices.revoke(paired.device.id), true);
    assert.equal(await closed, 4401);
    assert.equal((await fetch(`${d.url}/api/snapshot`, { headers: { authorization: `Bearer ${paired.token}` } })).status, 401);
    // Other devices are untouched.
    assert.equal((await fetch(`${d.url}/api/snapshot`, { headers: authHeaders(d.url) })).status, 200);
  });
});

describe("browser gates (X-2)", () => {
  test("a foreign Host header is refused (DNS rebinding)", async () => {
    const d = await TestDaemon.start({ sources: none });
    const res = await rawRequest(d.port, "GET", "/api/health", { host: "evil.example:80" });
    assert.equal(res.status, 421);
    const ok = await rawRequest(d.port, "GET", "/api/health", { host: `localhost:${d.port}` });
    assert.equal(ok.status, 200);
  });

  test("a cross-origin write and a cross-origin WebSocket are refused; the page's own origin passes", async () => {
    const d = await TestDaemon.start({ sources: none });
    const body = JSON.stringify({ requestId: "r-1", text: "hi" });
    const headers = { "content-type": "application/json", ...authHeaders(d.url) };
    const foreign = await fetch(`${d.url}/api/agents/desk/panes/p/send`, { method: "POST", headers: { ...headers, origin: "https://evil.example" }, body });
    assert.equal(foreign.status, 403);
    assert.equal(((await foreign.json()) as { error: string }).error, "bad-origin");
    const own = await fetch(`${d.url}/api/agents/desk/panes/p/send`, { method: "POST", headers: { ...headers, origin: d.url }, body });
    assert.equal(own.status, 404, "past the gate: the agent is unknown");
    const ws = new WebSocket(`${d.wsUrl}/api/live`, { headers: { ...authHeaders(d.wsUrl), origin: "https://evil.example" } });
    const status = await upgradeStatus(ws);
    assert.equal(status, 403);
  });

  test("the app is served with a strict CSP and no caching of API answers", async () => {
    const d = await TestDaemon.start({ sources: none });
    const page = await fetch(`${d.url}/`);
    const csp = page.headers.get("content-security-policy");
    if (page.status === 200) {
      assert.match(csp ?? "", /default-src 'self'/);
      assert.match(csp ?? "", /frame-ancestors 'none'/);
      assert.match(csp ?? "", /base-uri 'none'/);
      assert.match(csp ?? "", /object-src 'none'/);
      assert.doesNotMatch(csp ?? "", /unsafe-inline/);
      assert.equal(page.headers.get("referrer-policy"), "no-referrer");
    }
    const api = await fetch(`${d.url}/api/snapshot`, { headers: authHeaders(d.url) });
    assert.equal(api.headers.get("cache-control"), "no-store");
    assert.equal(api.headers.get("x-content-type-options"), "nosniff");
  });
});

describe("agents (X-3)", () => {
  test("a socket owned by another user is refused with a clear state", async () => {
    const dir = tempDir();
    const path = join(dir, "foreign.sock");
    const server = createServer();
    await new Promise<void>((r) => server.listen(path, () => r()));
    chownSync(path, 65534, 65534); // nobody
    try {
      const d = await TestDaemon.start({ sources: { fixed: [{ name: "foreign", endpoint: { kind: "socket", path }, key: "f" }] } });
      const row = await d.waitState("foreign", "unreachable");
      assert.match(row.problem ?? "", /belongs to another user/);
    } finally {
      server.close();
    }
  });

  test("a token planted in sources.json appears in no log line, API reply or audit line", async () => {
    const dir = tempDir();
    const token = "planted-secret-token-0123456789";
    const sources = join(dir, "sources.json");
    writeFileSync(sources, JSON.stringify({ durable: [{ name: "far", url: "http://127.0.0.1:9", token }] }));
    const d = await TestDaemon.start({ sources: { path: sources }, stateDir: join(dir, "state") });
    await d.waitState("far", "unreachable");
    const replies = [
      await d.get("/api/snapshot"), await d.get("/api/agents"), await d.get("/api/agents/far/history"),
      await d.post("/api/agents/far/panes/p/send", { requestId: "r-1", text: "hi" }),
    ];
    const seen = JSON.stringify(replies) + d.logs.join("\n");
    const audit = join(dir, "state", "audit.log");
    const auditText = existsSync(audit) ? readFileSync(audit, "utf8") : "";
    assert.ok(!seen.includes(token), "not in replies or logs");
    assert.ok(!auditText.includes(token), "not in the audit log");
    assert.ok(auditText.includes('"requestId":"r-1"'), "the write was audited");
    assert.ok(!auditText.includes('"hi"'), "no message text in the audit log");
  });
});

/** The status a WebSocket upgrade got: 101 when it opened, else the refusal's HTTP status. */
function upgradeStatus(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => {
    ws.on("unexpected-response", (req, res) => {
      resolve(res.statusCode ?? 0);
      req.destroy(); // a refused upgrade leaves its socket open otherwise
    });
    ws.on("open", () => {
      resolve(101);
      ws.close();
    });
    ws.on("error", () => {});
  });
}

/** A raw HTTP/1.1 request so the Host header can be anything. */
async function rawRequest(port: number, method: string, path: string, headers: Record<string, string>): Promise<{ status: number }> {
  const { request } = await import("node:http");
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers, setHost: false }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on("error", reject);
    req.end();
  });
}

void until;
