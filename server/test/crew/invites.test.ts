/**
 * Crew invites (C-1): one use, 10 minutes, stored hashed, wrong guesses lock the guesser like pairing codes;
 * a redeemed invite is a device of kind `crew-lead` that the gate takes like a paired phone.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { openStateDb } from "../../src/store/db.ts";
import { Devices } from "../../src/security/devices.ts";
import { INVITE_TTL_MS, Invites } from "../../src/crew/invites.ts";
import { MAX_WRONG_TRIES, THIS_MACHINE } from "../../src/security/one-time-codes.ts";

function setup() {
  let now = 1_000_000;
  const state = openStateDb(":memory:");
  const devices = new Devices(state, () => now);
  const invites = new Invites(state, devices, () => now);
  return { state, devices, invites, advance: (ms: number) => (now += ms) };
}

describe("crew invites (C-1)", () => {
  test("an invite redeems once into a crew-lead credential the devices list and check know", () => {
    const { devices, invites, state } = setup();
    const { invite } = invites.create();
    assert.match(invite, /^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/);
    const stored = JSON.stringify(state.db.prepare("SELECT * FROM crew_invites").all());
    assert.ok(!stored.includes(invite.replaceAll("-", "")) && !stored.includes(invite), "only the invite's hash is stored");
    const r = invites.redeem(invite.toLowerCase(), "lead box", "10.0.0.9");
    assert.ok(r.ok);
    assert.equal(r.device.kind, "crew-lead");
    assert.equal(r.device.name, "lead box");
    assert.deepEqual(devices.list().map((d) => [d.name, d.kind]), [["lead box", "crew-lead"]]);
    assert.equal(devices.check(r.token)?.kind, "crew-lead");
    assert.deepEqual(invites.redeem(invite, "lead box", "10.0.0.9"), { ok: false, reason: "wrong-invite" }, "a used invite is gone");
  });

  test("an invite past its 10 minutes is refused, and spent", () => {
    const { invites, advance } = setup();
    const { invite } = invites.create();
    advance(INVITE_TTL_MS + 1);
    assert.deepEqual(invites.redeem(invite, "lead", THIS_MACHINE), { ok: false, reason: "expired" });
    assert.deepEqual(invites.redeem(invite, "lead", THIS_MACHINE), { ok: false, reason: "wrong-invite" });
  });

  test("a guesser with too many wrong invites is refused outright, even with the right one; the invite lives on", () => {
    const { invites } = setup();
    const { invite } = invites.create();
    for (let i = 0; i < MAX_WRONG_TRIES; i++) assert.equal((invites.redeem("AAAA-BBBB-CCCC", "x", "10.0.0.7") as { reason: string }).reason, "wrong-invite");
    assert.deepEqual(invites.redeem(invite, "x", "10.0.0.7"), { ok: false, reason: "too-many-tries" });
    assert.ok(invites.redeem(invite, "x", "10.0.0.8").ok, "another guesser still redeems it");
  });

  test("wrong invites from many guessers never kill the owner's open invite (issue 38, item 8)", () => {
    const { invites } = setup();
    const { invite } = invites.create();
    for (let i = 0; i < 50; i++) assert.equal((invites.redeem(`WRNG-${i % 10}${i % 10}${i % 10}${i % 10}-ZZZZ`, "x", `198.51.100.${i}`) as { reason: string }).reason, "wrong-invite");
    assert.ok(invites.redeem(invite, "x", THIS_MACHINE).ok, "the open invite still works");
  });

  test("a phone's device stays a phone", () => {
    const { devices } = setup();
    const p = devices.pair(devices.createCode().code, "my phone", THIS_MACHINE);
    assert.ok(p.ok);
    assert.equal(p.device.kind, "phone");
  });
});
