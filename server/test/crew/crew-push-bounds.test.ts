/**
 * A crew member's asks and the lead's pushes (U-1, U-3, C-1): a member machine is limited as a
 * whole (the security issue 38.5: 60 agents × 3 asks once pushed 180 times), and the asks already
 * open on a member when the lead connects push like new ones, once per tool call however often the
 * lead connects (the crew gap). A fake member, a real lead with a local push service.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import type { PushAskPayload } from "@colliepwa/shared";
import { Daemon } from "../../src/daemon.ts";
import { PUSH_LIMITS, type PushLimitsConfig } from "../../src/push/limits.ts";
import { writeSources } from "../helpers/daemon.ts";
import { FakeMember, memberConversation, memberRow, memberSnapshot, type FakeMemberOptions } from "../helpers/fake-member.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";
import { FakePushService } from "../push/helpers/push-service.ts";
import { decryptPush, makeSubscriber, type TestSubscriber } from "../push/helpers/webpush-check.ts";

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers.reverse()) await close();
  removeTempDirs();
});

const AT = "2026-12-02T14:00:00.000Z";
const askId = (n: number) => n.toString(16).padStart(32, "0");
const ask = (n: number, paneId: string) => ({
  id: askId(n), revision: "9f86d081884c7d65", paneId, toolCallId: `call-${n}`, itemId: `tool-${n}`, createdAt: AT, kind: "permission",
  title: `refund ${n}`, options: [{ id: "allow", kind: "allow", label: "Allow" }, { id: "deny", kind: "deny", label: "Deny" }],
});

interface Lead {
  daemon: Daemon;
  url: string;
  token: string;
  /** Closes the daemon once (the test's end closes every lead still open). */
  close: () => Promise<void>;
}

/** A lead daemon on `state` with one crew member, `box`, and a phone subscribed to `service`. */
async function startLead(state: string, memberUrl: string, service: FakePushService, phone: TestSubscriber, limits: PushLimitsConfig = PUSH_LIMITS): Promise<Lead> {
  const sources = join(state, "..", "sources.json");
  writeSources(sources, { crew: [{ name: "box", url: memberUrl, token: "crew-credential-0123456789" }] });
  const daemon = await Daemon.create({
    sources: { path: sources }, stateDir: state, log: () => {},
    tuning: { waitMs: 500, retryDelaysMs: [50, 100] },
    push: { allowLocalEndpoints: true, retryDelaysMs: [5], host: "lead", limits },
  });
  const url = await daemon.app.listen({ host: "127.0.0.1", port: 0 });
  const paired = daemon.devices.pair(daemon.devices.createCode().code, "lead phone", "test");
  if (!paired.ok) throw new Error("pairing failed");
  const r = await fetch(`${url}/api/push/subscriptions`, {
    method: "POST", headers: { authorization: `Bearer ${paired.token}`, "content-type": "application/json" },
    body: JSON.stringify({ subscription: phone.json }),
  });
  assert.ok(r.status === 201 || r.status === 200, String(r.status));
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await daemon.close();
  };
  closers.push(close);
  return { daemon, url, token: paired.token, close };
}

async function setup(member: FakeMemberOptions) {
  const fake = await FakeMember.start(member);
  const service = await new FakePushService().listen();
  const phone = makeSubscriber(service.endpoint("phone"));
  closers.push(() => fake.close(), () => service.close());
  const state = join(tempDir(), "lead");
  return { fake, service, phone, state };
}

const pushes = (service: FakePushService, phone: TestSubscriber) =>
  service.for("phone").map((r) => JSON.parse(decryptPush(r.body, phone)) as PushAskPayload);

const snapshotHas = async (lead: Lead, pred: (s: { agents: { name: string; selfName: string | null }[] }) => boolean, what: string) =>
  until(async () => {
    const r = await fetch(`${lead.url}/api/snapshot`, { headers: { authorization: `Bearer ${lead.token}` } });
    return pred((await r.json()) as { agents: { name: string; selfName: string | null }[] });
  }, what);

test("60 agents × 3 asks on one member push 10 times, not 180 (the security issue 38.5)", async () => {
  const agents = Array.from({ length: 60 }, (_, a) => `agent-${a}`);
  const { fake, service, phone, state } = await setup({
    onLive: (socket) => {
      socket.send(memberSnapshot(agents.map((a) => memberRow(a)), agents.map((a) => memberConversation(a, "p1"))));
      let n = 0;
      for (const agent of agents) for (let i = 0; i < 3; i++) socket.send(JSON.stringify({ type: "ask", seq: 2 + n, agent, paneId: "p1", ask: ask(++n, "p1") }));
      socket.send(JSON.stringify({ type: "agent", seq: 9999, agent: memberRow("agent-0", { selfName: "done" }) }));
    },
  });
  const lead = await startLead(state, fake.url, service, phone);
  await snapshotHas(lead, (s) => s.agents.some((a) => a.name === "agent-0@box" && a.selfName === "done"), "every ask read by the lead");
  await lead.daemon.push!.idle();
  const sent = pushes(service, phone);
  assert.equal(sent.length, PUSH_LIMITS.memberMinute);
  assert.ok(sent.every((p) => p.type === "ask" && p.machine === "box"));
});

test("asks open on a member when the lead connects push once each; a reconnect and a lead restart push none again (U-3)", async () => {
  // Each read of the waiting chat has one more open ask: once its push is out, the asks read with
  // it in the same reply were decided too (push decides synchronously, in order).
  let reads = 0;
  const { fake, service, phone, state } = await setup({
    onLive: (socket) => socket.send(memberSnapshot([memberRow("desk")], [memberConversation("desk", "p1", { openAsks: 2, state: "waiting" }), memberConversation("desk", "p2")])),
    route: (req) => {
      if (req.url !== "/api/agents/desk/panes/p1") return undefined;
      reads++;
      const asks = Array.from({ length: reads + 1 }, (_, i) => ask(i + 1, "p1"));
      return { status: 200, body: { conversation: memberConversation("desk", "p1", { openAsks: asks.length, state: "waiting", title: "Ticket one" }), items: [], itemsCut: false, asks } };
    },
  });
  const askIds = () => pushes(service, phone).map((p) => p.askId).sort();
  // One chat's asks: past its 3 a minute (U-1) only the limit would speak.
  const limits = { ...PUSH_LIMITS, paneMinute: 100 };
  let lead = await startLead(state, fake.url, service, phone, limits);
  await service.waitFor((rs) => rs.length >= 2, "the two open asks' pushes");
  await lead.daemon.push!.idle();
  assert.deepEqual(pushes(service, phone).map((p) => [p.type, p.agent, p.machine, p.title]), [
    ["ask", "desk@box", "box", "Permission needed in Ticket one"],
    ["ask", "desk@box", "box", "Permission needed in Ticket one"],
  ]);
  assert.deepEqual(askIds(), [askId(1), askId(2)]);
  assert.equal(fake.requests.filter((r) => r.url.startsWith("/api/agents/desk/panes/p2")).length, 0, "only chats with open asks are read");
  // The member's connection drops and comes back: its open asks are read again; only the new one pushes.
  for (const s of fake.sockets) s.terminate();
  await service.waitFor((rs) => rs.length >= 3, "the new ask's push after the reconnect");
  await lead.daemon.push!.idle();
  assert.deepEqual(askIds(), [askId(1), askId(2), askId(3)]);
  // The lead restarts: the dedupe is in its state database.
  await lead.close();
  lead = await startLead(state, fake.url, service, phone, limits);
  await service.waitFor((rs) => rs.length >= 4, "the new ask's push after the restart");
  await lead.daemon.push!.idle();
  assert.deepEqual(askIds(), [askId(1), askId(2), askId(3), askId(4)]);
});
