/**
 * What Collie holds for an agent that is down is bounded (issue 28, item 6): per conversation, per
 * agent and in all, in writes and in bytes, answers included. Past a bound the phone gets
 * `429 held-full` with words that say which, nothing is kept, and the audit log names the refusal.
 * A full disk is `507 storage-failed` and a log line, not a bare 500 (issue 38, item 11).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, afterEach, test } from "node:test";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";
import { ASK_ID, REVISION } from "../helpers/held.ts";

afterEach(() => closeAllDaemons());
after(() => removeTempDirs());

const LIMITS = { conversation: { count: 3, bytes: 12_000 }, target: { count: 5, bytes: 64 * 1024 }, all: { count: 7, bytes: 1024 * 1024 } };

/** Two agents nobody runs: everything for them is held. */
async function downDaemon(stateDir?: string): Promise<TestDaemon> {
  const dir = tempDir();
  const d = await TestDaemon.inject({
    sources: { fixed: ["desk", "till"].map((name) => ({ name, endpoint: { kind: "socket" as const, path: join(dir, `${name}.sock`) }, key: name })) },
    heldLimits: LIMITS,
    ...(stateDir ? { stateDir } : {}),
  });
  await d.waitState("desk", "unreachable");
  await d.waitState("till", "unreachable");
  return d;
}

const send = (d: TestDaemon, agent: string, pane: string, text = "hello") => d.post(`/api/agents/${agent}/panes/${pane}/send`, { requestId: requestId("s"), text });
const answer = (d: TestDaemon, agent: string, pane: string) =>
  d.post(`/api/agents/${agent}/panes/${pane}/asks/${ASK_ID}/answer`, { requestId: requestId("a"), revision: REVISION, answer: { kind: "permission", optionId: "allow" } });

test("past a conversation's, an agent's or Collie's bound a write is refused with held-full, and nothing is kept", async () => {
  const stateDir = join(tempDir(), "state");
  const d = await downDaemon(stateDir);
  for (let i = 0; i < 2; i++) assert.equal((await send(d, "desk", "p1")).status, 202);
  assert.equal((await answer(d, "desk", "p1")).status, 202, "answers count too");
  const conversationFull = await send(d, "desk", "p1");
  assert.equal(conversationFull.status, 429);
  assert.equal(conversationFull.body.error, "held-full");
  assert.match(String(conversationFull.body.message), /already holds 3 messages and actions .* for this conversation until the durable agent is back/);
  // The same tap again (the phone's retry of a write that was held) is not a new one.
  const retried = { requestId: requestId("r"), text: "again" };
  assert.equal((await d.post("/api/agents/desk/panes/p2/send", retried)).status, 202);
  assert.equal((await d.post("/api/agents/desk/panes/p2/send", retried)).status, 202);
  assert.equal((await send(d, "desk", "p2")).status, 202);
  const agentFull = await send(d, "desk", "p3");
  assert.equal(agentFull.status, 429);
  assert.match(String(agentFull.body.message), /for this durable agent/);
  for (let i = 0; i < 2; i++) assert.equal((await send(d, "till", `p${i}`)).status, 202);
  const allFull = await send(d, "till", "p9");
  assert.equal(allFull.status, 429);
  assert.match(String(allFull.body.message), /for all durable agents together/);
  // A message too large for what a conversation keeps is refused whole: bytes count, not only writes.
  const big = await send(d, "till", "p8", "x".repeat(13_000));
  assert.equal(big.status, 429);
  assert.equal(d.daemon.held.count(), 7);
  assert.equal(d.daemon.held.count("desk"), 5);
  const audit = readFileSync(join(stateDir, "audit.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { status: number; outcome: string });
  assert.deepEqual(audit.filter((l) => l.status === 429).map((l) => l.outcome), ["held-full", "held-full", "held-full", "held-full"]);
});

test("a full disk on a held send answers 507 storage-failed and says so in the log; nothing half-kept", async () => {
  const d = await downDaemon(join(tempDir(), "state"));
  assert.equal((await send(d, "desk", "p1")).status, 202);
  // The disk is full as SQLite meets it: the database may not grow by a page, and has none free.
  d.daemon.state.db.exec("VACUUM");
  const pages = (d.daemon.state.db.prepare("PRAGMA page_count").get() as { page_count: number }).page_count;
  d.daemon.state.db.exec(`PRAGMA max_page_count = ${pages}`);
  const r = await send(d, "desk", "p2", "y".repeat(10_000));
  assert.equal(r.status, 507, JSON.stringify(r.body));
  assert.equal(r.body.error, "storage-failed");
  assert.match(String(r.body.message), /could not keep this message: its state database could not be written \(database or disk is full\)/);
  assert.ok(d.logs.some((l) => /could not hold send .* for desk: the state database .*collie\.db could not be written: database or disk is full/.test(l)), d.logs.join("\n"));
  assert.equal(d.daemon.held.count(), 1);
  assert.ok(existsSync(d.daemon.state.path));
});
