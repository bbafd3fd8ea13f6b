/**
 * A crew member's live WebSocket is outside input (C-1; the security issues, items 28.1–28.3 and
 * 38.2): every frame goes through the live contract's reader before the lead keeps or publishes
 * anything, and nothing a member sends can throw out of the lead's socket handler. A fake member
 * (a real HTTP server and WebSocket) sends what no real member would; a real lead daemon reads it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import type { LiveMessage, Snapshot } from "@colliepwa/shared";
import { SNAPSHOT_CONVERSATIONS_PER_AGENT } from "@colliepwa/shared/schemas";
import { closeAllDaemons, TestDaemon, writeSources } from "../helpers/daemon.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { FakeMember, memberConversation, memberRow, memberSnapshot, type FakeMemberOptions } from "../helpers/fake-member.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";
import { MEMBER_LIMITS } from "../../src/crew/kept.ts";

const members: FakeMember[] = [];
after(async () => {
  await closeAllLive();
  await closeAllDaemons();
  await Promise.all(members.map((m) => m.close()));
  removeTempDirs();
});

/** A lead daemon with one crew entry, `box`, for a fake member scripted by `opts`. */
async function leadOf(opts: FakeMemberOptions): Promise<{ lead: TestDaemon; member: FakeMember }> {
  const member = await FakeMember.start(opts);
  members.push(member);
  const dir = tempDir();
  const sources = join(dir, "sources.json");
  writeSources(sources, { crew: [{ name: "box", url: member.url, token: "crew-credential-0123456789" }] });
  const lead = await TestDaemon.start({ sources: { path: sources }, stateDir: join(dir, "lead") });
  return { lead, member };
}

const snapshotWhere = (lead: TestDaemon, pred: (s: Snapshot) => boolean, what: string) =>
  until(async () => {
    const r = await lead.get<Snapshot>("/api/snapshot");
    assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 300));
    return pred(r.body) ? r.body : undefined;
  }, what);

test("a member that sends null, a view without detail and other malformed frames leaves the lead up, with the member's good rows", async () => {
  const bad = [
    "null", "[]", "42", "\"snapshot\"", "{not json",
    JSON.stringify({ type: "view", seq: 2, agent: "evil", paneId: "c0" }),
    JSON.stringify({ type: "view", seq: 2, agent: "evil", paneId: "c0", detail: null }),
    JSON.stringify({ type: "view", seq: 2, agent: "evil", paneId: "c0", detail: { conversation: null } }),
    JSON.stringify({ type: "snapshot", seq: 2, snapshot: null }),
    JSON.stringify({ type: "conversation", seq: 2, conversation: null }),
    JSON.stringify({ type: "item", seq: 2, agent: "evil", paneId: "c0", item: null }),
    JSON.stringify({ type: "ask", seq: 2, agent: "evil", paneId: "c0", ask: null }),
    JSON.stringify({ type: "ask-closed", seq: 2, agent: "evil", paneId: "c0" }),
    JSON.stringify({ type: "held-outcome" }),
    JSON.stringify({ type: "agent-removed" }),
    JSON.stringify({ type: "no-such-type" }),
    JSON.stringify({ type: null }),
  ];
  const { lead } = await leadOf({
    onLive: (socket) => {
      socket.send(memberSnapshot([memberRow("evil")], [memberConversation("evil", "c0")]));
      for (const frame of bad) socket.send(frame);
      socket.send(Buffer.from([0, 1, 2, 3]), { binary: true });
      socket.send(JSON.stringify({ type: "conversation", seq: 3, conversation: memberConversation("evil", "after") }));
    },
  });
  const snap = await snapshotWhere(lead, (s) => s.conversations.some((c) => c.id === "after"), "the good message sent after the bad ones, on the lead");
  assert.deepEqual(snap.agents.map((a) => a.name), ["evil@box"]);
  assert.equal(snap.agents[0]!.state, "ready", "18 malformed frames are under the disconnect bound");
  assert.equal((await lead.get("/api/health")).status, 200);
  assert.ok(lead.logs.some((l) => /crew member box: dropped \d+ malformed message/.test(l)), lead.logs.join("\n"));
});

test("a member's malformed decisions are dropped; a good one, held with its answer, reaches the lead's phones under the crew key (issue #37)", async () => {
  const good = {
    askId: "894b66639256daba7959cab175d2bb9e", paneId: "c0", itemId: "t1", kind: "permission", title: "refund wants to run", device: "Pixel",
    at: "2026-12-02T14:05:00.000Z", held: true, requestId: "r-held-1", answer: { kind: "permission", optionId: "allow" },
  };
  const { lead, member } = await leadOf({ onLive: (socket) => socket.send(memberSnapshot([memberRow("evil")], [memberConversation("evil", "c0")])) });
  await snapshotWhere(lead, (s) => s.conversations.some((c) => c.id === "c0"), "the member's conversation");
  const phone = await LiveClient.connect(lead.wsUrl);
  await until(() => member.sockets.length > 0, "the member's socket");
  const socket = member.sockets[0]!;
  const from = phone.messages.length;
  for (const bad of [
    { decision: null }, {}, { decision: { askId: 1, paneId: [], at: {} } }, { decision: { ...good, held: "yes" } },
    { decision: { ...good, answer: { kind: "permission" } } }, { decision: { ...good, at: "now" } },
  ]) socket.send(JSON.stringify({ type: "decision", seq: 3, agent: "evil", ...bad }));
  socket.send(JSON.stringify({ type: "decision", seq: 4, agent: "stranger", decision: good }));
  socket.send(JSON.stringify({ type: "decision", seq: 5, agent: "evil", decision: { ...good, device: "Pixel\u202e", extra: { deep: [1] } } }));
  const d = await phone.waitFor<Extract<LiveMessage, { type: "decision" }>>((m) => m.type === "decision", "the good decision", from);
  assert.equal(d.agent, "evil@box");
  assert.deepEqual(d.decision, good, "cleaned, rebuilt from the contract's keys, the answer as the wire checks it");
  assert.equal(phone.messages.slice(from).filter((m) => m.type === "decision").length, 1, "none of the malformed ones, none for an agent the member never listed");
  assert.ok(lead.logs.some((l) => /crew member box: dropped \d+ malformed message/.test(l)), lead.logs.join("\n"));
});

test("a snapshot with one malformed row is dropped whole, never applied as rows with made-up values", async () => {
  const { lead } = await leadOf({
    onLive: (socket) => {
      socket.send(memberSnapshot([memberRow("good"), { name: "odd", state: "dancing", reach: 7, machine: null, counts: { open: "x" } }], [memberConversation("good", "p1")]));
      socket.send(JSON.stringify({ type: "agent", seq: 2, agent: { name: "bare", machine: null, counts: { open: "many" } } }));
      socket.send(JSON.stringify({ type: "agent", seq: 3, agent: memberRow("late") }));
    },
  });
  const snap = await snapshotWhere(lead, (s) => s.agents.some((a) => a.name === "late@box"), "the good row on the lead");
  assert.deepEqual(snap.agents.map((a) => a.name), ["late@box"], "nothing of the malformed snapshot, nor the malformed row");
  assert.deepEqual(snap.conversations, []);
  assert.equal((await lead.get("/api/agents")).status, 200);
});

test("a member that keeps sending malformed messages is disconnected, drawn Unreachable with why, and tried again later", async () => {
  const { lead, member } = await leadOf({
    onLive: (socket, n) => {
      socket.send(memberSnapshot([memberRow("evil")]));
      if (n === 1) for (let i = 0; i < MEMBER_LIMITS.badPerMinute + 5; i++) socket.send("null");
    },
  });
  const row = await lead.waitAgent("evil@box", (a) => a.state === "unreachable", "the member drawn unreachable");
  assert.match(row.problem ?? "", /malformed messages/);
  assert.ok(lead.logs.some((l) => /crew member box: disconnected: \d+ malformed messages in a minute/.test(l)), lead.logs.join("\n"));
  // Tried again after the longest delay: the second connection behaves, and the member is back.
  await lead.waitAgent("evil@box", (a) => a.state === "ready", "the member back after its pause");
  assert.equal(member.connections, 2);
});

test("a member's text is cleaned and masked as the lead's own agents' (R-1, the control and bidi rule); a javascript: link never passes", async () => {
  const token = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const { lead, member } = await leadOf({
    onLive: (socket) => {
      socket.send(memberSnapshot(
        [memberRow("evil", { selfName: `bot ${token}`, runtime: "node\u0007 22" })],
        [memberConversation("evil", "c0", { title: `Refund\u202e\u0007 ${token}`, subtitle: `sub ${token}` })],
      ));
    },
  });
  const snap = await snapshotWhere(lead, (s) => s.conversations.some((c) => c.id === "c0"), "the member's conversation");
  const row = snap.agents.find((a) => a.name === "evil@box")!;
  const conv = snap.conversations.find((c) => c.id === "c0")!;
  assert.equal(row.runtime, "node 22");
  for (const text of [row.selfName!, conv.title, conv.subtitle!]) {
    assert.doesNotMatch(text, /ABCDEFGHIJKLMNOPQRSTUVWXYZ/, text);
    assert.match(text, /ghp_A•+/, text);
  }
  assert.doesNotMatch(conv.title, /[\u202e\u0007]/);
  // On the live stream too: a phone watching the chat gets a clean view and no javascript: link.
  const phone = await LiveClient.connect(lead.wsUrl);
  phone.send({ type: "watch", agent: "evil@box", pane: "c0" });
  await until(() => member.sockets.length > 0, "the member's socket");
  const socket = member.sockets[0]!;
  const from = phone.messages.length;
  socket.send(JSON.stringify({ type: "item", seq: 5, agent: "evil", paneId: "c0", item: { kind: "link", id: "l1", href: "javascript:alert(1)", label: "x" } }));
  socket.send(JSON.stringify({ type: "item", seq: 6, agent: "evil", paneId: "c0", item: { kind: "reply", id: "r1", text: `hi\u202e there ${token}` } }));
  socket.send(JSON.stringify({ type: "conversation", seq: 7, conversation: memberConversation("evil", "c0", { title: `New ${token}` }) }));
  const item = await phone.waitFor<Extract<LiveMessage, { type: "item" }>>((m) => m.type === "item", "the clean item", from);
  assert.equal(item.item.id, "r1", "the javascript: link is not passed on");
  assert.equal((item.item as { text: string }).text, `hi there ${token}`, "an item's text is cleaned, not masked (as the lead's own)");
  assert.equal(item.item.textShortened, true);
  const c = await phone.waitFor<Extract<LiveMessage, { type: "conversation" }>>((m) => m.type === "conversation" && m.conversation.title.startsWith("New"), "the new title", from);
  assert.match(c.conversation.title, /^New ghp_A•+$/);
});

test("a member's agent keeps at most 1000 conversations on the lead, and the snapshot carries its first 100 (the security issue, item 2)", async () => {
  const n = MEMBER_LIMITS.conversationsPerAgent + 200;
  const { lead } = await leadOf({
    onLive: (socket) => {
      socket.send(memberSnapshot([memberRow("flood")]));
      for (let i = 0; i < n; i++) socket.send(JSON.stringify({ type: "conversation", seq: 2 + i, conversation: memberConversation("flood", `c${i}`) }));
      socket.send(JSON.stringify({ type: "agent", seq: n + 2, agent: memberRow("flood", { selfName: "done" }) }));
    },
  });
  const snap = await snapshotWhere(lead, (s) => s.agents.some((a) => a.selfName === "done"), "the flood on the lead");
  assert.equal(snap.conversations.length, SNAPSHOT_CONVERSATIONS_PER_AGENT);
  const kept = lead.daemon.crew.member("box")!.kept;
  assert.equal(kept.conversations, MEMBER_LIMITS.conversationsPerAgent);
  assert.ok(lead.logs.some((l) => /crew member box: \d+ row\(s\) or conversation\(s\) not kept/.test(l)), lead.logs.join("\n"));
});

test("a 10 000-deep array with a phone connected, and frames over the size bound: the lead stays up and its snapshot answers (the security issue, 38.2)", async () => {
  let deep = "[]";
  for (let i = 0; i < 10_000; i++) deep = `[${deep}]`;
  const huge = "x".repeat(MEMBER_LIMITS.frameBytes + 1);
  const { lead, member } = await leadOf({
    onLive: (socket, n) => {
      socket.send(memberSnapshot([memberRow("evil")], [memberConversation("evil", "c0")]));
      if (n === 1) {
        socket.send(`{"type":"conversation","seq":2,"conversation":${JSON.stringify(memberConversation("evil", "deep")).replace(/}$/, `,"later":${deep}}`)}`);
        socket.send(JSON.stringify({ type: "conversation", seq: 3, conversation: memberConversation("evil", "c1", { title: huge }) }));
      }
    },
  });
  const phone = await LiveClient.connect(lead.wsUrl);
  await until(() => member.connections >= 2, "the member's second connection, after the frame over the bound");
  const snap = await snapshotWhere(lead, (s) => s.agents.some((a) => a.name === "evil@box" && a.state === "ready"), "the member back");
  assert.ok(!snap.conversations.some((c) => c.id === "deep" || c.id === "c1"));
  assert.equal((await lead.get("/api/health")).status, 200);
  assert.ok(!phone.closed, "the phone's WebSocket stays open");
  assert.ok(lead.logs.some((l) => /nested deeper than/.test(l)), lead.logs.join("\n"));
  assert.ok(lead.logs.some((l) => /sent a frame over \d+ bytes/.test(l)), lead.logs.join("\n"));
});
