/**
 * Golden wire fixtures (W-1..W-5, L-2): every file in test/fixtures/wire/<Type>/{accept,reject}/
 * goes through `parseMessage(Type, message)`. The daemon's tests parse the same files through
 * test/fixtures/load.ts.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MESSAGE_CHECKERS, type MessageType, parseEventsPage, parseMessage } from "../../src/wire/index.ts";
import { fixtureTypes, loadWireFixtures, type WireFixture } from "../fixtures/load.ts";

const TYPES: readonly string[] = [...Object.keys(MESSAGE_CHECKERS), "EventsPage"];
const fixtures = loadWireFixtures();
const asJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe("fixture set", () => {
  test("every fixture directory names a message type", () => {
    for (const type of fixtureTypes()) assert.ok(TYPES.includes(type), `fixtures/wire/${type}: not a key of MESSAGE_CHECKERS nor EventsPage`);
  });

  test("every message type has at least one accept and one reject fixture", () => {
    for (const type of TYPES) {
      for (const expect of ["accept", "reject"] as const) {
        assert.ok(
          fixtures.some((f) => f.type === type && f.expect === expect),
          `fixtures/wire/${type}/${expect}/ has no fixture`,
        );
      }
    }
  });

  test("every about line cites a spec id", () => {
    for (const f of fixtures) assert.match(f.about, /\b[A-Z]-\d+\b/, `${f.id}: about names no spec id`);
  });

  test("an EventsPage fixture shows an unknown event type being dropped", () => {
    const f = fixtures.find((x) => x.id === "EventsPage/accept/unknown-event-type-dropped");
    assert.ok(f, "EventsPage/accept/unknown-event-type-dropped.json is missing");
    assert.equal(f.dropped, 1);
  });
});

function checkAccept(f: WireFixture): void {
  const type = f.type as MessageType;
  const parsed = parseMessage(type, f.message);
  assert.ok(parsed.ok, `${f.id} should be accepted but was refused: ${parsed.ok ? "" : parsed.error}`);
  if (f.value !== undefined) assert.deepStrictEqual(asJson(parsed.value), f.value, `${f.id}: parsed value`);
  // What a checker returns is itself a valid message of the same type, unchanged.
  const again = parseMessage(type, parsed.value);
  assert.ok(again.ok, `${f.id}: the parsed value does not parse again: ${again.ok ? "" : again.error}`);
  assert.deepStrictEqual(asJson(again.value), asJson(parsed.value), `${f.id}: parsing is not idempotent`);

  if (type === "EventsPage") {
    const page = parseEventsPage(f.message);
    assert.ok(page.ok);
    assert.equal(page.dropped.length, f.dropped ?? 0, `${f.id}: dropped ${JSON.stringify(page.dropped)}`);
    const sent = (f.message as { events: unknown[] }).events.length;
    assert.equal(page.value.events.length, sent - page.dropped.length, `${f.id}: kept events`);
    for (const line of page.dropped) assert.match(line, /^events\[\d+\] /, `${f.id}: a dropped line names the event`);
  }
}

function checkReject(f: WireFixture): void {
  const parsed = parseMessage(f.type as MessageType, f.message);
  assert.ok(!parsed.ok, `${f.id} should be refused but was accepted`);
  assert.ok(
    parsed.error.includes(f.error!),
    `${f.id}: error ${JSON.stringify(parsed.error)} does not contain ${JSON.stringify(f.error)}`,
  );
}

for (const type of TYPES) {
  describe(`wire fixtures: ${type}`, () => {
    for (const f of fixtures.filter((x) => x.type === type)) {
      test(`${f.expect}s ${f.name}: ${f.about}`, () => (f.expect === "accept" ? checkAccept(f) : checkReject(f)));
    }
  });
}

/**
 * The same files read as Collie reads an agent (`{cut: true}`, L-2): a fixture with `cut` is
 * accepted with that value; any other reads exactly as it does strictly (the same value or the same
 * refusal), so the cutting mode changes text over its limit or unclean, and nothing else.
 */
function checkCut(f: WireFixture): void {
  const type = f.type as MessageType;
  const cut = parseMessage(type, copy(f.message), { cut: true });
  if (f.cut !== undefined) {
    assert.ok(cut.ok, `${f.id} should be accepted by a cutting reader but was refused: ${cut.ok ? "" : cut.error}`);
    assert.deepStrictEqual(asJson(cut.value), f.cut, `${f.id}: value read with cut`);
    // What a cutting reader returns fits the strict checker: cut text is within every limit.
    const strict = parseMessage(type, cut.value);
    assert.ok(strict.ok, `${f.id}: the cut value does not parse strictly: ${strict.ok ? "" : strict.error}`);
    return;
  }
  assert.deepStrictEqual(asJson(cut), asJson(parseMessage(type, copy(f.message))), `${f.id}: a cutting reader reads it differently`);
}
const copy = (v: unknown): unknown => (v === undefined ? v : JSON.parse(JSON.stringify(v)));

describe("wire fixtures read with cut (how Collie reads an agent)", () => {
  test("some fixtures show a cut", () => {
    for (const id of ["Ask/reject/title-over-limit-cjk", "HistoryPage/reject/row-title-over-limit", "EventsPage/accept/over-long-link-label", "StartersPage/accept/hostile-characters"]) {
      assert.ok(fixtures.find((f) => f.id === id)?.cut !== undefined, `${id}.json has no cut value`);
    }
  });
  for (const f of fixtures) test(`${f.id}`, () => checkCut(f));
});

describe("prototype safety (L-2)", () => {
  test("a form answer keyed __proto__ lands as an own key of a null-prototype record and pollutes nothing", () => {
    const f = fixtures.find((x) => x.id === "AnswerBody/accept/form-proto-key-kept-as-data");
    assert.ok(f, "AnswerBody/accept/form-proto-key-kept-as-data.json is missing");
    const parsed = parseMessage("AnswerBody", f.message);
    assert.ok(parsed.ok);
    const values = (parsed.value as { answer: { values: Record<string, unknown> } }).answer.values;
    assert.equal(Object.getPrototypeOf(values), null);
    assert.ok(Object.hasOwn(values, "__proto__"));
    assert.equal(values["__proto__"], "polluted?");
    assert.equal(values["constructor"], true);
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
    assert.equal(Object.getPrototypeOf({}), Object.prototype);
  });

  test("an error body extra keyed __proto__ stays data; the body keeps Object.prototype", () => {
    const f = fixtures.find((x) => x.id === "ErrorBody/accept/proto-extra-is-data");
    assert.ok(f, "ErrorBody/accept/proto-extra-is-data.json is missing");
    const parsed = parseMessage("ErrorBody", f.message);
    assert.ok(parsed.ok);
    assert.equal(Object.getPrototypeOf(parsed.value), Object.prototype);
    assert.ok(Object.hasOwn(parsed.value as object, "__proto__"));
    assert.equal((parsed.value as Record<string, unknown>)["polluted"], undefined);
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
  });

  test("a parsed message holds only known keys (unknown keys such as constructor never pass)", () => {
    const message = JSON.parse('{"kind":"reply","id":"r-1","text":"hi","constructor":{"prototype":{"x":1}},"__proto__":{"x":1}}');
    const parsed = parseMessage("Item", message);
    assert.ok(parsed.ok);
    assert.deepEqual(Object.keys(parsed.value as object).sort(), ["id", "kind", "text"]);
    assert.equal(Object.getPrototypeOf(parsed.value), Object.prototype);
  });

  test("a discriminator naming an Object.prototype member is refused, not dispatched", () => {
    for (const kind of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      const parsed = parseMessage("Item", { kind, id: "x", text: "y" });
      assert.ok(!parsed.ok, kind);
      assert.match(parsed.error, /^kind: must be one of /);
    }
  });
});
