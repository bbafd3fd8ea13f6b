/** Panes and items over the wire: kinds, replace by id, cleaning, refusals, state, coalescing (S-13…S-18). */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Pane } from "../../src/core/layout.ts";
import type { Item, PaneEvent } from "../../src/wire/types.ts";
import { openRig, type Rig } from "../helpers/agent.ts";
import { ManualClock } from "../helpers/manual-clock.ts";

type ItemEvent = Extract<PaneEvent, { type: "item" }>;
const itemEvents = (events: PaneEvent[], pane: string): ItemEvent[] =>
  events.filter((e): e is ItemEvent => e.type === "item" && e.pane === pane);

describe("items reach the phone (S-13, S-14)", () => {
  let rig: Rig;
  let tab: ReturnType<ReturnType<Rig["collie"]["workspace"]>["tab"]>;
  before(async () => {
    rig = await openRig();
    tab = rig.collie.workspace("w").tab("t");
    rig.collie.ready();
  });
  after(() => rig.close());

  it("delivers every item kind as an item event, in the order written", async () => {
    const pane = tab.pane("kinds");
    await rig.phone.events({ after: null });
    pane.item({ id: "u", kind: "user", text: "Hi" });
    pane.item({ id: "r", kind: "reply", text: "Hello" });
    pane.item({ id: "th", kind: "thinking", text: "Hmm" });
    pane.item({ id: "n", kind: "notice", text: "Note" });
    pane.item({ id: "m", kind: "markdown", text: "**bold**" });
    pane.item({ id: "c", kind: "code", text: "let x = 1;", lang: "ts" });
    pane.item({ id: "l", kind: "link", href: "https://example.com/a", label: "A" });
    pane.item({ id: "to", kind: "tool", name: "refund", status: "done", call: "refund(order: \"5521\")", output: "ok" });
    const events = itemEvents((await rig.phone.events()).events, "kinds");
    assert.deepEqual(events.map((e) => e.item.kind), ["user", "reply", "thinking", "notice", "markdown", "code", "link", "tool"]);
    assert.deepEqual(events.map((e) => e.item.id), ["u", "r", "th", "n", "m", "c", "l", "to"]);
    const seqs = events.map((e) => e.seq);
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
    const byId = new Map(events.map((e) => [e.item.id, e.item]));
    assert.deepEqual({ ...byId.get("c"), ts: undefined }, { kind: "code", id: "c", text: "let x = 1;", lang: "ts", ts: undefined });
    assert.deepEqual({ ...byId.get("l"), ts: undefined }, { kind: "link", id: "l", href: "https://example.com/a", label: "A", ts: undefined });
    assert.deepEqual({ ...byId.get("to"), ts: undefined }, {
      kind: "tool", id: "to", name: "refund", status: "done", call: "refund(order: \"5521\")", output: "ok", ts: undefined,
    });
    for (const e of events) assert.equal(typeof e.item.ts, "string", `${e.item.kind} has a ts`);
  });

  it("gives an item without an id a fresh id and returns it", async () => {
    const pane = tab.pane("auto-id");
    const id = pane.item({ kind: "notice", text: "no id given" });
    assert.ok(id.length > 0);
    const view = await rig.phone.pane("auto-id");
    assert.deepEqual(view.items.map((i) => i.id), [id]);
  });

  it("replaces an item with a known id in place, keeping its position", async () => {
    const pane = tab.pane("replace");
    pane.item({ id: "a", kind: "notice", text: "A" });
    pane.item({ id: "b", kind: "reply", text: "first" });
    pane.item({ id: "c", kind: "notice", text: "C" });
    pane.item({ id: "b", kind: "reply", text: "second" });
    const view = await rig.phone.pane("replace");
    assert.deepEqual(view.items.map((i) => [i.id, (i as { text: string }).text]), [["a", "A"], ["b", "second"], ["c", "C"]]);
  });

  it("replaces a running tool item with its done state", async () => {
    const pane = tab.pane("tool-replace");
    pane.item({ id: "t1", kind: "tool", name: "lookup", status: "running" });
    pane.item({ id: "t1", kind: "tool", name: "lookup", status: "done", output: "found" });
    const items = (await rig.phone.pane("tool-replace")).items;
    assert.equal(items.length, 1);
    assert.equal((items[0] as Extract<Item, { kind: "tool" }>).status, "done");
  });

  it("cuts reply text above 64 KiB and marks it textShortened", async () => {
    const pane = tab.pane("cut");
    pane.item({ id: "long", kind: "reply", text: "a".repeat(70_000) });
    pane.item({ id: "long-user", kind: "user", text: "é".repeat(9000) }); // 18000 bytes, limit 16 KiB
    pane.item({ id: "short", kind: "reply", text: "fine" });
    const items = new Map((await rig.phone.pane("cut")).items.map((i) => [i.id, i as Item & { text: string }]));
    assert.equal(Buffer.byteLength(items.get("long")!.text), 65_536);
    assert.equal(items.get("long")!.textShortened, true);
    assert.equal(items.get("long-user")!.text, "é".repeat(8192));
    assert.equal(items.get("long-user")!.textShortened, true);
    assert.equal(items.get("short")!.textShortened, undefined);
  });

  it("removes control, bidi and zero-width characters, keeps newlines and tabs, and marks textShortened", async () => {
    const pane = tab.pane("clean");
    pane.item({ id: "x", kind: "reply", text: "Hel\u0007lo \u202Eworld\u200B\nnext\tline\u2066" });
    const item = (await rig.phone.pane("clean")).items[0] as Item & { text: string };
    assert.equal(item.text, "Hello world\nnext\tline");
    assert.equal(item.textShortened, true);
  });
});

describe("refused item and pane input is an error at the call (S-16, S-17, S-18)", () => {
  let rig: Rig;
  let pane: Pane;
  before(async () => {
    rig = await openRig();
    pane = rig.collie.workspace("w").tab("t").pane("refuse");
  });
  after(() => rig.close());

  const cases: [string, () => unknown, typeof TypeError | typeof RangeError][] = [
    ["a code lang that is not a language token", () => pane.item({ kind: "code", text: "x", lang: "not a lang!" }), TypeError],
    ["an http link", () => pane.item({ kind: "link", href: "http://example.com/" }), TypeError],
    ["a javascript: link", () => pane.item({ kind: "link", href: "javascript:alert(1)" }), TypeError],
    ["a link with a password", () => pane.item({ kind: "link", href: "https://u:p@example.com/" }), TypeError],
    ["a badge over 16 characters", () => pane.state({ badge: "x".repeat(17) }), RangeError],
    ["an empty badge", () => pane.state({ badge: "" }), RangeError],
    ["progress with current above total", () => pane.state({ progress: { kind: "steps", current: 4, total: 3, label: "x" } }), RangeError],
    ["progress with step 0", () => pane.state({ progress: { kind: "steps", current: 0, total: 3, label: "x" } }), RangeError],
    ["progress with a fractional step", () => pane.state({ progress: { kind: "steps", current: 1.5, total: 3, label: "x" } }), RangeError],
    ["progress over 1000 steps", () => pane.state({ progress: { kind: "steps", current: 1, total: 1001, label: "x" } }), RangeError],
    ["a percentage over 100", () => pane.state({ progress: { kind: "percent", value: 101, label: "x" } }), RangeError],
    ["a negative percentage", () => pane.state({ progress: { kind: "percent", value: -1, label: "x" } }), RangeError],
    ["progress without a label", () => pane.state({ progress: { kind: "percent", value: 5 } as never }), TypeError],
    ["five actions", () => pane.state({ actions: ["a", "b", "c", "d", "e"].map((id) => ({ id, label: id })) }), RangeError],
    ["an action label over 16 characters", () => pane.state({ actions: [{ id: "a", label: "x".repeat(17) }] }), RangeError],
    ["an item of kind ask", () => pane.item({ kind: "ask", text: "x" } as never), TypeError],
    ["an item of kind state", () => pane.item({ kind: "state", text: "x" } as never), TypeError],
    ["an item of kind ask-closed", () => pane.item({ kind: "ask-closed", text: "x" } as never), TypeError],
    ["a partial code item", () => pane.item({ kind: "code", text: "x", partial: true } as never), TypeError],
    ["an item id breaking the ID rule", () => pane.item({ id: "a b", kind: "reply", text: "x" }), TypeError],
    ["a state other than idle or working", () => pane.state("waiting" as never), TypeError],
    ["a state() key it does not know", () => pane.state({ colour: "red" } as never), TypeError],
    ["state() with a valid subtitle but an invalid badge (nothing half-written)", () => pane.state({ subtitle: "half", badge: "" }), RangeError],
    ["state() with no argument", () => (pane.state as (x?: unknown) => void)(), TypeError],
  ];

  for (const [what, call, kind] of cases) {
    it(`throws ${kind.name} for ${what} and writes nothing`, async () => {
      const before = await rig.phone.pane("refuse");
      assert.throws(call, (err: unknown) => err instanceof kind);
      const afterView = await rig.phone.pane("refuse");
      assert.deepEqual(afterView.items, before.items);
      assert.deepEqual(afterView.pane, before.pane);
    });
  }

  it("accepts 4 actions with 16-character labels, drops an unknown icon and keeps a known one", async () => {
    pane.state({ actions: [
      { id: "a1", label: "x".repeat(16), icon: "flag" },
      { id: "a2", label: "Two", icon: "rocket" },
      { id: "a3", label: "Three", busy: true },
      { id: "a4", label: "Four", disabled: true },
    ] });
    const actions = (await rig.phone.layout()).panes.find((p) => p.id === "refuse")!.actions;
    assert.deepEqual(actions, [
      { id: "a1", label: "x".repeat(16), icon: "flag" },
      { id: "a2", label: "Two" },
      { id: "a3", label: "Three", busy: true },
      { id: "a4", label: "Four", disabled: true },
    ]);
  });

  it("shows valid steps and percentage progress, a badge and a subtitle in the pane summary", async () => {
    pane.state({ progress: { kind: "steps", current: 2, total: 3, label: "Save note" } });
    pane.state({ badge: "VIP" });
    pane.state({ subtitle: "Waiting for approval" });
    let summary = (await rig.phone.pane("refuse")).pane;
    assert.deepEqual(summary.progress, { kind: "steps", current: 2, total: 3, label: "Save note" });
    assert.equal(summary.badge, "VIP");
    assert.equal(summary.subtitle, "Waiting for approval");
    pane.state({ progress: { kind: "percent", value: 42, label: "Uploading" } });
    summary = (await rig.phone.pane("refuse")).pane;
    assert.deepEqual(summary.progress, { kind: "percent", value: 42, label: "Uploading" });
    pane.state({ progress: null });
    pane.state({ badge: null });
    pane.state({ subtitle: null });
    summary = (await rig.phone.pane("refuse")).pane;
    assert.equal("progress" in summary, false);
    assert.equal("badge" in summary, false);
    assert.equal("subtitle" in summary, false);
  });
});

describe("pane.state(…) is the one writer of the state event (S-13, S-17)", () => {
  let rig: Rig;
  before(async () => {
    rig = await openRig();
  });
  after(() => rig.close());

  it("writes state, subtitle, progress, badge and actions as one state event; read-only fields stay readable", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("one-writer", { sessionId: "s-1" });
    await rig.phone.events({ after: null });
    pane.state({ state: "working", subtitle: "Packing", progress: { kind: "percent", value: 10, label: "Packing" }, badge: "VIP", actions: [{ id: "go", label: "Go" }] });
    const states = (await rig.phone.events()).events.filter((e) => e.type === "state" && e.pane === "one-writer");
    assert.equal(states.length, 1);
    const summary = (states[0] as Extract<PaneEvent, { type: "state" }>).summary;
    assert.deepEqual(
      { state: summary.state, subtitle: summary.subtitle, progress: summary.progress, badge: summary.badge, actions: summary.actions },
      { state: "working", subtitle: "Packing", progress: { kind: "percent", value: 10, label: "Packing" }, badge: "VIP", actions: [{ id: "go", label: "Go" }] },
    );
    // A key left out stays; the string form sets the state alone.
    pane.state("idle");
    const view = await rig.phone.pane("one-writer");
    assert.equal(view.pane.state, "idle");
    assert.equal(view.pane.subtitle, "Packing");
    assert.deepEqual([pane.id, pane.sessionId, pane.turnId, pane.openAsks], ["one-writer", "s-1", null, 0]);
    assert.equal("setState" in pane, false, "one name: state()");
  });

  it("is what items.ts's refusal names: writing a state item points to state(), which exists", () => {
    const pane = rig.collie.workspace("w").tab("t").pane("named");
    assert.throws(() => pane.item({ kind: "state", text: "x" } as never), (err: unknown) => err instanceof TypeError && /state\(\)/.test(err.message));
    assert.equal(typeof pane.state, "function");
    assert.doesNotThrow(() => pane.state("working"));
  });
});

describe("pane state: idle, working, waiting (S-13, S-18)", () => {
  let rig: Rig;
  before(async () => {
    rig = await openRig();
  });
  after(() => rig.close());

  it("goes idle → working on beginTurn with the turn id, and back to idle on endTurn, each as a state event", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("states");
    await rig.phone.events({ after: null });
    assert.equal(pane.summary().state, "idle");
    const turn = pane.beginTurn("turn-1");
    assert.equal(turn, "turn-1");
    let page = await rig.phone.events();
    let states = page.events.filter((e) => e.type === "state" && e.pane === "states");
    assert.equal(states.length, 1);
    assert.equal((states[0] as Extract<PaneEvent, { type: "state" }>).summary.state, "working");
    assert.equal((states[0] as Extract<PaneEvent, { type: "state" }>).summary.turnId, "turn-1");
    pane.endTurn();
    page = await rig.phone.events();
    states = page.events.filter((e) => e.type === "state" && e.pane === "states");
    assert.equal((states.at(-1) as Extract<PaneEvent, { type: "state" }>).summary.state, "idle");
    // the last turn stays named (S-13)
    assert.equal((await rig.phone.pane("states")).pane.turnId, "turn-1");
  });

  it("shows waiting while an ask is open, and working again once it is answered", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("waiting");
    pane.beginTurn("turn-w");
    const answered = pane.ask({ kind: "text", toolCallId: "c1", itemId: "i1", title: "Name?" });
    let view = await rig.phone.pane("waiting");
    assert.equal(view.pane.state, "waiting");
    assert.equal(view.pane.openAsks, 1);
    const reply = await rig.phone.answer(view.asks[0]!, { kind: "text", text: "Ada" });
    assert.equal(reply.status, 200);
    await answered;
    view = await rig.phone.pane("waiting");
    assert.equal(view.pane.state, "working");
    assert.equal(view.pane.openAsks, 0);
  });
});

describe("partial text is coalesced to one write per 250 ms (S-15)", () => {
  let rig: Rig;
  let clock: ManualClock;
  before(async () => {
    clock = new ManualClock();
    rig = await openRig({ clock });
  });
  after(() => rig.close());

  it("sends the first partial write at once and coalesces the next ones into one event at the window end with the newest text", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("coalesce");
    await rig.phone.events({ after: null });
    pane.item({ id: "r", kind: "reply", text: "H", partial: true });
    let events = itemEvents((await rig.phone.events()).events, "coalesce");
    assert.deepEqual(events.map((e) => (e.item as { text: string }).text), ["H"]);
    for (const text of ["He", "Hel", "Hell", "Hello, w"]) {
      clock.advance(40);
      pane.item({ id: "r", kind: "reply", text, partial: true });
    }
    // t = 160 ms: nothing more has gone out
    assert.equal(itemEvents((await rig.phone.events()).events, "coalesce").length, 0);
    clock.advance(89); // t = 249 ms
    assert.equal(itemEvents((await rig.phone.events()).events, "coalesce").length, 0);
    clock.advance(1); // t = 250 ms: the window ends
    events = itemEvents((await rig.phone.events()).events, "coalesce");
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]!.item, { kind: "reply", id: "r", text: "Hello, w", partial: true });
    clock.advance(1000);
    assert.equal(itemEvents((await rig.phone.events()).events, "coalesce").length, 0, "nothing is written twice");
  });

  it("writes the final text (without partial) at once and drops the held-back partial", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("final");
    await rig.phone.events({ after: null });
    pane.item({ id: "r", kind: "reply", text: "Wor", partial: true });
    clock.advance(10);
    pane.item({ id: "r", kind: "reply", text: "Worki", partial: true }); // held back
    clock.advance(10);
    pane.item({ id: "r", kind: "reply", text: "Working on it." });
    const events = itemEvents((await rig.phone.events()).events, "final");
    assert.deepEqual(events.map((e) => [(e.item as { text: string }).text, "partial" in e.item]), [["Wor", true], ["Working on it.", false]]);
    clock.advance(1000);
    assert.equal(itemEvents((await rig.phone.events()).events, "final").length, 0, "the held-back partial never goes out");
    const view = await rig.phone.pane("final");
    assert.deepEqual(view.items.map((i) => (i as { text: string }).text), ["Working on it."]);
  });

  it("flushes held-back partial text on endTurn, before the pane goes idle", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("flush");
    pane.beginTurn("t1");
    await rig.phone.events({ after: null });
    pane.item({ id: "th", kind: "thinking", text: "Let", partial: true });
    clock.advance(5);
    pane.item({ id: "th", kind: "thinking", text: "Let me think", partial: true }); // held back
    pane.endTurn();
    const events = (await rig.phone.events()).events.filter((e) => e.pane === "flush");
    const items = itemEvents(events, "flush");
    assert.deepEqual(items.map((e) => (e.item as { text: string }).text), ["Let", "Let me think"]);
    const idle = events.find((e) => e.type === "state" && e.summary.state === "idle");
    assert.ok(idle, "a state event says idle");
    assert.ok(items[1]!.seq < idle.seq, "the flushed text goes out before the pane leaves working");
    clock.advance(1000);
    assert.equal(itemEvents((await rig.phone.events()).events, "flush").length, 0);
  });

  it("coalesces each item id on its own", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("two-ids");
    await rig.phone.events({ after: null });
    pane.item({ id: "a", kind: "reply", text: "a1", partial: true });
    pane.item({ id: "b", kind: "markdown", text: "b1", partial: true });
    clock.advance(100);
    pane.item({ id: "a", kind: "reply", text: "a2", partial: true });
    pane.item({ id: "b", kind: "markdown", text: "b2", partial: true });
    clock.advance(150);
    const events = itemEvents((await rig.phone.events()).events, "two-ids");
    assert.deepEqual(events.map((e) => `${e.item.id}:${(e.item as { text: string }).text}`), ["a:a1", "b:b1", "a:a2", "b:b2"]);
  });
});
