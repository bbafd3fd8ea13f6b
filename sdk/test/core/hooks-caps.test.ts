/** Hooks, pane handlers and caps over the wire (S-19, S-20, S-29, S-30, S-33). */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createCore } from "../../src/core/core.ts";
import { Refusal, type ActionEvent, type Hooks, type SendEvent, type SteerEvent, type StopEvent } from "../../src/core/hooks.ts";
import { AskClosed, type Pane } from "../../src/core/layout.ts";
import { ALL_CAPS } from "../../src/wire/constants.ts";
import type { Item, PaneEvent } from "../../src/wire/types.ts";
import { CORE_TOKEN, memoryCore, openRig, until, type Rig } from "../helpers/agent.ts";

const emptyHistory = { list: () => ({ rows: [] }), items: () => null };
const settle = <T>(p: Promise<T>): Promise<{ value?: T; error?: unknown }> => p.then((value) => ({ value }), (error: unknown) => ({ error }));

describe("caps (S-33)", () => {
  it("turns on every cap the SDK supports when caps are omitted; history waits for a provider; terminal is false", async () => {
    const rig = await openRig();
    try {
      const caps = (await rig.phone.hello()).caps;
      assert.deepEqual(caps, { ...ALL_CAPS, history: false, terminal: false });
      assert.equal((await rig.phone.history()).status, 409);
      rig.collie.history(emptyHistory);
      assert.equal((await rig.phone.hello()).caps.history, true);
      assert.equal((await rig.phone.history()).status, 200);
    } finally {
      await rig.close();
    }
  });

  describe("given {asks: true}, the complete list", () => {
    let rig: Rig;
    let pane: Pane;
    const ran: string[] = [];
    before(async () => {
      rig = await openRig({
        caps: { asks: true },
        starters: [{ id: "new", title: "New" }],
        hooks: {
          onSend: () => void ran.push("send"), onSteer: () => void ran.push("steer"), onStop: () => void ran.push("stop"),
          onAction: () => void ran.push("action"), onRename: () => void ran.push("rename"), onClose: () => void ran.push("close"),
          onReopen: () => { ran.push("reopen"); return pane; }, onStarter: () => { ran.push("starter"); return pane; },
        },
      });
      rig.collie.history(emptyHistory);
      pane = rig.collie.workspace("w").tab("t").pane("p");
      pane.state({ actions: [{ id: "go", label: "Go" }] });
    });
    after(() => rig.close());

    it("shows only asks in hello.caps", async () => {
      const caps = (await rig.phone.hello()).caps;
      assert.deepEqual(caps, {
        asks: true, send: false, steer: false, stop: false, actions: false, rename: false, close: false,
        reopen: false, starters: false, history: false, followUp: false, terminal: false,
      });
    });

    it("answers 409 not-supported to send, steer, stop, action, rename, close, reopen, starters and history, running nothing", async () => {
      const replies = await Promise.all([
        rig.phone.send("p", "hi"),
        rig.phone.steer("p", "hi", null),
        rig.phone.stop("p", null),
        rig.phone.action("p", "go", null),
        rig.phone.rename({ kind: "pane", id: "p" }, "New title"),
        rig.phone.close({ kind: "pane", id: "p" }),
        rig.phone.reopen({ kind: "pane", id: "p" }),
        rig.phone.starter("new"),
        rig.phone.starters(),
        rig.phone.history(),
        rig.phone.historyItems("p"),
      ]);
      for (const reply of replies) {
        assert.equal(reply.status, 409);
        assert.equal((reply.body as unknown as { error: string }).error, "not-supported");
      }
      assert.deepEqual(ran, []);
      assert.equal((await rig.phone.pane("p")).pane.title, "");
    });

    it("still takes answers", async () => {
      const answered = pane.ask({ kind: "permission", toolCallId: "c", itemId: "i", title: "Go?", options: [{ kind: "allow" }, { kind: "deny" }] });
      const ask = (await rig.phone.pane("p")).asks[0]!;
      assert.equal((await rig.phone.answer(ask, { kind: "permission", optionId: "allow" })).status, 200);
      assert.deepEqual(await answered, { kind: "permission", optionId: "allow", optionKind: "allow" });
    });
  });

  it("declares followUp only when given: off by default, on with {...ALL_CAPS, followUp: true}", async () => {
    const plain = await openRig();
    const queuing = await openRig({ caps: { ...ALL_CAPS, followUp: true } });
    try {
      assert.equal((await plain.phone.hello()).caps.followUp, false);
      assert.equal((await queuing.phone.hello()).caps.followUp, true);
    } finally {
      await plain.close();
      await queuing.close();
    }
  });

  it("turns one cap off with {...ALL_CAPS, steer: false}, keeping the rest", async () => {
    let sent = 0;
    const rig = await openRig({ caps: { ...ALL_CAPS, steer: false }, hooks: { onSend: () => void sent++, onSteer: () => assert.fail("steer ran") } });
    try {
      const caps = (await rig.phone.hello()).caps;
      assert.deepEqual(caps, { ...ALL_CAPS, steer: false, history: false, terminal: false });
      const pane = rig.collie.workspace("w").tab("t").pane("p");
      pane.beginTurn("t1");
      const steer = await rig.phone.steer("p", "faster", "t1");
      assert.equal(steer.status, 409);
      assert.equal(steer.body.error, "not-supported");
      assert.equal((await rig.phone.send("p", "hi")).status, 200);
      assert.equal(sent, 1);
      rig.collie.history(emptyHistory);
      assert.equal((await rig.phone.hello()).caps.history, true, "history comes on once a provider is set");
    } finally {
      await rig.close();
    }
  });

  it("keeps history off when the given caps leave it out, even with a provider", async () => {
    const rig = await openRig({ caps: { ...ALL_CAPS, history: false } });
    try {
      rig.collie.history(emptyHistory);
      assert.equal((await rig.phone.hello()).caps.history, false);
      assert.equal((await rig.phone.history()).status, 409);
    } finally {
      await rig.close();
    }
  });

  it("reports terminal false even when a caller asks for it", () => {
    assert.equal(createCore({ token: CORE_TOKEN, caps: { terminal: true } as never }).caps.terminal, false);
  });

  it("throws a TypeError for an unknown cap name", () => {
    assert.throws(() => createCore({ token: CORE_TOKEN, caps: { teleport: true } as never }), TypeError);
  });
});

describe("pane handlers and hooks (S-19, S-29)", () => {
  let rig: Rig;
  const hookCalls: string[] = [];
  before(async () => {
    const hooks: Hooks = {
      onSend: (e: SendEvent) => void hookCalls.push(`send:${e.pane.id}:${e.text}`),
      onStop: (e: StopEvent) => void hookCalls.push(`stop:${e.pane.id}`),
    };
    rig = await openRig({ hooks });
  });
  after(() => rig.close());

  it("runs the pane's own onSend instead of the hook", async () => {
    const own: string[] = [];
    rig.collie.workspace("w").tab("t").pane("own").onSend(({ text }) => void own.push(text));
    const reply = await rig.phone.send("own", "to the pane");
    assert.equal(reply.status, 200);
    assert.deepEqual(own, ["to the pane"]);
    assert.equal(hookCalls.some((c) => c.startsWith("send:own")), false);
  });

  it("falls back to the hook for a pane without its own handler, with the pane, text and request id", async () => {
    rig.collie.workspace("w").tab("t").pane("hooked");
    const reply = await rig.phone.send("hooked", "to the hook", { requestId: "hook-req" });
    assert.equal(reply.status, 200);
    assert.ok(hookCalls.includes("send:hooked:to the hook"));
  });

  it("answers 409 not-supported to a send, steer, stop or click when neither a handler nor a hook takes it", async () => {
    const core = createCore({ token: CORE_TOKEN });
    const pane = core.workspace("w").tab("t").pane("bare");
    pane.state({ actions: [{ id: "go", label: "Go" }] });
    pane.beginTurn("t1");
    const served = await memoryCore(core);
    try {
      for (const reply of [
        await served.phone.send("bare", "hi"),
        await served.phone.steer("bare", "hi", "t1"),
        await served.phone.stop("bare", "t1"),
        await served.phone.action("bare", "go", "t1"),
      ]) {
        assert.equal(reply.status, 409);
        assert.equal(reply.body.error, "not-supported");
      }
      const items = (await served.phone.pane("bare")).items;
      assert.deepEqual(items, [], "nothing was echoed or noted");
    } finally {
      await served.close();
    }
  });

  it("answers 404 not-found for a send to an unknown pane", async () => {
    const reply = await rig.phone.send("no-such-pane", "hi");
    assert.equal(reply.status, 404);
    assert.equal(reply.body.error, "not-found");
  });
});

describe("actions and the turn they name (S-18, S-20)", () => {
  let rig: Rig;
  let pane: Pane;
  const taps: ActionEvent[] = [];
  before(async () => {
    rig = await openRig();
    pane = rig.collie.workspace("w").tab("t").pane("act");
    pane.onAction((e) => void taps.push(e));
    pane.state({ actions: [
      { id: "go", label: "Go", icon: "play" },
      { id: "wait", label: "Wait", busy: true },
      { id: "off", label: "Off", disabled: true },
    ] });
  });
  after(() => rig.close());

  it("runs the pane's onAction when the tap names the pane's current turn (null before the first turn)", async () => {
    const first = await rig.phone.action("act", "go", null);
    assert.equal(first.status, 200);
    pane.beginTurn("turn-1");
    const second = await rig.phone.action("act", "go", "turn-1", { requestId: "tap-2" });
    assert.deepEqual(second.body, { ok: true });
    assert.deepEqual(taps.map((t) => [t.actionId, t.turnId, t.pane.id]), [["go", null, "act"], ["go", "turn-1", "act"]]);
    assert.equal(taps[1]!.requestId, "tap-2");
  });

  it("answers 409 moved-on and runs nothing when the tap names an older turn", async () => {
    pane.beginTurn("turn-2");
    const count = taps.length;
    const reply = await rig.phone.action("act", "go", "turn-1");
    assert.equal(reply.status, 409);
    assert.equal(reply.body.error, "moved-on");
    assert.equal(taps.length, count);
  });

  it("answers 409 refused for a busy or disabled button and runs nothing", async () => {
    const count = taps.length;
    for (const id of ["wait", "off"]) {
      const reply = await rig.phone.action("act", id, "turn-2");
      assert.equal(reply.status, 409);
      assert.equal(reply.body.error, "refused");
    }
    assert.equal(taps.length, count);
  });

  it("answers 404 not-found for an unknown button", async () => {
    const reply = await rig.phone.action("act", "nope", "turn-2");
    assert.equal(reply.status, 404);
    assert.equal(reply.body.error, "not-found");
  });
});

describe("steer (S-19, P-22)", () => {
  let rig: Rig;
  let pane: Pane;
  const steers: SteerEvent[] = [];
  before(async () => {
    rig = await openRig();
    pane = rig.collie.workspace("w").tab("t").pane("steer");
    pane.onSteer((e) => void steers.push(e));
  });
  after(() => rig.close());

  it("answers 409 moved-on when the pane is idle, and runs nothing", async () => {
    const reply = await rig.phone.steer("steer", "go left", null);
    assert.equal(reply.status, 409);
    assert.equal(reply.body.error, "moved-on");
    pane.beginTurn("t1");
    pane.endTurn();
    const afterTurn = await rig.phone.steer("steer", "go left", "t1");
    assert.equal(afterTurn.body.error, "moved-on");
    assert.equal(steers.length, 0);
  });

  it("puts the text into the running turn when the turn id matches", async () => {
    pane.beginTurn("t2");
    const reply = await rig.phone.steer("steer", "go right", "t2", { requestId: "steer-1" });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.turnId, "t2");
    assert.deepEqual(steers.map((s) => [s.text, s.turnId, s.requestId]), [["go right", "t2", "steer-1"]]);
  });

  it("answers 409 moved-on for another turn id while a turn runs", async () => {
    const reply = await rig.phone.steer("steer", "late", "t1");
    assert.equal(reply.body.error, "moved-on");
    assert.equal(steers.length, 1);
  });
});

describe("stop (S-19, S-24, P-16, P-19)", () => {
  let rig: Rig;
  before(async () => {
    rig = await openRig();
  });
  after(() => rig.close());

  it("closes open asks as program without a 'Decided in' line, leaves a stopped notice and goes idle", async () => {
    const stops: StopEvent[] = [];
    const pane = rig.collie.workspace("w").tab("t").pane("stop-1").onStop((e) => void stops.push(e));
    pane.beginTurn("turn-9");
    const asked = settle(pane.ask({ kind: "text", toolCallId: "c1", itemId: "i1", title: "Refund how much?" }));
    const ask = (await rig.phone.pane("stop-1")).asks[0]!;
    const start = await rig.phone.events({ after: null });
    const reply = await rig.phone.stop("stop-1", "turn-9");
    assert.equal(reply.status, 200);
    assert.equal(stops.length, 1);
    const { error } = await asked;
    assert.ok(error instanceof AskClosed);
    assert.equal(error.decidedBy, "program");
    assert.equal(error.askId, ask.id);
    const view = await rig.phone.pane("stop-1");
    assert.equal(view.pane.state, "idle");
    assert.equal(view.pane.openAsks, 0);
    const notices = view.items.filter((i): i is Extract<Item, { kind: "notice" }> => i.kind === "notice");
    assert.equal(notices.some((n) => n.text.startsWith("Decided in")), false, "a stop leaves no 'Decided in' line");
    assert.deepEqual(notices.map((n) => [n.text, n.stopped]), [["stopped", true]]);
    const closed = (await rig.phone.events({ after: start.cursor })).events.find((e) => e.type === "ask-closed");
    assert.ok(closed && closed.type === "ask-closed");
    assert.equal(closed.decidedBy, "program");
    // A late answer from the phone learns the agent decided first.
    const late = await rig.phone.answer(ask, { kind: "text", text: "40" });
    assert.equal(late.status, 409);
    assert.equal(late.body.error, "ask-decided");
  });

  it("answers 409 moved-on for a stop naming an older turn and stops nothing", async () => {
    let ran = 0;
    const pane = rig.collie.workspace("w").tab("t").pane("stop-2").onStop(() => void ran++);
    pane.beginTurn("t-new");
    const reply = await rig.phone.stop("stop-2", "t-old");
    assert.equal(reply.status, 409);
    assert.equal(reply.body.error, "moved-on");
    assert.equal(ran, 0);
    assert.equal((await rig.phone.pane("stop-2")).pane.state, "working");
  });
});

describe("rename, close, reopen and starters (S-29, S-30, P-25)", () => {
  let rig: Rig;
  const renames: string[] = [];
  let refuseRename = false;
  before(async () => {
    rig = await openRig({
      hooks: {
        onRename: ({ target, title }) => {
          if (refuseRename) throw new Refusal("names are fixed");
          renames.push(`${target.kind}:${target.id}=${title}`);
        },
      },
    });
    rig.collie.ready();
  });
  after(() => rig.close());

  it("renames a pane, a tab and a workspace from the phone, and the layout shows the new titles", async () => {
    const ws = rig.collie.workspace("rn", { title: "Old ws" });
    const pane = ws.tab("tb", { title: "Old tab" }).pane("rn-pane", { title: "Old pane" });
    for (const [target, title] of [
      [{ kind: "pane", id: "rn-pane" }, "New pane"],
      [{ kind: "tab", id: "rn:tb" }, "New tab"],
      [{ kind: "workspace", id: "rn" }, "New ws"],
    ] as const) {
      assert.equal((await rig.phone.rename(target, title)).status, 200);
    }
    const layout = await rig.phone.layout();
    assert.equal(layout.panes.find((p) => p.id === "rn-pane")!.title, "New pane");
    assert.equal(layout.tabs.find((t) => t.id === "rn:tb")!.title, "New tab");
    assert.equal(layout.workspaces.find((w) => w.id === "rn")!.title, "New ws");
    assert.equal(pane.title, "New pane");
    assert.deepEqual(renames, ["pane:rn-pane=New pane", "tab:rn:tb=New tab", "workspace:rn=New ws"]);
  });

  it("keeps the title when the rename hook refuses, and answers 409 refused", async () => {
    rig.collie.workspace("rn").tab("tb").pane("rn-fixed", { title: "Fixed" });
    refuseRename = true;
    try {
      const reply = await rig.phone.rename({ kind: "pane", id: "rn-fixed" }, "Changed");
      assert.equal(reply.status, 409);
      assert.equal(reply.body.error, "refused");
      assert.equal(reply.body.reason, "names are fixed");
    } finally {
      refuseRename = false;
    }
    assert.equal((await rig.phone.pane("rn-fixed")).pane.title, "Fixed");
  });

  it("answers 404 not-found for a rename of an unknown target", async () => {
    for (const target of [{ kind: "pane", id: "nope" }, { kind: "tab", id: "rn:nope" }, { kind: "workspace", id: "nope" }] as const) {
      const reply = await rig.phone.rename(target, "x");
      assert.equal(reply.status, 404);
      assert.equal(reply.body.error, "not-found");
    }
  });

  it("closes a pane from the phone: it leaves the layout and its open ask rejects with AskClosed", async () => {
    const pane = rig.collie.workspace("cl").tab("t").pane("cl-pane");
    const asked = settle(pane.ask({ kind: "text", toolCallId: "c", itemId: "i", title: "Still there?" }));
    assert.equal((await rig.phone.close({ kind: "pane", id: "cl-pane" })).status, 200);
    const { error } = await asked;
    assert.ok(error instanceof AskClosed);
    assert.equal(error.decidedBy, "program");
    assert.equal(pane.closed, true);
    assert.equal((await rig.phone.layout()).panes.some((p) => p.id === "cl-pane"), false);
    assert.equal((await rig.phone.request("GET", "/durable/v1/panes/cl-pane")).status, 404);
    assert.throws(() => pane.item({ kind: "notice", text: "x" }), TypeError, "a closed pane takes no items");
  });

  it("closes a tab with its panes, and a workspace with its tabs and panes", async () => {
    const ws = rig.collie.workspace("cl2");
    ws.tab("a").pane("cl2-a1");
    ws.tab("a").pane("cl2-a2");
    const b = ws.tab("b").pane("cl2-b1");
    const asked = settle(b.ask({ kind: "text", toolCallId: "c", itemId: "i", title: "?" }));
    assert.equal((await rig.phone.close({ kind: "tab", id: "cl2:a" })).status, 200);
    let layout = await rig.phone.layout();
    assert.equal(layout.tabs.some((t) => t.id === "cl2:a"), false);
    assert.deepEqual(layout.panes.filter((p) => p.id.startsWith("cl2-")).map((p) => p.id), ["cl2-b1"]);
    assert.equal((await rig.phone.close({ kind: "workspace", id: "cl2" })).status, 200);
    layout = await rig.phone.layout();
    assert.equal(layout.workspaces.some((w) => w.id === "cl2"), false);
    assert.equal(layout.tabs.some((t) => t.workspaceId === "cl2"), false);
    assert.equal(layout.panes.some((p) => p.id.startsWith("cl2-")), false);
    assert.ok((await asked).error instanceof AskClosed);
  });

  it("answers 404 not-found for a close of an unknown target", async () => {
    const reply = await rig.phone.close({ kind: "tab", id: "cl:none" });
    assert.equal(reply.status, 404);
    assert.equal(reply.body.error, "not-found");
  });

  it("reopens a pane this process closed, with its items, back in its tab", async () => {
    const pane = rig.collie.workspace("ro").tab("t").pane("ro-pane", { title: "Keep me" });
    pane.item({ id: "kept", kind: "reply", text: "still here" });
    await rig.phone.close({ kind: "pane", id: "ro-pane" });
    const reply = await rig.phone.reopen({ kind: "pane", id: "ro-pane" });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, { ok: true, paneId: "ro-pane" });
    const view = await rig.phone.pane("ro-pane");
    assert.equal(view.pane.title, "Keep me");
    assert.equal(view.pane.tabId, "ro:t");
    assert.deepEqual(view.items.map((i) => i.id), ["kept"]);
    pane.item({ id: "after", kind: "notice", text: "writable again" });
    assert.deepEqual((await rig.phone.pane("ro-pane")).items.map((i) => i.id), ["kept", "after"]);
  });

  it("reopens a pane whose whole workspace was closed, bringing the workspace and tab back", async () => {
    rig.collie.workspace("ro2", { title: "WS" }).tab("t", { title: "Tab" }).pane("ro2-pane");
    await rig.phone.close({ kind: "workspace", id: "ro2" });
    assert.equal((await rig.phone.reopen({ kind: "pane", id: "ro2-pane" })).status, 200);
    const layout = await rig.phone.layout();
    assert.deepEqual(layout.workspaces.find((w) => w.id === "ro2"), { id: "ro2", title: "WS" });
    assert.deepEqual(layout.tabs.find((t) => t.id === "ro2:t"), { id: "ro2:t", workspaceId: "ro2", title: "Tab" });
    assert.equal(layout.panes.find((p) => p.id === "ro2-pane")!.tabId, "ro2:t");
  });

  it("reopens a pane the agent closed itself with pane.close()", async () => {
    const pane = rig.collie.workspace("ro").tab("t").pane("ro-self");
    pane.close();
    assert.equal((await rig.phone.layout()).panes.some((p) => p.id === "ro-self"), false);
    assert.equal((await rig.phone.reopen({ kind: "pane", id: "ro-self" })).status, 200);
    assert.ok((await rig.phone.layout()).panes.some((p) => p.id === "ro-self"));
  });

  it("answers 404 not-found for a reopen of a conversation this process never closed", async () => {
    const reply = await rig.phone.reopen({ kind: "pane", id: "from-before-restart" });
    assert.equal(reply.status, 404);
    assert.equal(reply.body.error, "not-found");
  });

  it("uses the onReopen hook when given, and answers with the pane it returns", async () => {
    const seen: string[] = [];
    const rig2 = await openRig({
      hooks: {
        onReopen: ({ target, requestId }) => {
          seen.push(`${target.kind}:${target.id}:${requestId}`);
          return rig2.collie.workspace("w").tab("t").pane(`${target.id}-again`, { title: "Reopened" });
        },
      },
    });
    try {
      const reply = await rig2.phone.reopen({ kind: "pane", id: "old-conv" }, { requestId: "ro-req" });
      assert.deepEqual(reply.body, { ok: true, paneId: "old-conv-again" });
      assert.deepEqual(seen, ["pane:old-conv:ro-req"]);
      assert.ok((await rig2.phone.layout()).panes.some((p) => p.id === "old-conv-again"));
    } finally {
      await rig2.close();
    }
  });
});

describe("starters (P-25, S-29)", () => {
  let rig: Rig;
  const started: string[] = [];
  before(async () => {
    rig = await openRig({
      starters: [{ id: "new-ticket", title: "New ticket", subtitle: "Empty", icon: "note" }, { id: "digest", title: "Digest" }],
      hooks: {
        onStarter: ({ starterId, requestId }) => {
          started.push(`${starterId}:${requestId}`);
          return rig.collie.workspace("w").tab("t").pane(`from-${starterId}`, { title: "Fresh" });
        },
      },
    });
  });
  after(() => rig.close());

  it("lists the starters", async () => {
    const reply = await rig.phone.starters();
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body.starters, [
      { id: "new-ticket", title: "New ticket", subtitle: "Empty", icon: "note" },
      { id: "digest", title: "Digest" },
    ]);
  });

  it("runs onStarter and answers with the new pane's id", async () => {
    const reply = await rig.phone.starter("new-ticket", { requestId: "st-1" });
    assert.deepEqual(reply.body, { ok: true, paneId: "from-new-ticket" });
    assert.deepEqual(started, ["new-ticket:st-1"]);
    assert.ok((await rig.phone.layout()).panes.some((p) => p.id === "from-new-ticket"));
  });

  it("answers 404 not-found for an unknown starter and runs nothing", async () => {
    const reply = await rig.phone.starter("nope");
    assert.equal(reply.status, 404);
    assert.equal(reply.body.error, "not-found");
    assert.equal(started.length, 1);
  });
});

describe("the state event of a rename (S-30)", () => {
  it("tells readers about a pane renamed from the phone with a state event and a layout change", async () => {
    const rig = await openRig();
    try {
      rig.collie.workspace("w").tab("t").pane("p", { title: "Before" });
      const start = await rig.phone.events({ after: null });
      await rig.phone.rename({ kind: "pane", id: "p" }, "After");
      const page = await rig.phone.events({ after: start.cursor });
      const state = page.events.find((e): e is Extract<PaneEvent, { type: "state" }> => e.type === "state" && e.pane === "p");
      assert.equal(state?.summary.title, "After");
      assert.equal(page.layout?.panes.find((p) => p.id === "p")!.title, "After");
    } finally {
      await rig.close();
    }
  });
});

describe("the echo of a send (P-20)", () => {
  let rig: Rig;
  before(async () => {
    rig = await openRig();
  });
  after(() => rig.close());

  const userItems = (items: Item[]) => items.filter((i): i is Extract<Item, { kind: "user" }> => i.kind === "user");

  it("puts the echo before items the handler writes while it runs", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("echo-order");
    pane.onSend(({ pane: p, text }) => {
      p.beginTurn();
      p.item({ id: "reply-1", kind: "reply", text: `You said: ${text}` });
    });
    assert.equal((await rig.phone.send("echo-order", "hello", { requestId: "eo-1" })).status, 200);
    const items = (await rig.phone.pane("echo-order")).items;
    assert.deepEqual(items.map((i) => i.id), ["user-eo-1", "reply-1"]);
    assert.deepEqual(userItems(items).map((i) => [i.text, i.requestId]), [["hello", "eo-1"]]);
  });

  it("marks the echo of a steer as steered; a send's echo is not", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("echo-steer");
    pane.on({ onSend: ({ pane: p }) => ({ turnId: p.beginTurn("t-steer") }), onSteer: () => undefined });
    assert.equal((await rig.phone.send("echo-steer", "start", { requestId: "es-1" })).status, 200);
    assert.equal((await rig.phone.steer("echo-steer", "faster", "t-steer", { requestId: "es-2" })).status, 200);
    const echoes = userItems((await rig.phone.pane("echo-steer")).items);
    assert.deepEqual(echoes.map((i) => [i.text, i.steered]), [["start", undefined], ["faster", true]]);
  });

  it("leaves no echo when the handler refuses before writing anything", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("echo-refused");
    pane.onSend(() => {
      throw new Refusal("not now");
    });
    assert.equal((await rig.phone.send("echo-refused", "hello", { requestId: "er-1" })).status, 409);
    assert.deepEqual((await rig.phone.pane("echo-refused")).items, []);
  });

  it("echoes each of two sends that run at once with its own text and request id", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("echo-two");
    const release: (() => void)[] = [];
    pane.onSend(() => new Promise<void>((resolve) => release.push(resolve)));
    const a = rig.phone.send("echo-two", "first", { requestId: "et-a" });
    await until(() => release.length === 1, "the first send runs");
    const b = rig.phone.send("echo-two", "second", { requestId: "et-b" });
    await until(() => release.length === 2, "the second send runs");
    release[0]!();
    assert.equal((await a).status, 200);
    release[1]!();
    assert.equal((await b).status, 200);
    const echoes = userItems((await rig.phone.pane("echo-two")).items);
    assert.deepEqual(echoes.map((i) => [i.id, i.text, i.requestId]), [["user-et-a", "first", "et-a"], ["user-et-b", "second", "et-b"]]);
  });

  it("echoes a send accepted while an older one still runs on its own, and the older one, refused, leaves none", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("echo-mixed");
    const settle: ((ok: boolean) => void)[] = [];
    pane.onSend(() => new Promise<void>((resolve, reject) => settle.push((ok) => (ok ? resolve() : reject(new Refusal("no"))))));
    const a = rig.phone.send("echo-mixed", "older", { requestId: "em-a" });
    await until(() => settle.length === 1, "the first send runs");
    const b = rig.phone.send("echo-mixed", "newer", { requestId: "em-b" });
    await until(() => settle.length === 2, "the second send runs");
    settle[1]!(true);
    assert.equal((await b).status, 200);
    settle[0]!(false);
    assert.equal((await a).status, 409);
    const echoes = userItems((await rig.phone.pane("echo-mixed")).items);
    assert.deepEqual(echoes.map((i) => i.requestId), ["em-b"]);
  });
});
