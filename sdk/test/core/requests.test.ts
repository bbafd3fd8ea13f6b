/**
 * Versions and bad input: the warn line, version-mismatch, malformed and oversized requests (S-34,
 * W-1, W-5), in memory. The same limits over a socket, where the adapter reads the body, are in
 * transport/socket.test.ts; the descendant check, which needs the socket's peer, in
 * transport/descendant.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createCore, type DurableCore } from "../../src/core/core.ts";
import type { Pane } from "../../src/core/layout.ts";
import { LIMITS } from "../../src/wire/constants.ts";
import { CORE_TOKEN, openRig, type Rig } from "../helpers/agent.ts";

const V2_LINE = "collie: Collie speaks wire v2, this durable agent speaks v1. Update the agent's SDK, or Collie.";

/** A GET with no Collie-Wire header at all (FakePhone always sends one). */
async function bareGet(core: DurableCore, path: string): Promise<number> {
  return (await core.request({ method: "GET", path, headers: {} })).status;
}

describe("wire versions (S-34, W-1)", () => {
  let rig: Rig;
  const lines: string[] = [];
  before(async () => {
    rig = await openRig({ warn: (line) => void lines.push(line) });
    rig.collie.workspace("w").tab("t").pane("p");
  });
  after(() => rig.close());

  it("writes nothing through warn for a Collie that speaks v1, or no header at all", async () => {
    await rig.phone.hello();
    rig.phone.collieWire = "2, 1";
    await rig.phone.layout();
    assert.equal(await bareGet(rig.collie, "/durable/v1/layout"), 200);
    assert.deepEqual(lines, []);
  });

  it("writes the mismatch line through warn exactly once for a Collie that speaks only v2, however many requests it sends", async () => {
    rig.phone.collieWire = "2";
    const hello = await rig.phone.hello();
    assert.deepEqual(hello.wire, [1]);
    await rig.phone.layout();
    await rig.phone.pane("p");
    await rig.phone.events({ after: null });
    await rig.phone.request("GET", "/durable/v1/nowhere");
    assert.deepEqual(lines, [V2_LINE]);
  });

  it("still serves the requests of a mismatched Collie (the header never makes a request fail)", async () => {
    rig.phone.collieWire = "2";
    assert.equal((await rig.phone.request("GET", "/durable/v1/layout")).status, 200);
  });

  it("writes one more line for another Collie version", async () => {
    rig.phone.collieWire = "3, 2";
    await rig.phone.layout();
    await rig.phone.layout();
    assert.deepEqual(lines, [V2_LINE, "collie: Collie speaks wire v3, this durable agent speaks v1. Update the agent's SDK, or Collie."]);
    rig.phone.collieWire = "1";
  });

  it("answers 404 version-mismatch with speaks [1] for a path of a version it does not speak", async () => {
    const reply = await rig.phone.request("GET", "/durable/v2/layout");
    assert.equal(reply.status, 404);
    assert.equal(reply.body.error, "version-mismatch");
    assert.deepEqual(reply.body.speaks, [1]);
    const write = await rig.phone.request("POST", "/durable/v2/panes/p/send", { requestId: "r", text: "x" });
    assert.equal(write.status, 404);
    assert.equal(write.body.error, "version-mismatch");
  });

  it("serves hello only unversioned: /durable/v1/hello is 404 not-found", async () => {
    assert.equal((await rig.phone.request("GET", "/durable/hello")).status, 200);
    const reply = await rig.phone.request("GET", "/durable/v1/hello");
    assert.equal(reply.status, 404);
    assert.equal(reply.body.error, "not-found");
  });

  it("describes itself in hello: wire, sdk, runtime, name, instance, descendant check", async () => {
    const hello = await rig.phone.hello();
    assert.deepEqual(hello.wire, [1]);
    assert.equal(hello.sdk.name, "@colliepwa/durable-sdk");
    assert.equal(hello.runtime, `node ${process.versions.node}`);
    assert.equal(hello.name, null);
    assert.equal(hello.descendantCheck, false);
    assert.equal(hello.allowAlways, true);
    assert.match(hello.instance, /^[0-9a-f]{16}$/);
  });
});

describe("bad input is refused and changes nothing (W-5, L-2)", () => {
  let rig: Rig;
  let pane: Pane;
  let handled = 0;
  before(async () => {
    rig = await openRig({ hooks: { onRename: () => void handled++ } });
    pane = rig.collie.workspace("w").tab("t").pane("p", { title: "Stay" });
    pane.onSend(() => void handled++);
    pane.item({ id: "one", kind: "notice", text: "only item" });
    rig.collie.ready();
  });
  after(() => rig.close());

  async function unchanged(send: () => Promise<{ status: number; body: Record<string, unknown> }>, status: number, code: string): Promise<Record<string, unknown>> {
    const layoutBefore = await rig.phone.layout();
    const viewBefore = await rig.phone.pane("p");
    const count = handled;
    const reply = await send();
    assert.equal(reply.status, status, JSON.stringify(reply.body));
    assert.equal(reply.body.error, code);
    assert.equal(typeof reply.body.message, "string");
    assert.deepEqual(await rig.phone.layout(), layoutBefore);
    assert.deepEqual(await rig.phone.pane("p"), viewBefore);
    assert.equal(handled, count, "no handler ran");
    return reply.body;
  }

  it("answers 400 bad-request for a body that is not JSON", async () => {
    await unchanged(() => rig.phone.request("POST", "/durable/v1/panes/p/send", '{"requestId": "r1", "text": '), 400, "bad-request");
  });

  it("answers 400 bad-request for a body that is JSON but not an object", async () => {
    await unchanged(() => rig.phone.request("POST", "/durable/v1/panes/p/send", "[1,2]"), 400, "bad-request");
    await unchanged(() => rig.phone.request("POST", "/durable/v1/panes/p/send", "null"), 400, "bad-request");
  });

  it("answers 400 bad-request naming requestId when it is missing", async () => {
    const body = await unchanged(() => rig.phone.request("POST", "/durable/v1/panes/p/send", { text: "hi" }), 400, "bad-request");
    assert.match(String(body.message), /requestId/);
  });

  it("answers 400 bad-request for a requestId that breaks the ID rule", async () => {
    for (const requestId of ["has space", "a/b", "x".repeat(129), "", 42]) {
      const body = await unchanged(() => rig.phone.request("POST", "/durable/v1/panes/p/send", { requestId, text: "hi" }), 400, "bad-request");
      assert.match(String(body.message), /requestId/);
    }
  });

  it("answers 400 bad-request for a bad field, naming its path and the rule", async () => {
    const body = await unchanged(
      () => rig.phone.request("POST", "/durable/v1/rename", { requestId: "r-bad", target: { kind: "pane", id: "p q" }, title: "New" }),
      400, "bad-request",
    );
    assert.match(String(body.message), /target\.id.*ID rule/);
    await unchanged(() => rig.phone.request("POST", "/durable/v1/panes/p/send", { requestId: "r-empty", text: "" }), 400, "bad-request");
    await unchanged(() => rig.phone.request("POST", "/durable/v1/panes/p/send", { requestId: "r-long", text: "x".repeat(16 * 1024 + 1) }), 400, "bad-request");
  });

  it("answers 404 not-found for an unknown route or method", async () => {
    await unchanged(() => rig.phone.request("GET", "/durable/v1/nothing-here"), 404, "not-found");
    await unchanged(() => rig.phone.request("POST", "/durable/v1/layout", { requestId: "r" }), 404, "not-found");
    await unchanged(() => rig.phone.request("DELETE", "/durable/v1/panes/p"), 404, "not-found");
    await unchanged(() => rig.phone.request("GET", "/elsewhere"), 404, "not-found");
    await unchanged(() => rig.phone.request("GET", "/durable/v1/panes/p/extra"), 404, "not-found");
  });

  it("answers 404 not-found for a pane that does not exist", async () => {
    await unchanged(() => rig.phone.request("GET", "/durable/v1/panes/nope"), 404, "not-found");
  });

  it("answers 413 too-large for a body over 256 KiB", async () => {
    const big = JSON.stringify({ requestId: "r-big", text: "hi" }).padEnd(LIMITS.bodyBytes + 1, " ");
    await unchanged(() => rig.phone.request("POST", "/durable/v1/panes/p/send", big), 413, "too-large");
    const huge = "x".repeat(4 * LIMITS.bodyBytes);
    await unchanged(() => rig.phone.request("POST", "/durable/v1/panes/p/send", huge), 413, "too-large");
    // The agent keeps serving afterwards.
    assert.equal((await rig.phone.layout()).ready, true);
  });

  it("reads a body of exactly 256 KiB", async () => {
    const exact = JSON.stringify({ requestId: "r-exact", text: "hi" }).padEnd(LIMITS.bodyBytes, " ");
    assert.equal(Buffer.byteLength(exact), LIMITS.bodyBytes);
    const count = handled;
    const reply = await rig.phone.request("POST", "/durable/v1/panes/p/send", exact);
    assert.equal(reply.status, 200);
    assert.equal(handled, count + 1);
  });

  it("answers 400 bad-request for a history or events query out of range", async () => {
    rig.collie.history({ list: () => ({ rows: [] }), items: () => null });
    await unchanged(() => rig.phone.request("GET", "/durable/v1/history?limit=0"), 400, "bad-request");
    await unchanged(() => rig.phone.request("GET", "/durable/v1/history?limit=501"), 400, "bad-request");
    await unchanged(() => rig.phone.request("GET", "/durable/v1/history?after=has%20space"), 400, "bad-request");
    await unchanged(() => rig.phone.request("GET", "/durable/v1/events?wait=abc"), 400, "bad-request");
  });
});

describe("request() with a body or request of the wrong type (W-5)", () => {
  const send = (body: unknown) => ({ method: "POST", path: "/durable/v1/panes/p/send", headers: {}, body: body as string });

  it("answers 400 bad-request, not 500, for a body that is neither text nor bytes, and runs nothing", async () => {
    const rig = await openRig();
    try {
      let handled = 0;
      rig.collie.workspace("w").tab("t").pane("p").onSend(() => void handled++);
      const json = { requestId: "r-object", text: "hi" };
      for (const body of [json, new TextEncoder().encode(JSON.stringify(json)).buffer, 42, () => Promise.resolve(json)]) {
        const reply = await rig.collie.request(send(body));
        assert.equal(reply.status, 400, JSON.stringify(reply.body));
        assert.deepEqual(reply.body, { error: "bad-request", message: "The body must be JSON text or bytes." });
      }
      assert.equal(handled, 0);
      // Bytes in any Uint8Array still read as before.
      const bytes = Buffer.from(JSON.stringify({ requestId: "r-bytes", text: "hi" }));
      assert.equal((await rig.collie.request(send(new Uint8Array(bytes)))).status, 200);
      assert.equal(handled, 1);
    } finally {
      await rig.close();
    }
  });

  it("never rejects for a request that is not an object, with or without a token", async () => {
    const withToken = createCore({ token: CORE_TOKEN });
    for (const req of [null, undefined, 42, "GET /"]) {
      const reply = await withToken.request(req as never);
      assert.equal(reply.status, 401);
      assert.equal((reply.body as { error?: string }).error, "unauthorized");
    }
    const bare = await withToken.request({ method: "GET", path: "/durable/hello" } as never);
    assert.equal(bare.status, 401, "no headers is no token");
    const rig = await openRig();
    try {
      for (const req of [null, undefined, 42]) {
        const reply = await rig.collie.request(req as never);
        assert.equal(typeof reply.status, "number");
        assert.equal(typeof (reply.body as { error?: string }).error, "string");
      }
    } finally {
      await rig.close();
    }
  });
});

describe("a body given as text is read as its UTF-8 bytes would be (W-5)", () => {
  it("a lone surrogate in the text reads as U+FFFD, and the limit counts the text's UTF-8 bytes", async () => {
    const rig = await openRig();
    try {
      const texts: string[] = [];
      rig.collie.workspace("w").tab("t").pane("p").onSend(({ text }) => void texts.push(text));
      const post = (body: string) => rig.collie.request({ method: "POST", path: "/durable/v1/panes/p/send", headers: {}, body });
      assert.equal((await post(`{"requestId": "r-lone", "text": "a\uD800b"}`)).status, 200);
      assert.deepEqual(texts, ["a\uFFFDb"]);
      // Three UTF-8 bytes each: a text of fewer characters than the limit can still be over it.
      const wide = `{"requestId": "r-wide", "text": "x"}`.padEnd(Math.floor(LIMITS.bodyBytes / 3) + 100, "\u2003");
      assert.ok(wide.length < LIMITS.bodyBytes && Buffer.byteLength(wide) > LIMITS.bodyBytes);
      assert.equal((await post(wide)).status, 413);
    } finally {
      await rig.close();
    }
  });
});
