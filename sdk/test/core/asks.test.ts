/** Asks over the wire: the four kinds, answer outcomes, expiry, abort, ids (S-21…S-24, S-27, P-15). */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { createCore } from "../../src/core/core.ts";
import { askIdFor } from "../../src/core/ids.ts";
import { AskClosed, type Pane } from "../../src/core/layout.ts";
import type { AskInput } from "../../src/core/asks.ts";
import type { Ask, Item, PaneEvent } from "../../src/wire/types.ts";
import { isKnownAsk } from "../../src/wire/index.ts";
import { CORE_TOKEN, openRig, type Rig } from "../helpers/agent.ts";
import { ManualClock } from "../helpers/manual-clock.ts";

const settle = <T>(p: Promise<T>): Promise<{ value?: T; error?: unknown }> => p.then((value) => ({ value }), (error: unknown) => ({ error }));
const notices = (items: Item[]): string[] => items.filter((i): i is Extract<Item, { kind: "notice" }> => i.kind === "notice").map((i) => i.text);

describe("the four ask kinds round-trip (S-21, S-22)", () => {
  let rig: Rig;
  let pane: Pane;
  before(async () => {
    rig = await openRig();
    pane = rig.collie.workspace("w").tab("t").pane("kinds");
  });
  after(() => rig.close());

  async function openAsk(input: AskInput): Promise<{ ask: Ask; result: Promise<unknown> }> {
    const result = pane.ask(input);
    const ask = (await rig.phone.pane("kinds")).asks.find((a) => a.toolCallId === input.toolCallId);
    assert.ok(ask, "the ask is in the pane view");
    return { ask, result };
  }

  it("permission: shows the card with its options and resolves with the option and its kind", async () => {
    const { ask, result } = await openAsk({
      kind: "permission", toolCallId: "perm", itemId: "item-1", title: "refund wants to run",
      reason: "Policy allows it.", tool: { name: "refund", call: "refund(order: \"5521\")" }, push: { line: "refund needs a yes" },
      options: [{ kind: "allow" }, { kind: "allow-always", label: "Always allow refunds" }, { kind: "deny" }],
    });
    assert.equal(ask.kind, "permission");
    assert.equal(ask.id, askIdFor("kinds", "perm"));
    assert.match(ask.revision, /^[0-9a-f]{16}$/);
    assert.equal(ask.itemId, "item-1");
    assert.deepEqual(ask.tool, { name: "refund", call: "refund(order: \"5521\")" });
    assert.deepEqual(ask.push, { line: "refund needs a yes" });
    assert.deepEqual(isKnownAsk(ask) && ask.kind === "permission" && ask.options, [
      { id: "allow", kind: "allow", label: "Allow" },
      { id: "allow-always", kind: "allow-always", label: "Always allow refunds" },
      { id: "deny", kind: "deny", label: "Deny" },
    ]);
    const reply = await rig.phone.answer(ask, { kind: "permission", optionId: "allow-always" });
    assert.equal(reply.status, 200);
    assert.equal(typeof reply.body.decidedAt, "string");
    assert.deepEqual(await result, { kind: "permission", optionId: "allow-always", optionKind: "allow-always" });
  });

  it("choice with multiple: resolves with the picked option ids", async () => {
    const { ask, result } = await openAsk({
      kind: "choice", toolCallId: "choice", itemId: "item-2", title: "Which?", multiple: true,
      options: [{ id: "a", label: "A" }, { id: "b", label: "B", description: "the second" }, { id: "c", label: "C" }],
    });
    assert.equal(isKnownAsk(ask) && ask.kind === "choice" && ask.multiple, true);
    assert.equal((await rig.phone.answer(ask, { kind: "choice", optionIds: ["a", "c"] })).status, 200);
    assert.deepEqual(await result, { kind: "choice", optionIds: ["a", "c"] });
  });

  it("text: carries the default limit 500 on the wire and resolves with the text", async () => {
    const { ask, result } = await openAsk({ kind: "text", toolCallId: "text", itemId: "item-3", title: "Tell the customer?", placeholder: "A short reply" });
    assert.equal(isKnownAsk(ask) && ask.kind === "text" && ask.limit, 500);
    assert.equal((await rig.phone.answer(ask, { kind: "text", text: "Arrives Thursday. 📦" })).status, 200);
    assert.deepEqual(await result, { kind: "text", text: "Arrives Thursday. 📦" });
  });

  it("form: resolves with the values of text, select and toggle fields", async () => {
    const { ask, result } = await openAsk({
      kind: "form", toolCallId: "form", itemId: "item-4", title: "Escalate",
      fields: [
        { id: "note", type: "text", label: "Note", required: true, limit: 200 },
        { id: "priority", type: "select", label: "Priority", required: true, options: [{ id: "low", label: "Low" }, { id: "high", label: "High" }] },
        { id: "notify", type: "toggle", label: "Tell the customer" },
      ],
    });
    const values = { note: "Second broken parcel.", priority: "high", notify: true };
    assert.equal((await rig.phone.answer(ask, { kind: "form", values })).status, 200);
    assert.deepEqual(await result, { kind: "form", values });
  });

  it("closes an answered ask with an ask-closed event decided by the phone, and leaves no chat line", async () => {
    const start = await rig.phone.events({ after: null });
    const { ask, result } = await openAsk({ kind: "text", toolCallId: "phone-closed", itemId: "i", title: "Quick one" });
    await rig.phone.answer(ask, { kind: "text", text: "ok" });
    await result;
    const page = await rig.phone.events({ after: start.cursor });
    const types = page.events.filter((e) => e.pane === "kinds").map((e) => e.type);
    assert.deepEqual(types, ["ask", "state", "ask-closed", "state"]);
    const closed = page.events.find((e): e is Extract<PaneEvent, { type: "ask-closed" }> => e.type === "ask-closed")!;
    assert.equal(closed.decidedBy, "phone");
    assert.equal(closed.title, "Quick one");
    assert.deepEqual(notices((await rig.phone.pane("kinds")).items), []);
  });
});

describe("answers that do not fit answer 400 invalid-answer and the ask stays open (S-21, P-15)", () => {
  let rig: Rig;
  let pane: Pane;
  before(async () => {
    rig = await openRig();
    pane = rig.collie.workspace("w").tab("t").pane("invalid");
  });
  after(() => rig.close());

  const cases: [string, AskInput, Parameters<Rig["phone"]["answer"]>[1], Parameters<Rig["phone"]["answer"]>[1]][] = [
    ["an unknown permission option", { kind: "permission", toolCallId: "p", itemId: "i", title: "t", options: [{ kind: "allow" }, { kind: "deny" }] },
      { kind: "permission", optionId: "maybe" }, { kind: "permission", optionId: "deny" }],
    ["two options for a choice without multiple", { kind: "choice", toolCallId: "c", itemId: "i", title: "t", options: [{ id: "a", label: "A" }, { id: "b", label: "B" }] },
      { kind: "choice", optionIds: ["a", "b"] }, { kind: "choice", optionIds: ["b"] }],
    ["an unknown choice option", { kind: "choice", toolCallId: "c2", itemId: "i", title: "t", multiple: true, options: [{ id: "a", label: "A" }] },
      { kind: "choice", optionIds: ["a", "z"] }, { kind: "choice", optionIds: ["a"] }],
    ["text over the ask's limit (counted in characters)", { kind: "text", toolCallId: "x", itemId: "i", title: "t", limit: 5 },
      { kind: "text", text: "😀😀😀😀😀😀" }, { kind: "text", text: "😀😀😀😀😀" }],
    ["a form without a required field", { kind: "form", toolCallId: "f", itemId: "i", title: "t", fields: [{ id: "note", type: "text", label: "Note", required: true }, { id: "on", type: "toggle", label: "On" }] },
      { kind: "form", values: { on: true } }, { kind: "form", values: { note: "n", on: false } }],
    ["a form with an unknown field", { kind: "form", toolCallId: "f2", itemId: "i", title: "t", fields: [{ id: "note", type: "text", label: "Note" }] },
      { kind: "form", values: { note: "n", extra: "x" } }, { kind: "form", values: { note: "n" } }],
    ["a select value that is not one of its options", { kind: "form", toolCallId: "f3", itemId: "i", title: "t", fields: [{ id: "s", type: "select", label: "S", options: [{ id: "a", label: "A" }] }] },
      { kind: "form", values: { s: "b" } }, { kind: "form", values: { s: "a" } }],
    ["an answer of another kind", { kind: "text", toolCallId: "k", itemId: "i", title: "t" },
      { kind: "choice", optionIds: ["a"] }, { kind: "text", text: "fine" }],
  ];

  for (const [what, input, bad, good] of cases) {
    it(`refuses ${what}, keeps the ask open, and takes a fitting answer afterwards`, async () => {
      const result = pane.ask(input);
      const ask = (await rig.phone.pane("invalid")).asks.find((a) => a.toolCallId === input.toolCallId)!;
      const reply = await rig.phone.answer(ask, bad, { requestId: `bad-${input.toolCallId}` });
      assert.equal(reply.status, 400);
      assert.equal(reply.body.error, "invalid-answer");
      const view = await rig.phone.pane("invalid");
      assert.ok(view.asks.some((a) => a.id === ask.id), "the ask stays open");
      assert.equal(view.pane.state, "waiting");
      // No receipt was kept: the same request id may carry the fitting answer.
      const ok = await rig.phone.answer(ask, good, { requestId: `bad-${input.toolCallId}` });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.replayed, undefined);
      await result;
    });
  }
});

describe("answer outcomes (P-15, W-4, W-5)", () => {
  let rig: Rig;
  let pane: Pane;
  before(async () => {
    rig = await openRig();
    pane = rig.collie.workspace("w").tab("t").pane("outcomes");
  });
  after(() => rig.close());

  it("answers 409 ask-changed with the current revision for an answer to another revision", async () => {
    const result = pane.ask({ kind: "text", toolCallId: "rev", itemId: "i", title: "Which revision?" });
    const ask = (await rig.phone.pane("outcomes")).asks[0]!;
    const reply = await rig.phone.answer(ask, { kind: "text", text: "x" }, { revision: "0000000000000000" });
    assert.equal(reply.status, 409);
    assert.equal(reply.body.error, "ask-changed");
    assert.equal(reply.body.revision, ask.revision);
    assert.equal((await rig.phone.pane("outcomes")).asks.length, 1, "the ask stays open");
    await rig.phone.answer(ask, { kind: "text", text: "x" });
    await result;
  });

  it("answers 409 ask-answered to a second answer with another request id, and keeps the first", async () => {
    const result = pane.ask({ kind: "choice", toolCallId: "twice", itemId: "i", title: "Pick", options: [{ id: "a", label: "A" }, { id: "b", label: "B" }] });
    const ask = (await rig.phone.pane("outcomes")).asks[0]!;
    assert.equal((await rig.phone.answer(ask, { kind: "choice", optionIds: ["a"] }, { requestId: "first" })).status, 200);
    const second = await rig.phone.answer(ask, { kind: "choice", optionIds: ["b"] }, { requestId: "second" });
    assert.equal(second.status, 409);
    assert.equal(second.body.error, "ask-answered");
    assert.deepEqual(await result, { kind: "choice", optionIds: ["a"] });
  });

  it("answers 409 ask-not-open for an ask id that was never raised", async () => {
    const reply = await rig.phone.answer({ paneId: "outcomes", id: "0123456789abcdef0123456789abcdef", revision: "0123456789abcdef" }, { kind: "text", text: "x" });
    assert.equal(reply.status, 409);
    assert.equal(reply.body.error, "ask-not-open");
  });

  it("answers 409 ask-not-open for an answer to an unknown pane (it may be raised again after a restart)", async () => {
    const reply = await rig.phone.answer({ paneId: "not-yet", id: askIdFor("not-yet", "c"), revision: "0123456789abcdef" }, { kind: "text", text: "x" });
    assert.equal(reply.status, 409);
    assert.equal(reply.body.error, "ask-not-open");
  });

  it("answers 400 bad-request for a revision that is not 16 hex characters", async () => {
    const reply = await rig.phone.answer({ paneId: "outcomes", id: askIdFor("outcomes", "c"), revision: "nope" }, { kind: "text", text: "x" });
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error, "bad-request");
  });

  it("throws a TypeError when an ask with an open id is raised again, and allows it once closed", async () => {
    const input: AskInput = { kind: "text", toolCallId: "again", itemId: "i", title: "Again?" };
    const first = pane.ask(input);
    assert.throws(() => pane.ask(input), (err: unknown) => err instanceof TypeError && /already open/.test(err.message));
    assert.equal((await rig.phone.pane("outcomes")).asks.length, 1);
    const ask = (await rig.phone.pane("outcomes")).asks[0]!;
    await rig.phone.answer(ask, { kind: "text", text: "one" });
    await first;
    const second = pane.ask(input);
    const reopened = (await rig.phone.pane("outcomes")).asks[0]!;
    assert.equal(reopened.id, ask.id, "the same tool call gets the same id");
    await rig.phone.answer(reopened, { kind: "text", text: "two" });
    assert.deepEqual(await second, { kind: "text", text: "two" });
  });

  it("rejects with AskClosed (program) when the agent closes the pane itself", async () => {
    const p = rig.collie.workspace("w").tab("t").pane("closing");
    const asked = settle(p.ask({ kind: "text", toolCallId: "c", itemId: "i", title: "x" }));
    p.close();
    const { error } = await asked;
    assert.ok(error instanceof AskClosed);
    assert.equal(error.decidedBy, "program");
  });
});

describe("asks decided in the agent: expiry and abort (S-24, P-16)", () => {
  let rig: Rig;
  let clock: ManualClock;
  before(async () => {
    clock = new ManualClock();
    rig = await openRig({ clock });
  });
  after(() => rig.close());

  it("closes an expired ask as timeout: ask() rejects with AskClosed, a chat line says so, a late answer gets ask-timed-out", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("expiry");
    const start = await rig.phone.events({ after: null });
    const asked = settle(pane.ask({
      kind: "permission", toolCallId: "late", itemId: "i", title: "refund wants to run",
      options: [{ kind: "allow" }, { kind: "deny" }], expiresAt: new Date(clock.now() + 60_000),
    }));
    const ask = (await rig.phone.pane("expiry")).asks[0]!;
    assert.equal(ask.expiresAt, new Date(clock.now() + 60_000).toISOString());
    clock.advance(59_999);
    assert.equal((await rig.phone.pane("expiry")).asks.length, 1, "still open just before expiry");
    clock.advance(1);
    const { error } = await asked;
    assert.ok(error instanceof AskClosed);
    assert.equal(error.decidedBy, "timeout");
    assert.equal(error.askId, ask.id);
    const view = await rig.phone.pane("expiry");
    assert.deepEqual(view.asks, []);
    assert.equal(view.pane.state, "idle");
    assert.deepEqual(notices(view.items), ["Timed out before an answer: refund wants to run"]);
    const closed = (await rig.phone.events({ after: start.cursor })).events.find((e) => e.type === "ask-closed");
    assert.ok(closed && closed.type === "ask-closed" && closed.decidedBy === "timeout");
    const late = await rig.phone.answer(ask, { kind: "permission", optionId: "allow" });
    assert.equal(late.status, 409);
    assert.equal(late.body.error, "ask-timed-out");
  });

  it("takes expiresAt as an ISO string with an offset", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("offset");
    const at = new Date(clock.now() + 30_000);
    // the same instant written at +02:00
    const local = new Date(at.getTime() + 2 * 3600_000).toISOString().replace("Z", "+02:00");
    const asked = settle(pane.ask({ kind: "text", toolCallId: "c", itemId: "i", title: "Soon", expiresAt: local }));
    assert.equal((await rig.phone.pane("offset")).asks[0]!.expiresAt, at.toISOString());
    clock.advance(30_000);
    assert.equal(((await asked).error as AskClosed).decidedBy, "timeout");
  });

  it("an answer in time beats the expiry, and the expiry then does nothing", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("in-time");
    const result = pane.ask({ kind: "text", toolCallId: "c", itemId: "i", title: "Quick", expiresAt: new Date(clock.now() + 1000) });
    const ask = (await rig.phone.pane("in-time")).asks[0]!;
    assert.equal((await rig.phone.answer(ask, { kind: "text", text: "done" })).status, 200);
    clock.advance(5000);
    assert.deepEqual(await result, { kind: "text", text: "done" });
    assert.deepEqual(notices((await rig.phone.pane("in-time")).items), []);
  });

  it("closes an aborted ask as program: ask() rejects, a 'Decided in the durable agent' line, a late answer gets ask-decided", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("abort");
    const controller = new AbortController();
    const asked = settle(pane.ask({ kind: "text", toolCallId: "c", itemId: "i", title: "delete wants to run", signal: controller.signal }));
    const ask = (await rig.phone.pane("abort")).asks[0]!;
    controller.abort();
    const { error } = await asked;
    assert.ok(error instanceof AskClosed);
    assert.equal(error.decidedBy, "program");
    const view = await rig.phone.pane("abort");
    assert.deepEqual(view.asks, []);
    assert.deepEqual(notices(view.items), ["Decided in the durable agent: delete wants to run"]);
    const late = await rig.phone.answer(ask, { kind: "text", text: "x" });
    assert.equal(late.status, 409);
    assert.equal(late.body.error, "ask-decided");
  });

  it("rejects at once and shows nothing for a signal that is already aborted", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("pre-aborted");
    const { error } = await settle(pane.ask({ kind: "text", toolCallId: "c", itemId: "i", title: "x", signal: AbortSignal.abort() }));
    assert.ok(error instanceof AskClosed);
    assert.equal(error.decidedBy, "program");
    const view = await rig.phone.pane("pre-aborted");
    assert.deepEqual(view.asks, []);
    assert.deepEqual(view.items, []);
  });
});

describe("ask ids and input rules (S-22, S-23, S-27)", () => {
  it("derives the id as the first 32 hex of SHA-256(paneId, NUL, toolCallId)", () => {
    for (const [paneId, toolCallId] of [["ticket-1", "call_01"], ["会话:1", "tool-✅"], ["p", ""], ["p\uD800", "\uDC00c"]] as const) {
      const expected = createHash("sha256").update(Buffer.concat([Buffer.from(paneId, "utf8"), Buffer.from([0]), Buffer.from(toolCallId, "utf8")])).digest("hex").slice(0, 32);
      assert.equal(askIdFor(paneId, toolCallId), expected);
    }
    assert.equal(askIdFor("ticket-1", "call_01"), "1fca355e97aa91d5c3f24b6f832d333e");
    assert.notEqual(askIdFor("ab", "c"), askIdFor("a", "bc"), "the NUL keeps pane and call apart");
  });

  it("gives the same tool call the same id and revision in a new process (after a restart)", () => {
    const input: AskInput = { kind: "choice", toolCallId: "call_02", itemId: "i", title: "How?", options: [{ id: "card", label: "Card" }] };
    const raise = () => {
      const pane = createCore({ token: CORE_TOKEN }).workspace("w").tab("t").pane("ticket-1");
      void pane.ask(input).catch(() => {});
      return pane.asks[0]!;
    };
    const a = raise();
    const b = raise();
    assert.equal(a.id, b.id);
    assert.equal(a.revision, b.revision);
  });

  it("throws a TypeError for an expiresAt string without a time zone", () => {
    const pane = createCore({ token: CORE_TOKEN }).workspace("w").tab("t").pane("p");
    assert.throws(() => pane.ask({ kind: "text", toolCallId: "c", itemId: "i", title: "x", expiresAt: "2026-12-02T14:13:11" }), TypeError);
    assert.deepEqual(pane.asks, []);
  });

  it("throws a TypeError for allow-always under createCore's default (allowAlways false), and allows it when turned on", () => {
    const core = createCore({ token: CORE_TOKEN });
    assert.equal(core.hello().allowAlways, false);
    const pane = core.workspace("w").tab("t").pane("p");
    assert.throws(
      () => pane.ask({ kind: "permission", toolCallId: "c", itemId: "i", title: "x", options: [{ kind: "allow" }, { kind: "allow-always" }] }),
      TypeError,
    );
    assert.deepEqual(pane.asks, []);
    const open = createCore({ token: CORE_TOKEN, allowAlways: true }).workspace("w").tab("t").pane("p");
    void open.ask({ kind: "permission", toolCallId: "c", itemId: "i", title: "x", options: [{ kind: "allow" }, { kind: "allow-always" }] });
    assert.equal(open.asks.length, 1);
  });

  it("refuses too many options or fields, and a text limit over 2000", () => {
    const pane = createCore({ token: CORE_TOKEN }).workspace("w").tab("t").pane("p");
    const opts = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `o${i}`, label: `O${i}` }));
    assert.throws(() => pane.ask({ kind: "permission", toolCallId: "a", itemId: "i", title: "x", options: opts(7).map((o) => ({ ...o, kind: "deny" as const })) }), RangeError);
    assert.throws(() => pane.ask({ kind: "choice", toolCallId: "b", itemId: "i", title: "x", options: opts(9) }), RangeError);
    assert.throws(() => pane.ask({ kind: "form", toolCallId: "c", itemId: "i", title: "x", fields: opts(7).map((o) => ({ ...o, type: "toggle" as const })) }), RangeError);
    assert.throws(() => pane.ask({ kind: "text", toolCallId: "d", itemId: "i", title: "x", limit: 2001 }), RangeError);
    assert.throws(() => pane.ask({ kind: "text", toolCallId: "bad id", itemId: "i", title: "x" }), TypeError);
    assert.deepEqual(pane.asks, []);
  });

  it("cuts an ask title to 256 bytes and marks the ask textShortened", () => {
    const pane = createCore({ token: CORE_TOKEN }).workspace("w").tab("t").pane("p");
    void pane.ask({ kind: "text", toolCallId: "c", itemId: "i", title: "€".repeat(100) });
    const ask = pane.asks[0]!;
    assert.equal(ask.title, "€".repeat(85));
    assert.equal(ask.textShortened, true);
  });
});

describe("a shutdown is not an answer (S-8)", () => {
  it("leaves open asks open on collie.close(): ask() neither resolves nor rejects", async () => {
    const rig = await openRig();
    const pane = rig.collie.workspace("w").tab("t").pane("p");
    let settled = false;
    void pane.ask({ kind: "text", toolCallId: "c", itemId: "i", title: "Still waiting" }).then(() => (settled = true), () => (settled = true));
    await rig.close();
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    assert.equal(settled, false);
    assert.equal(pane.openAsks, 1);
    assert.equal(pane.summary().state, "waiting");
  });
});
