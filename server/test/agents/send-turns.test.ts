/**
 * When a send waits for a turn (send-turns.ts, issue 37): with a fixed mirror and clock, the rules
 * that the real agent in actions/forward.test.ts cannot show on demand: a page that predates the
 * turn a send started, an agent that never shows the turn it named, and `followUp`.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SendTurns, TURN_WAIT_MS, type TurnSource } from "../../src/agents/send-turns.ts";

function source(followUp: boolean) {
  const panes = new Map<string, { state: "idle" | "working" | "waiting"; turnId: string | null }>();
  const conn: TurnSource & { panes: typeof panes; instance: string | null } = {
    hello: { caps: { followUp } },
    instance: "start-1",
    mirror: { turn: (id: string) => panes.get(id) },
    panes,
  };
  return conn;
}
const ok = (turnId?: string) => ({ status: 200, body: turnId ? { ok: true, turnId } : { ok: true } });

describe("sends and turns", () => {
  test("a running or waiting turn holds a send; an idle pane, or an unknown one, does not", () => {
    const turns = new SendTurns(() => 0);
    const conn = source(false);
    conn.panes.set("p1", { state: "working", turnId: "t1" });
    assert.equal(turns.mustWait("desk", "p1", conn), true);
    conn.panes.set("p1", { state: "waiting", turnId: "t1" });
    assert.equal(turns.mustWait("desk", "p1", conn), true);
    conn.panes.set("p1", { state: "idle", turnId: "t1" });
    assert.equal(turns.mustWait("desk", "p1", conn), false);
    assert.equal(turns.mustWait("desk", "nowhere", conn), false);
  });

  test("after a send started a turn, an idle page from before that turn does not let the next one in", () => {
    const turns = new SendTurns(() => 0);
    const conn = source(false);
    conn.panes.set("p1", { state: "idle", turnId: "t1" });
    turns.sent("desk", "p1", ok("t2"), conn, "req-1");
    assert.equal(turns.mustWait("desk", "p1", conn), true, "the mirror still shows the turn before");
    conn.panes.set("p1", { state: "working", turnId: "t2" });
    assert.equal(turns.mustWait("desk", "p1", conn), true);
    conn.panes.set("p1", { state: "idle", turnId: "t2" });
    assert.equal(turns.mustWait("desk", "p1", conn), false, "the turn it started is over");
  });

  test("a reply naming the turn already shown (no new turn), or none, holds nothing back", () => {
    const turns = new SendTurns(() => 0);
    const conn = source(false);
    conn.panes.set("p1", { state: "idle", turnId: "t1" });
    turns.sent("desk", "p1", ok("t1"), conn, "req-2");
    assert.equal(turns.mustWait("desk", "p1", conn), false);
    turns.sent("desk", "p1", ok(), conn, "req-3");
    assert.equal(turns.mustWait("desk", "p1", conn), false);
    turns.sent("desk", "p1", { status: 409, body: { error: "refused", message: "no" } }, conn, "req-4");
    assert.equal(turns.mustWait("desk", "p1", conn), false);
  });

  test("an agent that never shows the turn it named is trusted again after TURN_WAIT_MS", () => {
    const clock = { t: 1000 };
    const turns = new SendTurns(() => clock.t);
    const conn = source(false);
    conn.panes.set("p1", { state: "idle", turnId: "t1" });
    turns.sent("desk", "p1", ok("never-shown"), conn, "req-5");
    clock.t += TURN_WAIT_MS - 1;
    assert.equal(turns.mustWait("desk", "p1", conn), true);
    clock.t += 1;
    assert.equal(turns.mustWait("desk", "p1", conn), false);
  });

  test("an agent that restarted (another instance) forgot the turn a send started: the next send goes on", () => {
    const turns = new SendTurns(() => 0);
    const conn = source(false);
    conn.panes.set("p1", { state: "idle", turnId: "t1" });
    turns.sent("desk", "p1", ok("t2"), conn, "req-6");
    assert.equal(turns.mustWait("desk", "p1", conn), true);
    // Killed before its page showed t2 over; started again, it lays its panes out idle anew.
    conn.instance = "start-2";
    conn.panes.set("p1", { state: "idle", turnId: null });
    assert.equal(turns.mustWait("desk", "p1", conn), false);
  });

  test("an agent with followUp takes a send during a turn: nothing waits", () => {
    const turns = new SendTurns(() => 0);
    const conn = source(true);
    conn.panes.set("p1", { state: "working", turnId: "t1" });
    assert.equal(turns.mustWait("desk", "p1", conn), false);
    turns.sent("desk", "p1", ok("t2"), conn, "req-7");
    assert.equal(turns.mustWait("desk", "p1", conn), false);
  });

  test("a hello without caps yet (an older agent reads followUp as off) holds during a turn", () => {
    const turns = new SendTurns(() => 0);
    const conn: TurnSource = { hello: null, instance: null, mirror: { turn: () => ({ state: "working", turnId: "t1" }) } };
    assert.equal(turns.mustWait("desk", "p1", conn), true);
  });

  test("the phone's retry of the send the agent took last is known as one, in the same agent process only", () => {
    const turns = new SendTurns(() => 0);
    const conn = source(false);
    conn.panes.set("p1", { state: "idle", turnId: "t1" });
    turns.sent("desk", "p1", ok("t2"), conn, "req-a");
    conn.panes.set("p1", { state: "working", turnId: "t2" });
    assert.equal(turns.mustWait("desk", "p1", conn), true, "a new message waits for the turn");
    assert.equal(turns.isRetryOfTaken("desk", "p1", "req-a", conn), true, "its retry does not");
    assert.equal(turns.isRetryOfTaken("desk", "p1", "req-b", conn), false);
    assert.equal(turns.isRetryOfTaken("desk", "p2", "req-a", conn), false);
    // Refused sends are not taken; another process of the agent has other receipts' meaning.
    turns.sent("desk", "p1", { status: 409, body: { error: "refused", message: "no" } }, conn, "req-c");
    assert.equal(turns.isRetryOfTaken("desk", "p1", "req-c", conn), false);
    conn.instance = "start-2";
    assert.equal(turns.isRetryOfTaken("desk", "p1", "req-a", conn), false);
  });

  test("a replay names the turn its first delivery started: it does not make the next send wait for a turn long over", () => {
    const turns = new SendTurns(() => 0);
    const conn = source(false);
    conn.panes.set("p1", { state: "idle", turnId: "t1" });
    turns.sent("desk", "p1", ok("t2"), conn, "req-a");
    conn.panes.set("p1", { state: "idle", turnId: "t2" });
    assert.equal(turns.mustWait("desk", "p1", conn), false);
    // The agent ran a turn of its own (t3) since; the retry of req-a is answered from its receipt.
    conn.panes.set("p1", { state: "idle", turnId: "t3" });
    turns.sent("desk", "p1", { status: 200, body: { ok: true, turnId: "t2", replayed: true } }, conn, "req-a");
    assert.equal(turns.mustWait("desk", "p1", conn), false);
  });
});
