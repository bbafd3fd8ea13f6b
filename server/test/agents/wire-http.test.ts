/**
 * Collie's own HTTP/1.1 client for agents (issue 31): every reply is read by one reader that takes
 * HTTP/1.1 as agents may send it (Content-Length, chunked, to the connection's end, interim 1xx,
 * in any split of its bytes) and refuses anything else; connections are kept, reused and replaced
 * as a careful client does; nothing it is given can put a line break into a request.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { after, describe, test } from "node:test";
import { MAX_HEAD_BYTES, MAX_INTERIM, MalformedReply, ReplyReader, WireHttp } from "../../src/agents/wire-http.ts";
import { AgentClient, AgentUnreachable } from "../../src/agents/client.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";
import { join } from "node:path";

after(removeTempDirs);

/** Feeds `bytes` to a reader in pieces of `size` (1 = byte by byte); returns the reader once whole. */
function read(bytes: string | Buffer, size = Infinity, maxBody = 1 << 20): ReplyReader {
  const buf = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
  const reader = new ReplyReader(maxBody);
  for (let i = 0; i < buf.length; i += size === Infinity ? buf.length : size) {
    if (reader.feed(buf.subarray(i, size === Infinity ? buf.length : i + size))) return reader;
  }
  return reader;
}

const GOOD: [string, string, number, string, boolean][] = [
  ["Content-Length", "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{\"ok\":true}", 200, '{"ok":true}', true],
  ["chunked with an extension and a trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\n{\"ok\r\n7\r\n\":true}\r\n0\r\nx-t: 1\r\n\r\n", 200, '{"ok":true}', true],
  ["an interim 100 first", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 409 Conflict\r\ncontent-length: 2\r\n\r\n{}", 409, "{}", true],
  ["no body (204)", "HTTP/1.1 204 No Content\r\n\r\n", 204, "", true],
  ["connection: close", "HTTP/1.1 200 OK\r\nConnection: close\r\ncontent-length: 2\r\n\r\n{}", 200, "{}", false],
  ["HTTP/1.0 without keep-alive", "HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\n{}", 200, "{}", false],
  ["a character split between two chunks", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n\"\xc3\r\n2\r\n\xa9\"\r\n0\r\n\r\n", 200, '"é"', true],
];

describe("reply reader", () => {
  for (const [what, bytes, status, text, keepAlive] of GOOD) {
    test(`reads ${what}, whole and in every split`, () => {
      const buf = Buffer.from(bytes, "latin1");
      for (const size of [Infinity, 1, 2, 3, 7]) {
        const r = read(buf, size);
        assert.equal(r.done, true, `size ${size}`);
        assert.deepEqual([r.status, r.text, r.keepAlive], [status, text, keepAlive], `size ${size}`);
      }
    });
  }

  test("a body framed by the connection's end is whole when it closes, and the connection is not kept", () => {
    const r = read("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{\"a\":");
    assert.equal(r.done, false);
    r.feed(Buffer.from("1}"));
    r.end();
    assert.deepEqual([r.done, r.text, r.keepAlive], [true, '{"a":1}', false]);
  });

  const BAD: [string, string | Buffer, RegExp][] = [
    ["not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", /status line/],
    ["HTTP/2", "HTTP/2 200\r\n\r\n", /status line/],
    ["a status of two digits", "HTTP/1.1 20 OK\r\n\r\n", /status line/],
    ["a header line without a colon", "HTTP/1.1 200 OK\r\nbroken\r\n\r\n", /header line/],
    ["a header line folded", "HTTP/1.1 200 OK\r\nx: a\r\n b\r\n\r\n", /header line/],
    ["a header name with a space", "HTTP/1.1 200 OK\r\nx y: 1\r\n\r\n", /header line/],
    ["a length that is not a number", "HTTP/1.1 200 OK\r\ncontent-length: 1e3\r\n\r\n", /Content-Length/],
    ["a negative length", "HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n", /Content-Length/],
    ["two different lengths", "HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}", /two different/],
    ["a length and chunked (smuggling)", "HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n", /both/],
    ["another transfer coding", "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n", /Transfer-Encoding/],
    ["chunked twice", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ntransfer-encoding: chunked\r\n\r\n", /Transfer-Encoding/],
    ["a chunk size that is not hex", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n", /chunk size/],
    ["a chunk longer than its size", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1\r\nab\r\n0\r\n\r\n", /longer than its size/],
    ["a chunk line without CR", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1\n", /CRLF/],
    ["a chunk line that never ends", `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${"1".repeat(2000)}`, /too long/],
    ["a switch of protocols", "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n", /switched/],
  ];
  for (const [what, bytes, error] of BAD) {
    test(`refuses ${what}`, () => {
      assert.throws(() => {
        const r = read(bytes, 1);
        r.end();
      }, (err: unknown) => err instanceof MalformedReply && error.test(err.message));
    });
  }

  test("refuses a head larger than its cap, and a body larger than the reply cap in any framing", () => {
    assert.throws(() => read(`HTTP/1.1 200 OK\r\nx: ${"a".repeat(MAX_HEAD_BYTES)}\r\n\r\n`, 4096), /head larger/);
    assert.throws(() => read(`HTTP/1.1 200 OK\r\nx: ${"a".repeat(MAX_HEAD_BYTES)}`, 4096), /head larger/);
    assert.throws(() => read("HTTP/1.1 200 OK\r\ncontent-length: 11\r\n\r\n", Infinity, 10), /reply larger than 10 bytes/);
    assert.throws(() => read("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\n", Infinity, 10), /reply larger than 10 bytes/);
    assert.throws(() => read(`HTTP/1.1 200 OK\r\n\r\n${"a".repeat(11)}`, 3, 10), /reply larger than 10 bytes/);
  });

  test("a reply cut off before it is whole is refused when the connection ends", () => {
    for (const bytes of ["HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n{}", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n", "HTTP/1.1 200"]) {
      const r = read(bytes);
      assert.throws(() => r.end(), /closed before the reply was whole/);
    }
  });

  test(`interim replies are skipped up to ${MAX_INTERIM}; an agent that sends them without end is refused`, () => {
    const interim = "HTTP/1.1 102 Processing\r\n\r\n";
    assert.equal(read(`${interim.repeat(MAX_INTERIM)}HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}`, 5).text, "{}");
    assert.throws(() => read(interim.repeat(100_000), 4096), /more than 8 interim replies/);
  });

  test("a head trickled in a byte at a time, up to its cap, is read; one byte more is refused", () => {
    const pad = "x".repeat(MAX_HEAD_BYTES - 200);
    const head = `HTTP/1.1 200 OK\r\nx-pad: ${pad}\r\ncontent-length: 2\r\n\r\n{}`;
    const r = read(head, 1);
    assert.deepEqual([r.done, r.status, r.text], [true, 200, "{}"]);
    assert.throws(() => read(`HTTP/1.1 200 OK\r\nx-pad: ${"x".repeat(MAX_HEAD_BYTES)}\r\n\r\n`, 1), /head larger/);
  });

  test("bytes after a whole reply make its connection one not to use again", () => {
    const r = read('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}HTTP/1.1 200 OK\r\n');
    assert.deepEqual([r.done, r.text, r.keepAlive], [true, "{}", false]);
  });
});

/** A raw agent: answers each request (its head and body, as text) with the bytes `reply` returns. */
async function rawAgent(reply: (request: string, n: number, socket: Socket) => string | null): Promise<{ path: string; server: Server; connections: () => number }> {
  const path = join(tempDir(), "raw.sock");
  let connections = 0;
  let n = 0;
  const server = createServer((socket) => {
    connections++;
    let buf = "";
    socket.on("data", (d) => {
      buf += d.toString("latin1");
      for (;;) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        const request = buf.slice(0, end + 4 + len);
        buf = buf.slice(end + 4 + len);
        const out = reply(request, ++n, socket);
        if (out !== null) socket.write(out);
      }
    });
    socket.on("error", () => {});
  });
  server.listen(path);
  await once(server, "listening");
  after(() => server.close());
  return { path, server, connections: () => connections };
}

const ok = (body: string, extra = "") => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const signal = () => new AbortController().signal;

describe("wire client over a Unix socket", () => {
  test("sends one well-formed request and keeps the connection for the next", async () => {
    const seen: string[] = [];
    const agent = await rawAgent((req) => {
      seen.push(req);
      return ok('{"ok":true}');
    });
    const wire = new WireHttp({ path: agent.path });
    for (let i = 0; i < 3; i++) {
      const r = await wire.request({ method: "POST", path: "/durable/v1/x", headers: { "collie-wire": "1" }, body: '{"a":"é"}', maxBody: 1000, signal: signal() });
      assert.deepEqual(r, { status: 200, text: '{"ok":true}' });
    }
    assert.equal(agent.connections(), 1);
    assert.equal(seen[0], "POST /durable/v1/x HTTP/1.1\r\nhost: localhost\r\ncollie-wire: 1\r\ncontent-length: 10\r\nconnection: keep-alive\r\n\r\n{\"a\":\"é\"}".replace("é", "\xc3\xa9"));
    wire.close();
  });

  test("a header value or path with a line break, or outside ASCII, is refused before anything is sent", async () => {
    const agent = await rawAgent(() => ok("{}"));
    const wire = new WireHttp({ path: agent.path });
    const refused: Record<string, string>[] = [{ authorization: "Bearer a\r\nx-evil: 1" }, { authorization: "Bearer tökén" }, { "bad name": "x" }];
    for (const headers of refused) {
      await assert.rejects(wire.request({ method: "GET", path: "/x", headers, maxBody: 100, signal: signal() }), { code: "ERR_INVALID_CHAR" });
    }
    await assert.rejects(wire.request({ method: "GET", path: "/x y", headers: {}, maxBody: 100, signal: signal() }), { code: "ERR_INVALID_CHAR" });
    assert.equal(agent.connections(), 0);
    wire.close();
  });

  test("a kept connection the agent closed as the request went out is replaced once; a refusal is kept no more", async () => {
    const agent = await rawAgent((_req, n, socket) => {
      if (n === 2) {
        socket.destroy(); // the second request finds its kept connection gone
        return null;
      }
      return ok(`{"n":${n}}`);
    });
    const wire = new WireHttp({ path: agent.path });
    assert.equal((await wire.request({ method: "GET", path: "/a", headers: {}, maxBody: 100, signal: signal() })).text, '{"n":1}');
    assert.equal((await wire.request({ method: "GET", path: "/b", headers: {}, maxBody: 100, signal: signal() })).text, '{"n":3}');
    assert.equal(agent.connections(), 2);
    wire.close();
  });

  test("a malformed reply fails its request and its connection is never used again", async () => {
    const agent = await rawAgent((_req, n) => (n === 1 ? "HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n" : ok("{}")));
    const wire = new WireHttp({ path: agent.path });
    await assert.rejects(wire.request({ method: "GET", path: "/a", headers: {}, maxBody: 100, signal: signal() }), MalformedReply);
    assert.equal((await wire.request({ method: "GET", path: "/b", headers: {}, maxBody: 100, signal: signal() })).text, "{}");
    assert.equal(agent.connections(), 2);
    wire.close();
  });

  test("at most maxSockets requests at once; the rest wait and go in order; an abort while waiting leaves the queue", async () => {
    const pending: Socket[] = [];
    const agent = await rawAgent((req, _n, socket) => {
      if (req.startsWith("GET /park")) {
        pending.push(socket);
        return null;
      }
      return ok(`"${req.split(" ")[1]}"`);
    });
    const wire = new WireHttp({ path: agent.path }, 2);
    const parked = [1, 2].map(() => wire.request({ method: "GET", path: "/park", headers: {}, maxBody: 100, signal: signal() }));
    const gone = new AbortController();
    const abandoned = wire.request({ method: "GET", path: "/abandoned", headers: {}, maxBody: 100, signal: gone.signal });
    const later = wire.request({ method: "GET", path: "/later", headers: {}, maxBody: 100, signal: signal() });
    await new Promise((r) => setTimeout(r, 50));
    gone.abort(new Error("gave up"));
    await assert.rejects(abandoned, /gave up/);
    assert.equal(pending.length, 2);
    pending[0]!.write(ok('"parked"'));
    assert.equal((await parked[0]!).text, '"parked"');
    assert.equal((await later).text, '"/later"');
    pending[1]!.write(ok('"parked"'));
    await parked[1];
    assert.equal(agent.connections(), 2);
    wire.close();
  });

  test("a kept connection the agent closes while idle is dropped, and the next request opens another", async () => {
    const sockets: Socket[] = [];
    const agent = await rawAgent((_req, _n, socket) => {
      sockets.push(socket);
      return ok("{}");
    });
    const wire = new WireHttp({ path: agent.path });
    await wire.request({ method: "GET", path: "/a", headers: {}, maxBody: 100, signal: signal() });
    sockets[0]!.end(); // the agent's keep-alive timeout
    await new Promise((r) => setTimeout(r, 30));
    await wire.request({ method: "GET", path: "/b", headers: {}, maxBody: 100, signal: signal() });
    assert.equal(agent.connections(), 2);
    wire.close();
  });

  test("a request ended before its connection was found does not hang, and sends nothing", async () => {
    const seen: string[] = [];
    const agent = await rawAgent((req) => {
      seen.push(req);
      return null;
    });
    const wire = new WireHttp({ path: agent.path });
    const stop = new AbortController();
    const request = wire.request({ method: "GET", path: "/a", headers: {}, maxBody: 100, signal: stop.signal });
    stop.abort(new Error("stopped"));
    await assert.rejects(request, /stopped/);
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(seen, []);
    wire.close();
  });
});

describe("wire client: closing", () => {
  test("closing the client ends the requests it is carrying and those waiting for a connection", async () => {
    const agent = await rawAgent(() => null); // never answers
    const wire = new WireHttp({ path: agent.path }, 1);
    const running = wire.request({ method: "GET", path: "/a", headers: {}, maxBody: 100, signal: signal() });
    const waiting = wire.request({ method: "GET", path: "/b", headers: {}, maxBody: 100, signal: signal() });
    await new Promise((r) => setTimeout(r, 30));
    wire.close();
    await assert.rejects(running, /closed/);
    await assert.rejects(waiting, /closed/);
  });
});

describe("agent client over Collie's wire client", () => {
  test("errors are AgentUnreachable in words without the token: refused, malformed, too large, no reply in time", async () => {
    const dir = tempDir();
    const missing = new AgentClient({ kind: "socket", path: join(dir, "none.sock") }, [1]);
    await assert.rejects(missing.get("/durable/hello", 1000), (e: unknown) => e instanceof AgentUnreachable && /does not exist/.test(e.message));
    const bad = await rawAgent(() => "HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}");
    const c1 = new AgentClient({ kind: "socket", path: bad.path }, [1]);
    await assert.rejects(c1.get("/x", 1000), (e: unknown) => e instanceof AgentUnreachable && /two different Content-Lengths/.test(e.message));
    const silent = await rawAgent(() => null);
    const c2 = new AgentClient({ kind: "socket", path: silent.path }, [1]);
    await assert.rejects(c2.get("/x", 100), (e: unknown) => e instanceof AgentUnreachable && /no reply within 100 ms/.test(e.message));
    const stop = new AbortController();
    const cancelled = c2.get("/x", 5000, stop.signal);
    stop.abort();
    await assert.rejects(cancelled, (e: unknown) => e instanceof AgentUnreachable && e.message === "cancelled");
    const notJson = await rawAgent(() => ok("{nope"));
    const c3 = new AgentClient({ kind: "socket", path: notJson.path }, [1]);
    await assert.rejects(c3.get("/x", 1000), /reply 200 is not JSON/);
    for (const c of [missing, c1, c2, c3]) c.close();
  });
});

describe("wire client: a connection that fails before its request is on it", () => {
  test("the failure is the request's error, never an unheard one", async () => {
    // Many requests to a socket that does not exist, started from a socket's callback (where
    // Node runs its ticks before promise continuations): each fails with ENOENT, none is lost.
    const dir = tempDir();
    const wire = new WireHttp({ path: join(dir, "none.sock") }, 2);
    const agent = await rawAgent(() => ok("{}"));
    const kick = new WireHttp({ path: agent.path });
    const results = await new Promise<unknown[]>((resolve) => {
      void kick.request({ method: "GET", path: "/kick", headers: {}, maxBody: 100, signal: signal() }).then(() => {
        void Promise.allSettled(Array.from({ length: 6 }, () => wire.request({ method: "GET", path: "/a", headers: {}, maxBody: 100, signal: signal() }))).then(resolve);
      });
    });
    for (const r of results) assert.equal((r as PromiseRejectedResult).reason?.code, "ENOENT");
    wire.close();
    kick.close();
  });
});
