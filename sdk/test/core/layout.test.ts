/** Layout over the wire: workspace → tab → pane, ready, the ID rule, cut titles (S-9…S-12). */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openRig, type Rig } from "../helpers/agent.ts";

const bytes = (s: string): number => Buffer.byteLength(s, "utf8");

describe("layout: workspace → tab → pane and ready() (S-9)", () => {
  let rig: Rig;
  before(async () => {
    rig = await openRig();
  });
  after(() => rig.close());

  it("reports ready: false until ready() is called, then true", async () => {
    assert.equal((await rig.phone.layout()).ready, false);
    rig.collie.ready();
    assert.equal((await rig.phone.layout()).ready, true);
  });

  it("shows a workspace, its tab as <workspace>:<tab> and the pane in that tab", async () => {
    const tab = rig.collie.workspace("support", { title: "Support desk" }).tab("main", { title: "Inbox" });
    assert.equal(tab.id, "support:main");
    tab.pane("ticket-1", { title: "Refund", harness: "desk-bot", cwd: "/srv/support" });
    const layout = await rig.phone.layout();
    assert.deepEqual(layout.workspaces.find((w) => w.id === "support"), { id: "support", title: "Support desk" });
    assert.deepEqual(layout.tabs.find((t) => t.id === "support:main"), { id: "support:main", workspaceId: "support", title: "Inbox" });
    const pane = layout.panes.find((p) => p.id === "ticket-1");
    assert.ok(pane);
    assert.equal(pane.tabId, "support:main");
    assert.equal(pane.title, "Refund");
    assert.equal(pane.harness, "desk-bot");
    assert.equal(pane.cwd, "/srv/support");
    assert.equal(pane.state, "idle");
    assert.equal(pane.openAsks, 0);
    assert.equal(pane.turnId, null);
    assert.deepEqual(pane.actions, []);
  });

  it("returns the existing workspace, tab and pane for a known id instead of a second one", async () => {
    const ws = rig.collie.workspace("dup", { title: "First" });
    assert.equal(rig.collie.workspace("dup", { title: "Second" }), ws);
    const tab = ws.tab("t", { title: "Tab" });
    assert.equal(ws.tab("t"), tab);
    const pane = tab.pane("shared-pane", { title: "Original" });
    assert.equal(tab.pane("shared-pane", { title: "Other title" }), pane);
    // One conversation shown twice needs no second pane: another tab gets the same pane back.
    assert.equal(ws.tab("t2").pane("shared-pane"), pane);
    const layout = await rig.phone.layout();
    assert.equal(layout.workspaces.filter((w) => w.id === "dup").length, 1);
    const panes = layout.panes.filter((p) => p.id === "shared-pane");
    assert.equal(panes.length, 1);
    assert.equal(panes[0]!.title, "Original");
    assert.equal(panes[0]!.tabId, "dup:t");
  });
});

describe("layout: the ID rule (S-11)", () => {
  let rig: Rig;
  before(async () => {
    rig = await openRig();
  });
  after(() => rig.close());

  const BAD: [string, string, RegExp][] = [
    ["empty", "", /must not be empty/],
    ["white space", "a b", /must not contain white space/],
    ["a slash", "a/b", /must not contain \/ \? or #/],
    ["a question mark", "a?b", /must not contain \/ \? or #/],
    ["a hash", "a#b", /must not contain \/ \? or #/],
    ["a control character", "a\u0007b", /must not contain a control character/],
    ["129 bytes", "x".repeat(129), /must be at most 128 bytes/],
  ];

  for (const [what, id, rule] of BAD) {
    it(`refuses a workspace, tab and pane id with ${what} with a TypeError naming the rule`, () => {
      const check = (fn: () => unknown) =>
        assert.throws(fn, (err: unknown) => err instanceof TypeError && /breaks the ID rule/.test(err.message) && rule.test(err.message));
      check(() => rig.collie.workspace(id));
      const ws = rig.collie.workspace("ids");
      check(() => ws.tab(id));
      check(() => ws.tab("t").pane(id));
    });
  }

  it("accepts an id of exactly 128 bytes of multi-byte characters", () => {
    const id = "é".repeat(64);
    assert.equal(bytes(id), 128);
    assert.equal(rig.collie.workspace("ids").tab("t").pane(id).id, id);
  });

  it("refuses ':' in a workspace or tab id with a TypeError that says why", () => {
    assert.throws(() => rig.collie.workspace("a:b"), (err: unknown) => err instanceof TypeError && /must not contain ":"/.test(err.message));
    assert.throws(() => rig.collie.workspace("ids").tab("a:b"), (err: unknown) => err instanceof TypeError && /<workspace>:<tab>/.test(err.message));
  });

  it("allows ':' in a pane id, and the phone reads that pane by its id", async () => {
    rig.collie.workspace("ids").tab("t").pane("desk:ticket:7", { title: "Colon" });
    const view = await rig.phone.pane("desk:ticket:7");
    assert.equal(view.pane.id, "desk:ticket:7");
    assert.equal(view.pane.tabId, "ids:t");
  });

  it("leaves nothing in the layout after a refused id", async () => {
    assert.throws(() => rig.collie.workspace("bad ws"));
    const layout = await rig.phone.layout();
    assert.equal(layout.workspaces.some((w) => w.id === "bad ws"), false);
  });
});

describe("layout: titles, harness and cwd (S-10)", () => {
  let rig: Rig;
  before(async () => {
    rig = await openRig();
  });
  after(() => rig.close());

  it("cuts titles to 256 bytes without splitting a 3-byte character at the boundary", async () => {
    const long = "ab" + "€".repeat(100); // 302 bytes; byte 256 falls inside a €
    const ws = rig.collie.workspace("cut", { title: long });
    const tab = ws.tab("t", { title: long });
    tab.pane("cut-1", { title: long });
    const layout = await rig.phone.layout();
    const expected = "ab" + "€".repeat(84); // 254 bytes: the 85th € would end at byte 257
    assert.equal(layout.workspaces.find((w) => w.id === "cut")!.title, expected);
    assert.equal(layout.tabs.find((t) => t.id === "cut:t")!.title, expected);
    assert.equal(layout.panes.find((p) => p.id === "cut-1")!.title, expected);
  });

  it("cuts titles without splitting a 4-byte emoji (no replacement character)", async () => {
    const long = "x" + "😀".repeat(70); // 281 bytes
    rig.collie.workspace("cut").tab("t").pane("cut-2", { title: long });
    const title = (await rig.phone.layout()).panes.find((p) => p.id === "cut-2")!.title;
    assert.equal(title, "x" + "😀".repeat(63));
    assert.ok(bytes(title) <= 256);
    assert.equal(title.includes("\uFFFD"), false);
    assert.ok(title.isWellFormed());
  });

  it("keeps a title of exactly 256 bytes whole", async () => {
    const exact = "€".repeat(85) + "a"; // 256 bytes
    rig.collie.workspace("cut").tab("t").pane("cut-3", { title: exact });
    assert.equal((await rig.phone.layout()).panes.find((p) => p.id === "cut-3")!.title, exact);
  });

  it("cuts harness to 64 bytes without splitting a character", async () => {
    rig.collie.workspace("cut").tab("t").pane("cut-4", { harness: "hh" + "€".repeat(30) });
    const harness = (await rig.phone.layout()).panes.find((p) => p.id === "cut-4")!.harness;
    assert.equal(harness, "hh" + "€".repeat(20));
    assert.equal(bytes(harness), 62);
  });

  it("drops a relative cwd and keeps an absolute one", async () => {
    const tab = rig.collie.workspace("cut").tab("t");
    tab.pane("cwd-rel", { cwd: "srv/support" });
    tab.pane("cwd-dot", { cwd: "./work" });
    tab.pane("cwd-abs", { cwd: "/srv/support" });
    const panes = (await rig.phone.layout()).panes;
    assert.equal("cwd" in panes.find((p) => p.id === "cwd-rel")!, false);
    assert.equal("cwd" in panes.find((p) => p.id === "cwd-dot")!, false);
    assert.equal(panes.find((p) => p.id === "cwd-abs")!.cwd, "/srv/support");
  });

  it("folds line breaks in a title into one line and removes control characters", async () => {
    rig.collie.workspace("cut").tab("t").pane("cut-5", { title: "Line one\nline two\u0007\u202E" });
    assert.equal((await rig.phone.layout()).panes.find((p) => p.id === "cut-5")!.title, "Line one line two");
  });
});
