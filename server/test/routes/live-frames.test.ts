/**
 * The live socket's frames (issue 31): what one turn of the event loop sends a phone leaves in one
 * write, in order, and an ask leaves at once. Over a real WebSocket on loopback, counting the
 * writes the server's socket makes.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { after, describe, test } from "node:test";
import { WebSocket, WebSocketServer } from "ws";
import { frameBatch } from "../../src/routes/live.ts";

const servers: WebSocketServer[] = [];
after(() => {
  for (const s of servers) s.close();
});

/** A server-side socket with its writes counted, and the client's received messages. */
async function pair(): Promise<{ server: WebSocket; writes: () => number; received: string[]; arrived: (n: number) => Promise<void> }> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  servers.push(wss);
  await once(wss, "listening");
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  const [server] = (await once(wss, "connection")) as [WebSocket];
  await once(client, "open");
  const raw = (server as unknown as { _socket: { _writev: (...a: unknown[]) => unknown; _write: (...a: unknown[]) => unknown } })._socket;
  let writes = 0;
  for (const name of ["_writev", "_write"] as const) {
    const original = raw[name].bind(raw);
    raw[name] = (...a: unknown[]) => {
      writes++;
      return original(...a);
    };
  }
  const received: string[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  client.on("message", (data) => {
    received.push(String(data));
    for (const w of [...waiters]) if (received.length >= w.n) w.resolve();
  });
  after(() => client.close());
  return {
    server,
    writes: () => writes,
    received,
    arrived: (n) => (received.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
  };
}

describe("live frames", () => {
  test("three frames sent in one turn leave in one write, in order", async () => {
    const { server, writes, received, arrived } = await pair();
    const frames = frameBatch(server);
    for (const m of ["conversation", "agent", "item"]) {
      frames.hold();
      server.send(m);
    }
    assert.equal(writes(), 0, "held until the turn's work is done");
    await arrived(3);
    assert.equal(writes(), 1);
    assert.deepEqual(received, ["conversation", "agent", "item"]);
  });

  test("release sends what is held at once; the next turn batches again", async () => {
    const { server, writes, received, arrived } = await pair();
    const frames = frameBatch(server);
    frames.hold();
    server.send("conversation");
    frames.hold();
    server.send("ask");
    frames.release();
    assert.equal(writes(), 1, "written before the turn ends");
    frames.hold();
    server.send("agent");
    assert.equal(writes(), 1);
    await arrived(3);
    assert.equal(writes(), 2);
    assert.deepEqual(received, ["conversation", "ask", "agent"]);
    // Another turn.
    frames.hold();
    server.send("decision");
    frames.hold();
    server.send("agent");
    await arrived(5);
    assert.equal(writes(), 3);
    assert.deepEqual(received.slice(3), ["decision", "agent"]);
  });

  test("a socket closed while frames are held closes cleanly, the held frames first", async () => {
    const { server, received, arrived } = await pair();
    const frames = frameBatch(server);
    frames.hold();
    server.send("last words");
    server.close(1000, "bye");
    await arrived(1);
    assert.deepEqual(received, ["last words"]);
  });
});
