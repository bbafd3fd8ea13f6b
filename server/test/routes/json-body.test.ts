/**
 * A phone's body as it really comes over a socket (routes/json-body.ts): whole in the head's
 * packet, in pieces, chunked, too large, cut short. Collie takes a body as soon as its
 * Content-Length has come, so each shape is sent byte by byte here, over real HTTP.
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { FakeAgent } from "../helpers/fake-agent.ts";
import { setTimeout as sleep } from "node:timers/promises";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";
import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { BODY_LIMIT_BYTES, readBodyText } from "../../src/routes/json-body.ts";

let d: TestDaemon;
let fake: FakeAgent;
const received: { path: string; body: string }[] = [];

before(async () => {
  const dir = tempDir();
  fake = new FakeAgent({ panes: ["p1"] });
  fake.write = (path, body) => {
    received.push({ path, body });
    return { status: 200, body: { ok: true } };
  };
  await fake.listen({ socket: join(dir, "fake.sock") });
  d = await TestDaemon.start({ sources: { fixed: [{ name: "f", endpoint: { kind: "socket", path: join(dir, "fake.sock") }, key: "f" }] }, stateDir: join(dir, "state") });
  await d.waitState("f", "ready");
});

after(async () => {
  await closeAllDaemons();
  await fake.close();
  removeTempDirs();
});

const SEND = "/api/agents/f/panes/p1/send";

/** Writes `pieces` to a fresh connection `gapMs` apart, then reads the reply (or the connection's end). */
async function raw(head: string, pieces: (string | Buffer)[], opts: { gapMs?: number; endAfter?: boolean } = {}): Promise<{ status: number; body: Record<string, unknown> | null }> {
  const socket = connect(d.port, "127.0.0.1");
  const chunks: Buffer[] = [];
  socket.on("data", (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  socket.on("error", () => {});
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(head);
  for (const piece of pieces) {
    if (opts.gapMs) await sleep(opts.gapMs);
    socket.write(piece);
  }
  if (opts.endAfter) socket.end();
  // The reply is whole when its Content-Length has come, or the connection ended.
  const deadline = Date.now() + 5000;
  for (;;) {
    const text = Buffer.concat(chunks).toString("utf8");
    const m = /^HTTP\/1\.1 (\d{3})[^]*?\r\ncontent-length: (\d+)\r\n[^]*?\r\n\r\n([^]*)$/i.exec(text);
    if (m && Buffer.byteLength(m[3]!) >= Number(m[2])) {
      socket.destroy();
      return { status: Number(m[1]), body: JSON.parse(m[3]!) as Record<string, unknown> };
    }
    if (Date.now() > deadline || socket.destroyed) break;
    await Promise.race([ended, sleep(5)]);
  }
  socket.destroy();
  const status = /^HTTP\/1\.1 (\d{3})/.exec(Buffer.concat(chunks).toString("utf8"))?.[1];
  return { status: status ? Number(status) : 0, body: null };
}

function head(length: number | "chunked", path = SEND): string {
  return [
    `POST ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${d.port}`,
    `Authorization: Bearer ${d.token}`,
    "Content-Type: application/json",
    length === "chunked" ? "Transfer-Encoding: chunked" : `Content-Length: ${length}`,
    "",
    "",
  ].join("\r\n");
}

describe("a phone's body over a real socket (routes/json-body.ts)", () => {
  test("whole in the head's packet, it reaches the agent once", async () => {
    const body = JSON.stringify({ requestId: requestId("whole"), text: "hello" });
    const before = received.length;
    const r = await raw(head(Buffer.byteLength(body)) + body, []);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(received.slice(before).map((w) => JSON.parse(w.body).text), ["hello"]);
  });

  test("in pieces 20 ms apart, with a character split between two of them, it arrives whole", async () => {
    const body = Buffer.from(JSON.stringify({ requestId: requestId("pieces"), text: "grüße, 你好" }));
    const split = body.indexOf(Buffer.from("ü")) + 1; // between the two bytes of ü
    const before = received.length;
    const r = await raw(head(body.length), [body.subarray(0, 5), body.subarray(5, split), body.subarray(split)], { gapMs: 20 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(received.slice(before).map((w) => JSON.parse(w.body).text), ["grüße, 你好"]);
  });

  test("chunked, without a Content-Length, it is read to its end", async () => {
    const body = JSON.stringify({ requestId: requestId("chunked"), text: "in chunks" });
    const a = body.slice(0, 10);
    const b = body.slice(10);
    const before = received.length;
    const r = await raw(head("chunked"), [`${a.length.toString(16)}\r\n${a}\r\n`, `${b.length.toString(16)}\r\n${b}\r\n`, "0\r\n\r\n"], { gapMs: 10 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(received.slice(before).map((w) => JSON.parse(w.body).text), ["in chunks"]);
  });

  test("over 256 KiB is 413 too-large, whether its Content-Length says so or its chunks pass the limit; the agent gets nothing", async () => {
    const before = received.length;
    const declared = await raw(head(256 * 1024 + 1), []);
    assert.equal(declared.status, 413);
    assert.equal(declared.body?.error, "too-large");
    const piece = "x".repeat(64 * 1024);
    const chunk = `${piece.length.toString(16)}\r\n${piece}\r\n`;
    const chunked = await raw(head("chunked"), [chunk, chunk, chunk, chunk, chunk]);
    assert.equal(chunked.status, 413);
    assert.equal(chunked.body?.error, "too-large");
    assert.equal(received.length, before);
    assert.equal((await d.get("/api/health")).status, 200);
  });

  test("no body at all is 400 bad-request", async () => {
    const r = await raw(head(0), []);
    assert.equal(r.status, 400);
    assert.equal(r.body?.error, "bad-request");
  });

  test("cut short by a client that goes away, nothing reaches the agent and Collie goes on", async () => {
    const body = JSON.stringify({ requestId: requestId("cut"), text: "never whole" });
    const before = received.length;
    await raw(head(Buffer.byteLength(body) + 10), [body], { endAfter: true });
    await sleep(50);
    assert.equal(received.length, before);
    const whole = JSON.stringify({ requestId: requestId("after"), text: "after" });
    assert.equal((await raw(head(Buffer.byteLength(whole)) + whole, [])).status, 200);
  });
});

describe("readBodyText answers once, whatever the stream does", () => {
  const stream = (contentLength?: number) => Object.assign(new PassThrough(), { headers: contentLength === undefined ? {} : { "content-length": String(contentLength) } }) as unknown as IncomingMessage;
  const read = (req: IncomingMessage) => {
    const calls: { err: Error | null; text?: string }[] = [];
    readBodyText(req, BODY_LIMIT_BYTES, (err, text) => calls.push({ err, ...(text !== undefined ? { text } : {}) }));
    return calls;
  };

  test("a stream closed before its Content-Length came, without an error, is refused 400", async () => {
    const req = stream(10);
    const calls = read(req);
    (req as unknown as PassThrough).write("abc");
    (req as unknown as PassThrough).destroy();
    await sleep(10);
    assert.equal(calls.length, 1);
    assert.equal((calls[0]!.err as Error & { statusCode?: number }).statusCode, 400);
  });

  test("a whole body is taken once, and the stream's end and close after it change nothing", async () => {
    const req = stream(5);
    const calls = read(req);
    (req as unknown as PassThrough).end("hello");
    await sleep(10);
    (req as unknown as PassThrough).destroy();
    await sleep(10);
    assert.deepEqual(calls, [{ err: null, text: "hello" }]);
  });
});
