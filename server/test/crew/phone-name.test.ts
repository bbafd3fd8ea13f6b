/**
 * Across a crew (C-1, issue #37): the lead names the phone that acted in one header, and the
 * member's record of a held answer names that phone. The header is outside input: hostile values
 * give a plain name, never a throw. (A member's decisions are read by the live contract's reader:
 * shared/test/fixtures/live/decision, crew/member-hostile.test.ts.)
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { answeredBy, phoneNameHeader, PHONE_NAME_HEADER } from "../../src/crew/phone-name.ts";
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
