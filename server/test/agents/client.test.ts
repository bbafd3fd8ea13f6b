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
