/**
 * The one reconnect loop of every upstream (D-2, C-1): an agent's connection and a crew member's
 * wait on the same fixed delay table; a connection that got somewhere starts the table again; a
 * misbehaving upstream waits the longest delay; a wake or a stop ends a wait at once. The clock is
 * the test's: each wait is recorded and ended by hand, never by time passing.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Reconnect, RETRY_DELAYS_MS, type Reconnecting, type Schedule } from "../../src/agents/reconnect.ts";

/** A clock that only records waits: `next()` ends the current one. */
function handClock(): { schedule: Schedule; waits: number[]; next: () => Promise<void>; pending: () => boolean } {
  const waits: number[] = [];
  let fire: (() => void) | null = null;
  const schedule: Schedule = (f, ms) => {
    waits.push(ms);
    fire = f;
    return () => (fire = null);
  };
  const settle = () => new Promise<void>((r) => setImmediate(r));
  return {
    schedule,
    waits,
    pending: () => fire !== null,
    next: async () => {
      await settle();
      const f = fire;
      assert.ok(f, "the loop waits");
      f();
      await settle();
    },
  };
}

/** An upstream whose connections fail, or get somewhere, as the test says, in turn. */
function scripted(script: ("fail" | "progress-then-fail" | "misbehave")[]): Reconnecting & { connects: number } {
  const up = {
    connects: 0,
    async connect(progress: () => void) {
      const step = script[up.connects++] ?? "fail";
      if (step === "progress-then-fail") {
        progress();
        throw new Error("closed after a page");
      }
      if (step === "misbehave") return;
      throw new Error("refused");
    },
    ended(error: unknown): "next" | "longest" {
      return error === null ? "longest" : "next";
    },
  };
  return up;
}

test("failed connections wait on the fixed table, its last delay repeating", async () => {
  const clock = handClock();
  const loop = new Reconnect(RETRY_DELAYS_MS, clock.schedule);
  const up = scripted([]);
  const done = loop.run(up);
  for (let i = 0; i < RETRY_DELAYS_MS.length + 2; i++) await clock.next();
  loop.stop();
  await done;
  assert.deepEqual(clock.waits.slice(0, RETRY_DELAYS_MS.length + 2), [...RETRY_DELAYS_MS, 30_000, 30_000]);
});

test("a connection that got somewhere starts the table again", async () => {
  const clock = handClock();
  const loop = new Reconnect([1, 2, 3], clock.schedule);
  const done = loop.run(scripted(["fail", "fail", "progress-then-fail", "fail"]));
  for (let i = 0; i < 4; i++) await clock.next();
  loop.stop();
  await done;
  assert.deepEqual(clock.waits.slice(0, 4), [1, 2, 1, 2]);
});

test("an upstream that misbehaved waits the longest delay, however early in the table", async () => {
  const clock = handClock();
  const loop = new Reconnect([1, 2, 3], clock.schedule);
  const done = loop.run(scripted(["misbehave", "fail"]));
  for (let i = 0; i < 2; i++) await clock.next();
  loop.stop();
  await done;
  assert.deepEqual(clock.waits.slice(0, 2), [3, 1]);
});

test("a wake connects again at once; a stop ends the loop in its wait, with no connect after it", async () => {
  const clock = handClock();
  const loop = new Reconnect([60_000], clock.schedule);
  const up = scripted([]);
  const done = loop.run(up);
  await new Promise((r) => setImmediate(r));
  assert.equal(up.connects, 1);
  loop.wake();
  await new Promise((r) => setImmediate(r));
  assert.equal(up.connects, 2, "woken: connected again without waiting out the delay");
  loop.stop();
  await done;
  assert.equal(up.connects, 2);
  assert.equal(clock.pending(), false, "the stopped wait's timer is cancelled");
});
