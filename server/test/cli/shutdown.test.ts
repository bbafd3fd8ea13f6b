/** How `collie serve` stops on a signal (cli/shutdown.ts): every step runs, a deadline, a second signal. */
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { test } from "node:test";
import { stopOnSignals } from "../../src/cli/shutdown.ts";

const rig = (deadlineMs = 60_000) => {
  const signals = new EventEmitter();
  const exits: number[] = [];
  const lines: string[] = [];
  let exited!: (code: number) => void;
  const exit = new Promise<number>((r) => (exited = r));
  const opts = {
    signals: signals as unknown as Pick<NodeJS.Process, "on">,
    log: (l: string) => lines.push(l),
    exit: (code: number) => {
      exits.push(code);
      exited(code);
    },
    deadlineMs,
  };
  return { signals, exits, lines, exit, opts };
};

test("SIGTERM runs every stop step, even after one fails, then exits", async () => {
  const r = rig();
  const ran: string[] = [];
  stopOnSignals(() => [
    Promise.reject(new Error("the daemon would not close")),
    (async () => void ran.push("example stopped"))(),
  ], r.opts);
  r.signals.emit("SIGTERM", "SIGTERM");
  assert.equal(await r.exit, 1);
  assert.deepEqual(ran, ["example stopped"]);
  assert.ok(r.lines.some((l) => l.includes("the daemon would not close")));
});

test("a clean stop exits 0", async () => {
  const r = rig();
  stopOnSignals(() => [Promise.resolve()], r.opts);
  r.signals.emit("SIGINT", "SIGINT");
  assert.equal(await r.exit, 0);
});

test("a stop that hangs past the deadline exits anyway", async () => {
  const r = rig(10);
  stopOnSignals(() => [new Promise(() => {})], r.opts);
  // The deadline's timer does not hold the process open by itself (a real stop that hangs does).
  const hold = setInterval(() => {}, 1000);
  r.signals.emit("SIGTERM", "SIGTERM");
  assert.equal(await r.exit, 1);
  clearInterval(hold);
  assert.ok(r.lines.some((l) => l.includes("exiting anyway")));
});

test("a second signal exits at once", async () => {
  const r = rig();
  stopOnSignals(() => [new Promise(() => {})], r.opts);
  const hold = setInterval(() => {}, 1000);
  r.signals.emit("SIGTERM", "SIGTERM");
  r.signals.emit("SIGTERM", "SIGTERM");
  assert.equal(await r.exit, 1);
  clearInterval(hold);
  assert.ok(r.lines.some((l) => l.includes("again: exiting now")));
});
