/**
 * Collie's own HTTP/1.1 reader for agents' replies (agents/wire-http.ts, issue 31) under hostile
 * bytes: generated replies in every framing (Content-Length, chunked with extensions and
 * trailers, to the connection's end, after interim replies), split at random points, read back
 * whole and exactly; the same replies damaged (bytes flipped, cut, repeated, garbage) are either
 * read or refused with MalformedReply, never another exception, never a body past the cap.
 * Cases: FUZZ_CASES (default 10 000), seed FUZZ_SEED.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MalformedReply, ReplyReader } from "../../src/agents/wire-http.ts";
import { fuzzCases, report, Rng, SEED, seedOf } from "../../../sdk/test/helpers/fuzz.ts";

const CASES = fuzzCases(10_000);
const MAX_BODY = 4096;

function body(rng: Rng): Buffer {
  const kind = rng.int(3);
  if (kind === 0) return Buffer.from(JSON.stringify({ ok: true, text: "é€😀".repeat(rng.int(40)), n: rng.int(1e9) }), "utf8");
  const b = Buffer.alloc(rng.int(kind === 1 ? 64 : 3000));
  for (let i = 0; i < b.length; i++) b[i] = rng.int(256);
  return b;
}

/** A valid reply of `payload` in a random framing; `close` when it ends with the connection. */
function reply(rng: Rng, payload: Buffer): { bytes: Buffer; status: number; close: boolean } {
  const status = rng.pick([200, 200, 200, 202, 400, 404, 409, 500, 503]);
  const interim = rng.chance(0.1) ? "HTTP/1.1 100 Continue\r\n\r\n" : "";
  const headers = [`content-type: application/json`];
  if (rng.chance(0.3)) headers.push(`x-${rng.int(100)}: ${"v".repeat(rng.int(50))}`);
  const framing = rng.pick(["length", "length", "chunked", "close"] as const);
  const parts: Buffer[] = [];
  if (framing === "length") {
    headers.push(`Content-Length: ${payload.length}`);
    parts.push(payload);
  } else if (framing === "chunked") {
    headers.push("Transfer-Encoding: chunked");
    let at = 0;
    while (at < payload.length) {
      const n = Math.min(payload.length - at, 1 + rng.int(600));
      parts.push(Buffer.from(`${n.toString(16)}${rng.chance(0.2) ? ";ext=1" : ""}\r\n`, "latin1"), payload.subarray(at, at + n), Buffer.from("\r\n"));
      at += n;
    }
    parts.push(Buffer.from(`0\r\n${rng.chance(0.2) ? "x-trailer: 1\r\n" : ""}\r\n`, "latin1"));
  } else {
    parts.push(payload);
  }
  const head = Buffer.from(`${interim}HTTP/1.1 ${status} X\r\n${headers.join("\r\n")}\r\n\r\n`, "latin1");
  return { bytes: Buffer.concat([head, ...parts]), status, close: framing === "close" };
}

function feedSplit(rng: Rng, reader: ReplyReader, bytes: Buffer, close: boolean): void {
  let at = 0;
  while (at < bytes.length && !reader.done) {
    const n = rng.chance(0.3) ? 1 : 1 + rng.int(Math.max(1, bytes.length - at));
    reader.feed(bytes.subarray(at, at + n));
    at += n;
  }
  if (close || !reader.done) reader.end();
}

function damage(rng: Rng, bytes: Buffer): Buffer {
  const b = Buffer.from(bytes);
  switch (rng.int(5)) {
    case 0:
      for (let i = 0; i < 1 + rng.int(4); i++) if (b.length) b[rng.int(b.length)] = rng.int(256);
      return b;
    case 1:
      return b.subarray(0, rng.int(b.length + 1));
    case 2: {
      const at = rng.int(b.length + 1);
      return Buffer.concat([b.subarray(0, at), b.subarray(rng.int(b.length + 1)), b.subarray(at)]);
    }
    case 3: {
      const junk = Buffer.alloc(rng.int(200));
      for (let i = 0; i < junk.length; i++) junk[i] = rng.pick([13, 10, 48, 58, 32, rng.int(256)]);
      return Buffer.concat([b.subarray(0, rng.int(b.length + 1)), junk]);
    }
    default:
      return Buffer.from(b.toString("latin1").replace(/\r\n/g, () => rng.pick(["\r\n", "\n", "\r", "\r\n\r\n", ""])), "latin1");
  }
}

test(`${CASES} replies: valid ones read exactly in any split, damaged ones read or refused, never thrown otherwise`, () => {
  let read = 0;
  let refused = 0;
  for (let n = 0; n < CASES; n++) {
    const rng = new Rng(seedOf("wire-http", n));
    const payload = body(rng);
    const r = reply(rng, payload);
    const tooLarge = payload.length > MAX_BODY;
    if (rng.chance(0.5)) {
      const reader = new ReplyReader(MAX_BODY);
      try {
        feedSplit(rng, reader, r.bytes, r.close);
        assert.ok(!tooLarge, `case ${n} (seed ${SEED}): a body of ${payload.length} bytes past the cap was read`);
        assert.equal(reader.status, r.status, `case ${n}`);
        assert.equal(reader.text, new TextDecoder().decode(payload), `case ${n}: the body`);
        read++;
      } catch (err) {
        assert.ok(err instanceof MalformedReply && tooLarge && /reply larger than/.test(err.message), `case ${n} (seed ${SEED}): ${String(err)}`);
        refused++;
      }
    } else {
      const reader = new ReplyReader(MAX_BODY);
      try {
        feedSplit(rng, reader, damage(rng, r.bytes), true);
        assert.ok(Buffer.byteLength(reader.text) <= MAX_BODY * 3, `case ${n}: a body past the cap`);
        read++;
      } catch (err) {
        assert.ok(err instanceof MalformedReply, `case ${n} (seed ${SEED}): not a MalformedReply: ${String(err)}`);
        refused++;
      }
    }
  }
  console.log(report("wire-http-fuzz", { cases: CASES, read, refused }));
});
