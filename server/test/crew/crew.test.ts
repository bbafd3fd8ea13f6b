/**
 * A crew of two real daemons on loopback (C-1): a member with a real durable agent (the ledger
 * agent, whose journal records each decision it takes), joined by a lead with its own agent. The
 * lead's snapshot and live stream show both machines; an answer from the lead's phone reaches the
 * member's agent once, with the phone's request id, named in the member's audit log; with the
 * member down the answer is held on the lead, survives a lead restart, and is delivered once when
 * the member is back; revoking the lead cuts it; a member without the lead's crew protocol shows
 * Version mismatch and takes no answers.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { AgentSummary, PaneDetail } from "@colliepwa/shared";
import { ChildAgent, killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { closeAllDaemons, requestId, TestDaemon, writeSources } from "../helpers/daemon.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";
import { adminRequest } from "../../src/security/admin.ts";
import { joinCrew } from "../../src/cli/crew-join.ts";

after(async () => {
  await closeAllLive();
  await closeAllDaemons();
  await killAllAgents();
  removeTempDirs();
});

const lines = (file: string): Record<string, unknown>[] =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : [];

describe("a lead Collie shows and answers a member's durable agents (C-1)", () => {
  let dir: string;
  let memberState: string;
  let leadState: string;
  let sources: string;
  let journal: string;
  let ledgerSocket: string;
  let member: TestDaemon;
  let lead: TestDaemon;
  const KEY = "ledger@workshop";

  const startMember = async (port?: number) =>
    TestDaemon.start({ sources: { fixed: [{ name: "ledger", endpoint: { kind: "socket", path: ledgerSocket }, key: "ledger" }] }, stateDir: memberState, ...(port ? { port } : {}) });
  const startLead = () => TestDaemon.start({ sources: { path: sources }, stateDir: leadState });
  const askOnLead = async (call: string) => {
    const detail = await until(async () => {
      const r = await lead.get<PaneDetail>(`/api/agents/${encodeURIComponent(KEY)}/panes/refunds`);
      return r.status === 200 && r.body.asks.some((a) => a.toolCallId === call) ? r.body : undefined;
    }, `the ask of ${call} read through the lead`);
    return detail.asks.find((a) => a.toolCallId === call)!;
  };

  before(async () => {
    dir = tempDir();
    memberState = join(dir, "member");
    leadState = join(dir, "lead");
    sources = join(dir, "sources.json");
    journal = join(dir, "journal.jsonl");
    ledgerSocket = join(dir, "ledger.sock");
    await startAgent("ledger-agent.ts", ["--socket", ledgerSocket, "--journal", journal, "--ledger", join(dir, "ledger.jsonl"), "--calls", "c1,c2,c3"]);
    await startAgent("desk-agent.ts", ["--socket", join(dir, "desk.sock"), "--name", "lead-desk"]);
    member = await startMember();
    await member.waitState("ledger", "ready");
    writeSources(sources, { durable: [{ name: "desk", socket: join(dir, "desk.sock") }] });
    const invite = await adminRequest(memberState, "POST", "/crew-invites");
    await joinCrew({ name: "workshop", url: member.url, invite: String(invite.body.invite), sourcesPath: sources, stateDir: leadState, leadName: "lead box" });
    lead = await startLead();
  });

  test("the lead's snapshot shows its own agent (no machine) and the member's (machine set, its counts)", async () => {
    const row = await lead.waitAgent(KEY, (a) => a.state === "ready" && a.counts.waiting === 1, "ready, one conversation waiting");
    assert.equal(row.machine, "workshop");
    assert.equal(row.reach, "local");
    const desk = await lead.waitState("desk", "ready");
    assert.equal(desk.machine, null);
    const snap = await lead.snapshot();
    assert.ok(snap.conversations.some((c) => c.agent === KEY && c.id === "refunds"), "the member's conversation, under the crew key");
  });

  test("an ask on the member reaches the lead's phone; its answer reaches the agent once, with the same request id", async () => {
    const live = await LiveClient.connect(lead.wsUrl);
    live.send({ type: "watch", agent: KEY, pane: "refunds" });
    await live.waitFor((m) => m.type === "view" && m.agent === KEY && m.paneId === "refunds", "the member pane's view");
    const ask = await askOnLead("c1");
    const id = requestId("crew-answer");
    const body = { requestId: id, revision: ask.revision, answer: { kind: "permission", optionId: "allow" } };
    const r = await lead.post(`/api/agents/${encodeURIComponent(KEY)}/panes/refunds/asks/${ask.id}/answer`, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const again = await lead.post(`/api/agents/${encodeURIComponent(KEY)}/panes/refunds/asks/${ask.id}/answer`, body);
    assert.equal(again.body.replayed, true, "a retry of the same request id is a replay at the agent");
    await live.waitFor((m) => m.type === "ask-closed" && m.agent === KEY && m.askId === ask.id, "the ask closed on the lead's phone");
    await until(() => lines(journal).some((e) => e.call === "c1"), "the member's agent decided c1");
    assert.equal(lines(journal).filter((e) => e.call === "c1").length, 1, "decided once");
    const audit = lines(join(memberState, "audit.log")).filter((e) => e.requestId === id);
    assert.ok(audit.length >= 1, "the member's audit log has the phone's request id");
    assert.match(String(audit[0]!.device), /^crew lead lead box \(/, "and names the lead");
  });

  test("the member down mid-ask: the answer is held on the lead, survives a lead restart, and lands once when the member is back", async () => {
    const ask = await askOnLead("c2");
    const port = member.port;
    await member.close();
    const away = await lead.waitAgent(KEY, (a) => a.state === "unreachable" && a.counts.waiting === 0, "unreachable, no counts");
    // The machine is what went away (issue #37): the phone says `workshop is offline` on its section,
    // and a phone that reloads still finds the member's conversations, as the member last sent them.
    assert.equal(away.machineOffline, true);
    assert.equal((await lead.waitState("desk", "ready")).machineOffline, undefined);
    assert.ok((await lead.snapshot()).conversations.some((c) => c.agent === KEY && c.id === "refunds"), "the member's conversation stays while it is away");
    const id = requestId("crew-held");
    const r = await lead.post(`/api/agents/${encodeURIComponent(KEY)}/panes/refunds/asks/${ask.id}/answer`, { requestId: id, revision: ask.revision, answer: { kind: "permission", optionId: "deny" } });
    assert.equal(r.status, 202);
    assert.deepEqual(r.body, { held: true });
    await lead.close();
    lead = await startLead();
    const live = await LiveClient.connect(lead.wsUrl);
    member = await startMember(port);
    const outcome = await live.waitFor((m) => m.type === "held-outcome" && m.requestId === id, "the held answer's outcome");
    assert.equal((outcome as { status: number }).status, 200);
    // What the member records names the phone that answered, not the lead that held it (issue #37).
    const decision = await live.waitFor((m) => m.type === "decision" && m.agent === KEY && m.decision.askId === ask.id, "the member's decision, relayed");
    assert.equal(decision.type === "decision" && decision.decision.device, "test phone");
    await until(() => lines(journal).some((e) => e.call === "c2"), "the member's agent decided c2");
    assert.deepEqual(lines(journal).filter((e) => e.call === "c2").map((e) => e.approved), [false], "decided once, as the phone said");
    await lead.waitAgent(KEY, (a) => a.state === "ready", "ready again");
  });

  test("revoking the lead on the member cuts it at once", async () => {
    await lead.waitAgent(KEY, (a) => a.state === "ready", "ready");
    const crewLead = member.daemon.devices.list().find((d) => d.kind === "crew-lead")!;
    assert.ok(member.daemon.devices.revoke(crewLead.id));
    const row = await lead.waitAgent(KEY, (a) => a.state === "unreachable", "unreachable after the revocation");
    assert.match(row.problem ?? "", /revoked/);
    const ask = await until(async () => (await member.get<PaneDetail>("/api/agents/ledger/panes/refunds")).body.asks.find((a) => a.toolCallId === "c3"), "c3 open on the member");
    const r = await lead.post(`/api/agents/${encodeURIComponent(KEY)}/panes/refunds/asks/${ask.id}/answer`, { requestId: requestId("after-revoke"), revision: ask.revision, answer: { kind: "permission", optionId: "allow" } });
    assert.equal(r.status, 202, "held on the lead, never taken by the member");
    assert.ok(!lines(journal).some((e) => e.call === "c3"));
  });
});

describe("a member whose crew protocol the lead does not speak (C-1)", () => {
  for (const [what, answer] of [["an older Collie without crews (404)", { status: 404, body: { error: "not-found", message: "No such route." } }], ["another crew version", { status: 200, body: { crew: 99, collie: "9.0.0" } }]] as const) {
    test(`${what} shows Version mismatch and takes no answers`, async () => {
      const dir = tempDir();
      const other = createServer((_req, res) => {
        res.writeHead(answer.status, { "content-type": "application/json" });
        res.end(JSON.stringify(answer.body));
      });
      await new Promise<void>((r) => other.listen(0, "127.0.0.1", () => r()));
      const port = (other.address() as { port: number }).port;
      try {
        const sources = join(dir, "sources.json");
        writeSources(sources, { crew: [{ name: "old", url: `http://127.0.0.1:${port}`, token: "crew-credential-0123456789" }] });
        const lead = await TestDaemon.start({ sources: { path: sources } });
        const row: AgentSummary = await lead.waitAgent("old@old", (a) => a.state === "version-mismatch", "version mismatch");
        assert.equal(row.machine, "old");
        const r = await lead.post("/api/agents/old@old/panes/p/asks/a/answer", { requestId: requestId(), revision: "0123456789abcdef", answer: { kind: "permission", optionId: "allow" } });
        assert.equal(r.status, 409);
        assert.equal(r.body.error, "agent-version-mismatch");
        await lead.close();
      } finally {
        other.closeAllConnections();
        await new Promise((r) => other.close(r));
      }
    });
  }
});

describe("a member the lead has never reached (C-1)", () => {
  test("shows one Unreachable row named after it, with no counts, and holds an action for it", async () => {
    const dir = tempDir();
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r)); // nothing listens there now
    const sources = join(dir, "sources.json");
    writeSources(sources, { crew: [{ name: "attic", url: `http://127.0.0.1:${port}`, token: "crew-credential-0123456789" }] });
    const lead = await TestDaemon.start({ sources: { path: sources }, stateDir: join(dir, "lead") });
    const row = await lead.waitAgent("attic@attic", (a) => a.state === "unreachable", "unreachable");
    assert.equal(row.machine, "attic");
    assert.deepEqual(row.counts, { open: 0, waiting: 0 });
    const r = await lead.post("/api/agents/attic@attic/panes/p/send", { requestId: requestId(), text: "later" });
    assert.deepEqual([r.status, r.body], [202, { held: true }]);
    await lead.close();
  });

  test("what a lead holds for a member is bounded like everything held: past a bound, 429 held-full and nothing kept", async () => {
    const dir = tempDir();
    const sources = join(dir, "sources.json");
    writeSources(sources, { crew: [{ name: "attic", url: "http://127.0.0.1:9", token: "crew-credential-0123456789" }] });
    const limits = { conversation: { count: 2, bytes: 64 * 1024 }, target: { count: 3, bytes: 64 * 1024 }, all: { count: 4, bytes: 64 * 1024 } };
    const lead = await TestDaemon.start({ sources: { path: sources }, stateDir: join(dir, "lead"), heldLimits: limits });
    await lead.waitAgent("attic@attic", (a) => a.state === "unreachable", "unreachable");
    const post = (key: string, path: string, body: Record<string, unknown> = { text: "later" }) => lead.post(`/api/agents/${key}${path}`, { requestId: requestId(), ...body });
    assert.equal((await post("till@attic", "/panes/p/send")).status, 202);
    assert.equal((await post("till@attic", "/panes/p/stop", { turnId: "t1" })).status, 202, "every action is held on a lead");
    const full = await post("till@attic", "/panes/p/send");
    assert.deepEqual([full.status, full.body.error], [429, "held-full"]);
    assert.match(String(full.body.message), /for this conversation/);
    assert.equal((await post("till@attic", "/rename", { target: { kind: "pane", id: "q" }, title: "T" })).status, 202);
    assert.match(String((await post("till@attic", "/panes/r/send")).body.message), /for this durable agent/);
    // Crew keys of agents the member may not even have still count against Collie's whole bound.
    assert.equal((await post("ghost@attic", "/panes/p/send")).status, 202);
    assert.match(String((await post("ghost2@attic", "/panes/p/send")).body.message), /for all durable agents together/);
    assert.equal(lead.daemon.held.count(), 4);
    await lead.close();
  });
});

