/**
 * The live contract's golden fixtures (shared/test/fixtures/live) through the crew link's reader
 * (C-1): each fixture as a frame of a member's socket, read as the lead reads a member
 * (`readMemberFrame` with `agentReads`: cut, cleaned). Every accept is taken (as its `cut` value
 * when it has one), every reject refused with its error unless a cutting read takes it; a binary
 * frame is refused whatever it holds.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { frameOf, jsonCopy, loadLiveFixtures } from "../../../shared/test/fixtures/live.ts";
import { readMemberFrame } from "../../src/crew/member.ts";
import { agentReads } from "../../src/agents/gateway.ts";

const reads = agentReads();

for (const f of loadLiveFixtures()) {
  // An act's reply answers a phone's own act; a lead sends its member none, so it takes none.
  if (f.type === "act-reply") {
    test(`the crew link refuses ${f.id}: a lead sent no act`, () => {
      const r = readMemberFrame(Buffer.from(frameOf(f)), false, reads);
      assert.ok(!r.ok);
      if (f.expect === "accept") assert.match(r.error, /act-reply, and this lead sent no act/);
    });
    continue;
  }
  test(`the crew link ${f.expect === "accept" || f.cut !== undefined ? "takes" : "refuses"} ${f.id}: ${f.about}`, () => {
    const r = readMemberFrame(Buffer.from(frameOf(f)), false, reads);
    if (f.cut !== undefined || f.expect === "accept") {
      assert.ok(r.ok, `${f.id}: ${r.ok ? "" : r.error}`);
      const want = f.cut ?? f.value;
      if (want !== undefined) assert.deepStrictEqual(jsonCopy(r.value), want);
    } else {
      assert.ok(!r.ok, `${f.id} should be refused`);
      assert.ok(r.error.includes(f.error!), `${f.id}: ${r.error}`);
    }
  });
}

test("a binary frame is refused, whatever it holds", () => {
  const f = loadLiveFixtures().find((x) => x.expect === "accept")!;
  const r = readMemberFrame(Buffer.from(frameOf(f)), true, reads);
  assert.deepEqual(r, { ok: false, error: "a binary frame" });
});
