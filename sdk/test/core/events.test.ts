/**
 * The event tail and long-poll: cursors, views for readers that fell behind, resets (S-32, W-2, W-3).
 * In memory; the same long-poll cut by a reader that hangs up its socket is in transport/socket.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { EventsPage, PaneEvent } from "../../src/wire/types.ts";
import { connectPhone } from "../../src/testing/index.ts";
import { openRig, until, type Rig } from "../helpers/agent.ts";

const itemIds = (page: EventsPage, pane: string): string[] =>
  page.events.filter((e): e is Extract<PaneEvent, { type: "item" }> => e.type === "item" && e.pane === pane).map((e) => e.item.id);

describe("events after a cursor (W-2, W-3)", () => {
  let rig: Rig;
  before(async () => {
    rig = await openRig();
  });
  after(() => rig.close());

  it("answers the first read (no cursor) with a reset: the layout, a view of every pane and no events", async () => {
    const tab = rig.collie.workspace("w", { title: "W" }).tab("t");
    tab.pane("p1").item({ id: "a", kind: "notice", text: "one" });
    tab.pane("p2");
    const page = await rig.phone.events({ after: null });
    assert.equal(page.reset, true);
    assert.deepEqual(page.events, []);
    assert.ok(page.layout);
    assert.deepEqual(page.layout.panes.map((p) => p.id).sort(), ["p1", "p2"]);
    assert.deepEqual(page.views.map((v) => v.pane.id).sort(), ["p1", "p2"]);
    assert.deepEqual(page.views.find((v) => v.pane.id === "p1")!.items.map((i) => i.id), ["a"]);
    const hello = await rig.phone.hello();
    assert.match(page.cursor, new RegExp(`^${hello.instance}\\.\\d+$`));
  });

  it("cuts every view of a page to its newest `viewItems` items, marked itemsCut; the pane read stays whole", async () => {
    const pane = rig.collie.workspace("w", { title: "W" }).tab("t").pane("cut");
    for (let i = 0; i < 12; i++) pane.item({ id: `n${i}`, kind: "notice", text: `note ${i}` });
    const page = await rig.phone.events({ after: null, viewItems: 5 });
    const view = page.views.find((v) => v.pane.id === "cut")!;
    assert.deepEqual(view.items.map((i) => i.id), ["n7", "n8", "n9", "n10", "n11"]);
    assert.equal(view.itemsCut, true);
    const short = page.views.find((v) => v.pane.id === "p2");
    assert.equal(short?.itemsCut, false, "a view within the limit is not marked");
    const whole = await rig.phone.pane("cut");
    assert.equal(whole.items.length, 12);
    assert.equal(whole.itemsCut, false);
    for (const bad of ["0", "2001", "x", "1.5"]) {
      const r = await rig.phone.request("GET", `/durable/v1/events?viewItems=${bad}`);
      assert.equal(r.status, 400, `viewItems=${bad}`);
    }
  });

  it("returns the events after the cursor in seq order, across panes, and a cursor that covers them", async () => {
    const tab = rig.collie.workspace("w").tab("t");
    const start = await rig.phone.events({ after: null });
    tab.pane("p1").item({ id: "b", kind: "notice", text: "two" });
    tab.pane("p2").item({ id: "c", kind: "notice", text: "three" });
    tab.pane("p1").item({ id: "d", kind: "notice", text: "four" });
    const page = await rig.phone.events({ after: start.cursor });
    assert.equal(page.reset, false);
    assert.deepEqual(page.views, []);
    assert.equal("layout" in page, false, "no layout when the layout did not change");
    assert.deepEqual(page.events.map((e) => e.type === "item" ? e.item.id : e.type), ["b", "c", "d"]);
    const seqs = page.events.map((e) => e.seq);
    assert.ok(seqs.every((s, i) => i === 0 || s > seqs[i - 1]!), "seq grows");
    assert.equal(page.cursor.split(".")[1], String(seqs.at(-1)));
    // Reading again from the new cursor returns nothing: no duplicates.
    const again = await rig.phone.events({ after: page.cursor });
    assert.deepEqual(again.events, []);
    assert.equal(again.cursor, page.cursor);
  });

  it("includes the layout when it changed after the cursor", async () => {
    const start = await rig.phone.events({ after: null });
    rig.collie.workspace("w").tab("t").pane("p3", { title: "New" });
    const page = await rig.phone.events({ after: start.cursor });
    assert.ok(page.layout);
    assert.ok(page.layout.panes.some((p) => p.id === "p3"));
  });

  it("gives a pane view a cursor after which only newer events come", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("p1");
    const view = await rig.phone.pane("p1");
    pane.item({ id: "after-view", kind: "notice", text: "newer" });
    const page = await rig.phone.events({ after: view.cursor });
    assert.deepEqual(itemIds(page, "p1"), ["after-view"]);
  });

  for (const [what, cursor] of [
    ["another instance's cursor", "0123456789abcdef.1"],
    ["an unreadable cursor", "garbage"],
    ["a cursor beyond the newest event", "INSTANCE.999999999"],
  ] as const) {
    it(`resets on ${what}`, async () => {
      const hello = await rig.phone.hello();
      const page = await rig.phone.events({ after: cursor.replace("INSTANCE", hello.instance) });
      assert.equal(page.reset, true);
      assert.ok(page.layout);
      assert.equal(page.views.length, page.layout.panes.length);
      assert.deepEqual(page.events, []);
    });
  }

  it("answers 400 bad-request for a wait outside 0..60000", async () => {
    const reply = await rig.phone.request("GET", "/durable/v1/events?wait=60001");
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error, "bad-request");
    const neg = await rig.phone.request("GET", "/durable/v1/events?wait=-1");
    assert.equal(neg.status, 400);
  });
});

describe("a reader that fell behind a pane's tail gets its view (S-32)", () => {
  let rig: Rig;
  before(async () => {
    rig = await openRig({ tailLimit: 5 });
  });
  after(() => rig.close());

  it("reports the tail limit in hello", async () => {
    assert.deepEqual((await rig.phone.hello()).limits, { tailLimit: 5, viewItems: 2000 });
  });

  it("sends the busy pane as a whole view and the quiet pane's events as events", async () => {
    const tab = rig.collie.workspace("w").tab("t");
    const busy = tab.pane("busy");
    const quiet = tab.pane("quiet");
    const start = await rig.phone.events({ after: null });
    quiet.item({ id: "q1", kind: "notice", text: "quiet" });
    for (let i = 0; i < 10; i++) busy.item({ id: `b${i}`, kind: "notice", text: `busy ${i}` });
    const page = await rig.phone.events({ after: start.cursor });
    assert.equal(page.reset, false);
    assert.deepEqual(page.views.map((v) => v.pane.id), ["busy"]);
    assert.deepEqual(page.views[0]!.items.map((i) => i.id), Array.from({ length: 10 }, (_, i) => `b${i}`));
    assert.equal(page.views[0]!.itemsCut, false);
    assert.deepEqual(itemIds(page, "quiet"), ["q1"]);
    assert.equal(page.events.some((e) => e.pane === "busy"), false, "no events of a pane sent as a view");
  });

  it("serves events again from the tail for a reader within reach", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("busy");
    const start = await rig.phone.events({ after: null });
    for (let i = 0; i < 5; i++) pane.item({ id: `n${i}`, kind: "notice", text: `n ${i}` });
    const page = await rig.phone.events({ after: start.cursor });
    assert.deepEqual(page.views, []);
    assert.deepEqual(itemIds(page, "busy"), ["n0", "n1", "n2", "n3", "n4"]);
  });

  it("caps a view at the newest 2000 items and says itemsCut", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("huge");
    const start = await rig.phone.events({ after: null });
    for (let i = 0; i < 2050; i++) pane.item({ id: `h${i}`, kind: "notice", text: `${i}` });
    const page = await rig.phone.events({ after: start.cursor });
    const view = page.views.find((v) => v.pane.id === "huge");
    assert.ok(view);
    assert.equal(view.items.length, 2000);
    assert.equal(view.itemsCut, true);
    assert.equal(view.items[0]!.id, "h50", "the newest items are kept");
    assert.equal(view.items.at(-1)!.id, "h2049");
    const direct = await rig.phone.pane("huge");
    assert.equal(direct.items.length, 2000);
    assert.equal(direct.itemsCut, true);
  });
});

describe("long-poll (W-3)", () => {
  let rig: Rig;
  before(async () => {
    rig = await openRig();
  });
  after(() => rig.close());

  it("holds a read with wait until an item is written, then answers with that item", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("lp");
    const start = await rig.phone.events({ after: null });
    const pending = rig.phone.events({ after: start.cursor, wait: 30_000 });
    let settled = false;
    void pending.then(() => (settled = true), () => (settled = true));
    await until(() => rig.collie.log.waiting === 1, "the read waits");
    assert.equal(settled, false, "the read is held while nothing is newer");
    pane.item({ id: "woke", kind: "reply", text: "here" });
    const page = await pending;
    assert.deepEqual(itemIds(page, "lp"), ["woke"]);
    assert.equal(rig.collie.log.waiting, 0);
  });

  it("answers at once when something is already newer than the cursor", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("lp");
    const start = await rig.phone.events({ after: null });
    pane.item({ id: "already", kind: "notice", text: "x" });
    const page = await rig.phone.events({ after: start.cursor, wait: 30_000 });
    assert.deepEqual(itemIds(page, "lp"), ["already"]);
  });

  it("answers an empty page with the same cursor when the wait ends with nothing new", async () => {
    const start = await rig.phone.events({ after: null });
    const page = await rig.phone.events({ after: start.cursor, wait: 20 });
    assert.equal(page.cursor, start.cursor);
    assert.deepEqual(page.events, []);
    assert.deepEqual(page.views, []);
  });

  it("lets go of a waiting reader whose request is aborted (no leaked waiters)", async () => {
    const start = await rig.phone.events({ after: null });
    const leaver = connectPhone({ core: rig.collie });
    const pending = leaver.events({ after: start.cursor, wait: 30_000 }).catch((err: unknown) => err);
    await until(() => rig.collie.log.waiting === 1, "the read waits");
    leaver.disconnect();
    assert.ok((await pending) instanceof Error, "the read was cut off");
    await until(() => rig.collie.log.waiting === 0, "the waiter is released");
    // The core still serves other readers afterwards.
    const pane = rig.collie.workspace("w").tab("t").pane("lp");
    const next = rig.phone.events({ after: start.cursor, wait: 30_000 });
    await until(() => rig.collie.log.waiting === 1, "a new read waits");
    pane.item({ id: "after-leave", kind: "notice", text: "x" });
    assert.deepEqual(itemIds(await next, "lp"), ["after-leave"]);
  });

  it("wakes several waiting readers with the same event", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("lp");
    const start = await rig.phone.events({ after: null });
    const second = connectPhone({ core: rig.collie });
    try {
      const a = rig.phone.events({ after: start.cursor, wait: 30_000 });
      const b = second.events({ after: start.cursor, wait: 30_000 });
      await until(() => rig.collie.log.waiting === 2, "both reads wait");
      pane.item({ id: "both", kind: "notice", text: "x" });
      assert.deepEqual(itemIds(await a, "lp"), ["both"]);
      assert.deepEqual(itemIds(await b, "lp"), ["both"]);
    } finally {
      second.disconnect();
    }
  });
});

describe("a pane reopened from the phone comes back to readers (S-30, W-3)", () => {
  let rig: Rig;
  before(async () => {
    rig = await openRig();
  });
  after(() => rig.close());

  it("sends the reopened pane's whole view, with its earlier items, to a reader that saw it closed", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("back", { title: "Back" });
    pane.item({ id: "old-1", kind: "user", text: "before the close" });
    pane.item({ id: "old-2", kind: "reply", text: "earlier answer" });
    assert.equal((await rig.phone.close({ kind: "pane", id: "back" })).status, 200);
    const seenClosed = await rig.phone.events({ after: null });
    assert.equal(seenClosed.layout!.panes.some((p) => p.id === "back"), false);
    assert.equal((await rig.phone.reopen({ kind: "pane", id: "back" })).status, 200);
    const page = await rig.phone.events({ after: seenClosed.cursor });
    assert.ok(page.layout?.panes.some((p) => p.id === "back"), "the layout has the pane again");
    const view = page.views.find((v) => v.pane.id === "back");
    assert.ok(view, "the reader gets the reopened pane's view, not nothing");
    assert.deepEqual(view.items.map((i) => i.id), ["old-1", "old-2"]);
  });
});

describe("a pane id used again for a new conversation (W-3)", () => {
  it("sends the new pane as a whole view to a reader that knew the old one, so no old item stays", async () => {
    const rig = await openRig();
    try {
      const tab = rig.collie.workspace("w").tab("t");
      const old = tab.pane("ticket", { title: "Old" });
      old.item({ id: "old-item", kind: "reply", text: "from the old conversation" });
      const known = await rig.phone.events({ after: null });
      assert.deepEqual(known.views.find((v) => v.pane.id === "ticket")!.items.map((i) => i.id), ["old-item"]);
      old.close();
      const fresh = tab.pane("ticket", { title: "New" });
      fresh.item({ id: "new-item", kind: "reply", text: "a new conversation" });
      const page = await rig.phone.events({ after: known.cursor });
      const view = page.views.find((v) => v.pane.id === "ticket");
      assert.ok(view, "the reader gets the new pane's view, which replaces what it knew");
      assert.deepEqual(view.items.map((i) => i.id), ["new-item"]);
      assert.equal(view.pane.title, "New");
      assert.equal(page.events.some((e) => e.pane === "ticket"), false);
      // From then on the pane's events come as events again.
      fresh.item({ id: "next", kind: "notice", text: "x" });
      assert.deepEqual(itemIds(await rig.phone.events({ after: page.cursor }), "ticket"), ["next"]);
    } finally {
      await rig.close();
    }
  });

  it("serves a new pane's later events from its tail to readers that saw it open", async () => {
    const rig = await openRig();
    try {
      const pane = rig.collie.workspace("w").tab("t").pane("fresh");
      const seen = await rig.phone.events({ after: null });
      pane.item({ id: "a", kind: "notice", text: "a" });
      const page = await rig.phone.events({ after: seen.cursor });
      assert.deepEqual(page.views, []);
      assert.deepEqual(itemIds(page, "fresh"), ["a"]);
    } finally {
      await rig.close();
    }
  });
});
