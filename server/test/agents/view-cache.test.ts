/**
 * The view cache's turns (issue 31): whole views are read from agents a few at a time across every
 * agent, in the order they were asked for, and a read that fails passes its turn on.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { VIEW_READS_AT_ONCE, ViewCache } from "../../src/agents/view-cache.ts";

/** A read that waits until the test lets it end (or fail); `started` resolves when it began. */
function heldRead(log: string[], name: string) {
  let began!: () => void;
  let end!: (fail?: boolean) => void;
  const started = new Promise<void>((resolve) => (began = resolve));
  const run = () =>
    new Promise<string>((done, failed) => {
      log.push(`start ${name}`);
      end = (fail) => (fail ? failed(new Error(`${name} failed`)) : done(name));
      began();
    });
  return { run, started, end: (fail?: boolean) => end(fail) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("view cache: reads in turn", () => {
  test(`at most ${VIEW_READS_AT_ONCE} at once; the rest start in the order they came as earlier ones end`, async () => {
    const cache = new ViewCache();
    const log: string[] = [];
    const reads = Array.from({ length: VIEW_READS_AT_ONCE + 3 }, (_, i) => heldRead(log, `v${i}`));
    const results = reads.map((r) => cache.read(r.run));
    await turn();
    assert.deepEqual(log, reads.slice(0, VIEW_READS_AT_ONCE).map((_, i) => `start v${i}`));
    reads[2]!.end();
    await turn();
    assert.equal(log.at(-1), `start v${VIEW_READS_AT_ONCE}`);
    assert.equal(log.length, VIEW_READS_AT_ONCE + 1);
    for (const r of reads) {
      await r.started;
      r.end();
      await turn();
    }
    assert.deepEqual(await Promise.all(results), reads.map((_, i) => `v${i}`));
    assert.deepEqual(log, reads.map((_, i) => `start v${i}`));
  });

  test("a read that fails gives its turn to the next and its caller the error", async () => {
    const cache = new ViewCache(undefined, 1);
    const log: string[] = [];
    const a = heldRead(log, "a");
    const b = heldRead(log, "b");
    const first = cache.read(a.run);
    const second = cache.read(b.run);
    await a.started;
    a.end(true);
    await assert.rejects(first, /a failed/);
    await b.started;
    b.end();
    assert.equal(await second, "b");
    // Nothing is left taken: the next read starts at once.
    const c = heldRead(log, "c");
    const third = cache.read(c.run);
    await c.started;
    c.end();
    assert.equal(await third, "c");
  });

  test("a read that stalls passes its turn on after its time, and still ends for its caller", async () => {
    const cache = new ViewCache(undefined, 1, 30);
    const log: string[] = [];
    const stalled = heldRead(log, "stalled");
    const next = heldRead(log, "next");
    const first = cache.read(stalled.run);
    const second = cache.read(next.run);
    await stalled.started;
    await next.started; // within the stalled read's 30 ms, not after it ends
    assert.deepEqual(log, ["start stalled", "start next"]);
    next.end();
    assert.equal(await second, "next");
    stalled.end();
    assert.equal(await first, "stalled");
    // The count is whole again: one read runs at once, the one after waits for it.
    const a = heldRead(log, "a");
    const b = heldRead(log, "b");
    const ra = cache.read(a.run);
    const rb = cache.read(b.run);
    await a.started;
    await turn();
    assert.equal(log.at(-1), "start a");
    a.end();
    await b.started;
    b.end();
    assert.deepEqual(await Promise.all([ra, rb]), ["a", "b"]);
  });
});

