/**
 * Receipts that survive a restart (S-28, S-29, L-1): SqliteReceiptStore on node:sqlite, alone (the
 * shared receipt-store suite, and on disk) and behind a real agent process
 * (fixtures/agents/receipts-agent.ts) that is killed and started again.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, afterEach, describe, test } from "node:test";
import { SqliteReceiptStore } from "../../src/index.ts";
import { loadDatabaseSync } from "../../src/core/sqlite-receipts.ts";
import { FakePhone } from "../../src/testing/index.ts";
import { CORE_TOKEN } from "../helpers/agent.ts";
import { receiptStoreSuite } from "../helpers/receipt-store-suite.ts";
import { type ChildAgent, killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { removeTempDirs, tempDir } from "../helpers/temp-dirs.ts";

const ok = (n: number) => ({ status: 200, body: { ok: true, n } });
const stores: SqliteReceiptStore[] = [];
function store(path = ":memory:", opts: { perGroup?: number } = {}): SqliteReceiptStore {
  const s = new SqliteReceiptStore(path, opts);
  stores.push(s);
  return s;
}

afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});
after(async () => {
  await killAllAgents();
  removeTempDirs();
});

describe("the runtime under SqliteReceiptStore (S-3)", () => {
  test("this runtime (Node, or Bun under the Bun run of npm test) provides node:sqlite", () => {
    assert.equal(typeof loadDatabaseSync(), "function");
  });
  test("a runtime without node:sqlite gets an Error that names it and what to use instead", () => {
    for (const getBuiltin of [() => undefined, () => ({}), () => { throw new Error("No such built-in module: node:sqlite"); }]) {
      assert.throws(() => loadDatabaseSync(getBuiltin), (err: unknown) => err instanceof Error && /needs node:sqlite/.test(err.message) && /MemoryReceiptStore/.test(err.message));
    }
  });
});

receiptStoreSuite("SqliteReceiptStore", { open: (opts) => new SqliteReceiptStore(":memory:", opts), close: (s) => s.close() });

describe("SqliteReceiptStore on disk (S-28)", () => {
  test("receipts and dropped ids survive closing and reopening the database file", () => {
    const path = join(tempDir(), "receipts.db");
    const first = new SqliteReceiptStore(path, { perGroup: 1 });
    first.put("old", ok(1), "pane:p1");
    first.put("new", ok(2), "pane:p1");
    first.close();
    const second = store(path, { perGroup: 1 });
    assert.equal(second.get("old"), "dropped");
    assert.deepEqual(second.get("new"), ok(2));
  });
});

describe("receipts across an agent restart (S-28, L-1)", () => {
  const phones: FakePhone[] = [];
  afterEach(() => {
    for (const p of phones.splice(0)) p.disconnect();
  });

  async function start(dir: string, perGroup?: number): Promise<{ agent: ChildAgent; phone: FakePhone; pid: number }> {
    const socket = join(dir, "agent.sock");
    const agent = startAgent("receipts-agent.ts", [socket, join(dir, "receipts.db"), join(dir, "sends.log"), ...(perGroup ? [String(perGroup)] : [])], { AGENT_TOKEN: CORE_TOKEN });
    const ready = await agent.waitForKey("ready");
    const phone = new FakePhone({ socket, token: CORE_TOKEN });
    phones.push(phone);
    return { agent, phone, pid: ready.pid as number };
  }
  const lines = (dir: string): { text: string; requestId: string; pid: number }[] =>
    existsSync(join(dir, "sends.log"))
      ? readFileSync(join(dir, "sends.log"), "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { text: string; requestId: string; pid: number })
      : [];

  test("a send replayed after SIGKILL and restart gets replayed: true and runs nothing", async () => {
    const dir = tempDir();
    const first = await start(dir);
    const sent = await first.phone.send("p1", "refund order 5521", { requestId: "req-X" });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.replayed, undefined);
    assert.deepEqual(lines(dir).map((l) => [l.text, l.requestId, l.pid]), [["refund order 5521", "req-X", first.pid]]);

    await first.agent.kill("SIGKILL");
    first.phone.disconnect();

    const second = await start(dir);
    assert.notEqual(second.pid, first.pid);
    const again = await second.phone.send("p1", "refund order 5521", { requestId: "req-X" });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.replayed, true);
    assert.deepEqual({ ...again.body, replayed: undefined }, { ...sent.body, replayed: undefined }, "the first answer comes back");
    assert.equal(lines(dir).length, 1, "the handler ran exactly once across the restart");

    // A new request id still runs in the restarted agent.
    const fresh = await second.phone.send("p1", "second message", { requestId: "req-Y" });
    assert.equal(fresh.status, 200);
    assert.equal(fresh.body.replayed, undefined);
    assert.deepEqual(lines(dir).map((l) => [l.requestId, l.pid]), [["req-X", first.pid], ["req-Y", second.pid]]);
    await second.agent.kill();
  });

  test("an id dropped before the restart gets 500 receipt-dropped after it and runs nothing", async () => {
    const dir = tempDir();
    const first = await start(dir, 1);
    assert.equal((await first.phone.send("p1", "one", { requestId: "req-1" })).status, 200);
    assert.equal((await first.phone.send("p1", "two", { requestId: "req-2" })).status, 200);
    await first.agent.kill("SIGKILL");

    const second = await start(dir, 1);
    const dropped = await second.phone.send("p1", "one", { requestId: "req-1" });
    assert.equal(dropped.status, 500);
    assert.equal(dropped.body.error, "receipt-dropped");
    const kept = await second.phone.send("p1", "two", { requestId: "req-2" });
    assert.equal(kept.body.replayed, true);
    assert.deepEqual(lines(dir).map((l) => l.requestId), ["req-1", "req-2"]);
    await second.agent.kill();
  });
});
