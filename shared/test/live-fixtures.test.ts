/**
 * The live contract's golden fixtures (D-4, C-1) through its one reader, `readLiveText`: strict,
 * as the contract states what a Collie sends, and cutting, as a lead reads a member. Every
 * accept is read (as its `value` when it has one); every reject is refused with its error, except
 * where a cutting read takes it (`cut`).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { LIVE_MESSAGE_TYPES, readLiveText } from "../src/live-read.ts";
import { frameOf, jsonCopy, loadLiveFixtures, NOT_A_MESSAGE, type LiveFixture } from "./fixtures/live.ts";

const fixtures = loadLiveFixtures();

describe("the live fixture set", () => {
  test("every live message type has accept and reject fixtures, and no directory names another", () => {
    for (const type of LIVE_MESSAGE_TYPES) {
      assert.ok(fixtures.some((f) => f.type === type && f.expect === "accept"), `${type}: no accept fixture`);
      assert.ok(fixtures.some((f) => f.type === type && f.expect === "reject"), `${type}: no reject fixture`);
    }
    for (const f of fixtures) assert.ok([...LIVE_MESSAGE_TYPES, NOT_A_MESSAGE].includes(f.type as never), `${f.id}: not a live message type`);
  });

  test("every accept fixture is a message of its directory's type; every about line cites a spec id", () => {
    for (const f of fixtures) {
      assert.match(f.about, /\b[A-Z]-\d+\b/, `${f.id}: about names no spec id`);
      if (f.expect === "accept") assert.equal((f.message as { type?: unknown }).type, f.type, f.id);
    }
  });
});

function strict(f: LiveFixture): void {
  const r = readLiveText(frameOf(f));
  if (f.expect === "accept") {
    assert.ok(r.ok, `${f.id} should be accepted: ${r.ok ? "" : r.error}`);
    if (f.value !== undefined) assert.deepStrictEqual(jsonCopy(r.value), f.value, `${f.id}: value`);
    // What the reader gives is itself a message of the contract, read the same again.
    const again = readLiveText(JSON.stringify(r.value));
    assert.ok(again.ok, `${f.id}: its value does not read again`);
    assert.deepStrictEqual(again.value, r.value);
  } else {
    assert.ok(!r.ok, `${f.id} should be refused`);
    assert.ok(r.error.includes(f.error!), `${f.id}: error ${JSON.stringify(r.error)} does not contain ${JSON.stringify(f.error)}`);
  }
}

function cutting(f: LiveFixture): void {
  const r = readLiveText(frameOf(f), { cut: true });
  if (f.cut !== undefined) {
    assert.ok(r.ok, `${f.id} should be taken by a cutting read: ${r.ok ? "" : r.error}`);
    assert.deepStrictEqual(jsonCopy(r.value), f.cut, `${f.id}: cut value`);
  } else if (f.expect === "accept") {
    assert.ok(r.ok, `${f.id}: ${r.ok ? "" : r.error}`);
    if (f.value !== undefined) assert.deepStrictEqual(jsonCopy(r.value), f.value, `${f.id}: value`);
  } else {
    assert.ok(!r.ok, `${f.id} should be refused by a cutting read too`);
    assert.ok(r.error.includes(f.error!), `${f.id}: error ${JSON.stringify(r.error)}`);
  }
}

for (const f of fixtures) {
  test(`${f.id} (${f.expect}, strict): ${f.about}`, () => strict(f));
  test(`${f.id} (${f.expect}, cutting): ${f.about}`, () => cutting(f));
}
