/**
 * The checkers' words for a refusal (check.ts `parseWith`). A read is checked first without
 * building paths (they cost more than the checks on a whole view of 2000 items, issue 31), and a
 * refused value again with them: the error names exactly where the value failed, deep in arrays
 * and objects, as before.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { arr, int, obj, record, str } from "../../src/wire/check.ts";
import { parseEventsPage, parsePaneView, parseWith } from "../../src/wire/index.ts";

const SUMMARY = {
  id: "p", tabId: "w:t", title: "Refund", harness: "bot", sessionId: null, state: "idle", actions: [], openAsks: 0, turnId: null,
  activeAt: "2026-12-02T14:00:00.000Z",
};
const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `i-${i}`, kind: "reply", text: `reply ${i}`, ts: "2026-12-02T14:00:00.000Z" }));
const view = (list: unknown[]) => ({ pane: SUMMARY, items: list, itemsCut: false, asks: [], cursor: "c1" });

describe("a refusal names where the value failed", () => {
  test("an item deep in a whole view: its index and its field", () => {
    const list = items(2000);
    list[1500] = { ...list[1500]!, ts: "2026-02-30T00:00:00Z" };
    const r = parsePaneView(view(list));
    assert.deepEqual(r, { ok: false, error: "items[1500].ts: must be an ISO-8601 date-time with a time zone" });
    const cut = parsePaneView(view(list), { cut: true });
    assert.deepEqual(cut, { ok: false, error: "items[1500].ts: must be an ISO-8601 date-time with a time zone" });
  });

  test("a missing field of the pane, and a field of the top level", () => {
    const { tabId: _, ...noTab } = SUMMARY;
    assert.deepEqual(parsePaneView({ ...view(items(3)), pane: noTab }), { ok: false, error: "pane.tabId: is required" });
    assert.deepEqual(parsePaneView({ ...view(items(3)), itemsCut: "no" }), { ok: false, error: "itemsCut: must be true or false" });
    assert.deepEqual(parsePaneView(null), { ok: false, error: "message: must be an object" });
  });

  test("a record's key and value, and an array in an optional field", () => {
    const checker = obj({ counts: record(int({ min: 0 })) }, { tags: arr(str({ min: 1 })) });
    assert.deepEqual(parseWith(checker, { counts: { a: 1, b: -1 } }), { ok: false, error: "counts.b: must be at least 0" });
    assert.deepEqual(parseWith(checker, { counts: { "a b": 1 } }).ok, false);
    assert.match((parseWith(checker, { counts: { "a b": 1 } }) as { error: string }).error, /^counts\{key\}: breaks the ID rule/);
    assert.deepEqual(parseWith(checker, { counts: {}, tags: ["x", ""] }), { ok: false, error: "tags[1]: must have at least 1 character(s)" });
    const passed = parseWith(checker, { counts: { a: 2 }, tags: ["x"] });
    assert.equal(passed.ok, true);
    assert.deepEqual(passed.ok && { ...passed.value, counts: { ...passed.value.counts } }, { counts: { a: 2 }, tags: ["x"] });
  });

  test("an events page drops a bad event with its words, and keeps the rest", () => {
    const page = parseEventsPage({
      cursor: "c2", reset: false, views: [],
      events: [
        { seq: 1, type: "item", pane: "p", item: { id: "i-1", kind: "reply", text: "fine" } },
        { seq: 2, type: "item", pane: "p", item: { id: "i-2", kind: "reply", text: 7 } },
      ],
    });
    assert.equal(page.ok, true);
    if (!page.ok) return;
    assert.equal(page.value.events.length, 1);
    assert.deepEqual(page.dropped, ["events[1] item.text: must be a string"]);
  });
});
