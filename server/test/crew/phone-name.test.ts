/**
 * Across a crew (C-1, issue #37): the lead names the phone that acted in one header, and the
 * member's record of a held answer names that phone; a member's decisions are rebuilt field by
 * field before the lead passes them on. Both are outside input: hostile values give a plain name
 * or nothing, never a throw.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { answeredBy, phoneNameHeader, PHONE_NAME_HEADER } from "../../src/crew/phone-name.ts";
import { checkDecision } from "../../src/crew/check-decision.ts";
import type { Device } from "../../src/security/devices.ts";

const phone: Device = { id: "d1", name: "Pixel", kind: "phone", createdAt: 0, lastSeen: 0 };
const lead: Device = { id: "d2", name: "vm", kind: "crew-lead", createdAt: 0, lastSeen: 0 };

describe("which phone answered", () => {
  test("the lead names the phone, percent-encoded; the member reads it back for a crew lead only", () => {
    const header = phoneNameHeader("Zoë's Pixel");
    assert.deepEqual(Object.keys(header), [PHONE_NAME_HEADER]);
    assert.match(header[PHONE_NAME_HEADER]!, /^[\x21-\x7e]+$/, "ASCII only, as a header must be");
    assert.equal(answeredBy(lead, header[PHONE_NAME_HEADER]), "Zoë's Pixel");
    assert.equal(answeredBy(phone, header[PHONE_NAME_HEADER]), "Pixel", "a phone cannot name another");
    assert.deepEqual(phoneNameHeader(undefined), {});
  });
  test("hostile or missing names give the lead's own name", () => {
    for (const bad of [undefined, "", "%", "%E0%A4%A", ["a", "b"], 42, "%00%07", " ".repeat(10), "x".repeat(100_000)]) {
      assert.equal(answeredBy(lead, bad), "vm", JSON.stringify(bad)?.slice(0, 40));
    }
    assert.equal(answeredBy(lead, encodeURIComponent(`a\u0000b\u202Ec${"d".repeat(100)}`)).length, 64);
    assert.equal(answeredBy(undefined, "x"), "a phone");
  });
});

describe("a member's decision on the lead", () => {
  const good = { askId: "a1", paneId: "p1", itemId: "i1", kind: "permission", title: "refund wants to run", device: "Pixel", at: "2026-12-02T14:05:00.000Z" };
  test("a good one passes, held with its request id and a checked answer", () => {
    assert.deepEqual(checkDecision(good), good);
    const held = checkDecision({ ...good, held: true, requestId: "r1", answer: { kind: "permission", optionId: "allow" }, tool: "refund", optionKind: "allow", extra: "dropped" });
    assert.deepEqual(held, { ...good, held: true, requestId: "r1", answer: { kind: "permission", optionId: "allow" }, tool: "refund", optionKind: "allow" });
  });
  test("null, wrong types, missing fields: nothing; an answer the wire would refuse is left out", () => {
    for (const bad of [null, [], 1, "x", {}, { ...good, askId: 1 }, { ...good, at: null }, { ...good, device: "" }, { ...good, title: {} }, { ...good, askId: "x".repeat(5000) }]) {
      assert.equal(checkDecision(bad), null, JSON.stringify(bad)?.slice(0, 60));
    }
    let deep: unknown = { kind: "permission", optionId: "allow" };
    for (let i = 0; i < 10_000; i++) deep = { kind: "form", values: { f: deep } };
    assert.equal(checkDecision({ ...good, held: "yes", answer: deep })!.answer, undefined);
    assert.equal(checkDecision({ ...good, held: "yes" })!.held, undefined);
    assert.equal(checkDecision({ ...good, answer: { kind: "permission" } })!.answer, undefined);
  });
});
