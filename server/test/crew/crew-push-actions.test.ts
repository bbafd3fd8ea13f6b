/**
 * A crew member's asks push to the lead's phones (U-3, C-1) and every action from the lead's phone
 * reaches the member's agent with the phone's request id (D-5, C-1): a real member daemon with the
 * desk agent, a real lead daemon with a local push service.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { PushAskPayload, Snapshot } from "@colliepwa/shared";
import { Daemon } from "../../src/daemon.ts";
import { adminRequest } from "../../src/security/admin.ts";
import { joinCrew } from "../../src/cli/crew-join.ts";
import { ChildAgent, killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { closeAllDaemons, requestId, TestDaemon, writeSources } from "../helpers/daemon.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";
import { FakePushService } from "../push/helpers/push-service.ts";
import { decryptPush, makeSubscriber, type TestSubscriber } from "../push/helpers/webpush-check.ts";

const KEY = "desk@workshop";
let dir: string;
let desk: ChildAgent;
let member: TestDaemon;
let lead: Daemon;
let leadUrl: string;
let token: string;
let service: FakePushService;
let phone: TestSubscriber;

async function call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${leadUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
}

const pushes = () => service.for("phone").map((r) => JSON.parse(decryptPush(r.body, phone)) as PushAskPayload);

before(async () => {
  dir = tempDir();
  const memberState = join(dir, "member");
  desk = (await startAgent("desk-agent.ts", ["--socket", join(dir, "desk.sock"), "--name", "workshop-desk"])).agent;
  member = await TestDaemon.start({ sources: { fixed: [{ name: "desk", endpoint: { kind: "socket", path: join(dir, "desk.sock") }, key: "desk" }] }, stateDir: memberState });
  await member.waitState("desk", "ready");
  const sources = join(dir, "sources.json");
  writeSources(sources, { durable: [] });
  const invite = await adminRequest(memberState, "POST", "/crew-invites");
  await joinCrew({ name: "workshop", url: member.url, invite: String(invite.body.invite), sourcesPath: sources, stateDir: join(dir, "lead"), leadName: "lead" });
  service = await new FakePushService().listen();
  lead = await Daemon.create({
    sources: { path: sources },
    stateDir: join(dir, "lead"),
    log: () => {},
    tuning: { waitMs: 500, retryDelaysMs: [50, 100] },
    push: { allowLocalEndpoints: true, retryDelaysMs: [5], host: "lead" },
  });
  leadUrl = await lead.app.listen({ host: "127.0.0.1", port: 0 });
  const paired = lead.devices.pair(lead.devices.createCode().code, "lead phone", "test");
  if (!paired.ok) throw new Error("pairing failed");
  token = paired.token;
  phone = makeSubscriber(service.endpoint("phone"));
  assert.equal((await call("POST", "/api/push/subscriptions", { subscription: phone.json })).status, 201);
  await until(async () => (await call<Snapshot>("GET", "/api/snapshot")).body.agents.find((a) => a.name === KEY)?.state === "ready", "the member's agent ready on the lead");
});

after(async () => {
  await lead.push?.idle();
  await lead.close();
  await closeAllDaemons();
  await killAllAgents();
  await service.close();
  removeTempDirs();
});

describe("a member's asks push to the lead's phones (U-3, C-1)", () => {
  test("an ask pushes once, naming the machine, and its end withdraws the notification", async () => {
    desk.send({ cmd: "ask", toolCallId: "push-1" });
    await service.waitFor((rs) => rs.some((r) => r.id === "phone"), "the member ask's push on the lead");
    const [p] = pushes();
    assert.equal(p!.type, "ask");
    assert.equal(p!.agent, KEY);
    assert.equal(p!.machine, "workshop");
    assert.equal(p!.title, "Permission needed in Ticket one");
    // The member's connection drops and comes back: its snapshot does not push the ask again.
    const port = member.port;
    await member.close();
    member = await TestDaemon.start({ sources: { fixed: [{ name: "desk", endpoint: { kind: "socket", path: join(dir, "desk.sock") }, key: "desk" }] }, stateDir: join(dir, "member"), port });
    await until(async () => (await call<Snapshot>("GET", "/api/snapshot")).body.agents.find((a) => a.name === KEY)?.counts.waiting === 1, "the member back on the lead");
    desk.send({ cmd: "decide", toolCallId: "push-1" });
    await service.waitFor((rs) => rs.filter((r) => r.id === "phone").length >= 2, "the clear push");
    assert.deepEqual(pushes().map((x) => x.type), ["ask", "clear"]);
  });
});

describe("actions from the lead's phone reach the member's agent with the phone's request id (D-5, C-1)", () => {
  // The send begins turn-1 on p1 (the desk agent's onSend); steer, action and stop name it.
  const cases: [string, string, Record<string, unknown>][] = [
    ["send", "/panes/p1/send", { text: "hello from the lead" }],
    ["steer", "/panes/p1/steer", { text: "and steer", turnId: "turn-1" }],
    ["action", "/panes/p1/actions/escalate", { turnId: "turn-1" }],
    ["stop", "/panes/p1/stop", { turnId: "turn-1" }],
    ["rename", "/rename", { target: { kind: "pane", id: "p1" }, title: "Renamed" }],
    ["close", "/close", { target: { kind: "pane", id: "p2" } }],
    ["reopen", "/reopen", { target: { kind: "pane", id: "old-1" } }],
    ["starter", "/starters/new-ticket", {}],
  ];
  for (const [action, path, extra] of cases) {
    test(`${action}`, async () => {
      const id = requestId(action);
      const r = await call("POST", `/api/agents/${encodeURIComponent(KEY)}${path}`, { requestId: id, ...extra });
      assert.equal(r.status, 200, `${action}: ${JSON.stringify(r.body)}`);
      const got = await desk.waitFor((m) => m.got === action && m.requestId === id);
      assert.equal(got.requestId, id);
    });
  }

  test("history and starters read through the member", async () => {
    const history = await call<{ rows: { id: string }[] }>("GET", `/api/agents/${encodeURIComponent(KEY)}/history?limit=10`);
    assert.equal(history.status, 200);
    assert.ok(history.body.rows.some((r) => r.id === "old-1"));
    const starters = await call<{ starters: { id: string }[] }>("GET", `/api/agents/${encodeURIComponent(KEY)}/starters`);
    assert.equal(starters.status, 200);
    assert.deepEqual(starters.body.starters.map((s) => s.id), ["new-ticket"]);
  });
});
