/**
 * Writes and receipts: replays run nothing, refusals keep no receipt, dropped receipts (S-28, S-29).
 * In memory: what is tested is the core, not the socket (transport/socket.test.ts has that).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createCore } from "../../src/core/core.ts";
import { Refusal } from "../../src/core/hooks.ts";
import { MemoryReceiptStore, type ReceiptLookup, type ReceiptRecord, type ReceiptStore } from "../../src/core/receipts.ts";
import type { Item } from "../../src/wire/types.ts";
import { CORE_TOKEN, memoryCore, openRig, until, type CoreRig, type Rig } from "../helpers/agent.ts";
import { receiptStoreSuite } from "../helpers/receipt-store-suite.ts";

const record = (n: number): ReceiptRecord => ({ status: 200, body: { ok: true, n } });

receiptStoreSuite("MemoryReceiptStore", { open: (opts) => new MemoryReceiptStore(opts) });

describe("MemoryReceiptStore: what only the memory store does (S-28)", () => {
  it("evicts the oldest receipt of a group beyond perGroup and reports its id as dropped", () => {
    const store = new MemoryReceiptStore({ perGroup: 3 });
    for (let i = 1; i <= 4; i++) store.put(`r${i}`, record(i), "pane:a");
    assert.equal(store.get("r1"), "dropped");
    assert.deepEqual(store.get("r2"), record(2));
    assert.deepEqual(store.get("r4"), record(4));
    assert.equal(store.size, 3);
  });

  it("forgets a whole group on dropGroup and reports its ids as dropped", () => {
    const store = new MemoryReceiptStore();
    store.put("x1", record(1), "pane:x");
    store.put("y1", record(1), "pane:y");
    store.dropGroup("pane:x");
    assert.equal(store.get("x1"), "dropped");
    assert.deepEqual(store.get("y1"), record(1));
  });

  it("remembers at most droppedLimit dropped ids, forgetting the oldest first", () => {
    const store = new MemoryReceiptStore({ perGroup: 1, droppedLimit: 2 });
    for (let i = 1; i <= 4; i++) store.put(`r${i}`, record(i), "g"); // r1, r2, r3 dropped
    assert.equal(store.get("r1"), undefined);
    assert.equal(store.get("r2"), "dropped");
    assert.equal(store.get("r3"), "dropped");
  });
});

describe("send and replay (S-28, S-29)", () => {
  let rig: Rig;
  let calls: { text: string; requestId: string }[];
  let refuseNext: string | null;
  let failNext: boolean;
  before(async () => {
    rig = await openRig();
    calls = [];
    refuseNext = null;
    failNext = false;
    const pane = rig.collie.workspace("w").tab("t").pane("chat");
    pane.onSend(({ text, requestId }) => {
      calls.push({ text, requestId });
      if (refuseNext !== null) {
        const reason = refuseNext;
        refuseNext = null;
        throw new Refusal(reason);
      }
      if (failNext) {
        failNext = false;
        throw new Error("boom");
      }
      return { turnId: `turn-${calls.length}` };
    });
  });
  after(() => rig.close());

  it("runs onSend once and echoes the text as a user item carrying the request id", async () => {
    const before = calls.length;
    const reply = await rig.phone.send("chat", "Hello agent", { requestId: "send-1" });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, { ok: true, turnId: `turn-${before + 1}` });
    assert.deepEqual(calls.slice(before), [{ text: "Hello agent", requestId: "send-1" }]);
    const items = (await rig.phone.pane("chat")).items.filter((i): i is Extract<Item, { kind: "user" }> => i.kind === "user");
    const echo = items.find((i) => i.requestId === "send-1");
    assert.ok(echo);
    assert.equal(echo.text, "Hello agent");
  });

  it("answers a replay with the first body plus replayed: true and does not run the handler again", async () => {
    const first = await rig.phone.send("chat", "Once", { requestId: "send-replay" });
    const count = calls.length;
    const itemsBefore = (await rig.phone.pane("chat")).items.length;
    const again = await rig.phone.send("chat", "Once", { requestId: "send-replay" });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { ...first.body, replayed: true });
    assert.equal(calls.length, count);
    assert.equal((await rig.phone.pane("chat")).items.length, itemsBefore, "no second echo");
    // Even with other text: a request id names exactly one action.
    const other = await rig.phone.send("chat", "Different text", { requestId: "send-replay" });
    assert.deepEqual(other.body, { ...first.body, replayed: true });
    assert.equal(calls.length, count);
  });

  it("answers 409 refused with the reason for a Refusal, keeps no receipt, and lets the same id succeed later", async () => {
    refuseNext = "busy with another ticket";
    const refused = await rig.phone.send("chat", "Try", { requestId: "send-refused" });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error, "refused");
    assert.equal(refused.body.reason, "busy with another ticket");
    const items = (await rig.phone.pane("chat")).items;
    assert.equal(items.some((i) => i.kind === "user" && i.requestId === "send-refused"), false, "a refused send is not echoed");
    const count = calls.length;
    const retry = await rig.phone.send("chat", "Try", { requestId: "send-refused" });
    assert.equal(retry.status, 200);
    assert.equal(retry.body.replayed, undefined);
    assert.equal(calls.length, count + 1, "the handler ran again");
  });

  it("answers 500 internal when the handler throws, keeps no receipt, and lets the same id run again", async () => {
    failNext = true;
    const failed = await rig.phone.send("chat", "Crash", { requestId: "send-crash" });
    assert.equal(failed.status, 500);
    assert.equal(failed.body.error, "internal");
    const retry = await rig.phone.send("chat", "Crash", { requestId: "send-crash" });
    assert.equal(retry.status, 200);
    assert.equal(retry.body.replayed, undefined);
  });

  it("replays a close whose pane is gone with its first answer, not 404", async () => {
    rig.collie.workspace("w").tab("t").pane("gone");
    const first = await rig.phone.close({ kind: "pane", id: "gone" }, { requestId: "close-gone" });
    assert.equal(first.status, 200);
    const again = await rig.phone.close({ kind: "pane", id: "gone" }, { requestId: "close-gone" });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { ok: true, replayed: true });
    const fresh = await rig.phone.close({ kind: "pane", id: "gone" });
    assert.equal(fresh.status, 404);
    assert.equal(fresh.body.error, "not-found");
  });

  it("replays an answer with the same decidedAt", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("ans");
    const answered = pane.ask({ kind: "text", toolCallId: "c", itemId: "i", title: "Say" });
    const ask = (await rig.phone.pane("ans")).asks[0]!;
    const first = await rig.phone.answer(ask, { kind: "text", text: "hi" }, { requestId: "ans-1" });
    assert.equal(first.status, 200);
    assert.deepEqual(await answered, { kind: "text", text: "hi" });
    const again = await rig.phone.answer(ask, { kind: "text", text: "hi" }, { requestId: "ans-1" });
    assert.deepEqual(again.body, { ...first.body, replayed: true });
  });
});

describe("concurrent duplicates run once (S-28)", () => {
  let rig: CoreRig;
  let calls = 0;
  before(async () => {
    const core = createCore({ token: CORE_TOKEN });
    rig = await memoryCore(core);
    core.workspace("w").tab("t").pane("chat").onSend(async () => {
      calls++;
      // Hold the first run until the duplicate has reached the server.
      await until(() => rig.requests.filter((r) => r.endsWith("/send")).length >= 2, "the duplicate arrives");
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      return { turnId: "turn-1" };
    });
    core.workspace("w").tab("t").pane("refusing").onSend(async ({ requestId }) => {
      refusals++;
      await until(() => rig.requests.filter((r) => r.endsWith("/refusing/send")).length >= 2 * refusals, "the duplicate arrives");
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      if (requestId === "dup-refused" && refusals === 1) throw new Refusal("not yet");
    });
  });
  after(() => rig.close());
  let refusals = 0;

  it("runs the handler once for two sends with the same request id at once, and both get the answer", async () => {
    const [a, b] = await Promise.all([
      rig.phone.send("chat", "twice", { requestId: "dup-1" }),
      rig.phone.send("chat", "twice", { requestId: "dup-1" }),
    ]);
    assert.equal(calls, 1);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.deepEqual([a.body.replayed, b.body.replayed].filter(Boolean), [true], "exactly one is the replay");
    assert.equal(a.body.turnId, "turn-1");
    assert.equal(b.body.turnId, "turn-1");
    const echoes = (await rig.phone.pane("chat")).items.filter((i) => i.kind === "user");
    assert.equal(echoes.length, 1);
  });

  it("gives both duplicates of a refused send the refusal, not marked replayed, and keeps no receipt", async () => {
    const [a, b] = await Promise.all([
      rig.phone.send("refusing", "twice", { requestId: "dup-refused" }),
      rig.phone.send("refusing", "twice", { requestId: "dup-refused" }),
    ]);
    assert.equal(refusals, 1, "the handler ran once");
    for (const reply of [a, b]) {
      assert.equal(reply.status, 409);
      assert.equal(reply.body.error, "refused");
      assert.equal(reply.body.reason, "not yet");
      assert.equal("replayed" in reply.body, false, "an error is no stored answer");
    }
    const [c, d] = await Promise.all([
      rig.phone.send("refusing", "twice", { requestId: "dup-refused" }),
      rig.phone.send("refusing", "twice", { requestId: "dup-refused" }),
    ]);
    assert.equal(refusals, 2, "the same id ran again");
    assert.deepEqual([c.status, d.status], [200, 200]);
    assert.deepEqual([c.body.replayed, d.body.replayed].filter(Boolean), [true]);
  });
});

describe("a dropped receipt answers 500 receipt-dropped and runs nothing (S-28)", () => {
  let rig: CoreRig;
  let calls: string[];
  before(async () => {
    calls = [];
    const core = createCore({ token: CORE_TOKEN, receipts: new MemoryReceiptStore({ perGroup: 3 }) });
    rig = await memoryCore(core);
    const tab = core.workspace("w").tab("t");
    for (const id of ["p1", "p2"]) tab.pane(id).onSend(({ requestId }) => void calls.push(requestId));
  });
  after(() => rig.close());

  it("keeps the newest 3 per pane: after 4 sends the first id's replay is receipt-dropped", async () => {
    for (let i = 1; i <= 4; i++) assert.equal((await rig.phone.send("p1", `m${i}`, { requestId: `drop-${i}` })).status, 200);
    assert.deepEqual(calls, ["drop-1", "drop-2", "drop-3", "drop-4"]);
    const replay = await rig.phone.send("p1", "m1", { requestId: "drop-1" });
    assert.equal(replay.status, 500);
    assert.equal(replay.body.error, "receipt-dropped");
    assert.equal(calls.length, 4, "the handler did not run");
    const kept = await rig.phone.send("p1", "m4", { requestId: "drop-4" });
    assert.equal(kept.status, 200);
    assert.equal(kept.body.replayed, true);
    assert.equal(calls.length, 4);
  });

  it("does not evict one pane's receipts for another pane's sends", async () => {
    await rig.phone.send("p2", "x", { requestId: "other-1" });
    for (let i = 0; i < 5; i++) await rig.phone.send("p1", "y", { requestId: `fill-${i}` });
    const replay = await rig.phone.send("p2", "x", { requestId: "other-1" });
    assert.equal(replay.status, 200);
    assert.equal(replay.body.replayed, true);
  });
});

describe("a custom ReceiptStore passed to createCore gets every write in its group (S-28)", () => {
  class RecordingStore implements ReceiptStore {
    readonly puts: [string, string][] = [];
    readonly #map = new Map<string, ReceiptRecord>();
    async get(requestId: string): Promise<ReceiptLookup> {
      return this.#map.get(requestId);
    }
    async put(requestId: string, rec: ReceiptRecord, group: string): Promise<void> {
      this.puts.push([requestId, group]);
      this.#map.set(requestId, rec);
    }
  }
  let rig: CoreRig;
  let store: RecordingStore;
  before(async () => {
    store = new RecordingStore();
    const core = createCore({
      token: CORE_TOKEN,
      receipts: store,
      starters: [{ id: "new", title: "New" }],
      hooks: {
        onSend: ({ pane }) => {
          pane.beginTurn();
        },
        onStop: () => {},
        onStarter: () => core.workspace("w").tab("t").pane("started"),
      },
    });
    core.workspace("w").tab("t").pane("p1");
    rig = await memoryCore(core);
  });
  after(() => rig.close());

  it("stores send and stop under pane:<id>, and rename, close, reopen and starter under their own groups", async () => {
    await rig.phone.send("p1", "hi", { requestId: "g-send" });
    await rig.phone.stop("p1", null, { requestId: "g-stop" });
    await rig.phone.rename({ kind: "pane", id: "p1" }, "Renamed", { requestId: "g-rename" });
    await rig.phone.starter("new", { requestId: "g-starter" });
    await rig.phone.close({ kind: "pane", id: "p1" }, { requestId: "g-close" });
    await rig.phone.reopen({ kind: "pane", id: "p1" }, { requestId: "g-reopen" });
    assert.deepEqual(store.puts, [
      ["g-send", "pane:p1"],
      ["g-stop", "pane:p1"],
      ["g-rename", "renames"],
      ["g-starter", "starters"],
      ["g-close", "closes"],
      ["g-reopen", "reopens"],
    ]);
    const replay = await rig.phone.rename({ kind: "pane", id: "p1" }, "Other", { requestId: "g-rename" });
    assert.equal(replay.body.replayed, true);
    assert.equal((await rig.phone.pane("p1")).pane.title, "Renamed");
  });
});
