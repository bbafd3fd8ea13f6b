/**
 * The one WebSocket (D-4) with a real `ws` client: a snapshot first, then numbered deltas (agent,
 * conversation, ask, ask-closed); `watch` sends the chat's view and its item deltas, for that pane
 * only; a phone that reconnects with `?since=<seq>` gets `resumed` and the messages it missed
 * (items excepted: a watched chat is read again), and a since Collie cannot resume gets a snapshot.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { LiveMessage } from "@colliepwa/shared";
import { type ChildAgent, ChildAgent as Agent, killAllAgents } from "../helpers/child-agent.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

let d: TestDaemon;
let agent: ChildAgent;
let dir: string;

before(async () => {
  dir = tempDir();
  d = await TestDaemon.start({ sources: { fixed: [{ name: "desk", endpoint: { kind: "socket", path: join(dir, "desk.sock") }, key: "desk" }] } });
  await d.waitState("desk", "unreachable");
});

after(async () => {
  await closeAllLive();
  await closeAllDaemons();
  await killAllAgents();
  removeTempDirs();
});

let commands = 0;
async function command(cmd: Record<string, unknown>): Promise<void> {
  const id = `cmd-${++commands}`;
  agent.send({ id, ...cmd });
  await agent.waitFor((m) => m.done === id);
}

const seqsGrow = (ms: LiveMessage[]) => ms.every((m, i) => i === 0 || m.seq > ms[i - 1]!.seq);

describe("the live WebSocket (D-4)", () => {
  test("a snapshot first, then agent, conversation, ask and ask-closed deltas in seq order", async () => {
    const live = await LiveClient.connect(d.wsUrl);
    const first = live.messages[0]!;
    assert.equal(first.type, "snapshot");
    assert.ok(first.type === "snapshot");
    assert.equal(first.seq, first.snapshot.seq);
    assert.deepEqual(first.snapshot.agents.map((a) => [a.name, a.state]), [["desk", "unreachable"]]);

    agent = new Agent("desk-agent.ts", ["--socket", join(dir, "desk.sock")]);
    await agent.waitFor((m) => m.ready === true);
    await live.waitFor((m) => m.type === "agent" && m.agent.state === "ready", "agent ready");
    const conv = await live.waitFor((m) => m.type === "conversation" && m.conversation.id === "p1", "conversation p1");
    assert.ok(conv.type === "conversation");
    assert.equal(conv.conversation.agent, "desk");

    let from = live.messages.length;
    await command({ cmd: "subtitle", pane: "p1", text: "Looking into it" });
    await live.waitFor((m) => m.type === "conversation" && m.conversation.id === "p1" && m.conversation.subtitle === "Looking into it", "subtitle delta", from);

    from = live.messages.length;
    await command({ cmd: "ask", toolCallId: "live-1" });
    const ask = await live.waitFor((m) => m.type === "ask" && m.ask.toolCallId === "live-1", "ask delta", from);
    assert.ok(ask.type === "ask");
    assert.equal(ask.agent, "desk");
    assert.equal(ask.paneId, "p1");
    await live.waitFor((m) => m.type === "agent" && m.agent.counts.waiting === 1, "the waiting count", from);
    await live.waitFor((m) => m.type === "conversation" && m.conversation.id === "p1" && m.conversation.pendingQuestion === "live-1 wants to run", "pending question", from);

    from = live.messages.length;
    const r = await d.post(`/api/agents/desk/panes/p1/asks/${ask.ask.id}/answer`, { requestId: requestId(), revision: ask.ask.revision, answer: { kind: "permission", optionId: "allow" } });
    assert.equal(r.status, 200);
    const closed = await live.waitFor((m) => m.type === "ask-closed" && m.askId === ask.ask.id, "ask-closed", from);
    assert.ok(closed.type === "ask-closed");
    assert.equal(closed.decidedBy, "phone");
    await live.waitFor((m) => m.type === "agent" && m.agent.counts.waiting === 0, "no one waiting", from);

    assert.ok(seqsGrow(live.messages), "seq grows");
    // No item deltas for a phone that watches nothing.
    assert.equal(live.of("item").length, 0);
  });

  test("watch: the chat's view at once, then item deltas of that pane only; unwatch stops them", async () => {
    const watcher = await LiveClient.connect(d.wsUrl);
    const other = await LiveClient.connect(d.wsUrl);
    watcher.send({ type: "watch", agent: "desk", pane: "p1" });
    const view = await watcher.waitFor((m) => m.type === "view", "the view");
    assert.ok(view.type === "view");
    assert.equal(view.agent, "desk");
    assert.equal(view.paneId, "p1");
    assert.equal(view.detail.conversation.id, "p1");
    assert.ok(Array.isArray(view.detail.items));

    await command({ cmd: "item", pane: "p2", itemId: "in-p2", text: "not watched" });
    await command({ cmd: "item", pane: "p1", itemId: "in-p1", text: "watched" });
    const item = await watcher.waitFor((m) => m.type === "item" && m.item.id === "in-p1", "p1's item");
    assert.ok(item.type === "item");
    assert.equal(item.paneId, "p1");
    assert.equal((item.item as { text: string }).text, "watched");
    // p2's item was written first, so it would have arrived before p1's.
    assert.ok(!watcher.of("item").some((m) => m.paneId === "p2"));
    // An item in place: the same id again replaces it.
    await command({ cmd: "item", pane: "p1", itemId: "in-p1", text: "watched, edited" });
    await watcher.waitFor((m) => m.type === "item" && (m.item as { text?: string }).text === "watched, edited", "the edit");
    // The other phone gets the conversation deltas but no items: a subtitle change after the items marks the point.
    await command({ cmd: "subtitle", pane: "p1", text: "watch marker" });
    await other.waitFor((m) => m.type === "conversation" && m.conversation.subtitle === "watch marker", "the marker on the other phone");
    assert.equal(other.of("item").length, 0);
    assert.equal(other.of("view").length, 0);

    // A watch of an unknown pane or junk gets nothing and breaks nothing.
    watcher.socket.send("{not json");
    watcher.socket.send(JSON.stringify({ type: "watch", agent: 5 }));
    watcher.send({ type: "watch", agent: "desk", pane: "no-such-pane" });

    watcher.send({ type: "unwatch", agent: "desk", pane: "p1" });
    await command({ cmd: "subtitle", pane: "p1", text: "after unwatch" }); // a non-item delta as a marker, after unwatch
    await command({ cmd: "item", pane: "p1", itemId: "after-unwatch", text: "x" });
    await command({ cmd: "subtitle", pane: "p1", text: "marker" });
    await watcher.waitFor((m) => m.type === "conversation" && m.conversation.subtitle === "marker", "the marker");
    assert.ok(!watcher.of("item").some((m) => m.item.id === "after-unwatch"));
    assert.equal(watcher.closed, false);
  });

  test("a phone that reconnects with ?since= gets resumed and what it missed, items excepted", async () => {
    const phone = await LiveClient.connect(d.wsUrl);
    phone.send({ type: "watch", agent: "desk", pane: "p1" });
    await phone.waitFor((m) => m.type === "view", "the view");
    const since = (await d.snapshot()).seq;
    await phone.close();

    // Missed while away: an item, a subtitle change, an ask.
    await command({ cmd: "item", pane: "p1", itemId: "missed-item", text: "missed" });
    await command({ cmd: "subtitle", pane: "p1", text: "changed while away" });
    await command({ cmd: "ask", toolCallId: "live-away" });
    await until(async () => (await d.snapshot()).conversations.find((c) => c.id === "p1")?.pendingQuestion === "live-away wants to run", "the ask in the snapshot");
    const now = (await d.snapshot()).seq;
    assert.ok(now > since);

    const back = await LiveClient.connect(d.wsUrl, since);
    const first = back.messages[0]!;
    assert.deepEqual(first, { type: "resumed", seq: now });
    await back.waitFor((m) => m.type === "ask" && m.ask.toolCallId === "live-away", "the missed ask");
    await back.waitFor((m) => m.type === "conversation" && m.conversation.subtitle === "changed while away", "the missed subtitle");
    const missed = back.messages.slice(1);
    assert.ok(missed.every((m) => m.seq > since && m.seq <= now), "only what came after since");
    assert.ok(seqsGrow(missed));
    assert.ok(!missed.some((m) => m.type === "item" || m.type === "view"), "items are not replayed");
    assert.ok(!back.of("snapshot").length);

    // Deltas keep flowing after a resume.
    await command({ cmd: "subtitle", pane: "p1", text: "after resume" });
    await back.waitFor((m) => m.type === "conversation" && m.conversation.subtitle === "after resume", "a delta after resuming");

    // At the newest seq: resumed with nothing to replay.
    const current = (await d.snapshot()).seq;
    const atHead = await LiveClient.connect(d.wsUrl, current);
    assert.deepEqual(atHead.messages[0], { type: "resumed", seq: current });
    // A since Collie cannot resume from (ahead of it, e.g. Collie restarted): a fresh snapshot.
    const ahead = await LiveClient.connect(d.wsUrl, current + 10_000);
    assert.equal(ahead.messages[0]!.type, "snapshot");
    const junk = await LiveClient.connect(`${d.wsUrl}`, Number.NaN);
    assert.equal(junk.messages[0]!.type, "snapshot");
  });

  test("a phone that comes back to a restarted daemon gets a fresh snapshot, never a resume of the old run (P-26)", async () => {
    const socket = join(dir, "desk.sock");
    const fixed = { fixed: [{ name: "desk", endpoint: { kind: "socket" as const, path: socket }, key: "desk" }] };
    const old = await TestDaemon.start({ sources: fixed });
    await old.waitState("desk", "ready");
    const phone = await LiveClient.connect(old.wsUrl);
    await command({ cmd: "subtitle", pane: "p1", text: "before the restart" });
    await phone.waitFor((m) => m.type === "conversation" && m.conversation.subtitle === "before the restart", "a delta from the old run");
    const since = phone.lastSeq;
    await phone.close();
    await old.close();

    // The new run goes on publishing until its numbers reach past what the phone saw.
    const fresh = await TestDaemon.start({ sources: fixed });
    await fresh.waitState("desk", "ready");
    for (let i = 0; (await fresh.snapshot()).seq <= since; i++) {
      await command({ cmd: "subtitle", pane: "p1", text: `new run ${i}` });
      await until(async () => (await fresh.snapshot()).conversations.find((c) => c.id === "p1")?.subtitle === `new run ${i}`, "the new run's delta");
    }
    const back = await LiveClient.connect(fresh.wsUrl, since);
    assert.equal(back.messages[0]!.type, "snapshot", `got ${JSON.stringify(back.messages[0])}`);
  });
});
