/**
 * The order of held messages (issue 35, item 2): a backlog held while the agent was down is
 * delivered oldest first when it is back, and a message the phone sends while that backlog is
 * being delivered joins the back of its conversation's queue (202) instead of overtaking it, so
 * the agent gets every message in the phone's order. A conversation with nothing held is not held
 * up by another's backlog.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, afterEach, test } from "node:test";
import { killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";
import { HELD_LIMITS } from "../../src/store/held.ts";

afterEach(async () => {
  await closeAllLive();
  await closeAllDaemons();
  await killAllAgents();
});
after(() => removeTempDirs());

const fixed = (socket: string) => ({ fixed: [{ name: "desk", endpoint: { kind: "socket" as const, path: socket }, key: "desk" }] });

test("a backlog and sends made while it drains reach the agent in the phone's order", async () => {
  const dir = tempDir();
  const socket = join(dir, "desk.sock");
  const first = await startAgent("desk-agent.ts", ["--socket", socket]);
  const d = await TestDaemon.start({ sources: fixed(socket), stateDir: join(dir, "state") });
  await d.waitState("desk", "ready");
  await first.agent.kill();
  await d.waitState("desk", "unreachable");

  // A backlog well within a conversation's bound (npm test stays fast; the bench drains the bounded size).
  const backlog = 40;
  assert.ok(backlog <= HELD_LIMITS.conversation.count);
  const sent: string[] = [];
  for (let i = 0; i < backlog; i++) {
    const id = requestId(`backlog-${i}`);
    assert.deepEqual(await d.post("/api/agents/desk/panes/p1/send", { requestId: id, text: `backlog ${i}` }), { status: 202, body: { held: true } });
    sent.push(id);
  }
  const live = await LiveClient.connect(d.wsUrl);
  const second = await startAgent("desk-agent.ts", ["--socket", socket]);
  // The drain has begun: the first held message is delivered. The phone goes on sending, one tap
  // after another, while the rest of the backlog is on its way.
  await live.waitFor((m) => m.type === "held-outcome" && m.requestId === sent[0], "the first delivery");
  const stillHeld = d.daemon.held.queued("desk", "p1");
  const during: { id: string; status: number }[] = [];
  for (let i = 0; i < 10; i++) {
    const id = requestId(`during-${i}`);
    const r = await d.post("/api/agents/desk/panes/p1/send", { requestId: id, text: `during ${i}` });
    assert.ok(r.status === 202 || r.status === 200, JSON.stringify(r));
    during.push({ id, status: r.status });
    sent.push(id);
  }
  // Another conversation of the same agent is not held up by p1's backlog.
  const other = await d.post("/api/agents/desk/panes/p2/send", { requestId: requestId("other"), text: "elsewhere" });
  assert.equal(other.status, 200, JSON.stringify(other.body));

  await until(() => second.agent.all((m) => m.got === "send" && m.pane === "p1").length === sent.length, () => `all ${sent.length} sends at the agent (${second.agent.all((m) => m.got === "send" && m.pane === "p1").length} so far)`, 60_000);
  const got = second.agent.all((m) => m.got === "send" && m.pane === "p1").map((m) => m.requestId as string);
  assert.deepEqual(got, sent, "the agent got p1's messages in the phone's order, each once");
  assert.ok(stillHeld > 0, "the sends were made while the backlog was still being delivered");
  assert.equal(during[0]!.status, 202, "so the first of them joined the back of the queue");
  assert.equal(d.daemon.held.count(), 0);
  // Every held one's outcome reached the phone.
  const held = new Set(sent.filter((id, i) => i < backlog || during.find((x) => x.id === id)?.status === 202));
  await until(() => live.of("held-outcome").filter((m) => m.type === "held-outcome" && held.has(m.requestId)).length === held.size, "every held outcome");
});
