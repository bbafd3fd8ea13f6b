/**
 * The one store of held writes (store/held.ts; issue 33 item 2, issue 28 item 6, issue 35): one
 * hold per target and request id, a queue in the order of holding read with a cursor, answers found
 * by their ask, bounds per conversation, per target and in all (writes and bytes), expiry, and
 * tallies that a restart reads back. The old three stores' rows move into it in their order.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { openStateDb } from "../../src/store/db.ts";
import { HeldWrites, HOLD_MS, holdWrite, type HeldLimits } from "../../src/store/held.ts";
import { heldAnswer, heldSend } from "../helpers/held.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

after(removeTempDirs);

const LIMITS: HeldLimits = { conversation: { count: 3, bytes: 10_000 }, target: { count: 5, bytes: 20_000 }, all: { count: 8, bytes: 40_000 } };

describe("held writes: one store", () => {
  test("a retry of a held request id is the same hold, in its first place with its first body; targets are apart", () => {
    const held = new HeldWrites(openStateDb(":memory:"));
    held.hold(heldSend({ requestId: "r1", text: "first" }));
    held.hold(heldSend({ requestId: "r2" }));
    const again = held.hold(heldSend({ requestId: "r1", text: "changed" }));
    assert.equal(again.held && again.again, true);
    held.hold(heldSend({ requestId: "r1", agent: "desk@workshop" }));
    assert.deepEqual(held.list("desk").map((w) => [w.requestId, w.body.text]), [["r1", "first"], ["r2", "text of r2"]]);
    assert.deepEqual(held.list("desk@workshop").map((w) => w.requestId), ["r1"]);
    assert.equal(held.count(), 3);
    assert.equal(held.release("desk", "r1"), true);
    assert.equal(held.release("desk", "r1"), false);
    assert.deepEqual(held.list("desk").map((w) => w.requestId), ["r2"]);
    assert.deepEqual(held.targets().sort(), ["desk", "desk@workshop"]);
  });

  test("the queue is read with a cursor, a batch at a time, oldest first; answers that wait for an ask are not in it", () => {
    const held = new HeldWrites(openStateDb(":memory:"));
    for (let i = 0; i < 7; i++) held.hold(heldSend({ requestId: `s${i}`, paneId: i % 2 ? "p1" : "p2" }));
    held.hold(heldAnswer({ requestId: "a1", askId: "ask-1" }));
    const first = held.queue("desk", 0, 3);
    assert.deepEqual(first.map((w) => w.requestId), ["s0", "s1", "s2"]);
    const second = held.queue("desk", first.at(-1)!.seq, 10);
    assert.deepEqual(second.map((w) => w.requestId), ["s3", "s4", "s5", "s6"]);
    assert.deepEqual(held.queue("desk", second.at(-1)!.seq, 10), []);
    assert.equal(held.queued("desk"), 7);
    assert.equal(held.queued("desk", "p1"), 3);
    assert.equal(held.queued("desk", "p9"), 0);
    assert.equal(held.hasWaitingAnswers("desk"), true);
    assert.equal(held.waitsFor("desk", "p1", "ask-1"), true);
    assert.equal(held.waitsFor("desk", "p2", "ask-1"), false);
    assert.deepEqual(held.answersFor("desk", "p1", "ask-1").map((w) => [w.requestId, w.ask]), [["a1", "ask-1"]]);
    held.release("desk", "a1");
    assert.equal(held.hasWaitingAnswers("desk"), false);
  });

  test("bounds per conversation, per target and in all, in writes and in bytes: past one, nothing is kept", () => {
    const held = new HeldWrites(openStateDb(":memory:"), LIMITS);
    for (let i = 0; i < 3; i++) assert.equal(held.hold(heldSend({ requestId: `c${i}` })).held, true);
    assert.deepEqual(held.hold(heldSend({ requestId: "c3" })), { held: false, full: "conversation", bound: LIMITS.conversation });
    // A retry of a write already held is not a new one: it is taken at the bound.
    assert.equal(held.hold(heldSend({ requestId: "c0" })).held, true);
    held.hold(heldSend({ requestId: "d0", paneId: "p2" }));
    held.hold(heldAnswer({ requestId: "d1", paneId: "p2" }));
    assert.deepEqual(held.hold(heldSend({ requestId: "d2", paneId: "p3" })), { held: false, full: "target", bound: LIMITS.target });
    held.hold(heldSend({ requestId: "e0", agent: "other" }));
    held.hold(heldSend({ requestId: "e1", agent: "other", paneId: "p2" }));
    held.hold(heldSend({ requestId: "e2", agent: "third" }));
    assert.deepEqual(held.hold(heldSend({ requestId: "e3", agent: "fourth" })), { held: false, full: "all", bound: LIMITS.all });
    assert.equal(held.count(), 8);
    assert.equal(held.get("desk", "c3"), undefined);
    // Bytes: one big message fills a conversation's bytes before its count.
    const bytes = new HeldWrites(openStateDb(":memory:"), LIMITS);
    assert.equal(bytes.hold(heldSend({ requestId: "b0", text: "x".repeat(6000) })).held, true);
    assert.deepEqual(bytes.hold(heldSend({ requestId: "b1", text: "é".repeat(2500) })), { held: false, full: "conversation", bound: LIMITS.conversation });
    assert.equal(bytes.hold(heldSend({ requestId: "b1", text: "é".repeat(1500) })).held, true);
    // A released write frees its room.
    held.release("desk", "c1");
    assert.equal(held.hold(heldSend({ requestId: "c4" })).held, true);
  });

  test("holdWrite answers the phone API's words: 202, 429 held-full naming the bound, 507 storage-failed with a log line on a full disk", () => {
    const state = openStateDb(join(tempDir(), "state"));
    const held = new HeldWrites(state, LIMITS);
    const lines: string[] = [];
    for (let i = 0; i < 3; i++) assert.deepEqual(holdWrite(held, heldSend({ requestId: `r${i}` }), (l) => lines.push(l)), { status: 202, body: { held: true } });
    const full = holdWrite(held, heldSend({ requestId: "r3" }), (l) => lines.push(l));
    assert.equal(full.status, 429);
    assert.equal(full.body.error, "held-full");
    assert.match(String(full.body.message), /already holds 3 messages and actions .* for this conversation/);
    assert.equal(lines.length, 0);
    // A full disk, as SQLite meets it: the database may not grow by one more page (and has none free).
    state.db.exec("VACUUM");
    const pages = (state.db.prepare("PRAGMA page_count").get() as { page_count: number }).page_count;
    state.db.exec(`PRAGMA max_page_count = ${pages}`);
    const disk = holdWrite(held, heldSend({ requestId: "big", paneId: "p2", text: "x".repeat(9000) }), (l) => lines.push(l));
    assert.equal(disk.status, 507);
    assert.equal(disk.body.error, "storage-failed");
    assert.match(String(disk.body.message), /database or disk is full/);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /could not hold send big for desk: the state database .*collie\.db could not be written: database or disk is full/);
    assert.equal(held.get("desk", "big"), undefined);
    assert.equal(held.count(), 3, "the tallies did not count what was not kept");
    state.close();
  });

  test("writes held past their time are dropped and returned for the audit log", () => {
    const held = new HeldWrites(openStateDb(":memory:"));
    held.hold(heldSend({ requestId: "old", heldAt: 0 }));
    held.hold(heldAnswer({ requestId: "old-answer", heldAt: 0, askId: "ask-1" }));
    held.hold(heldSend({ requestId: "new", heldAt: HOLD_MS }));
    assert.deepEqual(held.expire(HOLD_MS + 1).map((w) => [w.requestId, w.action, w.conversation]), [["old", "send", "p1"], ["old-answer", "answer", "p1"]]);
    assert.deepEqual(held.list("desk").map((w) => w.requestId), ["new"]);
    assert.equal(held.count(), 1);
    assert.equal(held.hasWaitingAnswers("desk"), false);
  });

  test("a restart reads the tallies back: the bounds and the queue hold across it", () => {
    const dir = join(tempDir(), "state");
    const first = openStateDb(dir);
    const before = new HeldWrites(first, LIMITS);
    before.hold(heldSend({ requestId: "r0" }));
    before.hold(heldSend({ requestId: "r1", text: "y".repeat(100) }));
    before.hold(heldAnswer({ requestId: "a0", askId: "ask-1" }));
    first.close();
    const again = openStateDb(dir);
    const after = new HeldWrites(again, LIMITS);
    assert.equal(after.count(), 3);
    assert.equal(after.bytes(), before.bytes());
    assert.equal(after.queued("desk", "p1"), 2);
    assert.equal(after.waitsFor("desk", "p1", "ask-1"), true);
    assert.equal(after.hold(heldSend({ requestId: "r2" })).held, false, "the conversation's third write is its answer: full");
    again.close();
  });
});

describe("held writes: moving the three old stores in (migration 9)", () => {
  test("held answers, held sends and a lead's held crew actions become one table, oldest first, drafts kept", () => {
    const dir = join(tempDir(), "state");
    // A state database as schema 8 left it.
    const state = openStateDb(dir);
    state.close();
    const raw = new DatabaseSync(join(dir, "collie.db"));
    raw.exec("DROP TABLE held_writes; UPDATE schema_version SET version = 8");
    raw.exec(`CREATE TABLE held_answers (request_id TEXT PRIMARY KEY, agent TEXT NOT NULL, pane_id TEXT NOT NULL, ask_id TEXT NOT NULL, revision TEXT NOT NULL, answer TEXT NOT NULL, held_at INTEGER NOT NULL, draft TEXT);
      CREATE TABLE held_sends (request_id TEXT PRIMARY KEY, agent TEXT NOT NULL, pane_id TEXT NOT NULL, text TEXT NOT NULL, held_at INTEGER NOT NULL);
      CREATE TABLE crew_held (request_id TEXT NOT NULL, machine TEXT NOT NULL, agent TEXT NOT NULL, action TEXT NOT NULL, path TEXT NOT NULL, body TEXT NOT NULL, held_at INTEGER NOT NULL, PRIMARY KEY (machine, request_id));`);
    raw.prepare("INSERT INTO held_answers VALUES (?, ?, ?, ?, ?, ?, ?, ?)").run("a1", "desk", "p 1", "ask-1", "0123456789abcdef", JSON.stringify({ kind: "permission", optionId: "allow" }), 20, '{"askId":"ask-1"}');
    raw.prepare("INSERT INTO held_answers VALUES (?, ?, ?, ?, ?, ?, ?, ?)").run("broken", "desk", "p1", "ask-2", "0123456789abcdef", "{not json", 25, null);
    raw.prepare("INSERT INTO held_sends VALUES (?, ?, ?, ?, ?)").run("s1", "desk", "p 1", "hello", 10);
    raw.prepare("INSERT INTO held_sends VALUES (?, ?, ?, ?, ?)").run("s2", "desk", "p 1", "again", 30);
    raw.prepare("INSERT INTO crew_held VALUES (?, ?, ?, ?, ?, ?, ?)").run("c1", "workshop", "till", "send", "/api/agents/till/panes/p%2F2/send", JSON.stringify({ requestId: "c1", text: "hi" }), 15);
    raw.prepare("INSERT INTO crew_held VALUES (?, ?, ?, ?, ?, ?, ?)").run("c2", "workshop", "till", "rename", "/api/agents/till/rename", JSON.stringify({ requestId: "c2", target: { kind: "pane", id: "p3" }, title: "T" }), 16);
    raw.close();

    const moved = openStateDb(dir);
    const held = new HeldWrites(moved);
    assert.deepEqual(held.list("desk").map((w) => [w.requestId, w.action, w.conversation, w.path, w.ask, w.heldAt, w.expiresAt - w.heldAt]), [
      ["s1", "send", "p 1", "/panes/p%201/send", null, 10, HOLD_MS],
      ["a1", "answer", "p 1", "/panes/p%201/asks/ask-1/answer", "ask-1", 20, HOLD_MS],
      ["s2", "send", "p 1", "/panes/p%201/send", null, 30, HOLD_MS],
    ]);
    assert.deepEqual(held.get("desk", "a1")!.body, { requestId: "a1", revision: "0123456789abcdef", answer: { kind: "permission", optionId: "allow" } });
    assert.deepEqual(held.get("desk", "s1")!.body, { requestId: "s1", text: "hello" });
    assert.deepEqual(held.list("till@workshop").map((w) => [w.requestId, w.action, w.conversation, w.path]), [
      ["c1", "send", "p/2", "/api/agents/till/panes/p%2F2/send"],
      ["c2", "rename", "p3", "/api/agents/till/rename"],
    ]);
    assert.equal((moved.db.prepare("SELECT draft FROM held_writes WHERE request_id = 'a1'").get() as { draft: string }).draft, '{"askId":"ask-1"}');
    const tables = (moved.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
    for (const old of ["held_answers", "held_sends", "crew_held"]) assert.ok(!tables.includes(old), `${old} is gone`);
    moved.close();
  });
});
