/**
 * L-1, D-5, C-1: a crew member's daemon killed (SIGKILL) and started again while the lead's phone
 * acts on the member's agent. Each run (seeded) starts a member daemon process with a real agent
 * (desk) and a lead daemon that joined it; the phone fires a burst of sends, taps, renames and
 * answers at the lead, one request id each; the member dies at a random moment of the burst (one
 * action in flight), and the rest are sent while it is down. In
 * half of the runs the lead is restarted too while the member is down (its held actions are in its
 * state database). The member comes back on the same port and state; the phone retries every
 * action it has no final answer for with the same request id, as the PWA's outbox does.
 *
 * Every action lands exactly once: a final 200 ran once in the agent, a held one (202) ran once
 * after the member came back, a refusal never ran, none ran twice. Figures: runs, actions, held,
 * lost, duplicated (both 0). FAULT_RUNS (default 4), seed FUZZ_SEED.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { PaneDetail } from "@colliepwa/shared";
import { faultRuns, report, Rng, SEED } from "../../../sdk/test/helpers/fuzz.ts";
import { ChildAgent, killAllAgents, type Message } from "../helpers/child-agent.ts";
import { closeAllDaemons, requestId, TestDaemon, writeSources } from "../helpers/daemon.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";
import { adminRequest } from "../../src/security/admin.ts";
import { joinCrew } from "../../src/cli/crew-join.ts";

const RUNS = faultRuns(4);
const KEY = encodeURIComponent("desk@workshop");

async function startMember(state: string, port: number, socket: string): Promise<{ child: ChildAgent; url: string }> {
  const child = new ChildAgent("../daemon-child.ts", ["--state", state, "--port", String(port), "--agent", `desk=${socket}`]);
  const m = await child.waitFor((x) => typeof x.listening === "string");
  return { child, url: m.listening as string };
}

interface Action {
  id: string;
  path: string;
  body: Record<string, unknown>;
  ran: (m: Message) => boolean;
  final?: { status: number; body: Record<string, unknown> };
}

after(async () => {
  await closeAllDaemons();
  await killAllAgents();
  removeTempDirs();
});

describe("a crew member killed and started again while the lead's phone acts on it (L-1, D-5, C-1)", () => {
  test(`${RUNS} seeded runs: every action from the lead lands exactly once`, { timeout: 60_000 + RUNS * 40_000 }, async () => {
    const master = new Rng(SEED ^ 0xc4e3);
    const totals = { runs: 0, actions: 0, landed: 0, held: 0, refused: 0, retried: 0, memberKills: 0, leadRestarts: 0, lost: 0, duplicated: 0 };
    const problems: string[] = [];
    const started = Date.now();

    for (let run = 0; run < RUNS; run++) {
      const rng = master.fork();
      const dir = tempDir("collie-c-");
      const memberState = join(dir, "member");
      const leadState = join(dir, "lead");
      const socket = join(dir, "desk.sock");
      const sources = join(dir, "sources.json");
      const calls = Array.from({ length: rng.range(1, 3) }, (_, i) => `r${run}a${i}`);
      const desk = new ChildAgent("desk-agent.ts", ["--socket", socket, ...calls.flatMap((c) => ["--ask", c])]);
      await desk.waitFor((m) => m.ready === true);
      let member = await startMember(memberState, 0, socket);
      const port = Number(new URL(member.url).port);
      writeSources(sources, { durable: [] });
      const invite = await adminRequest(memberState, "POST", "/crew-invites");
      await joinCrew({ name: "workshop", url: member.url, invite: String(invite.body.invite), sourcesPath: sources, stateDir: leadState, leadName: "lead" });
      let lead = await TestDaemon.start({ sources: { path: sources }, stateDir: leadState });
      const what = `run ${run}`;
      const asks = await until(async () => {
        const r = await lead.get<PaneDetail>(`/api/agents/${KEY}/panes/p1`);
        return r.status === 200 && r.body.asks.length === calls.length ? r.body.asks : undefined;
      }, `${what}: the member's asks on the lead`);

      const toAnswer = [...calls];
      const actions: Action[] = [];
      const n = rng.range(5, 12);
      for (let i = 0; i < n; i++) {
        const id = requestId(`c${run}`);
        const kind = rng.weighted<string>([[4, "send"], [2, "tap"], [1, "rename"], [2, "answer"]]);
        if (kind === "answer" && toAnswer.length > 0) {
          const c = toAnswer.shift()!;
          const ask = asks.find((a) => a.toolCallId === c)!;
          actions.push({ id, path: `/api/agents/${KEY}/panes/p1/asks/${ask.id}/answer`, body: { requestId: id, revision: ask.revision, answer: { kind: "permission", optionId: rng.pick(["allow", "deny"]) } }, ran: (m) => (m.answered as { toolCallId?: string } | undefined)?.toolCallId === c });
        } else if (kind === "tap") {
          actions.push({ id, path: `/api/agents/${KEY}/panes/p1/actions/escalate`, body: { requestId: id, turnId: null }, ran: (m) => m.requestId === id });
        } else if (kind === "rename") {
          actions.push({ id, path: `/api/agents/${KEY}/rename`, body: { requestId: id, target: { kind: "pane", id: "p2" }, title: `Renamed ${i}` }, ran: (m) => m.requestId === id });
        } else {
          actions.push({ id, path: `/api/agents/${KEY}/panes/p2/send`, body: { requestId: id, text: `message ${i}` }, ran: (m) => m.requestId === id });
        }
      }
      const attempt = async (a: Action): Promise<void> => {
        try {
          const r = await lead.post(a.path, a.body);
          if (r.status === 503 || r.status === 504) return; // no answer to rely on: the phone tries again
          a.final = r;
        } catch {
          // no reply at all: retried below
        }
      };
      const killAfter = rng.range(0, n - 1);
      const inFlight: Promise<void>[] = [];
      for (let i = 0; i < actions.length; i++) {
        // Before the kill the phone waits for each answer (they land at the member); the one at the
        // kill is in flight when the member dies; the rest go while it is down.
        if (i < killAfter) {
          await attempt(actions[i]!);
          continue;
        }
        inFlight.push(attempt(actions[i]!));
        if (i === killAfter) {
          await new Promise((r) => setTimeout(r, rng.range(0, 8)));
          await member.child.kill("SIGKILL");
          totals.memberKills++;
        } else await new Promise((r) => setTimeout(r, rng.range(0, 3)));
      }
      await Promise.all(inFlight);
      if (rng.chance(0.5)) {
        await lead.close();
        lead = await TestDaemon.start({ sources: { path: sources }, stateDir: leadState, port: lead.port });
        totals.leadRestarts++;
      }
      member = await startMember(memberState, port, socket);
      await until(async () => {
        const pending = actions.filter((a) => !a.final);
        if (pending.length === 0) return true;
        totals.retried += pending.length;
        await Promise.all(pending.map(attempt));
        return actions.every((a) => a.final);
      }, `${what}: an answer for every action`).catch((err: Error) => problems.push(err.message));

      for (const a of actions) {
        totals.actions++;
        const status = a.final?.status;
        if (status === 202 && a.final?.body.held === true) {
          totals.held++;
          await until(() => desk.all(a.ran).length > 0, `${what}: held ${a.id} delivered`).catch((err: Error) => problems.push(err.message));
        }
      }
      // A retry of an action that had already run must not run it again (it may still be on its way to stdout).
      await new Promise((r) => setTimeout(r, 200));
      for (const a of actions) {
        const status = a.final?.status;
        const count = desk.all(a.ran).length;
        if (status === 200 || status === 202) {
          totals.landed++;
          if (count === 0) {
            totals.lost++;
            problems.push(`${what}: ${a.path} ${a.id} answered ${status} but never ran`);
          }
        } else if (status !== undefined && status >= 400 && status < 500) {
          totals.refused++;
          if (count > 0) problems.push(`${what}: ${a.path} ${a.id} was refused (${status} ${JSON.stringify(a.final?.body)}) but ran`);
        } else {
          totals.lost++;
          problems.push(`${what}: ${a.path} ${a.id} ended with ${status} ${JSON.stringify(a.final?.body)}`);
        }
        if (count > 1) {
          totals.duplicated++;
          problems.push(`${what}: ${a.path} ${a.id} ran ${count} times`);
        }
      }
      totals.runs++;
      await lead.close();
      await member.child.kill("SIGKILL");
      await desk.kill();
    }

    report("fault-crew", {
      runs: totals.runs, actions: totals.actions, landed: totals.landed, held: totals.held, refused: totals.refused, retried: totals.retried,
      "member-kills": totals.memberKills, "lead-restarts": totals.leadRestarts, lost: totals.lost, duplicated: totals.duplicated, ms: Date.now() - started,
    });
    assert.deepEqual(problems, []);
    assert.equal(totals.lost, 0);
    assert.equal(totals.duplicated, 0);
  });
});
