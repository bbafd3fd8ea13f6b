/**
 * The mirror's conversation rows (P-5): the last activity a row shows is the newest item's or open
 * ask's time, not the agent's own `activeAt`, which moves with every state change and is the
 * start time of a restarted agent for every pane.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Ask, EventsPage, Item, PaneSummary } from "@colliepwa/durable-sdk/wire";
import { AgentMirror, type MirrorChange } from "../../src/agents/mirror.ts";

const T = (min: number) => new Date(Date.UTC(2026, 11, 2, 14, min)).toISOString();
const summary = (id: string, activeAt: string, over: Partial<PaneSummary> = {}): PaneSummary => ({
  id, tabId: "w:t", title: id, harness: "test", sessionId: null, state: "idle", actions: [], openAsks: 0, turnId: null, activeAt, ...over,
});
const reply = (id: string, ts: string): Item => ({ kind: "reply", id, text: id, ts });
const layout = (panes: PaneSummary[]) => ({ ready: true, workspaces: [{ id: "w", title: "Work" }], tabs: [{ id: "w:t", title: "Tab" }], panes });
const activeAt = (m: AgentMirror, id: string) => m.conversations().find((c) => c.id === id)?.activeAt;

describe("a conversation's last activity (P-5)", () => {
  test("after a restart: the newest item's time, not the agent's start time", () => {
    const mirror = new AgentMirror("desk", () => {});
    // A restarted agent gives every pane its start time (14:30); the items are older.
    const page: EventsPage = {
      cursor: "c1", reset: true,
      layout: layout([summary("a", T(30)), summary("b", T(30))]) as EventsPage["layout"],
      views: [
        { pane: summary("a", T(30)), items: [reply("a1", T(1)), reply("a2", T(5))], itemsCut: false, asks: [] },
        { pane: summary("b", T(30)), items: [], itemsCut: false, asks: [] },
      ],
      events: [],
    };
    mirror.apply(page);
    assert.equal(activeAt(mirror, "a"), T(5));
    // A pane with no timed item keeps the agent's own time.
    assert.equal(activeAt(mirror, "b"), T(30));
  });

  test("a state change later than any item does not move the time; a new item or ask does", () => {
    const mirror = new AgentMirror("desk", () => {});
    mirror.apply({ cursor: "c1", reset: true, layout: layout([summary("a", T(1))]) as EventsPage["layout"], views: [{ pane: summary("a", T(1)), items: [reply("a1", T(1))], itemsCut: false, asks: [] }], events: [] });
    mirror.apply({ cursor: "c2", reset: false, views: [], events: [{ seq: 1, type: "state", pane: "a", summary: summary("a", T(9), { subtitle: "later" }) }] });
    assert.equal(activeAt(mirror, "a"), T(1));
    mirror.apply({ cursor: "c3", reset: false, views: [], events: [{ seq: 2, type: "item", pane: "a", item: reply("a2", T(3)) }] });
    assert.equal(activeAt(mirror, "a"), T(3));
    // An item replaced in place with its older time leaves the newest time as it was.
    mirror.apply({ cursor: "c4", reset: false, views: [], events: [{ seq: 3, type: "item", pane: "a", item: reply("a1", T(1)) }] });
    assert.equal(activeAt(mirror, "a"), T(3));
    const ask = { kind: "text", id: "0123456789abcdef0123456789abcdef", revision: "0123456789abcdef", paneId: "a", toolCallId: "c", itemId: "a2", title: "Why?", createdAt: T(7) } as unknown as Ask;
    mirror.apply({ cursor: "c5", reset: false, views: [], events: [{ seq: 4, type: "ask", pane: "a", ask }] });
    assert.equal(activeAt(mirror, "a"), T(7));
  });
});

describe("an ask that arrives inside a view (issue 38, item 4)", () => {
  const ask = (pane: string, id: string): Ask => ({ kind: "text", id, revision: "0123456789abcdef", paneId: pane, toolCallId: `call-${id}`, itemId: "i1", title: "Which order?", limit: 500, createdAt: T(2) }) as unknown as Ask;
  const A1 = "a".repeat(32);
  const A2 = "b".repeat(32);

  test("a new pane whose view already holds an ask (raised in the same tick) reports that ask once", () => {
    const changes: MirrorChange[] = [];
    const mirror = new AgentMirror("desk", (c) => changes.push(c));
    mirror.apply({ cursor: "c1", reset: true, layout: layout([summary("old", T(1))]) as EventsPage["layout"], views: [{ pane: summary("old", T(1)), items: [], itemsCut: false, asks: [] }], events: [] });
    changes.length = 0;
    // The SDK sends a pane created after the reader's cursor as a whole view, with its open asks.
    mirror.apply({
      cursor: "c2", reset: false,
      layout: layout([summary("old", T(1)), summary("new", T(2), { state: "waiting", openAsks: 1 })]) as EventsPage["layout"],
      views: [{ pane: summary("new", T(2), { state: "waiting", openAsks: 1 }), items: [], itemsCut: false, asks: [ask("new", A1)] }],
      events: [],
    });
    assert.deepEqual(changes.filter((c) => c.type === "ask").map((c) => c.type === "ask" && [c.paneId, c.ask.id]), [["new", A1]]);
    // The same view again (a re-read) brings nothing new; a second ask in it does.
    changes.length = 0;
    mirror.applyView({ pane: summary("new", T(2)), items: [], itemsCut: false, asks: [ask("new", A1), ask("new", A2)] });
    assert.deepEqual(changes.filter((c) => c.type === "ask").map((c) => c.type === "ask" && c.ask.id), [A2]);
  });
});

describe("a pane's conversation row (push names the pane by it)", () => {
  test("is the row the chat's content carries, shaped by present, and undefined for a pane not open", () => {
    const mirror = new AgentMirror("desk", () => {}, (c) => ({ ...c, title: c.title.toUpperCase() }));
    mirror.apply({ cursor: "c1", reset: true, layout: layout([summary("a", T(1))]) as EventsPage["layout"], views: [{ pane: summary("a", T(1)), items: [reply("a1", T(1))], itemsCut: false, asks: [] }], events: [] });
    assert.deepEqual(mirror.conversation("a"), mirror.detail("a")!.conversation);
    assert.equal(mirror.conversation("a")!.title, "A");
    assert.equal(mirror.conversation("b"), undefined);
  });
});
