/**
 * requireApproval, callSummary and argumentsView (S-25, S-26) and allow-always (S-27), over the
 * real socket with the fake phone of ./testing.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { argumentsView, callSummary, requireApproval } from "../../src/core/approval.ts";
import { createCore } from "../../src/core/core.ts";
import type { Pane } from "../../src/core/layout.ts";
import type { PermissionAsk } from "../../src/wire/types.ts";
import { CORE_TOKEN, openRig, type Rig } from "../helpers/agent.ts";
import { ManualClock } from "../helpers/manual-clock.ts";

describe("callSummary and argumentsView (S-26)", () => {
  it("renders the call on one line with each value as JSON", () => {
    assert.equal(callSummary("refund", { order: "5521", amount: 40 }), 'refund(order: "5521", amount: 40)');
  });

  it("renders the arguments as key: value pairs", () => {
    assert.deepEqual(argumentsView({ order: "5521", amount: 40 }), ['order: "5521"', "amount: 40"]);
  });

  it("keeps nested objects and arrays as JSON", () => {
    assert.equal(
      callSummary("ship", { to: { city: "Köln", zip: "50667" }, items: [1, 2] }),
      'ship(to: {"city":"Köln","zip":"50667"}, items: [1,2])',
    );
  });

  it("escapes quotes and newlines in strings, so the call stays one line", () => {
    assert.equal(callSummary("note", { text: 'say "hi"\nbye' }), 'note(text: "say \\"hi\\"\\nbye")');
  });

  it("keeps unicode as it is", () => {
    assert.deepEqual(argumentsView({ name: "田中 愛子 🙂" }), ['name: "田中 愛子 🙂"']);
  });

  it("renders no arguments as empty parentheses and leaves out undefined values", () => {
    assert.equal(callSummary("ping", undefined), "ping()");
    assert.equal(callSummary("ping", { a: undefined, b: null }), "ping(b: null)");
  });

  it("survives cycles, bigints and non-object arguments", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    assert.equal(callSummary("walk", cyclic), 'walk(a: 1, self: {"a":1,"self":"[Circular]"})');
    assert.equal(callSummary("count", { n: 10n }), 'count(n: "10")');
    assert.equal(callSummary("echo", "hi"), 'echo(value: "hi")');
  });

  it("refuses a call without a tool name", () => {
    assert.throws(() => callSummary("", {}), TypeError);
  });
});

describe("requireApproval (S-25)", () => {
  let rig: Rig;
  let pane: Pane;
  let n = 0;
  const nextCall = () => `call-${++n}`;

  before(async () => {
    rig = await openRig({ hostName: "desk" });
    pane = rig.collie.workspace("support").tab("main").pane("ticket-1", { title: "Maria Lopez" });
    rig.collie.ready();
  });
  after(() => rig.close());

  it("builds the card from the call: title, tool line, push line, Allow and Deny", async () => {
    const toolCallId = nextCall();
    const approval = requireApproval("refund", { order: "5521", amount: 40 }, { pane, toolCallId, timeoutMs: 600_000 });
    const ask = (await rig.phone.waitForAsk({ where: (a) => a.toolCallId === toolCallId })) as PermissionAsk;
    assert.equal(ask.kind, "permission");
    assert.equal(ask.title, "refund wants to run");
    assert.deepEqual(ask.tool, { name: "refund", call: 'refund(order: "5521", amount: 40)' });
    assert.deepEqual(ask.push, { line: "refund needs a yes" });
    assert.equal(ask.reason, 'order: "5521"\namount: 40');
    assert.deepEqual(ask.options.map((o) => [o.kind, o.label]), [["allow", "Allow"], ["deny", "Deny"]]);
    assert.equal(ask.itemId, toolCallId);
    assert.ok(ask.expiresAt, "the card counts down to the timeout");
    assert.equal(ask.textShortened, undefined);
    const reply = await rig.phone.answer(ask, { kind: "permission", optionId: "allow" });
    assert.equal(reply.status, 200);
    const result = await approval;
    assert.equal(result.approved, true);
    assert.equal(result.decidedBy, "phone");
    assert.equal(result.askId, ask.id);
    assert.ok(!Number.isNaN(Date.parse(result.decidedAt)));
  });

  it("takes the card's words and the set that remembers Always allow from the caller", async () => {
    const toolCallId = nextCall();
    const mine = new Set<string>();
    const approval = requireApproval("deploy", { env: "prod" }, {
      pane, toolCallId, timeoutMs: 600_000, offerAlways: true, alwaysAllowed: mine,
      title: "Ship it to prod?", reason: "Friday, 17:40", push: { title: "Deploy", line: "prod deploy waits" },
    });
    const ask = (await rig.phone.waitForAsk({ where: (a) => a.toolCallId === toolCallId })) as PermissionAsk;
    assert.equal(ask.title, "Ship it to prod?");
    assert.equal(ask.reason, "Friday, 17:40");
    assert.deepEqual(ask.push, { title: "Deploy", line: "prod deploy waits" });
    assert.deepEqual(ask.tool, { name: "deploy", call: 'deploy(env: "prod")' }, "the tool line still comes from the call");
    await rig.phone.answer(ask, { kind: "permission", optionId: ask.options.find((o) => o.kind === "allow-always")!.id });
    assert.equal((await approval).allowAlways, true);
    assert.deepEqual([...mine], ["deploy"]);
    assert.equal(pane.host.alwaysAllowed.has("deploy"), false, "the core's own set is left alone");
  });

  it("returns approved: false on Deny without throwing", async () => {
    const toolCallId = nextCall();
    const approval = requireApproval("refund", { order: "1" }, { pane, toolCallId, timeoutMs: 600_000 });
    const ask = await rig.phone.waitForAsk({ where: (a) => a.toolCallId === toolCallId });
    await rig.phone.answer(ask, { kind: "permission", optionId: "deny" });
    assert.deepEqual({ ...(await approval), decidedAt: "" }, { approved: false, decidedBy: "phone", decidedAt: "", askId: ask.id });
  });

  it("returns approved: false decided by program when the signal aborts", async () => {
    const toolCallId = nextCall();
    const controller = new AbortController();
    const approval = requireApproval("refund", { order: "2" }, { pane, toolCallId, timeoutMs: 600_000, signal: controller.signal });
    await rig.phone.waitForAsk({ where: (a) => a.toolCallId === toolCallId });
    controller.abort();
    const result = await approval;
    assert.equal(result.approved, false);
    assert.equal(result.decidedBy, "program");
  });

  it("returns approved: false when the phone stops the turn", async () => {
    const toolCallId = nextCall();
    pane.onStop(() => {});
    const turnId = pane.beginTurn();
    const approval = requireApproval("delete", { path: "/srv/data" }, { pane, toolCallId, timeoutMs: 600_000 });
    await rig.phone.waitForAsk({ where: (a) => a.toolCallId === toolCallId });
    assert.equal((await rig.phone.stop("ticket-1", turnId)).status, 200);
    const result = await approval;
    assert.equal(result.approved, false);
    assert.equal(result.decidedBy, "program");
  });

  it("marks the card textShortened when a long argument is cut", async () => {
    const toolCallId = nextCall();
    const approval = requireApproval("write", { body: "x".repeat(5000) }, { pane, toolCallId, timeoutMs: 600_000 });
    const ask = await rig.phone.waitForAsk({ where: (a) => a.toolCallId === toolCallId });
    assert.equal(ask.textShortened, true);
    assert.ok(Buffer.byteLength(ask.tool!.call!) <= 1024);
    assert.ok(Buffer.byteLength(ask.reason!) <= 2048);
    await rig.phone.answer(ask, { kind: "permission", optionId: "deny" });
    await approval;
  });

  it("lets later calls of the same tool through after Always allow, and says so (S-27)", async () => {
    const toolCallId = nextCall();
    const approval = requireApproval("lookup", { order: "3" }, { pane, toolCallId, timeoutMs: 600_000, offerAlways: true });
    const ask = (await rig.phone.waitForAsk({ where: (a) => a.toolCallId === toolCallId })) as PermissionAsk;
    assert.deepEqual(ask.options.map((o) => o.kind), ["allow", "allow-always", "deny"]);
    await rig.phone.answer(ask, { kind: "permission", optionId: "allow-always" });
    const first = await approval;
    assert.equal(first.approved, true);
    assert.equal(first.allowAlways, true);
    const layoutBefore = (await rig.phone.pane("ticket-1")).asks.length;
    const second = await requireApproval("lookup", { order: "4" }, { pane, toolCallId: nextCall(), timeoutMs: 600_000 });
    assert.equal(second.approved, true);
    assert.equal(second.alwaysAllowed, true);
    assert.equal((await rig.phone.pane("ticket-1")).asks.length, layoutBefore, "no card was raised");
    // Another tool still asks.
    const other = requireApproval("refund", { order: "5" }, { pane, toolCallId: nextCall(), timeoutMs: 600_000 });
    const otherAsk = await rig.phone.waitForAsk({ where: (a) => a.tool?.name === "refund" && a.reason === 'order: "5"' });
    await rig.phone.answer(otherAsk, { kind: "permission", optionId: "deny" });
    assert.equal((await other).approved, false);
  });

  it("refuses a missing pane or a bad timeout at the call", async () => {
    await assert.rejects(requireApproval("refund", {}, { pane: undefined as unknown as Pane, toolCallId: "x", timeoutMs: 1 }), TypeError);
    await assert.rejects(requireApproval("refund", {}, { pane, toolCallId: "x", timeoutMs: 0 }), RangeError);
  });
});

describe("requireApproval timing out (S-24, S-25)", () => {
  it("returns approved: false decided by timeout and leaves the chat line", async () => {
    const clock = new ManualClock();
    const core = createCore({ token: CORE_TOKEN, clock });
    const pane = core.workspace("w").tab("t").pane("p");
    const approval = requireApproval("refund", { order: "5521" }, { pane, toolCallId: "call-t", timeoutMs: 60_000 });
    clock.advance(60_000);
    const result = await approval;
    assert.equal(result.approved, false);
    assert.equal(result.decidedBy, "timeout");
    const lines = pane.view().items.filter((i) => i.kind === "notice").map((i) => (i as { text: string }).text);
    assert.deepEqual(lines, ["Timed out before an answer: refund wants to run"]);
  });

  it("offers no Always allow where the core does not allow it (createCore default, S-27)", async () => {
    const core = createCore({ token: CORE_TOKEN, clock: new ManualClock() });
    const pane = core.workspace("w").tab("t").pane("p");
    void requireApproval("refund", {}, { pane, toolCallId: "c", timeoutMs: 1000, offerAlways: true });
    assert.deepEqual((pane.asks[0] as PermissionAsk).options.map((o) => o.kind), ["allow", "deny"]);
  });
});
