/**
 * The golden wire fixtures (docs/wire.md §10) through the daemon's own read path: the validators
 * Collie runs on what an agent sends (the `@colliepwa/durable-sdk/wire` parse functions), after the
 * cleaning Collie applies first (agents/incoming.ts). Every accept-fixture of a type the daemon
 * reads is accepted; every reject-fixture is refused with the fixture's error (L-2, W-1..W-5).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  parseErrorBody, parseEventsPage, parseHello, parseHistoryItemsPage, parseHistoryPage, parsePaneView,
  parseStartersPage, parseWriteOk, type Parsed,
} from "@colliepwa/durable-sdk/wire";
import { loadWireFixtures, type WireFixture } from "../../../sdk/test/fixtures/load.ts";
import { cleanRawEventsPage, cleanRawHello, cleanRawView } from "../../src/agents/incoming.ts";

type Result = Parsed<unknown> & { dropped?: number };
const asResult = (r: { ok: true; value: unknown; dropped?: string[] } | { ok: false; error: string }): Result =>
  r.ok ? { ok: true, value: r.value, ...(r.dropped ? { dropped: r.dropped.length } : {}) } : r;

/** A PaneView reaches Collie inside an events page (a pane that fell behind, or a reset). */
const inPage = (view: unknown) => ({ cursor: "fixture.1", reset: false, views: [view], events: [] });
const copy = (v: unknown): unknown => (v === undefined ? v : JSON.parse(JSON.stringify(v)));

/** The daemon's reader for each type it reads: clean (where Collie cleans), then parse. */
const READERS: Record<string, (message: unknown) => Result> = {
  Hello: (m) => {
    cleanRawHello(m);
    return parseHello(m);
  },
  EventsPage: (m) => {
    cleanRawEventsPage(m);
    return asResult(parseEventsPage(m));
  },
  PaneView: (m) => {
    const page = inPage(m);
    cleanRawEventsPage(page);
    const r = parseEventsPage(page);
    return r.ok ? { ok: true, value: r.value.views[0] } : r;
  },
  PaneViewPage: (m) => {
    cleanRawView(m);
    return parsePaneView(m);
  },
  HistoryPage: parseHistoryPage,
  HistoryItemsPage: parseHistoryItemsPage,
  StartersPage: parseStartersPage,
  WriteOk: parseWriteOk,
  ErrorBody: parseErrorBody,
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
  if (f.expect === "accept") {
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
