/**
 * Decisions (issue 21: answers leave a trace): an answer the agent took is kept with its ask's
 * title, tool and option kind, the device and the time; a held answer becomes one only when it is
 * delivered and taken, across a restart; the tools always allowed are listed once each, newest first; a
 * conversation keeps its newest PER_PANE.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import type { Ask } from "@colliepwa/shared";
import { openStateDb, type StateDb } from "../../src/store/db.ts";
import { DECISION_MAX_AGE_MS, Decisions, draftDecision, PER_PANE, TRIM_EVERY } from "../../src/store/decisions.ts";
import { HeldWrites, HOLD_MS } from "../../src/store/held.ts";
import { heldAnswer } from "../helpers/held.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

after(removeTempDirs);

/** A held answer (D-5): a decision's draft is kept on its row. */
const holdAnswer = (state: StateDb, requestId: string, askId: string, heldAt = Date.now()) =>
  new HeldWrites(state).hold(heldAnswer({ requestId, askId, heldAt }));

const permission = (id: string, tool: string): Ask => ({
  kind: "permission", id, revision: "0123456789abcdef", paneId: "p1", toolCallId: `c-${id}`, itemId: `item-${id}`,
  title: `${tool} wants to run`, tool: { name: tool }, createdAt: new Date(0).toISOString(),
  options: [{ id: "allow", kind: "allow", label: "Allow" }, { id: "always", kind: "allow-always", label: "Always" }, { id: "deny", kind: "deny", label: "Deny" }],
});

describe("decisions", () => {
  test("an answer taken is kept with what it decided, who and when; always-allowed tools once each, newest first", () => {
    let t = Date.UTC(2026, 11, 2, 14, 0);
    const d = new Decisions(openStateDb(":memory:"), () => t);
    const allowed = d.record("desk", draftDecision("p1", permission("a1", "refund"), { kind: "permission", optionId: "allow" }, "Pixel"));
    assert.deepEqual(allowed, {
      askId: "a1", paneId: "p1", itemId: "item-a1", kind: "permission", title: "refund wants to run", tool: "refund", optionKind: "allow",
      device: "Pixel", at: new Date(t).toISOString(),
    });
    t += 1000;
    d.record("desk", draftDecision("p1", permission("a2", "check_stock"), { kind: "permission", optionId: "always" }, "Pixel"));
    t += 1000;
    d.record("desk", draftDecision("p2", permission("a3", "lookup"), { kind: "permission", optionId: "always" }, "iPad"));
    t += 1000;
    d.record("desk", draftDecision("p2", permission("a4", "check_stock"), { kind: "permission", optionId: "always" }, "iPad"));
    assert.deepEqual(d.forPane("desk", "p1").map((x) => [x.askId, x.optionKind]), [["a1", "allow"], ["a2", "allow-always"]]);
    assert.deepEqual(d.alwaysAllowed("desk").map((x) => [x.tool, x.device]), [["check_stock", "iPad"], ["lookup", "iPad"]]);
    assert.deepEqual(d.alwaysAllowed("other"), []);
  });

  test("a tool the agent asks about again leaves Always allowed: the list shows what the agent says now (issue #37)", () => {
    let t = Date.UTC(2026, 11, 2, 14, 0);
    const d = new Decisions(openStateDb(":memory:"), () => t);
    d.record("desk", draftDecision("p1", permission("a1", "check_stock"), { kind: "permission", optionId: "always" }, "Pixel"));
    const answered = t;
    t += 1000;
    d.record("desk", draftDecision("p1", permission("a2", "lookup"), { kind: "permission", optionId: "always" }, "Pixel"));
    const at = (ms: number) => new Date(ms).toISOString();
    // An ask raised before the answer (still open then) ends nothing; another tool's, or a choice, neither.
    assert.equal(d.asked("desk", { kind: "permission", tool: { name: "check_stock" }, createdAt: at(answered - 1000) }), false);
    assert.equal(d.asked("desk", { kind: "permission", tool: { name: "refund" }, createdAt: at(t + 1000) }), false);
    assert.equal(d.asked("desk", { kind: "choice", tool: { name: "check_stock" }, createdAt: at(t + 1000) }), false);
    assert.equal(d.asked("desk", { kind: "permission", tool: { name: "check_stock" }, createdAt: "not a time" }), false);
    assert.deepEqual(d.alwaysAllowed("desk").map((x) => x.tool), ["lookup", "check_stock"]);
    // Asked again after it (the agent restarted and forgot): it leaves the list; the other stays.
    assert.equal(d.asked("desk", { kind: "permission", tool: { name: "check_stock" }, createdAt: at(t + 5000) }), true);
    assert.deepEqual(d.alwaysAllowed("desk").map((x) => x.tool), ["lookup"]);
  });

  test("a held answer becomes a decision once delivered and taken; refused, none", () => {
    const state = openStateDb(":memory:");
    const d = new Decisions(state);
    holdAnswer(state, "r1", "a1");
    holdAnswer(state, "r2", "a2");
    d.hold("r1", "desk", draftDecision("p1", permission("a1", "refund"), { kind: "permission", optionId: "allow" }, "Pixel"));
    d.hold("r2", "desk", draftDecision("p1", permission("a2", "refund"), { kind: "permission", optionId: "deny" }, "Pixel"));
    assert.equal(d.settle("desk", "r2", false), null);
    const taken = d.settle("desk", "r1", true);
    assert.equal(taken?.decision.askId, "a1");
    assert.equal(d.settle("desk", "r1", true), null, "once");
    assert.equal(d.settle("desk", "send-id", true), null, "a held send is no decision");
    assert.deepEqual(d.forPane("desk", "p1").map((x) => x.askId), ["a1"]);
  });

  test("a held answer is listed for its conversation, with its request id and answer, until it is delivered (issue #34)", () => {
    const state = openStateDb(":memory:");
    const d = new Decisions(state);
    const heldAt = Date.UTC(2026, 11, 2, 14, 5);
    holdAnswer(state, "r1", "a1", heldAt);
    const held = d.hold("r1", "desk", draftDecision("p1", permission("a1", "refund"), { kind: "permission", optionId: "allow" }, "Pixel"));
    assert.deepEqual(held, {
      askId: "a1", paneId: "p1", itemId: "item-a1", kind: "permission", title: "refund wants to run", tool: "refund", optionKind: "allow",
      device: "Pixel", at: new Date(heldAt).toISOString(), held: true, requestId: "r1", answer: { kind: "permission", optionId: "allow" },
    });
    assert.deepEqual(d.heldForPane("desk", "p1"), [held]);
    assert.deepEqual(d.heldForPane("desk", "p2"), []);
    assert.equal(d.hold("no-such-id", "desk", draftDecision("p1", permission("a2", "refund"), { kind: "permission", optionId: "allow" }, "Pixel")), null, "nothing held, nothing to list");
    d.settle("desk", "r1", true);
    new HeldWrites(state).release("desk", "r1");
    assert.deepEqual(d.heldForPane("desk", "p1"), []);
  });

  test("a held answer's decision outlives a restart of Collie before the delivery", () => {
    const dir = tempDir();
    const before = openStateDb(dir);
    holdAnswer(before, "r1", "a1");
    new Decisions(before).hold("r1", "desk", draftDecision("p1", permission("a1", "refund"), { kind: "permission", optionId: "allow" }, "Pixel"));
    before.close();
    const after = openStateDb(dir);
    const d = new Decisions(after);
    const taken = d.settle("desk", "r1", true);
    assert.deepEqual([taken?.agent, taken?.decision.askId, taken?.decision.device], ["desk", "a1", "Pixel"]);
    assert.deepEqual(d.forPane("desk", "p1").map((x) => x.askId), ["a1"]);
    after.close();
  });

  test("a held answer's draft goes once its answer could no longer be delivered (HOLD_MS)", () => {
    let t = Date.UTC(2026, 0, 1);
    const state = openStateDb(":memory:");
    const d = new Decisions(state, () => t);
    holdAnswer(state, "old", "a1", t);
    d.hold("old", "desk", draftDecision("p1", permission("a1", "refund"), { kind: "permission", optionId: "allow" }, "Pixel"));
    t += HOLD_MS + 1;
    holdAnswer(state, "new", "a2", t);
    d.hold("new", "desk", draftDecision("p1", permission("a2", "refund"), { kind: "permission", optionId: "allow" }, "Pixel"));
    new HeldWrites(state).expire(t);
    assert.equal(d.settle("desk", "old", true), null);
    assert.equal(d.settle("desk", "new", true)?.decision.askId, "a2");
  });

  test("a released held answer takes its draft with it; held again under its request id, it keeps it", () => {
    const state = openStateDb(":memory:");
    const d = new Decisions(state);
    // One store of held writes over the database, as the daemon has: it counts what it holds.
    const held = new HeldWrites(state);
    held.hold(heldAnswer({ requestId: "r1", askId: "a1", heldAt: Date.now() }));
    held.hold(heldAnswer({ requestId: "r2", askId: "a2", heldAt: Date.now() }));
    d.hold("r1", "desk", draftDecision("p1", permission("a1", "refund"), { kind: "permission", optionId: "allow" }, "Pixel"));
    d.hold("r2", "desk", draftDecision("p1", permission("a2", "refund"), { kind: "permission", optionId: "allow" }, "Pixel"));
    held.release("desk", "r1");
    assert.equal(d.settle("desk", "r1", true), null);
    held.hold(heldAnswer({ requestId: "r2", askId: "a2", heldAt: Date.now() }));
    assert.equal(d.settle("desk", "r2", true)?.decision.askId, "a2");
    held.release("desk", "r2");
    assert.equal((state.db.prepare("SELECT COUNT(*) AS n FROM held_writes").get() as { n: number }).n, 0);
  });

  test("a draft without a held answer is not kept", () => {
    const d = new Decisions(openStateDb(":memory:"));
    d.hold("r1", "desk", draftDecision("p1", permission("a1", "refund"), { kind: "permission", optionId: "allow" }, "Pixel"));
    assert.equal(d.settle("desk", "r1", true), null);
  });

  test("a delivery the agent answers as a replay leaves no second decision, but the first if none was left", () => {
    let t = Date.UTC(2026, 0, 1);
    const state = openStateDb(":memory:");
    const d = new Decisions(state, () => t);
    const first = d.record("desk", draftDecision("p1", permission("a1", "refund"), { kind: "permission", optionId: "allow" }, "Pixel"));
    holdAnswer(state, "r1", "a1");
    d.hold("r1", "desk", draftDecision("p1", permission("a1", "refund"), { kind: "permission", optionId: "allow" }, "Pixel"));
    t += 1000;
    assert.equal(d.settle("desk", "r1", true, true), null);
    assert.deepEqual(d.forPane("desk", "p1"), [first]);
    // Taken by an earlier try whose reply was lost (held as unreachable): the replay is its only news.
    holdAnswer(state, "r2", "a2");
    d.hold("r2", "desk", draftDecision("p1", permission("a2", "refund"), { kind: "permission", optionId: "allow" }, "Pixel"));
    assert.equal(d.settle("desk", "r2", true, true)?.decision.askId, "a2");
    assert.deepEqual(d.forPane("desk", "p1").map((x) => x.askId), ["a1", "a2"]);
  });

  test("a decision older than DECISION_MAX_AGE_MS is neither read nor kept, though aged ones are deleted at most once an hour", () => {
    let t = Date.UTC(2026, 0, 1);
    const state = openStateDb(":memory:");
    const d = new Decisions(state, () => t);
    const answer = { kind: "permission", optionId: "always" } as const;
    d.record("desk", draftDecision("p1", permission("a1", "refund"), answer, "Pixel"));
    t += DECISION_MAX_AGE_MS - 60_000;
    d.record("desk", draftDecision("p1", permission("a2", "deploy"), answer, "Pixel"));
    t += 120_000; // a1 is past the age now; a2 is not
    assert.deepEqual(d.forPane("desk", "p1").map((x) => x.askId), ["a2"]);
    assert.deepEqual(d.alwaysAllowed("desk").map((x) => x.tool), ["deploy"]);
    const rows = () => (state.db.prepare("SELECT COUNT(*) AS n FROM decisions").get() as { n: number }).n;
    d.record("desk", draftDecision("p1", permission("a3", "refund"), answer, "Pixel"));
    assert.equal(rows(), 3, "within the hour of the last sweep the aged row stays in the table");
    t += 60 * 60 * 1000;
    d.record("desk", draftDecision("p1", permission("a4", "refund"), answer, "Pixel"));
    assert.equal(rows(), 3, "the next sweep deleted it");
    assert.deepEqual(d.forPane("desk", "p1").map((x) => x.askId), ["a2", "a3", "a4"]);
  });

  test("a conversation keeps its newest PER_PANE decisions", () => {
    let t = 0;
    const d = new Decisions(openStateDb(":memory:"), () => (t += 1000) + Date.UTC(2026, 0, 1));
    for (let i = 0; i < PER_PANE + 5; i++) d.record("desk", draftDecision("p1", permission(`a${i}`, "refund"), { kind: "permission", optionId: "allow" }, "Pixel"));
    const kept = d.forPane("desk", "p1");
    assert.equal(kept.length, PER_PANE);
    assert.equal(kept[0]!.askId, "a5");
  });

  test("the rows kept stay within PER_PANE + TRIM_EVERY per conversation, an earlier run's included, and the reads show the newest PER_PANE", () => {
    let t = Date.UTC(2026, 0, 1);
    const state = openStateDb(":memory:");
    const rows = (pane: string) => (state.db.prepare("SELECT count(*) AS n FROM decisions WHERE pane_id = ?").get(pane) as { n: number }).n;
    const record = (d: Decisions, pane: string, i: number) =>
      d.record("desk", draftDecision(pane, permission(`${pane}-a${i}`, "refund"), { kind: "permission", optionId: "allow" }, "Pixel"));
    const first = new Decisions(state, () => (t += 1000));
    let most = 0;
    for (let i = 0; i < PER_PANE * 3; i++) {
      record(first, "p1", i);
      most = Math.max(most, rows("p1"));
      const kept = first.forPane("desk", "p1");
      assert.equal(kept.length, Math.min(i + 1, PER_PANE));
      assert.equal(kept.at(-1)!.askId, `p1-a${i}`);
    }
    assert.ok(most <= PER_PANE + TRIM_EVERY, `at most ${PER_PANE + TRIM_EVERY} rows, saw ${most}`);
    assert.ok(most > PER_PANE, "cut in batches, not at every answer");
    // Another conversation is cut on its own count.
    record(first, "p2", 0);
    assert.equal(rows("p2"), 1);
    // The daemon again: its first answer in the conversation cuts what the last run left.
    const again = new Decisions(state, () => (t += 1000));
    assert.ok(rows("p1") > PER_PANE);
    record(again, "p1", 9999);
    assert.equal(rows("p1"), PER_PANE);
    assert.equal(again.forPane("desk", "p1").at(-1)!.askId, "p1-a9999");
  });
});
