/**
 * Held answers (D-5, L-1, D-8) with real agents and a real daemon: an answer tapped while the agent
 * is down is held (202) and delivered exactly once when the agent is back and raises the same ask
 * (same id, same revision); the phone learns the outcome on the WebSocket (`held-outcome`). The
 * same holds across a daemon restart: the held answer lives in the state database. An agent that is
 * reached but has not raised the ask again answers `ask-not-open`, which is not held (P-15).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, afterEach, describe, test } from "node:test";
import { answerOutcome, type Ask, type PaneDetail } from "@colliepwa/shared";
import { type ChildAgent, killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";
import { existsSync, readFileSync } from "node:fs";
import { HELD_BY_COLLIE } from "../../src/daemon.ts";
import { openStateDb } from "../../src/store/db.ts";
import { HeldWrites, HOLD_MS } from "../../src/store/held.ts";
import { heldAnswer } from "../helpers/held.ts";

/** The audit log's lines (security/audit.ts). */
const auditLines = (stateDir: string): Record<string, unknown>[] => {
  const path = join(stateDir, "audit.log");
  return existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>) : [];
};

afterEach(async () => {
  await closeAllLive();
  await closeAllDaemons();
  await killAllAgents();
});
after(() => removeTempDirs());

const TOOL_CALL = "call-held";
const answeredLines = (agent: ChildAgent) => agent.all((m) => (m.answered as { toolCallId?: string } | undefined)?.toolCallId === TOOL_CALL);

async function openAsk(d: TestDaemon): Promise<Ask> {
  return until(async () => (await d.get<PaneDetail>("/api/agents/desk/panes/p1")).body.asks?.find((a) => a.toolCallId === TOOL_CALL), "the ask in p1");
}

const fixed = (socket: string) => ({ fixed: [{ name: "desk", endpoint: { kind: "socket" as const, path: socket }, key: "desk" }] });

/** Proves the daemon went on reading the agent after delivery: a new item shows up. */
async function settle(d: TestDaemon, agent: ChildAgent, itemId: string): Promise<void> {
  agent.send({ id: itemId, cmd: "item", pane: "p1", itemId, text: "later" });
  await until(async () => (await d.get<PaneDetail>("/api/agents/desk/panes/p1")).body.items?.some((i) => i.id === itemId), `item ${itemId}`);
}

describe("held answers (D-5, L-1)", () => {
  test("agent killed mid-ask → the answer is held (202) → the restarted agent raises the same ask → delivered exactly once", async () => {
    const dir = tempDir();
    const socket = join(dir, "desk.sock");
    const first = await startAgent("desk-agent.ts", ["--socket", socket, "--ask", TOOL_CALL]);
    const asked = (first.agent.messages.find((m) => m.asked)!.asked) as Ask;
    const d = await TestDaemon.start({ sources: fixed(socket), stateDir: join(dir, "state") });
    const live = await LiveClient.connect(d.wsUrl);
    const ask = await openAsk(d);
    assert.equal(ask.id, asked.id);

    await first.agent.kill();
    await d.waitState("desk", "unreachable");
    const id = requestId("held");
    const body = { requestId: id, revision: ask.revision, answer: { kind: "permission", optionId: "allow" } };
    const held = await d.post(`/api/agents/desk/panes/p1/asks/${ask.id}/answer`, body);
    assert.deepEqual(held, { status: 202, body: { held: true } });
    assert.equal(d.daemon.held.count(), 1);
    // The phone's retry of the same tap while the agent is still down: held again, once.
    assert.deepEqual(await d.post(`/api/agents/desk/panes/p1/asks/${ask.id}/answer`, body), { status: 202, body: { held: true } });
    assert.equal(d.daemon.held.count(), 1);

    // Same tool call after the restart: same ask id and revision (S-23), so the held answer fits.
    const second = await startAgent("desk-agent.ts", ["--socket", socket, "--ask", TOOL_CALL]);
    const outcome = await live.waitFor((m) => m.type === "held-outcome" && m.requestId === id, "held-outcome");
    assert.ok(outcome.type === "held-outcome");
    assert.equal(outcome.agent, "desk");
    assert.equal(outcome.status, 200);
    assert.equal(outcome.body.ok, true);
    const answered = await second.agent.waitFor((m) => (m.answered as { toolCallId?: string } | undefined)?.toolCallId === TOOL_CALL);
    assert.deepEqual((answered.answered as { answer: unknown }).answer, { kind: "permission", optionId: "allow", optionKind: "allow" });
    await live.waitFor((m) => m.type === "ask-closed" && m.askId === ask.id && m.decidedBy === "phone", "ask-closed by the phone");
    assert.equal(d.daemon.held.count(), 0);

    // Exactly once: more pages go by, the answer does not run again; the phone's retry is a replay.
    await settle(d, second.agent, "after-delivery");
    const retry = await d.post(`/api/agents/desk/panes/p1/asks/${ask.id}/answer`, body);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.replayed, true);
    await settle(d, second.agent, "after-retry");
    assert.equal(answeredLines(second.agent).length, 1);
    assert.equal(answeredLines(first.agent).length, 0);
    assert.equal(live.of("held-outcome").length, 1);

    // The audit log follows the held answer to its end with the same request id.
    const lines = auditLines(join(dir, "state")).filter((l) => l.requestId === id);
    assert.deepEqual(lines.map((l) => [l.status, l.outcome, l.device === HELD_BY_COLLIE]), [
      [202, "held", false], [202, "held", false], [200, "delivered", true], [200, "replayed", false],
    ]);
  });

  test("an answer held past seven days is dropped, and the audit log says so with its request id", async () => {
    const dir = tempDir();
    const stateDir = join(dir, "state");
    const state = openStateDb(stateDir);
    new HeldWrites(state).hold(heldAnswer({ requestId: "r-old", heldAt: Date.now() - HOLD_MS - 1000 }));
    state.close();
    const d = await TestDaemon.start({ sources: fixed(join(dir, "nobody.sock")), stateDir });
    assert.equal(d.daemon.held.count(), 0);
    const [line] = auditLines(stateDir).filter((l) => l.requestId === "r-old");
    assert.deepEqual({ ...line, time: undefined }, { time: undefined, action: "answer", agent: "desk", pane: "p1", requestId: "r-old", device: HELD_BY_COLLIE, status: 410, outcome: "dropped: held 7 days" });
  });

  test("an agent that is back but has not raised the ask yet (409 ask-not-open): not held, the card reads `Not taken` (P-15), a later tap is taken", async () => {
    const dir = tempDir();
    const socket = join(dir, "desk.sock");
    const first = await startAgent("desk-agent.ts", ["--socket", socket, "--ask", TOOL_CALL]);
    const d = await TestDaemon.start({ sources: fixed(socket) });
    const live = await LiveClient.connect(d.wsUrl);
    const ask = await openAsk(d);
    await first.agent.kill();
    await d.waitState("desk", "unreachable");
    // Back, without the ask for now.
    const second = await startAgent("desk-agent.ts", ["--socket", socket]);
    await d.waitAgent("desk", (a) => a.state === "ready" && a.counts.waiting === 0, "ready with no ask");
    const early = { requestId: requestId("early"), revision: ask.revision, answer: { kind: "permission", optionId: "deny" } };
    const r = await d.post(`/api/agents/desk/panes/p1/asks/${ask.id}/answer`, early);
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.equal(r.body.error, "ask-not-open");
    assert.equal(answerOutcome(r).line, "Not taken. The question may come back in a moment.");
    assert.equal(d.daemon.held.count(), 0, "an agent Collie reached is not held for");

    // The ask comes back: nothing is delivered on its own; the user's new tap is what answers it.
    second.agent.send({ id: "raise", cmd: "ask", toolCallId: TOOL_CALL });
    await openAsk(d);
    await settle(d, second.agent, "after-raise");
    assert.equal(answeredLines(second.agent).length, 0);
    const tap = { requestId: requestId("tap"), revision: ask.revision, answer: { kind: "permission", optionId: "allow" } };
    const taken = await d.post(`/api/agents/desk/panes/p1/asks/${ask.id}/answer`, tap);
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    const answered = await second.agent.waitFor((m) => (m.answered as { toolCallId?: string } | undefined)?.toolCallId === TOOL_CALL);
    assert.equal((answered.answered as { answer: { optionId: string } }).answer.optionId, "allow");
    await settle(d, second.agent, "after-tap");
    assert.equal(answeredLines(second.agent).length, 1);
    assert.equal(live.of("held-outcome").length, 0);
  });

  test("the daemon restarted with a held answer pending: the new daemon delivers it once the agent is back", async () => {
    const dir = tempDir();
    const socket = join(dir, "desk.sock");
    const stateDir = join(dir, "state");
    const first = await startAgent("desk-agent.ts", ["--socket", socket, "--ask", TOOL_CALL]);
    const d1 = await TestDaemon.start({ sources: fixed(socket), stateDir });
    const ask = await openAsk(d1);
    await first.agent.kill();
    await d1.waitState("desk", "unreachable");
    const id = requestId("across");
    const r = await d1.post(`/api/agents/desk/panes/p1/asks/${ask.id}/answer`, { requestId: id, revision: ask.revision, answer: { kind: "permission", optionId: "allow" } });
    assert.deepEqual(r, { status: 202, body: { held: true } });
    await d1.close();

    // A new daemon on the same state directory: the held answer is still there (D-8).
    const d2 = await TestDaemon.start({ sources: fixed(socket), stateDir });
    assert.equal(d2.daemon.held.count(), 1);
    const [kept] = d2.daemon.held.list("desk");
    assert.equal(kept!.requestId, id);
    assert.equal(kept!.ask, ask.id);
    assert.equal(kept!.body.revision, ask.revision);
    const live = await LiveClient.connect(d2.wsUrl);
    const second = await startAgent("desk-agent.ts", ["--socket", socket, "--ask", TOOL_CALL]);
    const outcome = await live.waitFor((m) => m.type === "held-outcome" && m.requestId === id, "held-outcome after the daemon restart");
    assert.equal(outcome.type === "held-outcome" && outcome.status, 200);
    await second.agent.waitFor((m) => (m.answered as { toolCallId?: string } | undefined)?.toolCallId === TOOL_CALL);
    await settle(d2, second.agent, "after-delivery");
    assert.equal(answeredLines(second.agent).length, 1);
    assert.equal(d2.daemon.held.count(), 0);
    await d2.close();
    // And it stays delivered: a third daemon finds nothing held.
    const d3 = await TestDaemon.start({ sources: fixed(socket), stateDir });
    assert.equal(d3.daemon.held.count(), 0);

    // A phone action whose reply was lost in a daemon restart: the phone retries with the same
    // request id through the new daemon, and the agent runs it once (L-1).
    await d3.waitState("desk", "ready");
    const sendId = requestId("send-across");
    const sent = await d3.post("/api/agents/desk/panes/p2/send", { requestId: sendId, text: "sent before the restart" });
    assert.equal(sent.status, 200);
    await d3.close();
    const d4 = await TestDaemon.start({ sources: fixed(socket), stateDir });
    await d4.waitState("desk", "ready");
    const retried = await d4.post("/api/agents/desk/panes/p2/send", { requestId: sendId, text: "sent before the restart" });
    assert.equal(retried.status, 200);
    assert.equal(retried.body.replayed, true);
    assert.equal(retried.body.turnId, sent.body.turnId);
    assert.equal(second.agent.all((m) => m.requestId === sendId).length, 1);
  });
});

describe("held sends (D-5, L-1, docs/decisions.md)", () => {
  test("a message sent while the agent is down is held (202) and delivered once, in order, with the phone's request id when it is back", async () => {
    const dir = tempDir();
    const socket = join(dir, "desk.sock");
    const stateDir = join(dir, "state");
    const first = await startAgent("desk-agent.ts", ["--socket", socket]);
    const d1 = await TestDaemon.start({ sources: fixed(socket), stateDir });
    await d1.waitState("desk", "ready");
    await first.agent.kill();
    await d1.waitState("desk", "unreachable");

    const one = { requestId: requestId("held-send-1"), text: "hello?" };
    const two = { requestId: requestId("held-send-2"), text: "anyone there?" };
    assert.deepEqual(await d1.post("/api/agents/desk/panes/p1/send", one), { status: 202, body: { held: true } });
    assert.deepEqual(await d1.post("/api/agents/desk/panes/p1/send", two), { status: 202, body: { held: true } });
    // The phone's retry of the first while the agent is still down: held once, its place kept.
    assert.deepEqual(await d1.post("/api/agents/desk/panes/p1/send", one), { status: 202, body: { held: true } });
    assert.deepEqual(d1.daemon.held.list("desk").map((s) => s.requestId), [one.requestId, two.requestId]);
    // A phone that reloads now still finds the chats of the down agent, and the agent's row says it is away.
    const snap = await d1.snapshot();
    assert.deepEqual(snap.agents.map((a) => [a.name, a.state]), [["desk", "unreachable"]]);
    assert.deepEqual(snap.conversations.map((c) => c.id).sort(), ["p1", "p2"]);

    // Across a daemon restart too (D-8): the held sends live in the state database.
    await d1.close();
    const d2 = await TestDaemon.start({ sources: fixed(socket), stateDir });
    assert.equal(d2.daemon.held.count(), 2);
    const live = await LiveClient.connect(d2.wsUrl);
    const second = await startAgent("desk-agent.ts", ["--socket", socket]);
    for (const s of [one, two]) {
      const outcome = await live.waitFor((m) => m.type === "held-outcome" && m.requestId === s.requestId, `held-outcome of ${s.text}`);
      assert.equal(outcome.type === "held-outcome" && outcome.status, 200);
    }
    const got = second.agent.all((m) => m.got === "send");
    assert.deepEqual(got.map((m) => [m.requestId, m.text]), [[one.requestId, "hello?"], [two.requestId, "anyone there?"]]);
    assert.equal(d2.daemon.held.count(), 0);

    // Exactly once: the phone's late retry is a replay, and more pages change nothing.
    const retry = await d2.post("/api/agents/desk/panes/p1/send", one);
    assert.equal(retry.status, 200);
    assert.equal(retry.body.replayed, true);
    await settle(d2, second.agent, "after-sends");
    assert.equal(second.agent.all((m) => m.got === "send").length, 2);
    assert.equal(live.of("held-outcome").length, 2);
  });

  test("an agent without followUp: a send during a turn waits in Collie for the turn to end, one per turn, in order; none is refused for the turn", async () => {
    const dir = tempDir();
    const socket = join(dir, "desk.sock");
    const { agent } = await startAgent("desk-agent.ts", ["--socket", socket, "--no-follow-up"]);
    const d = await TestDaemon.start({ sources: fixed(socket) });
    const live = await LiveClient.connect(d.wsUrl);
    await d.waitState("desk", "ready");
    const message = (text: string) => ({ requestId: requestId(`turn-${text}`), text });
    const [one, two, three] = [message("first"), message("second"), message("third")];
    const got = () => agent.all((m) => m.got === "send").map((m) => m.text);

    // Sent back to back, as a phone's outbox does after a reconnect: the first starts a turn, the
    // others wait for it (held), instead of reaching an agent that would refuse them.
    const first = await d.post("/api/agents/desk/panes/p1/send", one);
    assert.equal(first.status, 200);
    assert.deepEqual(await d.post("/api/agents/desk/panes/p1/send", two), { status: 202, body: { held: true } });
    assert.deepEqual(await d.post("/api/agents/desk/panes/p1/send", three), { status: 202, body: { held: true } });
    // Another conversation of the same agent is not held up.
    assert.equal((await d.post("/api/agents/desk/panes/p2/send", { requestId: requestId("other"), text: "elsewhere" })).status, 200);
    await settle(d, agent, "during-turn-1");
    assert.deepEqual(got(), ["first", "elsewhere"]);

    // The turn ends: the second goes (and starts the next turn); the third waits for that one.
    agent.send({ id: "end-1", cmd: "end", pane: "p1" });
    const second = await live.waitFor((m) => m.type === "held-outcome" && m.requestId === two.requestId, "the second delivered");
    assert.equal(second.type === "held-outcome" && second.status, 200);
    await settle(d, agent, "during-turn-2");
    assert.deepEqual(got(), ["first", "elsewhere", "second"]);
    assert.equal(d.daemon.held.queued("desk"), 1);

    agent.send({ id: "end-2", cmd: "end", pane: "p1" });
    const third = await live.waitFor((m) => m.type === "held-outcome" && m.requestId === three.requestId, "the third delivered");
    assert.equal(third.type === "held-outcome" && third.status, 200);
    assert.deepEqual(got(), ["first", "elsewhere", "second", "third"]);
    assert.equal(d.daemon.held.queued("desk"), 0);
    assert.equal(live.of("held-outcome").length, 2);
  });

  test("an agent without followUp: the phone's retry of the send that started the turn is answered at once as a replay, not held behind its own turn", async () => {
    const dir = tempDir();
    const socket = join(dir, "desk.sock");
    const { agent } = await startAgent("desk-agent.ts", ["--socket", socket, "--no-follow-up"]);
    const d = await TestDaemon.start({ sources: fixed(socket) });
    await d.waitState("desk", "ready");
    const one = { requestId: requestId("taken"), text: "first" };
    const two = { requestId: requestId("behind"), text: "second" };
    assert.equal((await d.post("/api/agents/desk/panes/p1/send", one)).status, 200);
    await settle(d, agent, "turn-of-first");
    // A message after it waits for the turn; the reply to the first was lost, so the phone retries it.
    assert.deepEqual(await d.post("/api/agents/desk/panes/p1/send", two), { status: 202, body: { held: true } });
    const retry = await d.post("/api/agents/desk/panes/p1/send", one);
    assert.equal(retry.status, 200);
    assert.equal(retry.body.replayed, true);
    assert.deepEqual(agent.all((m) => m.got === "send").map((m) => m.text), ["first"], "nothing ran twice");
    assert.equal(d.daemon.held.queued("desk"), 1, "the second still waits for the turn");
  });

  test("an agent that declares followUp takes a send during a turn at once", async () => {
    const dir = tempDir();
    const socket = join(dir, "desk.sock");
    const { agent } = await startAgent("desk-agent.ts", ["--socket", socket]);
    const d = await TestDaemon.start({ sources: fixed(socket) });
    await d.waitState("desk", "ready");
    assert.equal((await d.post("/api/agents/desk/panes/p1/send", { requestId: requestId("f1"), text: "first" })).status, 200);
    await settle(d, agent, "working");
    assert.equal((await d.post("/api/agents/desk/panes/p1/send", { requestId: requestId("f2"), text: "follow-up" })).status, 200);
    assert.deepEqual(agent.all((m) => m.got === "send").map((m) => m.text), ["first", "follow-up"]);
    assert.equal(d.daemon.held.queued("desk"), 0);
  });

  test("a held message for a conversation that did not come back is refused by the agent, and the phone learns it", async () => {
    const dir = tempDir();
    const socket = join(dir, "desk.sock");
    const first = await startAgent("desk-agent.ts", ["--socket", socket]);
    const d = await TestDaemon.start({ sources: fixed(socket) });
    const live = await LiveClient.connect(d.wsUrl);
    await d.waitState("desk", "ready");
    await first.agent.kill();
    await d.waitState("desk", "unreachable");
    const lost = { requestId: requestId("held-send-gone"), text: "for a pane that is gone" };
    assert.deepEqual(await d.post("/api/agents/desk/panes/nowhere/send", lost), { status: 202, body: { held: true } });
    const second = await startAgent("desk-agent.ts", ["--socket", socket]);
    const outcome = await live.waitFor((m) => m.type === "held-outcome" && m.requestId === lost.requestId, "held-outcome");
    assert.ok(outcome.type === "held-outcome");
    assert.ok(outcome.status >= 400 && outcome.status < 500, `status ${outcome.status}`);
    assert.equal(d.daemon.held.count(), 0);
    assert.equal(second.agent.all((m) => m.got === "send").length, 0);
  });
});
