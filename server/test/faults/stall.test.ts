/**
 * D-2, L-2, N-1: agents that stall or answer slowly do not hold up anyone else. Beside a real
 * agent (desk) the daemon is given one agent that accepts connections and never answers, one that
 * answers its hello and then never answers an events read, and one that answers everything late.
 * Meanwhile the phone keeps reading and acting.
 *
 * The stalled ones go `unreachable` within a bounded time (the hello deadline; the long-poll's
 * wait plus its margin) and an action for them gets a documented answer in bounded time; the slow
 * one stays `ready` and its actions land; desk and the phone API answer fast throughout.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { report } from "../../../sdk/test/helpers/fuzz.ts";
import { killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { fakeHello } from "../helpers/fake-agent.ts";
import { HostileAgent, type HostileReply } from "../helpers/hostile-agent.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { authHeaders } from "../helpers/tokens.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const WAIT_MS = 1000;
/** The daemon's own deadlines (agents/connection.ts): hello 5 s; a long-poll its wait + 10 s. */
const HELLO_BOUND_MS = 5000 + 3000;
const EVENTS_BOUND_MS = WAIT_MS + 10_000 + 3000;
/** What "responsive" means here: far above a loaded machine's normal, far below any deadline. */
const RESPONSIVE_MS = 3000;

const json = (v: unknown): HostileReply => ({ status: 200, body: JSON.stringify(v) });
const resetPage = (instance: string, pane: string) => ({
  cursor: `${instance}.1`, reset: true,
  layout: { ready: true, workspaces: [{ id: "w", title: "W" }], tabs: [{ id: "w:t", workspaceId: "w", title: "T" }], panes: [{ id: pane, tabId: "w:t", title: pane, harness: "x", sessionId: null, state: "idle", actions: [], openAsks: 0, turnId: null, activeAt: "2026-12-02T14:00:00.000Z" }] },
  views: [], events: [],
});

const hostile: HostileAgent[] = [];
after(async () => {
  await closeAllLive();
  await closeAllDaemons();
  await killAllAgents();
  for (const h of hostile) await h.close();
  removeTempDirs();
});

describe("stalled and slow agents (D-2, L-2)", () => {
  test("the stalled go unreachable in bounded time; the slow stay ready; desk and the phone stay responsive", { timeout: 120_000 }, async () => {
    const dir = tempDir("collie-s-");
    await startAgent("desk-agent.ts", ["--socket", join(dir, "desk.sock")]);
    // Accepts every connection, answers nothing.
    const mute = new HostileAgent(() => ({ stall: true }));
    await mute.listen(join(dir, "mute.sock"));
    hostile.push(mute);
    // Answers its hello and its first page, then never answers an events read or a write.
    const halfway = new HostileAgent((req) => {
      if (req.url.pathname === "/durable/hello") return json(fakeHello({ instance: "half" }));
      if (req.url.pathname.endsWith("/events") && !req.url.searchParams.has("after")) return json(resetPage("half", "h1"));
      return { stall: true };
    });
    await halfway.listen(join(dir, "halfway.sock"));
    hostile.push(halfway);
    // Answers everything, always late: hello and pages after 300 ms, writes after 2 s.
    const slow = new HostileAgent((req) => {
      if (req.url.pathname === "/durable/hello") return { delayMs: 300, then: json(fakeHello({ instance: "slow" })) };
      if (req.url.pathname.endsWith("/events")) {
        if (!req.url.searchParams.has("after")) return { delayMs: 300, then: json(resetPage("slow", "s1")) };
        return { delayMs: Number(req.url.searchParams.get("wait") ?? 0) + 300, then: json({ cursor: "slow.1", reset: false, views: [], events: [] }) };
      }
      return { delayMs: 2000, then: json({ ok: true }) };
    });
    await slow.listen(join(dir, "slow.sock"));
    hostile.push(slow);
    const src = (name: string) => ({ name, endpoint: { kind: "socket" as const, path: join(dir, `${name}.sock`) }, key: name });
    const t0 = Date.now();
    const d = await TestDaemon.start({ sources: { fixed: [src("desk"), src("mute"), src("halfway"), src("slow")] }, tuning: { waitMs: WAIT_MS, retryDelaysMs: [50, 100, 200] } });
    // Every change of an agent's state reaches the phone's WebSocket: the first time each was seen.
    const firstSeen: Record<string, number> = {};
    const live = await LiveClient.connect(d.wsUrl);
    const note = (a: { name: string; state: string }) => {
      if (firstSeen[`${a.name}:${a.state}`] === undefined) firstSeen[`${a.name}:${a.state}`] = Date.now() - t0;
    };
    for (const m of live.messages) if (m.type === "snapshot") m.snapshot.agents.forEach(note);
    live.socket.on("message", (data) => {
      const m = JSON.parse(String(data)) as { type: string; agent?: { name: string; state: string } };
      if (m.type === "agent" && m.agent) note(m.agent);
    });

    // The phone probes all along: health, snapshot, a send to desk; each must be fast.
    let probing = true;
    const latencies: number[] = [];
    const problems: string[] = [];
    const deskStates = new Set<string>();
    const prober = (async () => {
      while (probing) {
        const p0 = Date.now();
        // Only a snapshot asked for after desk was seen ready tells whether it stayed so: one asked
        // for just before can come back after the WebSocket said "ready", still "starting".
        const deskWasReady = firstSeen["desk:ready"] !== undefined;
        try {
          const snap = (await (await fetch(`${d.url}/api/snapshot`, { headers: authHeaders(d.url), signal: AbortSignal.timeout(5000) })).json()) as { agents: { name: string; state: string }[] };
          for (const a of snap.agents) {
            note(a);
            if (a.name === "desk" && deskWasReady) deskStates.add(a.state);
          }
          if (firstSeen["desk:ready"] !== undefined) {
            const r = await d.post("/api/agents/desk/panes/p2/send", { requestId: requestId("probe"), text: "probe" });
            if (r.status !== 200) problems.push(`desk send answered ${r.status}`);
          }
        } catch (err) {
          problems.push(`probe failed: ${String(err)}`);
        }
        latencies.push(Date.now() - p0);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    await until(() => firstSeen["mute:unreachable"] !== undefined, "mute unreachable", 30_000);
    // While the mute agent stalls: an action for it gets a documented answer in bounded time.
    const a0 = Date.now();
    const toMute = await d.post("/api/agents/mute/panes/x/send", { requestId: requestId("mute"), text: "hi" });
    const muteActionMs = Date.now() - a0;
    // A message for a stalled agent is held for it, like an answer (docs/decisions.md).
    assert.deepEqual(toMute, { status: 202, body: { held: true } });
    const heldForMute = await d.post("/api/agents/mute/panes/x/asks/0123456789abcdef0123456789abcdef/answer", { requestId: requestId("mute"), revision: "0123456789abcdef", answer: { kind: "permission", optionId: "allow" } });
    assert.deepEqual(heldForMute, { status: 202, body: { held: true } });

    // The slow agent is ready and takes actions, late but surely, while desk answers at once.
    await until(() => firstSeen["slow:ready"] !== undefined, "slow ready", 30_000);
    const s0 = Date.now();
    const slowSend = d.post("/api/agents/slow/panes/s1/send", { requestId: requestId("slow"), text: "hi" });
    const d0 = Date.now();
    const deskSend = await d.post("/api/agents/desk/panes/p2/send", { requestId: requestId("desk"), text: "meanwhile" });
    const deskWhileSlowMs = Date.now() - d0;
    assert.equal(deskSend.status, 200);
    assert.deepEqual(await slowSend, { status: 200, body: { ok: true } });
    const slowActionMs = Date.now() - s0;

    // The half-way agent is found out when its long-poll passes its deadline.
    await until(() => firstSeen["halfway:unreachable"] !== undefined, "halfway unreachable", 40_000);
    const h0 = Date.now();
    const toHalfway = await d.post("/api/agents/halfway/panes/h1/send", { requestId: requestId("half"), text: "hi" });
    const halfwayActionMs = Date.now() - h0;
    assert.deepEqual(toHalfway, { status: 202, body: { held: true } });
    probing = false;
    await prober;

    const slowest = Math.max(...latencies);
    report("fault-stall", {
      probes: latencies.length, "slowest-probe-ms": slowest, "mute-unreachable-ms": firstSeen["mute:unreachable"]!,
      "halfway-unreachable-ms": firstSeen["halfway:unreachable"]!, "slow-ready-ms": firstSeen["slow:ready"]!,
      "mute-action-ms": muteActionMs, "halfway-action-ms": halfwayActionMs, "slow-action-ms": slowActionMs, "desk-while-slow-ms": deskWhileSlowMs,
      "desk-states": [...deskStates].join("/"),
    });
    assert.deepEqual(problems, []);
    assert.deepEqual([...deskStates], ["ready"], "desk stayed ready");
    assert.equal((await d.agent("slow"))?.state, "ready", "the slow agent stayed ready");
    assert.ok(firstSeen["mute:unreachable"]! <= HELLO_BOUND_MS, `mute unreachable after ${firstSeen["mute:unreachable"]} ms`);
    assert.ok(firstSeen["halfway:unreachable"]! - (firstSeen["halfway:ready"] ?? 0) <= EVENTS_BOUND_MS, `halfway unreachable after ${firstSeen["halfway:unreachable"]} ms`);
    assert.ok(muteActionMs < RESPONSIVE_MS, "an action for an unreachable agent answers at once");
    // The half-way agent answers its hello again at each retry, so between its long-poll deadlines
    // it is `starting` (resuming from its cursor): an action then waits for it at most
    // STARTING_WAIT_MS (5 s, agents/gateway.ts) before its answer (a message is held, 202).
    assert.ok(halfwayActionMs < 5000 + RESPONSIVE_MS, `an action for the half-way agent answered in ${halfwayActionMs} ms`);
    assert.ok(slowest < RESPONSIVE_MS, `the phone API answered within ${slowest} ms`);
    assert.ok(deskWhileSlowMs < RESPONSIVE_MS, "desk answered while the slow agent worked");
  });
});
