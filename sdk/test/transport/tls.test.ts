/**
 * createCore behind TLS with a bearer token (S-6, S-27, X-3, W-5): the core's handler mounted on
 * node:https with a self-signed certificate made by the openssl CLI.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createCore, type DurableCore, type Pane } from "../../src/index.ts";
import { FakePhone } from "../../src/testing/index.ts";
import { isKnownAsk } from "../../src/wire/index.ts";
import { removeTempDirs, tempDir } from "../helpers/temp-dirs.ts";

const TOKEN = "6q1o0xkH2m7pV3cW9sLr4tYe8uZa5bNd";

function opensslWorks(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const SKIP = opensslWorks() ? false : "needs the openssl CLI to make a self-signed certificate";

let cert = "";
let key = "";
const servers: Server[] = [];
const phones: FakePhone[] = [];

before(() => {
  if (SKIP) return;
  const dir = tempDir();
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
    "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
  ], { stdio: "ignore" });
  cert = readFileSync(join(dir, "cert.pem"), "utf8");
  key = readFileSync(join(dir, "key.pem"), "utf8");
});

after(async () => {
  for (const p of phones.splice(0)) p.disconnect();
  await Promise.all(servers.splice(0).map((s) => {
    s.closeAllConnections();
    return new Promise((resolve) => s.close(resolve));
  }));
  removeTempDirs();
});

/** Serves the core's handler on https://127.0.0.1:<port>. */
async function serve(core: DurableCore): Promise<string> {
  const server = createServer({ key, cert }, core.handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function phone(url: string, token?: string): FakePhone {
  const p = new FakePhone({ url, ca: cert, ...(token !== undefined ? { token } : {}) });
  phones.push(p);
  return p;
}

interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request with exactly the given headers (no token unless given), keeping the reply's headers and raw text. */
function raw(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<RawReply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({
      host: u.hostname,
      port: u.port,
      method,
      path,
      ca: cert,
      agent: false,
      headers: { ...headers, ...(payload ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) } : {}) },
    }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** A core with one pane whose sends are counted. */
function deskCore(opts: Parameters<typeof createCore>[0] = {}): { core: DurableCore; pane: Pane; sends: string[] } {
  const core = createCore({ token: TOKEN, hostName: "tls desk", warn: () => {}, ...opts });
  const sends: string[] = [];
  const pane = core.workspace("w").tab("t").pane("p1", { title: "Ticket" });
  pane.onSend(({ text }) => {
    sends.push(text);
  });
  core.ready();
  return { core, pane, sends };
}

/** Every route, with a body for the writes (a valid one, so only the token can refuse it). */
const ROUTE_CALLS: { name: string; method: string; path: string; body?: unknown }[] = [
  { name: "hello", method: "GET", path: "/durable/hello" },
  { name: "layout", method: "GET", path: "/durable/v1/layout" },
  { name: "events", method: "GET", path: "/durable/v1/events" },
  { name: "pane", method: "GET", path: "/durable/v1/panes/p1" },
  { name: "history", method: "GET", path: "/durable/v1/history" },
  { name: "starters", method: "GET", path: "/durable/v1/starters" },
  { name: "send", method: "POST", path: "/durable/v1/panes/p1/send", body: { requestId: "r-send", text: "hi" } },
  { name: "stop", method: "POST", path: "/durable/v1/panes/p1/stop", body: { requestId: "r-stop", turnId: null } },
  { name: "rename", method: "POST", path: "/durable/v1/rename", body: { requestId: "r-rename", target: { kind: "pane", id: "p1" }, title: "x" } },
  { name: "close", method: "POST", path: "/durable/v1/close", body: { requestId: "r-close", target: { kind: "pane", id: "p1" } } },
  { name: "an unknown route", method: "GET", path: "/durable/v1/nothing-here" },
  { name: "another wire version", method: "GET", path: "/durable/v2/layout" },
];

describe("createCore over https with a bearer token (S-6, X-3)", { skip: SKIP }, () => {
  let url: string;
  let desk: ReturnType<typeof deskCore>;

  before(async () => {
    desk = deskCore();
    url = await serve(desk.core);
  });

  test("hello works with the token and the CA", async () => {
    const hello = await phone(url, TOKEN).hello();
    assert.equal(hello.name, "tls desk");
    assert.deepEqual(hello.wire, [1]);
    assert.equal(hello.descendantCheck, false, "over https the core cannot tell who calls");
  });

  test("no token → 401 unauthorized with WWW-Authenticate: Bearer and a JSON error body", async () => {
    const r = await raw(url, "GET", "/durable/hello");
    assert.equal(r.status, 401);
    assert.equal(r.headers["www-authenticate"], "Bearer");
    assert.match(String(r.headers["content-type"]), /^application\/json/);
    const body = JSON.parse(r.text) as Record<string, unknown>;
    assert.equal(body.error, "unauthorized");
    assert.equal(typeof body.message, "string");
    const viaPhone = await phone(url).request("GET", "/durable/hello");
    assert.equal(viaPhone.status, 401);
  });

  test("a wrong token of the same length → 401", async () => {
    const wrong = `${TOKEN.slice(0, -1)}${TOKEN.endsWith("x") ? "y" : "x"}`;
    assert.equal(wrong.length, TOKEN.length);
    const r = await phone(url, wrong).request("GET", "/durable/hello");
    assert.equal(r.status, 401);
    assert.equal(r.body.error, "unauthorized");
  });

  test("a wrong token of another length (shorter, longer, a prefix, empty) → 401", async () => {
    for (const wrong of [TOKEN.slice(0, 8), `${TOKEN}x`, TOKEN.slice(0, -1), "x".repeat(300)]) {
      const r = await raw(url, "GET", "/durable/hello", { authorization: `Bearer ${wrong}` });
      assert.equal(r.status, 401, wrong);
      assert.equal(r.headers["www-authenticate"], "Bearer");
    }
    for (const header of ["Bearer", "Bearer ", `Basic ${TOKEN}`, TOKEN, `Bearer  x${TOKEN}`]) {
      const r = await raw(url, "GET", "/durable/hello", { authorization: header });
      assert.equal(r.status, 401, JSON.stringify(header));
    }
  });

  test("every route requires the token, before any other check (unknown routes and versions too)", async () => {
    for (const call of ROUTE_CALLS) {
      for (const headers of [{}, { authorization: "Bearer wrong-token-of-some-length" }] as Record<string, string>[]) {
        const r = await raw(url, call.method, call.path, headers, call.body);
        assert.equal(r.status, 401, `${call.name} ${JSON.stringify(headers)}: ${r.text}`);
        assert.equal(r.headers["www-authenticate"], "Bearer", call.name);
        assert.equal((JSON.parse(r.text) as { error: string }).error, "unauthorized", call.name);
      }
    }
    assert.deepEqual(desk.sends, [], "no refused write ran");
    assert.ok(desk.core.pane("p1"), "the refused close did not close the pane");
    assert.equal(desk.core.pane("p1")!.title, "Ticket", "the refused rename did not rename");
  });

  test("reads and a write with the right token work", async () => {
    const p = phone(url, TOKEN);
    const layout = await p.layout();
    assert.deepEqual(layout.panes.map((x) => x.id), ["p1"]);
    const page = await p.events({ after: null });
    assert.equal(page.reset, true);
    const r = await p.send("p1", "hello over tls", { requestId: "tls-send-1" });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(desk.sends, ["hello over tls"]);
    const again = await p.send("p1", "hello over tls", { requestId: "tls-send-1" });
    assert.equal(again.body.replayed, true);
    assert.deepEqual(desk.sends, ["hello over tls"], "a replay over https runs nothing (S-28)");
  });

  test("the token never appears in a response body or header, success or error", async () => {
    const wrongSameLength = TOKEN.split("").reverse().join("");
    const replies: RawReply[] = [];
    for (const call of ROUTE_CALLS) {
      replies.push(await raw(url, call.method, call.path, {}, call.body));
      replies.push(await raw(url, call.method, call.path, { authorization: `Bearer ${wrongSameLength}` }, call.body));
      replies.push(await raw(url, call.method, call.path, { authorization: `Bearer ${TOKEN}` }, { ...(call.body as object), requestId: `leak-${call.name.replace(/\W/g, "-")}` }));
    }
    // Error bodies with the right token: bad JSON, a bad field, an unknown pane.
    replies.push(await raw(url, "POST", "/durable/v1/panes/p1/send", { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, undefined));
    replies.push(await raw(url, "POST", "/durable/v1/panes/nope/send", { authorization: `Bearer ${TOKEN}` }, { requestId: "leak-404", text: "x" }));
    replies.push(await raw(url, "POST", "/durable/v1/panes/p1/send", { authorization: `Bearer ${TOKEN}` }, { requestId: TOKEN.slice(0, 4), text: 5 }));
    assert.ok(replies.some((r) => r.status === 401) && replies.some((r) => r.status === 200) && replies.some((r) => r.status >= 400 && r.status !== 401));
    for (const r of replies) {
      const all = `${r.text}\n${JSON.stringify(r.headers)}`;
      assert.equal(all.includes(TOKEN), false, `the token leaked: ${all}`);
      assert.equal(all.includes(wrongSameLength), false, `a presented token leaked: ${all}`);
    }
  });
});

describe("allow-always over https (S-27)", { skip: SKIP }, () => {
  const permission = (toolCallId: string) => ({
    kind: "permission" as const,
    toolCallId,
    itemId: `item-${toolCallId}`,
    title: "refund wants to run",
    tool: { name: "refund" },
    options: [{ kind: "allow" as const }, { kind: "allow-always" as const }, { kind: "deny" as const }],
  });

  test("by default hello.allowAlways is false and an ask offering allow-always is a TypeError", async () => {
    const { core, pane } = deskCore();
    const url = await serve(core);
    assert.equal((await phone(url, TOKEN).hello()).allowAlways, false);
    assert.throws(() => pane.ask(permission("call-1")), TypeError);
    assert.equal(pane.openAsks, 0, "nothing reached the wire");
    // Allow and deny alone are fine.
    const answer = pane.ask({ ...permission("call-2"), options: [{ kind: "allow" }, { kind: "deny" }] });
    const p = phone(url, TOKEN);
    const ask = await p.waitForAsk({ paneId: "p1" });
    assert.equal((await p.answer(ask, { kind: "permission", optionId: "deny" })).status, 200);
    assert.equal((await answer).kind, "permission");
  });

  test("createCore({allowAlways: false}) refuses it as well", () => {
    const { pane } = deskCore({ allowAlways: false });
    assert.throws(() => pane.ask(permission("call-1")), TypeError);
  });

  test("createCore({allowAlways: true}) allows it, says so in hello, and the answer arrives over https", async () => {
    const { core, pane } = deskCore({ allowAlways: true });
    const url = await serve(core);
    const p = phone(url, TOKEN);
    assert.equal((await p.hello()).allowAlways, true);
    const answer = pane.ask(permission("call-1"));
    const ask = await p.waitForAsk({ paneId: "p1" });
    assert.ok(isKnownAsk(ask) && ask.kind === "permission" && ask.options.some((o) => o.kind === "allow-always"));
    const always = isKnownAsk(ask) && ask.kind === "permission" ? ask.options.find((o) => o.kind === "allow-always")! : undefined;
    const r = await p.answer(ask, { kind: "permission", optionId: always!.id });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(await answer, { kind: "permission", optionId: always!.id, optionKind: "allow-always" });
  });
});

describe("createCore token option (S-6)", () => {
  test("a core without a token is a TypeError at the call, never a handler that serves hello to anyone", () => {
    assert.throws(() => createCore({}), (err: unknown) => err instanceof TypeError && /needs a token/.test(err.message) && /Authorization: Bearer/.test(err.message));
    assert.throws(() => (createCore as (o?: unknown) => unknown)(), TypeError);
    assert.throws(() => createCore({ token: undefined, hostName: "billing" }), TypeError);
  });
  test("a token shorter than 16 characters is a TypeError; 16 is enough", () => {
    for (const token of ["", "short", "x".repeat(15)]) {
      assert.throws(() => createCore({ token }), TypeError, JSON.stringify(token));
    }
    assert.throws(() => createCore({ token: 1234567890123456 as unknown as string }), TypeError);
    assert.doesNotThrow(() => createCore({ token: "x".repeat(16) }));
  });
});
