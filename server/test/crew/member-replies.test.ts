/**
 * A crew member chooses none of the lead's statuses (C-1, the security issue 38.10): its replies to
 * reads and actions reach the lead's phone mapped to the catalog. A fake member answers a pane read
 * and an action with what no Collie should: a 101, a 999, a body of the wrong shape, its own
 * `401 unpaired`, an error at a status its code does not have; each is `503 agent-unreachable` with
 * the member's words. The wire's errors and Collie's about the agent pass on as the catalog has
 * them, and a good reply is read as the lead reads its own agents.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { PaneDetail } from "@colliepwa/shared";
import { closeAllDaemons, requestId, TestDaemon, writeSources } from "../helpers/daemon.ts";
import { FakeMember, memberConversation, memberRow, memberSnapshot, type FakeReply } from "../helpers/fake-member.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

const KEY = encodeURIComponent("desk@box");
let member: FakeMember;
let lead: TestDaemon;
let next: FakeReply = { status: 200, body: {} };

before(async () => {
  member = await FakeMember.start({
    onLive: (socket) => socket.send(memberSnapshot([memberRow("desk")], [memberConversation("desk", "p1")])),
    route: () => next,
  });
  const dir = tempDir();
  const sources = join(dir, "sources.json");
  writeSources(sources, { crew: [{ name: "box", url: member.url, token: "crew-credential-0123456789" }] });
  lead = await TestDaemon.start({ sources: { path: sources }, stateDir: join(dir, "lead") });
  await lead.waitAgent("desk@box", (a) => a.state === "ready", "the member's agent ready");
});

after(async () => {
  await closeAllDaemons();
  await member.close();
  removeTempDirs();
});

const token = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const pane: PaneDetail = { conversation: memberConversation("desk", "p1", { title: `Refund ${token}` }) as never, items: [], itemsCut: false, asks: [] };

const UNREACHABLE: [string, FakeReply, RegExp][] = [
  ["a 101", { status: 101, body: "", raw: "HTTP/1.1 101 Switching Protocols\r\nConnection: close\r\n\r\n" }, /crew member box|did not answer/],
  ["a 999", { status: 999, body: { error: "not-found", message: "odd" } }, /The crew member box answered 999 not-found: odd/],
  ["its own 401 unpaired", { status: 401, body: { error: "unpaired", message: "This device is not paired with Collie." } }, /The crew member box answered 401 unpaired: This device is not paired with Collie\./],
  ["an error at a status its code does not have", { status: 500, body: { error: "not-found", message: "x" } }, /answered 500 not-found/],
  ["a 204", { status: 204, body: "" }, /crew member box/],
  ["a body that is not an error", { status: 418, body: { teapot: true } }, /The crew member box answered with status 418\./],
];

describe("a member's reply to a read (the security issue 38.10)", () => {
  for (const [what, reply, words] of UNREACHABLE) {
    test(`${what} is 503 agent-unreachable with the member's words`, async () => {
      next = reply;
      const r = await lead.get<{ error: string; message: string }>(`/api/agents/${KEY}/panes/p1`);
      assert.equal(r.status, 503, JSON.stringify(r.body));
      assert.equal(r.body.error, "agent-unreachable");
      assert.match(r.body.message, words);
    });
  }

  test("a 200 whose body is not a chat's content is 503, never passed on", async () => {
    next = { status: 200, body: { conversation: null, nested: [[[[]]]] } };
    const r = await lead.get<{ error: string; message: string }>(`/api/agents/${KEY}/panes/p1`);
    assert.equal(r.status, 503);
    assert.match(r.body.message, /The crew member box's reply was malformed/);
  });

  test("the wire's errors and Collie's about the agent pass on at their status, with the catalog's keys only", async () => {
    next = { status: 409, body: { error: "not-supported", message: "No history here.", later: [[1]] } };
    const a = await lead.get(`/api/agents/${KEY}/history`);
    assert.deepEqual([a.status, a.body], [409, { error: "not-supported", message: "No history here." }]);
    next = { status: 404, body: { error: "not-found", message: "No such open conversation." } };
    const b = await lead.get(`/api/agents/${KEY}/panes/p9`);
    assert.deepEqual([b.status, b.body], [404, { error: "not-found", message: "No such open conversation." }]);
  });

  test("a good chat is read as the lead's own: its conversation under the crew key, its title masked (R-1)", async () => {
    next = { status: 200, body: pane };
    const r = await lead.get<PaneDetail>(`/api/agents/${KEY}/panes/p1`);
    assert.equal(r.status, 200);
    assert.equal(r.body.conversation.agent, "desk@box");
    assert.match(r.body.conversation.title, /^Refund ghp_A•+$/);
  });
});

describe("a member's reply to an action (the security issue 38.10)", () => {
  const send = () => lead.post<{ error?: string; message?: string; ok?: boolean; held?: boolean }>(`/api/agents/${KEY}/panes/p1/send`, { requestId: requestId("send"), text: "hi" });

  for (const [what, reply, words] of UNREACHABLE.filter(([w]) => w !== "a 101")) {
    test(`${what} is 503 agent-unreachable with the member's words`, async () => {
      next = reply;
      const r = await send();
      assert.equal(r.status, 503, JSON.stringify(r.body));
      assert.match(r.body.message ?? "", words);
    });
  }

  test("its agent's WriteOk, its own 202 held and an ask outcome pass on", async () => {
    next = { status: 200, body: { ok: true, replayed: true, later: 1 } };
    assert.deepEqual(await send(), { status: 200, body: { ok: true, replayed: true } });
    next = { status: 202, body: { held: true } };
    assert.deepEqual(await send(), { status: 202, body: { held: true } });
    next = { status: 409, body: { error: "ask-not-open", message: "No such ask is open." } };
    assert.deepEqual(await send(), { status: 409, body: { error: "ask-not-open", message: "No such ask is open." } });
  });
});
