/**
 * An agent with very many panes (the security issue, item 4): Collie keeps at most
 * MAX_PANES_PER_AGENT of them (waiting ones first), says how many it does not show, and the
 * snapshot carries only each agent's first page of conversations; the rest are read page by page.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { ConversationsPage, Snapshot } from "@colliepwa/shared";
import { MAX_PANES_PER_AGENT } from "../../src/agents/mirror.ts";
import { CONVERSATIONS_PAGE_MAX, SNAPSHOT_CONVERSATIONS_PER_AGENT } from "../../src/routes/api.ts";
import { closeAllDaemons, TestDaemon } from "../helpers/daemon.ts";
import { FakeAgent, fakeSummary, resetPage } from "../helpers/fake-agent.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const PANES = 5000;
let d: TestDaemon;
let fake: FakeAgent;

before(async () => {
  const dir = tempDir();
  fake = new FakeAgent();
  fake.initial = () => {
    const page = resetPage([]) as { layout: { panes: unknown[] }; views: unknown[] };
    // The oldest panes wait on you: they must be kept and listed first all the same.
    page.layout.panes = Array.from({ length: PANES }, (_, i) =>
      fakeSummary(`p${i}`, { activeAt: new Date(Date.UTC(2026, 11, 1) + i * 1000).toISOString(), ...(i < 3 ? { state: "waiting", openAsks: 1 } : {}) }));
    page.views = [];
    return page;
  };
  await fake.listen({ socket: join(dir, "many.sock") });
  d = await TestDaemon.inject({ sources: { fixed: [{ name: "many", endpoint: { kind: "socket", path: join(dir, "many.sock") }, key: "many" }] } });
  await d.waitState("many", "ready");
});

after(async () => {
  await closeAllDaemons();
  await fake.close();
  removeTempDirs();
});

test("past the limit Collie keeps the waiting panes and the newest, and the agent's row says how many it does not show", async () => {
  const row = await until(async () => (await d.snapshot()).agents.find((a) => a.name === "many" && a.counts.open > 0), "the agent's row");
  assert.equal(row.counts.open, MAX_PANES_PER_AGENT);
  assert.equal(row.notShown, PANES - MAX_PANES_PER_AGENT);
  assert.equal(row.counts.waiting, 3);
});

test("the snapshot carries one page per agent, waiting first; the pages after it hold every other conversation once", async () => {
  const snap = (await d.get<Snapshot>("/api/snapshot")).body;
  const mine = snap.conversations.filter((c) => c.agent === "many");
  assert.equal(mine.length, SNAPSHOT_CONVERSATIONS_PER_AGENT);
  assert.deepEqual(mine.slice(0, 3).map((c) => c.id).sort(), ["p0", "p1", "p2"]);
  assert.equal(mine[3]!.id, `p${PANES - 1}`, "then the newest");
  assert.ok(JSON.stringify(snap).length < 200_000, `snapshot ${JSON.stringify(snap).length} bytes`);

  const seen = new Set(mine.map((c) => c.id));
  let after: string | undefined = String(mine.length);
  while (after !== undefined) {
    const r: { status: number; body: ConversationsPage } = await d.get<ConversationsPage>(`/api/agents/many/conversations?after=${after}&limit=${CONVERSATIONS_PAGE_MAX}`);
    assert.equal(r.status, 200);
    for (const c of r.body.conversations) {
      assert.ok(!seen.has(c.id), `listed once: ${c.id}`);
      seen.add(c.id);
    }
    after = r.body.next;
  }
  assert.equal(seen.size, MAX_PANES_PER_AGENT);
  // Kept: the three waiting ones, then the newest others down to the limit.
  const oldestKept = PANES - (MAX_PANES_PER_AGENT - 3);
  assert.ok(seen.has(`p${oldestKept}`), `p${oldestKept} kept`);
  assert.ok(!seen.has(`p${oldestKept - 1}`), `p${oldestKept - 1} not kept`);
});

test("a bad page request is a 400, an unknown agent a 404", async () => {
  assert.equal((await d.get("/api/agents/many/conversations?limit=0")).status, 400);
  assert.equal((await d.get(`/api/agents/many/conversations?limit=${CONVERSATIONS_PAGE_MAX + 1}`)).status, 400);
  assert.equal((await d.get("/api/agents/many/conversations?after=-1")).status, 400);
  assert.equal((await d.get("/api/agents/many/conversations?after=x")).status, 400);
  assert.equal((await d.get("/api/agents/nobody/conversations")).status, 404);
});

test("the page checks answer with the words they always had, the first that fails (after, then limit)", async () => {
  const AFTER = { error: "bad-request", message: "after must be a cursor from the previous page." };
  const LIMIT = { error: "bad-request", message: `limit must be 1 to ${CONVERSATIONS_PAGE_MAX}.` };
  for (const [query, body] of [
    ["limit=0", LIMIT], [`limit=${CONVERSATIONS_PAGE_MAX + 1}`, LIMIT], ["limit=", LIMIT], ["limit=abc", LIMIT], ["limit=1.5", LIMIT],
    ["limit=1&limit=2", LIMIT], ["limit=99999999999999999999", LIMIT],
    ["after=-1", AFTER], ["after=x", AFTER], ["after=1.5", AFTER], ["after=9007199254740992", AFTER], ["after=1&after=2", AFTER],
    ["after=x&limit=0", AFTER], ["after=1e400", AFTER], ["after=Infinity&limit=5", AFTER], ["limit=1e400", LIMIT],
  ] as const) {
    const r = await d.get(`/api/agents/many/conversations?${query}`);
    assert.deepEqual({ status: r.status, body: r.body }, { status: 400, body }, query);
  }
  // What Number() always took still reads: an empty cursor is the first page, a padded number a number.
  for (const query of ["after=", "after=0&limit=1", "after=%205%20&limit=%202", "limit=500"]) {
    assert.equal((await d.get(`/api/agents/many/conversations?${query}`)).status, 200, query);
  }
  assert.equal((await d.get<ConversationsPage>("/api/agents/many/conversations?after=%205%20&limit=%202")).body.conversations.length, 2);
});
