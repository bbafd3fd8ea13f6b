/**
 * File descriptors (issue 38, item 7): slow, partial-header connections without credentials, or
 * thousands of WebSockets from one paired device, held Collie at its open-file limit until health
 * failed and `collie devices` said no Collie was running. Connections are capped at once (the
 * oldest idle one goes for a new one), per address and per device's WebSockets, and a slow header
 * is timed out. Real sockets against a real daemon, with small caps; the full-size attack is
 * `bench/fd-flood.ts` (docs/security.md).
 */
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { connect, type Socket } from "node:net";
import { after, describe, test } from "node:test";
import WebSocket from "ws";
import { defaultLimits, openFileLimit, SERVER_TIMEOUTS, trackConnections } from "../../src/connections.ts";
import { closeAllDaemons, TestDaemon } from "../helpers/daemon.ts";
import { removeTempDirs, until } from "../helpers/wait.ts";

const clients: (Socket | WebSocket)[] = [];
after(async () => {
  for (const c of clients) c instanceof WebSocket ? c.terminate() : c.destroy();
  await closeAllDaemons();
  removeTempDirs();
});

const LIMITS = { total: 40, perAddress: 10, perDevice: 3 };

/** A client that sends half a request header and then nothing. */
function slowClient(port: number): Promise<Socket> {
  return new Promise((resolve) => {
    const s = connect(port, "127.0.0.1", () => {
      s.write(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `);
      resolve(s);
    });
    s.on("error", () => undefined);
    clients.push(s);
  });
}

function liveSocket(d: TestDaemon, token: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${d.wsUrl}/api/live`, { headers: { authorization: `Bearer ${token}` } });
    clients.push(ws);
    ws.once("message", () => resolve(ws)); // the snapshot: the socket is live
    ws.once("error", reject);
  });
}

const health = async (d: TestDaemon) => (await fetch(`${d.url}/api/health`)).status;

describe("connection caps against a running daemon", () => {
  test("past the cap, slow headers are pushed out oldest first; health answers and a live WebSocket stays", async () => {
    const d = await TestDaemon.start({ sources: { fixed: [] }, connectionLimits: LIMITS });
    const phone = await liveSocket(d, d.token);
    const slow: Socket[] = [];
    for (let i = 0; i < 3 * LIMITS.total; i++) slow.push(await slowClient(d.port));
    const conns = d.daemon.app.collieConnections;
    await until(() => conns.size <= LIMITS.total && slow.filter((s) => s.destroyed || s.readyState !== "open").length >= 2 * LIMITS.total - 1 || undefined, () => `${conns.size} open on Collie's side`);
    // The newest slow clients are the ones still held; the first ones went.
    assert.ok(slow[0]!.destroyed || slow[0]!.readyState !== "open", "the oldest slow client was pushed out");
    assert.equal(await health(d), 200);
    assert.equal(phone.readyState, WebSocket.OPEN, "the phone's live socket was not pushed out");
    assert.ok(conns.turnedAway >= 2 * LIMITS.total);
  });

  test("a paired device at its cap of WebSockets is refused 429 before the handshake; its open ones and another device's stay", async () => {
    const d = await TestDaemon.start({ sources: { fixed: [] }, connectionLimits: LIMITS });
    const other = d.daemon.devices.issue("other phone", "phone");
    const mine: WebSocket[] = [];
    for (let i = 0; i < LIMITS.perDevice; i++) mine.push(await liveSocket(d, d.token));
    for (let i = 0; i < 20; i++) {
      const refused = await new Promise<number>((resolve) => {
        const ws = new WebSocket(`${d.wsUrl}/api/live`, { headers: { authorization: `Bearer ${d.token}` } });
        clients.push(ws);
        ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
        ws.once("open", () => resolve(101));
        ws.once("error", () => undefined);
      });
      assert.equal(refused, 429);
    }
    assert.ok(mine.every((ws) => ws.readyState === WebSocket.OPEN), "the device's first sockets stay");
    const theirs = await liveSocket(d, other.token);
    assert.equal(theirs.readyState, WebSocket.OPEN);
    assert.equal(await health(d), 200);
    // One closes: the device gets its place back.
    mine[0]!.close();
    await until(async () => (await liveSocket(d, d.token).then(() => true, () => false)) || undefined, "a new socket once one closed");
  });

  test("a live socket whose phone stopped answering pings is closed, freeing its place", async () => {
    const { WebSocketServer } = await import("ws");
    const { heartbeat } = await import("../../src/routes/live.ts");
    const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((r) => server.once("listening", r));
    const port = (server.address() as { port: number }).port;
    const closed = new Promise<void>((resolve) => server.on("connection", (socket) => {
      heartbeat(socket, 50);
      socket.once("close", () => resolve());
    }));
    // A client that answers pings stays; one whose pongs never come is cut.
    const alive = new WebSocket(`ws://127.0.0.1:${port}`);
    clients.push(alive);
    await new Promise((r) => alive.once("open", r));
    const gone = new WebSocket(`ws://127.0.0.1:${port}`, { autoPong: false });
    clients.push(gone);
    await closed;
    assert.equal(alive.readyState, WebSocket.OPEN);
    server.close();
  });

  test("a request header that never ends is answered 408 and closed (Node's headersTimeout, 10 s)", { timeout: 60_000 }, async () => {
    const d = await TestDaemon.start({ sources: { fixed: [] } });
    assert.equal(d.daemon.app.server.headersTimeout, SERVER_TIMEOUTS.headersTimeout);
    assert.equal(d.daemon.app.server.requestTimeout, SERVER_TIMEOUTS.requestTimeout);
    const s = await slowClient(d.port);
    let answer = "";
    s.setEncoding("utf8").on("data", (c: string) => (answer += c));
    await new Promise((r) => s.once("close", r));
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.equal((JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as { error: string }).error, "request-timeout");
  });
});

describe("the limits' rules", () => {
  /** A server that only emits connections, and sockets that only record being destroyed. */
  function rig(limits = LIMITS) {
    const server = new EventEmitter();
    const conns = trackConnections(server as never, limits);
    const open = (remoteAddress: string) => {
      const s = Object.assign(new EventEmitter(), { remoteAddress, destroyed: false, destroy() { s.destroyed = true; s.emit("close"); } });
      server.emit("connection", s);
      return s;
    };
    return { conns, open };
  }

  test("one address that is not loopback holds at most perAddress; loopback (a front door) is not counted per address", () => {
    const { conns, open } = rig();
    const stranger = Array.from({ length: 15 }, () => open("203.0.113.9"));
    assert.equal(stranger.filter((s) => !s.destroyed).length, LIMITS.perAddress);
    assert.equal(open("198.51.100.1").destroyed, false, "another address gets in");
    const front = Array.from({ length: 20 }, () => open("::ffff:127.0.0.1"));
    assert.equal(front.filter((s) => !s.destroyed).length, 20);
    assert.equal(conns.size, LIMITS.perAddress + 1 + 20);
    // A closed connection frees its address's place.
    stranger[0]!.destroy();
    assert.equal(open("203.0.113.9").destroyed, false);
  });

  test("the file limit decides the cap: half of it, between 64 and 4096", () => {
    assert.equal(openFileLimit("Max cpu time  unlimited  unlimited  seconds\nMax open files            20000                20000                files\n"), 20000);
    assert.equal(openFileLimit("Max open files  unlimited  unlimited  files\n"), 1 << 20);
    assert.equal(openFileLimit("nothing here"), 1024);
    assert.deepEqual(defaultLimits(20000), { total: 4096, perAddress: 256, perDevice: 8 });
    assert.equal(defaultLimits(1024).total, 512);
    assert.equal(defaultLimits(100).total, 64);
  });
});
