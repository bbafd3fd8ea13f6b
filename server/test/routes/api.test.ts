/**
 * The phone API through `inject()` (D-4, D-5), to the desk agent in this process (no socket): snapshot, a pane's content, history and starters read
 * through from a real agent, and every action forwarded with the phone's request id, unchanged
 * (the fixture agent prints the request id each handler got); replays pass `replayed: true` through
 * and the ask outcome codes reach the phone as the agent said them (P-15).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Ask, Item, PaneDetail, Snapshot } from "@colliepwa/shared";
import { parseHistoryItemsPage, parseHistoryPage, parseStartersPage, parseWith, WRITE_BODY_CHECKERS } from "@colliepwa/durable-sdk/wire";
import { MemoryDesk } from "../helpers/memory-desk.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

let d: TestDaemon;
let agent: MemoryDesk;
let live: LiveClient;

before(async () => {
  const dir = tempDir();
  agent = await MemoryDesk.open();
  d = await TestDaemon.inject({
    sources: {
      fixed: [
        { name: "desk", endpoint: agent.endpoint, key: "desk" },
        { name: "gone", endpoint: { kind: "socket", path: `${dir}/gone.sock` }, key: "gone" },
      ],
    },
  });
  await d.waitState("desk", "ready");
  await d.waitState("gone", "unreachable");
  live = await LiveClient.inject(d);
});

after(async () => {
  await closeAllLive();
  await closeAllDaemons();
  removeTempDirs();
});

/** The handler lines the agent printed for this request id. */
const ran = (id: string) => agent.all((m) => m.requestId === id);
const got = (id: string) => agent.waitFor((m) => m.requestId === id);

let commands = 0;
/** Sends a command to the agent and waits until it ran. */
async function command(cmd: Record<string, unknown>): Promise<void> {
  const id = `cmd-${++commands}`;
  agent.send({ id, ...cmd });
  await agent.waitFor((m) => m.done === id);
}

/** Raises an ask in p1 and returns it as the phone sees it (from the WebSocket). */
async function raise(toolCallId: string, extra: Record<string, unknown> = {}): Promise<Ask> {
  await command({ cmd: "ask", toolCallId, ...extra });
  const m = await live.waitFor((x) => x.type === "ask" && x.ask.toolCallId === toolCallId, `ask ${toolCallId}`);
  assert.ok(m.type === "ask");
  return m.ask;
}

const answerPath = (ask: Ask) => `/api/agents/desk/panes/${ask.paneId}/asks/${ask.id}/answer`;

describe("reads (D-4)", () => {
  test("the snapshot holds Collie's version, the agents and their open conversations", async () => {
    const snap = (await d.get<Snapshot>("/api/snapshot")).body;
    assert.equal(typeof snap.seq, "number");
    assert.deepEqual(snap.collie, { version: "0.1.0", wire: 1 });
    assert.deepEqual(snap.agents.map((a) => [a.name, a.state]), [["desk", "ready"], ["gone", "unreachable"]]);
    const convs = snap.conversations.filter((c) => c.agent === "desk");
    assert.deepEqual(convs.map((c) => c.id).sort(), ["p1", "p2"]);
    const p1 = convs.find((c) => c.id === "p1")!;
    assert.equal(p1.title, "Ticket one");
    assert.equal(p1.tabId, "w:t");
    assert.equal(p1.workspaceTitle, "Work");
    assert.deepEqual(p1.actions, [{ id: "escalate", label: "Escalate", icon: "flag" }]);
    assert.deepEqual((await d.get<{ agents: unknown[] }>("/api/agents")).body.agents, snap.agents);
    assert.equal((await d.get("/api/health")).body.ok, true);
  });

  test("a pane's content; an unknown pane and an unknown agent are 404", async () => {
    const r = await d.get<PaneDetail>("/api/agents/desk/panes/p1");
    assert.equal(r.status, 200);
    assert.equal(r.body.conversation.id, "p1");
    assert.equal(r.body.conversation.agent, "desk");
    assert.ok(Array.isArray(r.body.items));
    assert.equal(r.body.itemsCut, false);
    assert.ok(Array.isArray(r.body.asks));
    const pane = await d.get("/api/agents/desk/panes/nope");
    assert.equal(pane.status, 404);
    assert.equal(pane.body.error, "not-found");
    const agentless = await d.get("/api/agents/nobody/panes/p1");
    assert.equal(agentless.status, 404);
    assert.equal(agentless.body.error, "unknown-agent");
  });

  test("history, a closed conversation's items and starters are read through from the agent", async () => {
    const history = await d.get("/api/agents/desk/history?limit=50");
    assert.equal(history.status, 200, JSON.stringify(history.body));
    assert.ok(parseHistoryPage(history.body).ok);
    const rows = history.body.rows as { id: string; state: string }[];
    assert.deepEqual(rows.map((r) => [r.id, r.state]), [["p1", "open"], ["p2", "open"], ["old-1", "closed"]]);
    const items = await d.get("/api/agents/desk/history/old-1/items");
    assert.equal(items.status, 200);
    assert.ok(parseHistoryItemsPage(items.body).ok);
    assert.deepEqual((items.body.items as Item[]).map((i) => i.id), ["h1", "h2"]);
    const starters = await d.get("/api/agents/desk/starters");
    assert.equal(starters.status, 200);
    assert.ok(parseStartersPage(starters.body).ok);
    assert.deepEqual(starters.body.starters, [{ id: "new-ticket", title: "New ticket", subtitle: "An empty ticket", icon: "note" }]);

    // The agent's own errors pass through as they are.
    const unknown = await d.get("/api/agents/desk/history/never/items");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, "not-found");
    const badLimit = await d.get("/api/agents/desk/history?limit=9999");
    assert.equal(badLimit.status, 400);
    assert.equal(badLimit.body.error, "bad-request");
    // An agent Collie cannot reach, and one it does not know.
    const gone = await d.get("/api/agents/gone/history");
    assert.equal(gone.status, 503);
    assert.equal(gone.body.error, "agent-unreachable");
    for (const path of ["/api/agents/nobody/history", "/api/agents/nobody/history/x/items", "/api/agents/nobody/starters"]) {
      const r = await d.get(path);
      assert.equal(r.status, 404, path);
      assert.equal(r.body.error, "unknown-agent", path);
    }
  });
});

describe("actions (D-5): the phone's request id reaches the agent unchanged", () => {
  test("send, steer, stop, action: each forwarded with its request id; a replay runs nothing and says replayed", async () => {
    const from = live.messages.length;
    live.send({ type: "watch", agent: "desk", pane: "p1" });

    const sendId = requestId("send");
    const send = await d.post("/api/agents/desk/panes/p1/send", { requestId: sendId, text: "Please refund order 5521" });
    assert.equal(send.status, 200, JSON.stringify(send.body));
    assert.equal(send.body.ok, true);
    const turnId = send.body.turnId as string;
    assert.match(turnId, /^turn-\d+$/);
    const sent = await got(sendId);
    assert.equal(sent.got, "send");
    assert.equal(sent.text, "Please refund order 5521");
    // The SDK echoes the send as a user item carrying the same request id (P-20).
    const echo = await live.waitFor((m) => m.type === "item" && m.item.id === `user-${sendId}`, "the echo item", from);
    assert.ok(echo.type === "item" && echo.item.kind === "user");
    assert.equal((echo.item as { requestId?: string }).requestId, sendId);

    const steerId = requestId("steer");
    const steer = await d.post("/api/agents/desk/panes/p1/steer", { requestId: steerId, text: "Add a voucher", turnId });
    assert.equal(steer.status, 200, JSON.stringify(steer.body));
    assert.deepEqual({ ...(await got(steerId)) }, { got: "steer", pane: "p1", text: "Add a voucher", turnId, requestId: steerId });

    const stopId = requestId("stop");
    const stop = await d.post("/api/agents/desk/panes/p1/stop", { requestId: stopId, turnId });
    assert.deepEqual(stop, { status: 200, body: { ok: true } });
    assert.deepEqual({ ...(await got(stopId)) }, { got: "stop", pane: "p1", turnId, requestId: stopId });

    const actionId = requestId("action");
    const action = await d.post("/api/agents/desk/panes/p1/actions/escalate", { requestId: actionId, turnId });
    assert.deepEqual(action, { status: 200, body: { ok: true } });
    assert.deepEqual({ ...(await got(actionId)) }, { got: "action", pane: "p1", actionId: "escalate", turnId, requestId: actionId });

    // Replays: the same request id again gets the first answer with replayed: true, and runs nothing.
    const replays: [string, string, Record<string, unknown>][] = [
      [sendId, "/api/agents/desk/panes/p1/send", { requestId: sendId, text: "Please refund order 5521" }],
      [steerId, "/api/agents/desk/panes/p1/steer", { requestId: steerId, text: "Add a voucher", turnId }],
      [stopId, "/api/agents/desk/panes/p1/stop", { requestId: stopId, turnId }],
      [actionId, "/api/agents/desk/panes/p1/actions/escalate", { requestId: actionId, turnId }],
    ];
    for (const [id, path, body] of replays) {
      const again = await d.post(path, body);
      assert.equal(again.status, 200, `${path}: ${JSON.stringify(again.body)}`);
      assert.equal(again.body.replayed, true, path);
      assert.equal(again.body.ok, true);
    }
    assert.equal(send.body.turnId, (await d.post(replays[0]![1], replays[0]![2])).body.turnId);
    // Prove the replays reached the agent and ran nothing: a new send runs, and each earlier id ran once.
    const markerId = requestId("marker");
    await d.post("/api/agents/desk/panes/p2/send", { requestId: markerId, text: "marker" });
    await got(markerId);
    for (const [id] of replays) assert.equal(ran(id).length, 1, `${id} ran ${ran(id).length} times`);

    // The agent's refusals pass through with their codes (P-23).
    const moved = await d.post("/api/agents/desk/panes/p1/actions/escalate", { requestId: requestId(), turnId: "turn-0" });
    assert.equal(moved.status, 409);
    assert.equal(moved.body.error, "moved-on");
    const idle = await d.post("/api/agents/desk/panes/p1/stop", { requestId: requestId(), turnId: null });
    assert.equal(idle.status, 409);
    assert.equal(idle.body.error, "moved-on");
    const noButton = await d.post("/api/agents/desk/panes/p1/actions/nope", { requestId: requestId(), turnId });
    assert.equal(noButton.status, 404);
    assert.equal(noButton.body.error, "not-found");
  });

  test("rename, close, reopen and starter: forwarded with their request ids, replayed without running twice", async () => {
    const from = live.messages.length;
    const renameId = requestId("rename");
    const rename = await d.post("/api/agents/desk/rename", { requestId: renameId, target: { kind: "pane", id: "p2" }, title: "Renamed two" });
    assert.deepEqual(rename, { status: 200, body: { ok: true } });
    assert.deepEqual({ ...(await got(renameId)) }, { got: "rename", target: { kind: "pane", id: "p2" }, title: "Renamed two", requestId: renameId });
    await live.waitFor((m) => m.type === "conversation" && m.conversation.id === "p2" && m.conversation.title === "Renamed two", "the renamed conversation", from);

    const closeId = requestId("close");
    const close = await d.post("/api/agents/desk/close", { requestId: closeId, target: { kind: "pane", id: "p2" } });
    assert.deepEqual(close, { status: 200, body: { ok: true } });
    assert.equal((await got(closeId)).got, "close");
    await live.waitFor((m) => m.type === "conversation-removed" && m.agent === "desk" && m.id === "p2", "p2 removed", from);

    const reopenId = requestId("reopen");
    const reopen = await d.post("/api/agents/desk/reopen", { requestId: reopenId, target: { kind: "pane", id: "p2" } });
    assert.deepEqual(reopen, { status: 200, body: { ok: true, paneId: "p2" } });
    assert.deepEqual({ ...(await got(reopenId)) }, { got: "reopen", target: { kind: "pane", id: "p2" }, requestId: reopenId });
    await until(async () => (await d.snapshot()).conversations.some((c) => c.agent === "desk" && c.id === "p2"), "p2 open again");

    const starterId = requestId("starter");
    const starter = await d.post("/api/agents/desk/starters/new-ticket", { requestId: starterId });
    assert.equal(starter.status, 200);
    assert.equal(starter.body.ok, true);
    const paneId = starter.body.paneId as string;
    assert.deepEqual({ ...(await got(starterId)) }, { got: "starter", starterId: "new-ticket", requestId: starterId, paneId });
    await until(async () => (await d.get(`/api/agents/desk/panes/${paneId}`)).status === 200, "the starter's pane");

    for (const [id, path, body] of [
      [renameId, "/api/agents/desk/rename", { requestId: renameId, target: { kind: "pane", id: "p2" }, title: "Renamed two" }],
      [closeId, "/api/agents/desk/close", { requestId: closeId, target: { kind: "pane", id: "p2" } }],
      [reopenId, "/api/agents/desk/reopen", { requestId: reopenId, target: { kind: "pane", id: "p2" } }],
      [starterId, "/api/agents/desk/starters/new-ticket", { requestId: starterId }],
    ] as const) {
      const again = await d.post(path, body);
      assert.equal(again.status, 200, `${path}: ${JSON.stringify(again.body)}`);
      assert.equal(again.body.replayed, true, path);
      assert.equal(ran(id).length, 1, `${path} ran twice`);
    }
    // The close replay did not close the reopened pane.
    assert.ok((await d.snapshot()).conversations.some((c) => c.agent === "desk" && c.id === "p2"));
    const unknownStarter = await d.post("/api/agents/desk/starters/nope", { requestId: requestId() });
    assert.equal(unknownStarter.status, 404);
    assert.equal(unknownStarter.body.error, "not-found");
  });

  test("answers: accepted, replayed, and every ask outcome code passed through (P-15)", async () => {
    const ask = await raise("c-accept");
    assert.equal(ask.paneId, "p1");
    assert.equal((await d.agent("desk"))!.counts.waiting, 1);
    const id = requestId("answer");
    const body = { requestId: id, revision: ask.revision, answer: { kind: "permission", optionId: "allow" } };
    const first = await d.post(answerPath(ask), body);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.ok, true);
    assert.equal(typeof first.body.decidedAt, "string");
    const answered = await agent.waitFor((m) => (m.answered as { toolCallId?: string } | undefined)?.toolCallId === "c-accept");
    assert.deepEqual((answered.answered as { answer: unknown }).answer, { kind: "permission", optionId: "allow", optionKind: "allow" });
    const closed = await live.waitFor((m) => m.type === "ask-closed" && m.askId === ask.id, "ask-closed");
    assert.ok(closed.type === "ask-closed");
    assert.equal(closed.decidedBy, "phone");
    assert.equal(closed.title, "c-accept wants to run");

    // The same tap again (a retry): the agent's first answer, replayed; ask() resolved once.
    const replay = await d.post(answerPath(ask), body);
    assert.deepEqual(replay, { status: 200, body: { ok: true, decidedAt: first.body.decidedAt, replayed: true } });
    // Another tap: another answer came first.
    const second = await d.post(answerPath(ask), { ...body, requestId: requestId(), answer: { kind: "permission", optionId: "deny" } });
    assert.equal(second.status, 409);
    assert.equal(second.body.error, "ask-answered");
    assert.equal(agent.all((m) => (m.answered as { toolCallId?: string } | undefined)?.toolCallId === "c-accept").length, 1);

    // The ask changed since the phone read it: the current revision comes back.
    const open = await raise("c-changed");
    const changed = await d.post(answerPath(open), { requestId: requestId(), revision: "0000000000000000", answer: { kind: "permission", optionId: "allow" } });
    assert.equal(changed.status, 409);
    assert.equal(changed.body.error, "ask-changed");
    assert.equal(changed.body.revision, open.revision);
    // An answer that does not fit the ask; the ask stays open.
    const invalid = await d.post(answerPath(open), { requestId: requestId(), revision: open.revision, answer: { kind: "permission", optionId: "maybe" } });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.error, "invalid-answer");
    assert.ok((await d.get<PaneDetail>("/api/agents/desk/panes/p1")).body.asks.some((a) => a.id === open.id));
    // The agent decides it itself, then the phone's tap arrives.
    await command({ cmd: "decide", toolCallId: "c-changed" });
    await live.waitFor((m) => m.type === "ask-closed" && m.askId === open.id && m.decidedBy === "program", "decided by the program");
    const decided = await d.post(answerPath(open), { requestId: requestId(), revision: open.revision, answer: { kind: "permission", optionId: "allow" } });
    assert.equal(decided.status, 409);
    assert.equal(decided.body.error, "ask-decided");
    // The ask expires before the tap.
    const expiring = await raise("c-expiry", { expiresInMs: 200 });
    await live.waitFor((m) => m.type === "ask-closed" && m.askId === expiring.id && m.decidedBy === "timeout", "timed out");
    const late = await d.post(answerPath(expiring), { requestId: requestId(), revision: expiring.revision, answer: { kind: "permission", optionId: "allow" } });
    assert.equal(late.status, 409);
    assert.equal(late.body.error, "ask-timed-out");
  });

  test("an unknown agent is 404 for every action; an unreachable one is 503, its answer held (202)", async () => {
    const target = { kind: "pane", id: "p1" };
    const writes: [string, Record<string, unknown>][] = [
      ["/api/agents/nobody/panes/p1/asks/0123456789abcdef0123456789abcdef/answer", { revision: "0123456789abcdef", answer: { kind: "permission", optionId: "allow" } }],
      ["/api/agents/nobody/panes/p1/send", { text: "hi" }],
      ["/api/agents/nobody/panes/p1/steer", { text: "hi", turnId: null }],
      ["/api/agents/nobody/panes/p1/stop", { turnId: null }],
      ["/api/agents/nobody/panes/p1/actions/escalate", { turnId: null }],
      ["/api/agents/nobody/rename", { target, title: "x" }],
      ["/api/agents/nobody/close", { target }],
      ["/api/agents/nobody/reopen", { target }],
      ["/api/agents/nobody/starters/new-ticket", {}],
    ];
    for (const [path, body] of writes) {
      const r = await d.post(path, { requestId: requestId(), ...body });
      assert.equal(r.status, 404, path);
      assert.equal(r.body.error, "unknown-agent", path);
      const gone = await d.post(path.replace("nobody", "gone"), { requestId: requestId(), ...body });
      // Answers and messages wait in Collie for the agent (D-5, docs/decisions.md); the rest is refused now.
      if (path.endsWith("/answer") || path.endsWith("/send")) assert.deepEqual(gone, { status: 202, body: { held: true } }, path);
      else {
        assert.equal(gone.status, 503, path);
        assert.equal(gone.body.error, "agent-unreachable", path);
      }
    }
    assert.deepEqual(d.daemon.held.list("gone").map((w) => w.action), ["answer", "send"]);
  });

  test("one text limit: a message over the wire's 16 KiB (9 000 Cyrillic characters) is refused by Collie in the agent's own words; one at the limit lands", async () => {
    const before = agent.messages.length;
    const long = "щ".repeat(9000); // 18 000 bytes, 9 000 characters
    const id = requestId("long");
    const r = await d.post("/api/agents/desk/panes/p1/send", { requestId: id, text: long });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    const agentWords = parseWith(WRITE_BODY_CHECKERS.send, { requestId: id, text: long });
    assert.ok(!agentWords.ok);
    assert.deepEqual(r.body, { error: "bad-request", message: agentWords.error });
    assert.equal((await d.post("/api/agents/desk/panes/p1/steer", { requestId: requestId("long"), text: long, turnId: null })).status, 400);
    const atLimit = "щ".repeat(8192); // 16 384 bytes
    const ok = requestId("limit");
    assert.equal((await d.post("/api/agents/desk/panes/p2/send", { requestId: ok, text: atLimit })).status, 200);
    await got(ok);
    assert.deepEqual(agent.messages.slice(before).map((m) => m.requestId).filter(Boolean), [ok]);
  });

  test("a malformed phone request is refused as bad-request and never reaches the agent", async () => {
    const before = agent.messages.length;
    const cases: [string, unknown][] = [
      ["/api/agents/desk/panes/p1/send", { text: "no request id" }],
      ["/api/agents/desk/panes/p1/send", { requestId: "has space", text: "x" }],
      ["/api/agents/desk/panes/p1/send", { requestId: requestId(), text: "" }],
      ["/api/agents/desk/panes/p1/asks/0123456789abcdef0123456789abcdef/answer", { requestId: requestId(), revision: "nothex", answer: { kind: "permission", optionId: "allow" } }],
      ["/api/agents/desk/rename", { requestId: requestId(), target: { kind: "galaxy", id: "p1" }, title: "x" }],
    ];
    for (const [path, body] of cases) {
      const r = await d.post(path, body);
      assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}`);
      assert.equal(r.body.error, "bad-request", JSON.stringify(r.body));
      assert.equal(typeof r.body.message, "string");
    }
    const notJson = await d.daemon.app.inject({ method: "POST", url: "/api/agents/desk/panes/p1/send", headers: { "content-type": "application/json", ...d.injectHeaders }, payload: "{nope" });
    assert.equal(notJson.statusCode, 400);
    assert.equal(notJson.json<{ error: string }>().error, "bad-request");
    // Nothing reached the agent: a marker send is the next thing it prints.
    const marker = requestId("marker");
    await d.post("/api/agents/desk/panes/p2/send", { requestId: marker, text: "marker" });
    await got(marker);
    assert.deepEqual(agent.messages.slice(before).map((m) => m.requestId), [marker]);
  });
});
