/**
 * The delivery of held writes (agents/held-drain.ts, issue 35 item 1): a target's queue goes oldest
 * first, one write at a time, with a turn of the event loop between two; the store is read with a
 * cursor a batch at a time, so a backlog of N rows is read once, not once per delivery; answers are
 * found by the ask a page shows open, never by reading every held row; a target that cannot be
 * reached keeps what it did not take. Real SQLite (`:memory:`); the target is an in-memory port.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { StatementSync } from "node:sqlite";
import { openStateDb, type StateDb } from "../../src/store/db.ts";
import { HeldWrites, type HeldWrite } from "../../src/store/held.ts";
import { DRAIN_BATCH, DRAIN_CONVERSATIONS, DRAIN_PACE_MS, HeldDrain, type DrainPort } from "../../src/agents/held-drain.ts";
import { AgentUnreachable } from "../../src/agents/client.ts";
import type { Outcome } from "../../src/agents/gateway.ts";
import { heldAnswer, heldSend } from "../helpers/held.ts";
import { until } from "../helpers/wait.ts";

/** A state database that counts the rows SQLite hands back to Collie (every read of the store), and their text. */
function countingState(): { state: StateDb; rows: () => number; chars: () => number; reset: () => void } {
  const state = openStateDb(":memory:");
  let rows = 0;
  let chars = 0;
  const textOf = (row: unknown) => Object.values(row as Record<string, unknown>).reduce<number>((n, v) => n + (typeof v === "string" ? v.length : 0), 0);
  const prepare = state.db.prepare.bind(state.db);
  const counted = (s: StatementSync): StatementSync => new Proxy(s, {
    get(target, key) {
      if (key === "all") return (...args: never[]) => { const r = target.all(...args); rows += r.length; for (const row of r) chars += textOf(row); return r; };
      if (key === "get") return (...args: never[]) => { const r = target.get(...args); if (r !== undefined) { rows++; chars += textOf(r); } return r; };
      const v = Reflect.get(target, key) as unknown;
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  state.db.prepare = ((sql: string) => counted(prepare(sql))) as typeof state.db.prepare;
  return { state, rows: () => rows, chars: () => chars, reset: () => (rows = chars = 0) };
}

/** Bounds out of the way: these tests are about delivery. */
const UNBOUNDED = { conversation: { count: 1e6, bytes: 1e9 }, target: { count: 1e6, bytes: 1e9 }, all: { count: 1e6, bytes: 1e9 } };

const OK: Outcome = { status: 200, body: { ok: true } };

/** A turn of the event loop between two writes: the tests of order and width step the drain with it. */
const turn = { pace: () => new Promise<void>((resolve) => setImmediate(resolve)) };

/** A target in memory: takes every write (or refuses from the `failAt`-th on), and records them. */
function port(opts: { ready?: () => boolean; failAt?: number; keep?: (w: HeldWrite) => boolean } = {}) {
  const taken: string[] = [];
  const outcomes: string[] = [];
  let calls = 0;
  const p: DrainPort = {
    ready: opts.ready ?? (() => true),
    deliver: async (w) => {
      calls++;
      if (opts.failAt !== undefined && calls >= opts.failAt) throw new AgentUnreachable("gone again");
      if (opts.keep?.(w)) return "keep";
      taken.push(w.requestId);
      return OK;
    },
    delivered: (w, o) => outcomes.push(`${w.requestId} ${o.status}`),
    log: (line) => assert.fail(line),
  };
  return { port: p, taken, outcomes };
}

describe("held drain", () => {
  test("a pass delivers the queue oldest first, with its pause between two writes", async () => {
    const held = new HeldWrites(openStateDb(":memory:"));
    for (let i = 0; i < 10; i++) held.hold(heldSend({ requestId: `s${i}`, paneId: i % 2 ? "p1" : "p2" }));
    const t = port();
    const drain = new HeldDrain(held, t.port, turn);
    drain.kick("desk");
    // What was delivered when the event loop next got a turn: one write, not the whole queue.
    const seen = await new Promise<number>((resolve) => setImmediate(() => resolve(t.taken.length)));
    assert.equal(seen, 1);
    await until(() => held.count() === 0, "the queue delivered");
    assert.deepEqual(t.taken, ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9"]);
    assert.equal(t.outcomes.length, 10);
  });

  test("by default two writes start DRAIN_PACE_MS apart: a backlog leaves the daemon to what phones do now", async () => {
    const held = new HeldWrites(openStateDb(":memory:"));
    for (let i = 0; i < 6; i++) held.hold(heldSend({ requestId: `s${i}`, paneId: `p${i}` }));
    const starts: number[] = [];
    const drain = new HeldDrain(held, { ...port().port, deliver: async () => (starts.push(performance.now()), OK) });
    drain.kick("desk");
    await until(() => held.count() === 0, "the queue delivered");
    // A timer may run up to a millisecond early by the loop's clock, never more.
    for (let i = 1; i < starts.length; i++) assert.ok(starts[i]! - starts[i - 1]! >= DRAIN_PACE_MS - 1, `write ${i} ${(starts[i]! - starts[i - 1]!).toFixed(2)} ms after the one before`);
  });

  test("a conversation's writes go one after another, a few conversations side by side; a failure stops every later write", async () => {
    const held = new HeldWrites(openStateDb(":memory:"), UNBOUNDED);
    // Conversations as a phone fills them: some twice in a row.
    const paneOf = (i: number) => `p${[0, 0, 1, 1, 2, 3, 4, 5][i % 8]}`;
    for (let i = 0; i < 24; i++) held.hold(heldSend({ requestId: `s${i}`, paneId: paneOf(i) }));
    const busy = new Map<string, number>();
    let most = 0;
    const started: string[] = [];
    const gate: (() => void)[] = [];
    const drain = new HeldDrain(held, {
      ready: () => true,
      deliver: async (w) => {
        started.push(w.requestId);
        busy.set(w.conversation, (busy.get(w.conversation) ?? 0) + 1);
        assert.equal(busy.get(w.conversation), 1, `two writes of ${w.conversation} at once`);
        most = Math.max(most, [...busy.values()].reduce((a, b) => a + b, 0));
        await new Promise<void>((resolve) => gate.push(resolve));
        busy.set(w.conversation, busy.get(w.conversation)! - 1);
        if (w.requestId === "s13") throw new AgentUnreachable("gone");
        return OK;
      },
      delivered: () => {},
      log: (line) => assert.fail(line),
    }, turn);
    drain.kick("desk");
    // The deliveries end one at a time, oldest first, each once as many as may be are in flight
    // (or nothing more starts), until the pass has stopped.
    for (let idle = 0; idle < 20; ) {
      await new Promise((r) => setImmediate(r));
      if (gate.length >= DRAIN_CONVERSATIONS || (gate.length > 0 && idle > 5)) {
        gate.shift()!();
        idle = 0;
      } else idle++;
    }
    assert.equal(most, DRAIN_CONVERSATIONS);
    // Per conversation, in the order held; nothing of p3 after s13 (its write the target did not take) started.
    for (let c = 0; c < 6; c++) {
      const mine = started.filter((id) => paneOf(Number(id.slice(1))) === `p${c}`);
      assert.deepEqual(mine, [...mine].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))), `p${c} in order`);
    }
    assert.ok(!started.includes("s21"), "p3's next write did not overtake the one that failed");
    assert.ok(held.get("desk", "s13"), "the failed write stays held");
    assert.ok(started.every((id) => Number(id.slice(1)) <= 13 + DRAIN_CONVERSATIONS), `nothing far past the failure started: ${started.join(" ")}`);
  });

  test("the queue is read with a cursor: a backlog of N rows is read once, a batch at a time, not once per delivery", async () => {
    const c = countingState();
    const held = new HeldWrites(c.state, UNBOUNDED);
    const n = 5 * DRAIN_BATCH + 3;
    for (let i = 0; i < n; i++) held.hold(heldSend({ requestId: `s${i}` }));
    c.reset();
    const t = port();
    new HeldDrain(held, t.port).kick("desk");
    await until(() => held.count() === 0, "the queue delivered");
    assert.equal(t.taken.length, n);
    // Each row's place once, the write itself when it goes, and the one row each release deletes.
    assert.ok(c.rows() <= 3 * n, `${c.rows()} rows read for ${n} deliveries`);
  });

  test("a pass over conversations that wait for a turn reads one write of each, not the backlog behind them", async () => {
    const c = countingState();
    const held = new HeldWrites(c.state, UNBOUNDED);
    const text = "x".repeat(4000);
    for (let i = 0; i < 300; i++) held.hold(heldSend({ requestId: `s${i}`, paneId: `p${i % 3}`, text }));
    let delivers = 0;
    const drain = new HeldDrain(held, {
      ready: () => true,
      // A turn runs in each conversation (an agent without followUp): every write waits.
      deliver: async () => (delivers++, "wait"),
      delivered: () => assert.fail("nothing is delivered during the turns"),
      log: (line) => assert.fail(line),
    });
    // The agent's pages during the turns: each kicks a pass.
    for (let page = 1; page <= 3; page++) {
      c.reset();
      drain.kick("desk");
      await until(() => delivers === 3 * page, `pass ${page}`);
      await new Promise((r) => setTimeout(r, 20));
      // The three writes it tried, and the places of the rest: a tenth of the backlog's text.
      assert.ok(c.chars() < 3 * text.length + 300 * 100, `${c.chars()} characters read in pass ${page}`);
    }
    assert.equal(held.count(), 300);
  });

  test("a write the target could not take stays held; the next kick goes on from the oldest left", async () => {
    const held = new HeldWrites(openStateDb(":memory:"));
    for (let i = 0; i < 5; i++) held.hold(heldSend({ requestId: `s${i}` }));
    const first = port({ failAt: 3 });
    new HeldDrain(held, first.port).kick("desk");
    await until(() => held.count() === 3, "two delivered");
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(first.taken, ["s0", "s1"]);
    assert.equal(held.count(), 3, "the third stayed held");
    const second = port();
    new HeldDrain(held, second.port).kick("desk");
    await until(() => held.count() === 0, "the rest delivered");
    assert.deepEqual(second.taken, ["s2", "s3", "s4"]);
  });

  test("a pass picks up what is held while it runs; a target that is not ready is not drained", async () => {
    const held = new HeldWrites(openStateDb(":memory:"));
    let ready = false;
    const t = port({ ready: () => ready });
    const drain = new HeldDrain(held, t.port);
    held.hold(heldSend({ requestId: "s0" }));
    drain.kick("desk");
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(t.taken, []);
    ready = true;
    drain.kick("desk");
    held.hold(heldSend({ requestId: "s1" }));
    drain.kick("desk"); // runs already: the pass reads on from its cursor
    await until(() => held.count() === 0, "both delivered");
    assert.deepEqual(t.taken, ["s0", "s1"]);
  });

  test("a page that shows a turn over while a pass runs starts another pass: the message that waited for it goes without a later page", async () => {
    const held = new HeldWrites(openStateDb(":memory:"));
    // An agent that takes no message during a turn: s0 starts one, so s1 (same conversation) waits.
    let turnRunning = false;
    const taken: string[] = [];
    let drain: HeldDrain | null = null;
    const p: DrainPort = {
      ready: () => true,
      deliver: async (w) => {
        if (w.conversation === "p1" && turnRunning) return "wait";
        taken.push(w.requestId);
        if (w.requestId === "s0") turnRunning = true;
        // While the pass is still on p2's write, the agent's page shows p1's turn over.
        if (w.requestId === "s2") {
          turnRunning = false;
          drain!.kick("desk");
        }
        return OK;
      },
      delivered: () => {},
      log: (line) => assert.fail(line),
    };
    held.hold(heldSend({ requestId: "s0", paneId: "p1" }));
    held.hold(heldSend({ requestId: "s1", paneId: "p1" }));
    held.hold(heldSend({ requestId: "s2", paneId: "p2" }));
    drain = new HeldDrain(held, p);
    drain.kick("desk");
    await until(() => held.count() === 0, "s1 delivered after the turn it waited for");
    assert.deepEqual(taken, ["s0", "s2", "s1"]);
  });

  test("an answer goes when a page shows its ask open, found by the ask: a page costs no read of the held rows", async () => {
    const c = countingState();
    const held = new HeldWrites(c.state, UNBOUNDED);
    for (let i = 0; i < 500; i++) held.hold(heldAnswer({ requestId: `a${i}`, askId: `ask-${i}` }));
    c.reset();
    const t = port();
    const drain = new HeldDrain(held, t.port);
    const asks: { conversation: string; ask: string }[] = [{ conversation: "p1", ask: "not-held" }, { conversation: "p2", ask: "ask-7" }];
    drain.afterPage("desk", () => asks);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(c.rows(), 0, "open asks no answer waits for read nothing");
    assert.deepEqual(t.taken, []);
    asks.push({ conversation: "p1", ask: "ask-7" });
    drain.afterPage("desk", () => asks);
    await until(() => t.taken.length === 1, "the answer delivered");
    assert.deepEqual(t.taken, ["a7"]);
    assert.equal(held.count(), 499);
    assert.ok(c.rows() <= 2, `${c.rows()} rows read`);
  });

  test("an answer its agent does not take yet (its ask not open after all) stays held", async () => {
    const held = new HeldWrites(openStateDb(":memory:"));
    held.hold(heldAnswer({ requestId: "a1", askId: "ask-1" }));
    const t = port({ keep: () => true });
    new HeldDrain(held, t.port).afterPage("desk", () => [{ conversation: "p1", ask: "ask-1" }]);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(held.count(), 1);
    assert.deepEqual(t.outcomes, []);
  });

  test("after stop nothing is delivered or released", async () => {
    const held = new HeldWrites(openStateDb(":memory:"));
    for (let i = 0; i < 3; i++) held.hold(heldSend({ requestId: `s${i}` }));
    const t = port();
    const drain = new HeldDrain(held, t.port);
    drain.stop();
    drain.kick("desk");
    drain.afterPage("desk", () => []);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(t.taken, []);
    assert.equal(held.count(), 3);
  });
});
