/**
 * The golden wire fixtures (docs/wire.md §10) through the daemon's own read path: the validators
 * Collie runs on what an agent sends (the `@colliepwa/durable-sdk/wire` parse functions), in the
 * cutting mode every read of an agent uses (`agentReads`, agents/gateway.ts). Every accept-fixture
 * of a type the daemon reads is accepted; every reject-fixture is refused with the fixture's error
 * (L-2, W-1..W-5), except one with a `cut` value, which a cutting reader accepts with that value.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  parseErrorBody, parseEventsPage, parseHello, parseHistoryItemsPage, parseHistoryPage, parsePaneView,
  parseStartersPage, parseWriteOk, type Parsed,
} from "@colliepwa/durable-sdk/wire";
import { loadWireFixtures, type WireFixture } from "../../../sdk/test/fixtures/load.ts";
import { agentReads } from "../../src/agents/gateway.ts";

type Result = Parsed<unknown> & { dropped?: number };
const asResult = (r: { ok: true; value: unknown; dropped?: string[] } | { ok: false; error: string }): Result =>
  r.ok ? { ok: true, value: r.value, ...(r.dropped ? { dropped: r.dropped.length } : {}) } : r;

/** A PaneView reaches Collie inside an events page (a pane that fell behind, or a reset). */
const inPage = (view: unknown) => ({ cursor: "fixture.1", reset: false, views: [view], events: [] });
const copy = (v: unknown): unknown => (v === undefined ? v : JSON.parse(JSON.stringify(v)));

/** The daemon's reader for each type it reads: the wire's parser, with Collie's read options. */
const reads = agentReads();
const READERS: Record<string, (message: unknown) => Result> = {
  Hello: (m) => parseHello(m, reads),
  EventsPage: (m) => asResult(parseEventsPage(m, reads)),
  PaneView: (m) => {
    const r = parseEventsPage(inPage(m), reads);
    return r.ok ? { ok: true, value: r.value.views[0] } : r;
  },
  PaneViewPage: (m) => parsePaneView(m, reads),
  HistoryPage: (m) => parseHistoryPage(m, reads),
  HistoryItemsPage: (m) => parseHistoryItemsPage(m, reads),
  StartersPage: (m) => parseStartersPage(m, reads),
  // An agent's reply to a write (gateway.ts `asOutcome`): its shape only, no text of the phone's.
  WriteOk: (m) => parseWriteOk(m),
  ErrorBody: (m) => parseErrorBody(m),
};

const fixtures = loadWireFixtures();

test("every type the daemon reads has accept and reject fixtures", () => {
  for (const type of Object.keys(READERS)) {
    assert.ok(fixtures.some((f) => f.type === type && f.expect === "accept"), `${type}: no accept fixture`);
    assert.ok(fixtures.some((f) => f.type === type && f.expect === "reject"), `${type}: no reject fixture`);
  }
});

function check(f: WireFixture): void {
  const read = READERS[f.type]!;
  // JSON.parse keeps an own `__proto__` key; a structured copy per run keeps fixtures independent.
  const r = read(copy(f.message));
  if (f.cut !== undefined) {
    // Text over its limit or unclean: cut and cleaned, as on every read of an agent.
    assert.ok(r.ok, `${f.id} should be accepted (cut) by the daemon but was refused: ${r.ok ? "" : r.error}`);
    assert.deepStrictEqual(copy(r.value), f.cut, `${f.id}: value read with cut`);
  } else if (f.expect === "accept") {
    assert.ok(r.ok, `${f.id} should be accepted by the daemon but was refused: ${r.ok ? "" : r.error}`);
    if (f.value !== undefined && f.type !== "EventsPage") assert.deepStrictEqual(copy(r.value), f.value, `${f.id}: parsed value`);
    if (f.type === "EventsPage") assert.equal(r.dropped ?? 0, f.dropped ?? 0, `${f.id}: dropped events`);
  } else {
    assert.ok(!r.ok, `${f.id} should be refused by the daemon but was accepted`);
    assert.ok(r.error.includes(f.error!), `${f.id}: error ${JSON.stringify(r.error)} does not contain ${JSON.stringify(f.error)}`);
  }
}

for (const type of Object.keys(READERS)) {
  describe(`daemon reads ${type}`, () => {
    for (const f of fixtures.filter((x) => x.type === type)) {
      test(`${f.expect}s ${f.name}: ${f.about}`, () => check(f));
    }
  });
}
