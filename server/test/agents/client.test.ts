/**
 * An agent's reach (D-3): `local` only for its socket, `http://127.0.0.1` and `http://localhost`;
 * every other URL is `remote`. A request that fails after its reply started leaves nothing on the
 * caller's (long-lived) abort signal.
 */
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, test } from "node:test";
import type { WireEndpoint, WireReply, WireRequest } from "@colliepwa/durable-sdk/core";
import { WIRE_VERSIONS } from "@colliepwa/durable-sdk/wire";
import { AgentClient, AgentUnreachable, type Endpoint } from "../../src/agents/client.ts";

const TOKEN = "t".repeat(16);
function reachOf(endpoint: Endpoint): "local" | "remote" {
  const client = new AgentClient(endpoint, WIRE_VERSIONS);
  try {
    return client.reach;
  } finally {
    client.close();
  }
}
const url = (href: string): Endpoint => ({ kind: "url", url: new URL(href), token: TOKEN });

describe("an agent's reach (D-3)", () => {
  test("its socket, http://127.0.0.1 and http://localhost are local", () => {
    assert.equal(reachOf({ kind: "socket", path: "/run/user/1000/collie/durable.sock" }), "local");
    assert.equal(reachOf(url("http://127.0.0.1:7790")), "local");
    assert.equal(reachOf(url("http://localhost:7790")), "local");
    assert.equal(reachOf(url("http://LOCALHOST")), "local");
  });
  test("every other URL is remote: https to this machine, [::1], other loopback addresses, other hosts", () => {
    for (const href of ["https://localhost:7790", "https://127.0.0.1:7790", "http://[::1]:7790", "https://[::1]", "http://127.0.0.2", "https://desk.example.net", "http://localhost.example.net"]) {
      assert.equal(reachOf(url(href)), "remote", href);
    }
  });
});

describe("a request's end lets go of the caller's signal", () => {
  test("a reply cut off after it started: rejected, and no abort listener is left on the signal", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const client = new AgentClient(url(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), WIRE_VERSIONS);
    const stop = new AbortController();
    try {
      await assert.rejects(client.get("/x", 5_000, stop.signal), AgentUnreachable);
      assert.equal(getEventListeners(stop.signal, "abort").length, 0);
    } finally {
      client.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("a request that cannot be made", () => {
  test("a token HTTP cannot carry (a non-ASCII character) is an unreachable agent, not a throw, and its deadline never fires", async () => {
    const client = new AgentClient({ kind: "url", url: new URL("http://127.0.0.1:9"), token: `${TOKEN}€` }, WIRE_VERSIONS);
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on("uncaughtException", onUncaught);
    try {
      await assert.rejects(client.get("/durable/v1/hello", 50), (err: unknown) => err instanceof AgentUnreachable && /character HTTP cannot carry/.test(err.message) && !err.message.includes(TOKEN));
      // The deadline (50 ms) would have thrown on a request that was never made.
      await new Promise((r) => setTimeout(r, 120));
      assert.deepEqual(uncaught, []);
    } finally {
      process.off("uncaughtException", onUncaught);
      client.close();
    }
  });
});

describe("an endpoint in this process (memory): the same request and reply as over a socket", () => {
  const reply = (body: object, status = 200): WireReply => ({ status, headers: {}, body });

  test("the request arrives as a transport gives it: lower-case headers, the token, the body as text; the reply is a copy", async () => {
    let seen: WireRequest | undefined;
    const shared = { nested: { n: 1 } };
    const core: WireEndpoint = { request: async (req) => ((seen = req), reply(shared)) };
    const client = new AgentClient({ kind: "memory", core, token: TOKEN }, WIRE_VERSIONS, { "X-Crew": "1" });
    const got = await client.post("/durable/v1/send", { text: "hi" }, 1000);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, shared);
    assert.notEqual(got.body, shared, "the caller never holds the agent's own object");
    assert.equal(seen!.method, "POST");
    assert.equal(seen!.headers!.authorization, `Bearer ${TOKEN}`);
    assert.equal(seen!.headers!["x-crew"], "1");
    assert.equal(seen!.body, JSON.stringify({ text: "hi" }));
    assert.equal(client.reach, "local");
  });

  test("an endpoint that never answers is unreachable at the deadline, and the request it was given is aborted", async () => {
    let signal: AbortSignal | undefined;
    const core: WireEndpoint = { request: (req) => ((signal = req.signal), new Promise(() => {})) };
    const client = new AgentClient({ kind: "memory", core }, WIRE_VERSIONS);
    await assert.rejects(client.get("/durable/v1/events", 50), (err: Error) => err instanceof AgentUnreachable && /no reply within 50 ms/.test(err.message));
    assert.equal(signal!.aborted, true);
  });

  test("the caller's cancel ends it, and leaves no listener on the caller's signal", async () => {
    const core: WireEndpoint = { request: () => new Promise(() => {}) };
    const client = new AgentClient({ kind: "memory", core }, WIRE_VERSIONS);
    const stop = new AbortController();
    const pending = client.get("/durable/v1/events", 10_000, stop.signal);
    stop.abort();
    await assert.rejects(pending, (err: Error) => err instanceof AgentUnreachable && err.message === "cancelled");
    assert.equal(getEventListeners(stop.signal, "abort").length, 0);
  });

  test("a reply read as a socket would: an empty body is {}, one that is no JSON is an unreachable agent", async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const empty = new AgentClient({ kind: "memory", core: { request: async () => ({ status: 200, headers: {}, body: undefined as unknown as object }) } }, WIRE_VERSIONS);
    assert.deepEqual(await empty.get("/durable/v1/hello", 1000), { status: 200, body: {} });
    const looped = new AgentClient({ kind: "memory", core: { request: async () => reply(circular) } }, WIRE_VERSIONS);
    await assert.rejects(looped.get("/durable/v1/hello", 1000), AgentUnreachable);
  });

  test("an endpoint that throws is an unreachable agent, never a throw of another kind", async () => {
    const core: WireEndpoint = { request: async () => { throw new Error("boom"); } };
    const client = new AgentClient({ kind: "memory", core }, WIRE_VERSIONS);
    await assert.rejects(client.get("/durable/v1/hello", 1000), AgentUnreachable);
  });
});
