/**
 * One-time codes (X-1, C-1; issue 38, item 8; issue 33, item 7): pairing codes and crew invites are
 * made and redeemed by one module; wrong guesses lock the guesser, never the code; the guesser
 * behind a front door is the client it forwarded.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { openStateDb } from "../../src/store/db.ts";
import { CODE_TTL_MS, GUESS_WINDOW_MS, guesserOf, MAX_GUESSERS, MAX_WRONG_TRIES, OneTimeCodes, refusal, THIS_MACHINE } from "../../src/security/one-time-codes.ts";

const codesAt = (clock: { now: number }, table: "pairing_codes" | "crew_invites" = "pairing_codes") =>
  new OneTimeCodes(openStateDb(":memory:"), { table, groups: table === "pairing_codes" ? 2 : 3 }, () => clock.now);

describe("one-time codes", () => {
  test("a code works once, within its 10 minutes, in any case and with or without dashes", () => {
    const clock = { now: 0 };
    const codes = codesAt(clock, "crew_invites");
    const { code, expiresAt } = codes.create();
    assert.match(code, /^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/);
    assert.equal(expiresAt, CODE_TTL_MS);
    assert.deepEqual(codes.redeem(code.toLowerCase().replaceAll("-", ""), "1.2.3.4"), { ok: true });
    assert.deepEqual(codes.redeem(code, "1.2.3.4"), { ok: false, reason: "wrong" });
    const late = codes.create();
    clock.now += CODE_TTL_MS + 1;
    assert.deepEqual(codes.redeem(late.code, "1.2.3.4"), { ok: false, reason: "expired" });
  });

  test("the guesser is locked, not the code: its right code is refused too, everyone else's works", () => {
    const clock = { now: 0 };
    const codes = codesAt(clock);
    const owner = codes.create();
    const attacker = codes.create();
    for (let i = 0; i < MAX_WRONG_TRIES; i++) assert.deepEqual(codes.redeem("ZZZZ-ZZZZ", "203.0.113.9"), { ok: false, reason: "wrong" });
    assert.deepEqual(codes.redeem(attacker.code, "203.0.113.9"), { ok: false, reason: "too-many-tries" });
    // The window is counted from the guesser's first wrong try.
    clock.now += GUESS_WINDOW_MS - 1;
    assert.deepEqual(codes.redeem(attacker.code, "203.0.113.9"), { ok: false, reason: "too-many-tries" });
    assert.deepEqual(codes.redeem(owner.code, "198.51.100.20"), { ok: true });
    clock.now += 1;
    assert.deepEqual(codes.redeem(attacker.code, "203.0.113.9"), { ok: true }, "judged again once the window passed");
  });

  test("a flood of guessers is bounded in memory and locks nobody else out", () => {
    const clock = { now: 0 };
    const codes = codesAt(clock);
    const { code } = codes.create();
    for (let i = 0; i < MAX_GUESSERS + 500; i++) codes.redeem("ZZZZ-ZZZZ", `guesser-${i}`);
    assert.equal(codes.guessers, MAX_GUESSERS);
    assert.deepEqual(codes.redeem(code, THIS_MACHINE), { ok: true });
  });

  test("who is guessing: the peer, or behind a front door the client it forwarded", () => {
    assert.equal(guesserOf("203.0.113.9", "10.0.0.1"), "203.0.113.9", "a peer that is not loopback forwards nothing we trust");
    assert.equal(guesserOf("127.0.0.1", "198.51.100.7"), "198.51.100.7");
    assert.equal(guesserOf("::ffff:127.0.0.1", "1.1.1.1, 198.51.100.7"), "198.51.100.7", "the entry the front door appended, the last");
    assert.equal(guesserOf("::1", "[2001:db8::5]:4431"), "2001:db8::5");
    assert.equal(guesserOf("127.0.0.1", "198.51.100.7:5555"), "198.51.100.7");
    assert.equal(guesserOf("127.0.0.1", ["1.1.1.1", "198.51.100.8"]), "198.51.100.8");
    assert.equal(guesserOf("127.0.0.1", undefined), THIS_MACHINE);
    assert.equal(guesserOf("127.0.0.1", "unknown"), THIS_MACHINE);
  });

  test("the words: Too many tries, and the old words for a wrong or expired code", () => {
    assert.deepEqual(refusal("pairing", "too-many-tries"), { code: "pairing-too-many-tries", message: "Too many tries. Wait 10 minutes, then try again." });
    assert.deepEqual(refusal("invite", "too-many-tries"), { code: "invite-too-many-tries", message: "Too many tries. Wait 10 minutes, then try again." });
    assert.deepEqual(refusal("pairing", "wrong"), { code: "pairing-wrong-code", message: "This pairing code is not valid. Run `collie pair` again." });
    assert.deepEqual(refusal("pairing", "expired"), { code: "pairing-expired", message: "This pairing code has expired. Run `collie pair` again." });
    assert.deepEqual(refusal("invite", "wrong"), { code: "invite-wrong-invite", message: "This invite is not valid. Run `collie crew invite` on the member again." });
    assert.deepEqual(refusal("invite", "expired"), { code: "invite-expired", message: "This invite has expired. Run `collie crew invite` on the member again." });
  });
});
