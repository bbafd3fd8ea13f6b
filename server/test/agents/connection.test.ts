/**
 * The agent state machine over real sockets (D-2, D-3, W-1, S-34): a real SDK agent in a child
 * process, a real daemon, a real WebSocket. starting → ready; unreachable with a problem line when
 * the agent is killed; ready again after a restart; version-mismatch for an agent that speaks only
 * another wire version; https + token agents reached as local and as remote.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, afterEach, describe, test } from "node:test";
import { killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { closeAllDaemons, requestId, TestDaemon, writeSources } from "../helpers/daemon.ts";
import { FAKE_INSTANCE, FakeAgent, fakeHello } from "../helpers/fake-agent.ts";
import { AgentConnection } from "../../src/agents/connection.ts";
import type { AgentGateway } from "../../src/agents/gateway.ts";
import type { UpstreamEvents } from "../../src/agents/upstream.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { makeCert } from "../helpers/cert.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const fakes: FakeAgent[] = [];
afterEach(async () => {
  await closeAllLive();
  await closeAllDaemons();
  await killAllAgents();
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});
after(() => removeTempDirs());

describe("agent states (D-2)", () => {
  test("starting → ready; unreachable with a problem when killed; ready again after a restart", async () => {
    const dir = tempDir();
    const socket = join(dir, "desk.sock");
    const sources = join(dir, "sources.json");
    writeSources(sources, { durable: [{ name: "desk", socket }] });
    const first = await startAgent("desk-agent.ts", ["--socket", socket, "--no-ready"]);
    const d = await TestDaemon.start({ sources: { path: sources } });
    const live = await LiveClient.connect(d.wsUrl);

    // Hello read, layout not complete yet: Starting (P-2).
    const starting = await d.waitAgent("desk", (a) => a.state === "starting" && a.runtime !== null, "starting after hello");
    assert.equal(starting.selfName, "desk-fixture");
    assert.equal(starting.reach, "local");
    assert.deepEqual(starting.counts, { open: 0, waiting: 0 });
    assert.equal(starting.problem, undefined);

    first.agent.send({ cmd: "ready" });
    const ready = await d.waitState("desk", "ready");
    assert.match(ready.runtime!, /^node \d+\./);
    assert.equal(ready.caps?.asks, true);
    assert.equal(ready.caps?.terminal, false);
    assert.deepEqual(ready.wire, { agent: 1, collie: 1 });
    assert.deepEqual(ready.counts, { open: 2, waiting: 0 });
    const snap = await d.snapshot();
    assert.deepEqual(snap.conversations.filter((c) => c.agent === "desk").map((c) => c.id).sort(), ["p1", "p2"]);
    const workTitle = snap.conversations.find((c) => c.id === "p1")!;
    assert.equal(workTitle.workspaceTitle, "Work");

    // The WebSocket saw the same rows, in order: starting before ready.
    await live.waitFor((m) => m.type === "agent" && m.agent.name === "desk" && m.agent.state === "ready", "agent ready");
    const states = live.of("agent").filter((m) => m.agent.name === "desk").map((m) => m.agent.state);
    assert.ok(states.indexOf("starting") < states.indexOf("ready"), `states in order: ${states.join(" → ")}`);

    // SIGKILL: no goodbye. The daemon notices, says why, and shows no counts.
    await first.agent.kill();
    const down = await d.waitState("desk", "unreachable");
    assert.equal(typeof down.problem, "string");
    assert.ok(down.problem!.length > 0);
    assert.deepEqual(down.counts, { open: 0, waiting: 0 });
    // Its conversations stay as last seen (a reloading phone still finds its chats); the row says it is away.
    assert.deepEqual((await d.snapshot()).conversations.filter((c) => c.agent === "desk").map((c) => c.id).sort(), ["p1", "p2"]);
    const gone = await live.waitFor((m) => m.type === "agent" && m.agent.name === "desk" && m.agent.state === "unreachable", "agent unreachable");
    assert.equal(gone.type === "agent" && typeof gone.agent.problem, "string");

    // The same agent started again on the same socket: back without a restart of Collie.
    await startAgent("desk-agent.ts", ["--socket", socket]);
    const back = await d.waitState("desk", "ready");
    assert.equal(back.problem, undefined);
    assert.deepEqual(back.counts, { open: 2, waiting: 0 });
    assert.equal(d.daemon.agents.names().length, 1);
  });

  test("an agent not started yet is unreachable, then ready once it starts", async () => {
    const dir = tempDir();
    const socket = join(dir, "late.sock");
    const d = await TestDaemon.start({ sources: { fixed: [{ name: "late", endpoint: { kind: "socket", path: socket }, key: "late" }] } });
    const down = await d.waitState("late", "unreachable");
    assert.match(down.problem!, /socket does not exist|refused/);
    assert.ok(!down.problem!.includes(dir), "the problem line does not print the socket path");
    await startAgent("desk-agent.ts", ["--socket", socket]);
    await d.waitState("late", "ready");
  });

  test("version mismatch: an agent that speaks only wire v2 is never asked a v2 path (S-34)", async () => {
    const dir = tempDir();
    const fake = new FakeAgent({ hello: fakeHello({ wire: [2] }) });
    fakes.push(fake);
    await fake.listen({ socket: join(dir, "v2.sock") });
    const d = await TestDaemon.start({ sources: { fixed: [{ name: "v2", endpoint: { kind: "socket", path: join(dir, "v2.sock") }, key: "v2" }] } });
    const row = await d.waitState("v2", "version-mismatch");
    assert.deepEqual(row.wire, { agent: 2, collie: 1 });
    assert.match(row.problem!, /v2/);
    assert.match(row.problem!, /v1/);
    assert.deepEqual(row.counts, { open: 0, waiting: 0 });
    // Collie keeps asking hello (the agent may be updated) but nothing else.
    await until(() => fake.requests.length >= 3, "a few hello reads");
    for (const r of fake.requests) assert.equal(r.path, "/durable/hello", `requested ${r.path}`);
    for (const r of fake.requests) assert.equal(r.headers["collie-wire"], "1");

    // The phone's reads and actions get Collie's own answer; the agent hears none of them.
    const send = await d.post("/api/agents/v2/panes/f1/send", { requestId: requestId(), text: "hi" });
    assert.equal(send.status, 409);
    assert.equal(send.body.error, "agent-version-mismatch");
    const answer = await d.post("/api/agents/v2/panes/f1/asks/0123456789abcdef0123456789abcdef/answer", {
      requestId: requestId(), revision: "0123456789abcdef", answer: { kind: "permission", optionId: "allow" },
    });
    assert.equal(answer.status, 409);
    assert.equal(answer.body.error, "agent-version-mismatch");
    const history = await d.get("/api/agents/v2/history");
    assert.equal(history.status, 409);
    assert.equal(history.body.error, "agent-version-mismatch");
    assert.ok(fake.requests.every((r) => r.path === "/durable/hello"));
    assert.equal(d.daemon.held.count(), 0);
  });

  test("an agent that speaks v2 and v1 is read over v1, the newest common version", async () => {
    const dir = tempDir();
    const fake = new FakeAgent({ hello: fakeHello({ wire: [2, 1] }) });
    fakes.push(fake);
    await fake.listen({ socket: join(dir, "v21.sock") });
    const d = await TestDaemon.start({ sources: { fixed: [{ name: "v21", endpoint: { kind: "socket", path: join(dir, "v21.sock") }, key: "v21" }] } });
    const row = await d.waitState("v21", "ready");
    assert.deepEqual(row.wire, { agent: 2, collie: 1 });
    assert.ok(fake.requests.some((r) => r.path.startsWith("/durable/v1/events")));
    assert.ok(!fake.requests.some((r) => r.path.startsWith("/durable/v2/")));
  });
});

describe("an agent's wire versions in its row (P-17, L-2)", () => {
  test("an agent that names a wire version above a million is shown as it said, inside the live contract", async () => {
    const dir = tempDir();
    // The wire takes any safe integer as a version; the row's live message must carry it too,
    // or a phone or a crew lead reading it refuses the row (found by the hostile-agent fuzz).
    const fake = new FakeAgent({ hello: fakeHello({ wire: [2_000_000, 1] }) });
    fakes.push(fake);
    await fake.listen({ socket: join(dir, "big.sock") });
    const d = await TestDaemon.start({ sources: { fixed: [{ name: "big", endpoint: { kind: "socket", path: join(dir, "big.sock") }, key: "big" }] } });
    const live = await LiveClient.connect(d.wsUrl);
    const row = await d.waitState("big", "ready");
    assert.deepEqual(row.wire, { agent: 2_000_000, collie: 1 });
    await until(() => live.of("agent").some((m) => m.agent.name === "big" && m.agent.state === "ready"), "the ready row on the phone");
    await closeAllLive();
  });
});

describe("deltas of an idle agent (D-4)", () => {
  test("an agent whose long-polls come back empty sends no deltas to the phone", async () => {
    const dir = tempDir();
    const fake = new FakeAgent();
    fakes.push(fake);
    await fake.listen({ socket: join(dir, "idle.sock") });
    const d = await TestDaemon.start({ sources: { fixed: [{ name: "idle", endpoint: { kind: "socket", path: join(dir, "idle.sock") }, key: "idle" }] } });
    await d.waitState("idle", "ready");
    const live = await LiveClient.connect(d.wsUrl);
    const reads = fake.followReads;
    // Two empty long-polls later, still nothing new for the phone.
    await until(() => fake.followReads >= reads + 2, "two more long-polls");
    assert.deepEqual(live.messages.map((m) => m.type), ["snapshot"]);
  });
});

describe("https agents with a token (D-1, D-3, S-6, X-3)", () => {
  test("reached over TLS with env: and file: tokens and a private CA; local and remote; a bad token or CA is unreachable without leaking the token", async () => {
    const dir = tempDir();
    const { cert, key } = makeCert(dir);
    const token = `tok-${"x".repeat(12)}-${process.pid}-secret`;
    const wrong = `wrong-${"y".repeat(12)}-secret`;
    const { agent, ready } = await startAgent("https-agent.ts", ["--cert", cert, "--key", key, "--host", "127.0.0.1", "--host", "127.0.0.2"], { AGENT_TOKEN: token });
    const ports = ready.ports as Record<string, number>;
    writeFileSync(join(dir, "token.txt"), `${token}\n`, { mode: 0o600 });
    process.env.COLLIE_TEST_TLS_TOKEN = token;
    process.env.COLLIE_TEST_WRONG_TOKEN = wrong;
    const sources = join(dir, "sources.json");
    writeSources(sources, {
      durable: [
        { name: "tls-localhost", url: `https://localhost:${ports["127.0.0.1"]}`, token: "env:COLLIE_TEST_TLS_TOKEN", ca: `file:${cert}` },
        { name: "tls-remote", url: `https://127.0.0.2:${ports["127.0.0.2"]}`, token: "file:token.txt", ca: `file:${cert}` },
        { name: "tls-wrong", url: `https://127.0.0.1:${ports["127.0.0.1"]}`, token: "env:COLLIE_TEST_WRONG_TOKEN", ca: `file:${cert}` },
        { name: "tls-noca", url: `https://127.0.0.1:${ports["127.0.0.1"]}`, token: "env:COLLIE_TEST_TLS_TOKEN" },
      ],
    });
    const d = await TestDaemon.start({ sources: { path: sources } });
    try {
      const localhost = await d.waitState("tls-localhost", "ready");
      const remote = await d.waitState("tls-remote", "ready");
      // Only a socket, http://127.0.0.1 and http://localhost are local (D-3): https to this machine is not.
      assert.equal(localhost.reach, "remote");
      assert.equal(remote.reach, "remote");
      assert.equal(remote.selfName, "tls-fixture");
      assert.equal(remote.caps?.history, false);

      const wrongRow = await d.waitState("tls-wrong", "unreachable");
      assert.match(wrongRow.problem!, /401/);
      assert.match(wrongRow.problem!, /unauthorized/);
      const noCa = await d.waitState("tls-noca", "unreachable");
      assert.match(noCa.problem!, /certificate/);

      // A phone action goes over TLS with the phone's request id.
      const id = requestId("tls");
      const sent = await d.post("/api/agents/tls-remote/panes/r1/send", { requestId: id, text: "over TLS" });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      assert.equal(sent.body.ok, true);
      const got = await agent.waitFor((m) => m.got === "send");
      assert.equal(got.requestId, id);
      assert.equal(got.text, "over TLS");
      const detail = await d.get<{ items: { kind: string; requestId?: string }[] }>("/api/agents/tls-localhost/panes/r1");
      assert.equal(detail.status, 200);

      // Tokens appear nowhere the phone or the log can see.
      const seen = JSON.stringify(await d.snapshot()) + JSON.stringify((await d.get("/api/agents")).body) + d.logs.join("\n");
      assert.ok(!seen.includes(token), "the token leaked");
      assert.ok(!seen.includes(wrong), "the wrong token leaked");
    } finally {
      delete process.env.COLLIE_TEST_TLS_TOKEN;
      delete process.env.COLLIE_TEST_WRONG_TOKEN;
    }
  });
});

describe("the events long-poll (W-3, N-1)", () => {
  test("the next page is asked for as soon as a page is applied, before its aftermath (held answers) runs", async () => {
    // An agent that raises its next ask right after an answer finds the long-poll parked only if
    // Collie asked again before its work after the previous page (issue 31).
    const socket = join(tempDir(), "fake.sock");
    const fake = new FakeAgent({ panes: ["f1"] });
    fakes.push(fake);
    await fake.listen({ socket });
    let reads = 0;
    const readsAtAftermath: number[] = [];
    const events: UpstreamEvents = { live: () => {}, closedAsks: () => {}, openAsk: () => {}, delivered: () => {}, log: () => {} };
    // The page's aftermath is the gateway's delivery of held writes: it notes how many reads were made.
    const gateway = { deliverHeld: () => void readsAtAftermath.push(reads) } as unknown as AgentGateway;
    const conn = new AgentConnection({ name: "fake", endpoint: { kind: "socket", path: socket }, events, gateway, log: () => {}, waitMs: 5000 });
    const get = conn.client.get.bind(conn.client);
    conn.client.get = (path, ...rest) => {
      if (path.includes("/events?")) reads++;
      return get(path, ...rest);
    };
    try {
      conn.start();
      await until(() => readsAtAftermath.length === 1, "the first page applied");
      fake.push({ cursor: `${FAKE_INSTANCE}.2`, reset: false, views: [], events: [] });
      await until(() => readsAtAftermath.length === 2, "the second page applied");
      assert.deepEqual(readsAtAftermath, [2, 3], "when page n's aftermath ran, read n + 1 had been made");
    } finally {
      await conn.stop();
    }
  });
});
