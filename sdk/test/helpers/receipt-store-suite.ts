/**
 * One suite for every ReceiptStore (S-28): what a store keeps and evicts, and the idempotency
 * module (src/core/idempotency.ts) running over it — same request id, same reply, the work run
 * exactly once. core/receipts.test.ts runs it against MemoryReceiptStore and
 * transport/sqlite-receipts.test.ts against SqliteReceiptStore (under Node, and under Bun in
 * `npm test`'s Bun run).
 */
import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { Idempotency } from "../../src/core/idempotency.ts";
import type { ReceiptRecord, ReceiptStore } from "../../src/core/receipts.ts";
import { RECEIPTS_PER_GROUP } from "../../src/wire/constants.ts";

export interface StoreMaker<S extends ReceiptStore & { readonly perGroup: number }> {
  /** A fresh, empty store. */
  open(opts?: { perGroup?: number }): S;
  /** Lets go of a store the suite opened (closes a database). */
  close?(store: S): void;
}

const ok = (n: number): ReceiptRecord => ({ status: 200, body: { ok: true, n } });

export function receiptStoreSuite<S extends ReceiptStore & { readonly perGroup: number }>(name: string, maker: StoreMaker<S>): void {
  const opened: S[] = [];
  const open = (opts?: { perGroup?: number }) => {
    const store = maker.open(opts);
    opened.push(store);
    return store;
  };
  afterEach(() => {
    for (const store of opened.splice(0)) maker.close?.(store);
  });

  describe(`${name} keeps the newest receipts per group (S-28)`, () => {
    test("an unknown id is undefined; a stored one comes back as stored", async () => {
      const s = open();
      assert.equal(await s.get("r1"), undefined);
      await s.put("r1", { status: 200, body: { ok: true, turnId: "t-1", nested: { a: [1, "ü"] } } }, "pane:p1");
      assert.deepEqual(await s.get("r1"), { status: 200, body: { ok: true, turnId: "t-1", nested: { a: [1, "ü"] } } });
      assert.equal(await s.get("nope"), undefined);
    });

    test("defaults to RECEIPTS_PER_GROUP (1000) per group", () => {
      assert.equal(RECEIPTS_PER_GROUP, 1000);
      assert.equal(open().perGroup, RECEIPTS_PER_GROUP);
    });

    test("keeps the first record when the same id is put twice, in its group or another", async () => {
      const s = open();
      await s.put("r1", ok(1), "pane:p1");
      await s.put("r1", ok(2), "pane:p1");
      await s.put("r1", ok(3), "pane:other");
      assert.deepEqual(await s.get("r1"), ok(1));
    });

    test("an id evicted beyond perGroup is 'dropped'; the newest perGroup stay", async () => {
      const s = open({ perGroup: 2 });
      await s.put("a", ok(1), "pane:p1");
      await s.put("b", ok(2), "pane:p1");
      await s.put("c", ok(3), "pane:p1");
      assert.equal(await s.get("a"), "dropped");
      assert.deepEqual(await s.get("b"), ok(2));
      assert.deepEqual(await s.get("c"), ok(3));
      await s.put("d", ok(4), "pane:p1");
      assert.equal(await s.get("b"), "dropped");
      assert.equal(await s.get("a"), "dropped", "a dropped id stays dropped");
      assert.equal(await s.get("never-seen"), undefined);
    });

    test("counts each group on its own", async () => {
      const s = open({ perGroup: 2 });
      await s.put("p1-a", ok(1), "pane:p1");
      await s.put("p1-b", ok(2), "pane:p1");
      for (let i = 0; i < 5; i++) await s.put(`p2-${i}`, ok(i), "pane:p2");
      for (let i = 0; i < 3; i++) await s.put(`st-${i}`, ok(i), "starters");
      assert.deepEqual(await s.get("p1-a"), ok(1), "another group's puts do not evict p1's receipts");
      assert.deepEqual(await s.get("p1-b"), ok(2));
      assert.equal(await s.get("p2-2"), "dropped");
      assert.deepEqual(await s.get("p2-3"), ok(3));
      assert.deepEqual(await s.get("p2-4"), ok(4));
      assert.equal(await s.get("st-0"), "dropped");
      assert.deepEqual(await s.get("st-2"), ok(2));
    });
  });

  describe(`idempotent writes over ${name}: same request id, same reply, run once (S-28, S-29)`, () => {
    /** Work that counts its runs and answers `outcome(run)`. */
    function work(outcome: (run: number) => ReceiptRecord = (run) => ({ status: 200, body: { ok: true, turnId: `turn-${run}` } })) {
      const w = { runs: 0, fn: async () => outcome(++w.runs) };
      return w;
    }

    test("runs the work once; a replay gets the first answer with replayed: true and runs nothing", async () => {
      const once = new Idempotency(open());
      const w = work();
      const first = await once.run("req-1", "pane:p1", w.fn);
      assert.deepEqual(first, { status: 200, body: { ok: true, turnId: "turn-1" } });
      const again = await once.run("req-1", "pane:p1", w.fn);
      assert.deepEqual(again, { status: 200, body: { ok: true, turnId: "turn-1", replayed: true } });
      assert.equal(w.runs, 1);
      const other = await once.run("req-2", "pane:p1", w.fn);
      assert.deepEqual(other.body, { ok: true, turnId: "turn-2" }, "another id runs");
    });

    test("duplicates that arrive while the first runs wait for it: the work runs once, exactly one answer is not a replay", async () => {
      const once = new Idempotency(open());
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let runs = 0;
      const slow = async (): Promise<ReceiptRecord> => {
        runs++;
        await held;
        return { status: 200, body: { ok: true, turnId: "turn-1" } };
      };
      const all = Promise.all([once.run("dup", "pane:p1", slow), once.run("dup", "pane:p1", slow), once.run("dup", "pane:p1", slow)]);
      await new Promise((r) => setImmediate(r));
      release();
      const replies = await all;
      assert.equal(runs, 1);
      assert.deepEqual(replies.map((r) => r.body.turnId), ["turn-1", "turn-1", "turn-1"]);
      assert.deepEqual(replies.map((r) => r.body.replayed === true), [false, true, true]);
    });

    test("an error keeps no receipt: duplicates in flight get it as it is, and the same id runs again later", async () => {
      const once = new Idempotency(open());
      const w = work((run) => (run === 1 ? { status: 409, body: { error: "refused", message: "not yet", reason: "not yet" } } : { status: 200, body: { ok: true } }));
      const [a, b] = await Promise.all([once.run("r", "pane:p1", w.fn), once.run("r", "pane:p1", w.fn)]);
      assert.equal(w.runs, 1);
      for (const reply of [a, b]) {
        assert.equal(reply.status, 409);
        assert.equal("replayed" in reply.body, false, "an error is no stored answer");
      }
      const retry = await once.run("r", "pane:p1", w.fn);
      assert.deepEqual(retry, { status: 200, body: { ok: true } });
      assert.equal(w.runs, 2);
    });

    test("an id whose receipt was evicted answers 500 receipt-dropped and runs nothing", async () => {
      const once = new Idempotency(open({ perGroup: 1 }));
      const w = work();
      await once.run("old", "pane:p1", w.fn);
      await once.run("new", "pane:p1", w.fn);
      const dropped = await once.run("old", "pane:p1", w.fn);
      assert.equal(dropped.status, 500);
      assert.equal(dropped.body.error, "receipt-dropped");
      assert.equal(typeof dropped.body.message, "string");
      assert.equal(w.runs, 2, "the work did not run");
    });

    test("keeps each success in the group it is given", async () => {
      const once = new Idempotency(open({ perGroup: 1 }));
      const w = work();
      await once.run("in-p1", "pane:p1", w.fn);
      await once.run("in-p2", "pane:p2", w.fn);
      await once.run("renamed", "renames", w.fn);
      for (const id of ["in-p1", "in-p2", "renamed"]) assert.equal((await once.run(id, "x", w.fn)).body.replayed, true, id);
      assert.equal(w.runs, 3);
    });

    test("the receipts are the store's: a new Idempotency over the same store replays them", async () => {
      const store = open();
      const w = work();
      const first = await new Idempotency(store).run("req-X", "pane:p1", w.fn);
      const again = await new Idempotency(store).run("req-X", "pane:p1", w.fn);
      assert.deepEqual(again, { status: first.status, body: { ...first.body, replayed: true } });
      assert.equal(w.runs, 1);
    });
  });
}
