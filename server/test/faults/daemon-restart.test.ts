/**
 * L-1, D-5, D-8, P-26: the daemon killed (SIGKILL) and started again during traffic. Each run
 * (seeded) starts a real daemon process and a real agent (desk), and a phone fires a burst of
 * sends, button taps, renames and answers, one request id each; the daemon dies at a random moment
 * of the burst, comes back on the same port and state directory, and the phone retries every
 * action it has no answer for with the same request id, as the PWA's outbox does.
 *
 * Then, in half of the runs, held answers across a restart: the agent goes down, the phone
 * answers its open asks (202, held in the state database), the daemon is killed again, and both
 * come back; the held answers reach the agent once its asks are open again.
 *
 * Every action lands exactly once: a request whose final reply is 200 ran once in the agent, one
 * with a refusal (moved-on, ask-answered …) never ran, none ran twice; every held answer was
 * answered once, by the new agent process. Figures: runs, actions, lost, duplicated (both 0).
 * FAULT_RUNS (default 6), seed FUZZ_SEED.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { Ask, PaneDetail } from "@colliepwa/shared";
import { faultRuns, report, Rng, SEED } from "../../../sdk/test/helpers/fuzz.ts";
import { ChildAgent, killAllAgents, type Message } from "../helpers/child-agent.ts";
import { requestId } from "../helpers/daemon.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const RUNS = faultRuns(6);

/** A daemon process: started with the agents' sockets, killed with SIGKILL. */
async function startDaemon(state: string, port: number, agents: Record<string, string>, pair: boolean): Promise<{ child: ChildAgent; url: string; token?: string }> {
  const args = ["--state", state, "--port", String(port), ...Object.entries(agents).flatMap(([n, p]) => ["--agent", `${n}=${p}`]), ...(pair ? ["--pair"] : [])];
  const child = new ChildAgent("../daemon-child.ts", args);
  const m = await child.waitFor((x) => typeof x.listening === "string");
  return { child, url: m.listening as string, ...(typeof m.token === "string" ? { token: m.token } : {}) };
}

interface Action {
  id: string;
  path: string;
  body: Record<string, unknown>;
  /** How the agent's stdout shows that it ran: a handler line with this request id, or an answer to this tool call. */
  ran: (m: Message) => boolean;
  final?: { status: number; body: Record<string, unknown> };
  tries: number;
}

after(async () => {
  await killAllAgents();
  removeTempDirs();
});

describe("the daemon killed and started again during traffic (L-1, D-5, D-8)", () => {
  test(`${RUNS} seeded runs: every pending phone action lands exactly once; held answers survive`, { timeout: 60_000 + RUNS * 40_000 }, async () => {
    const master = new Rng(SEED ^ 0xdae);
    const totals = { runs: 0, actions: 0, landed: 0, refused: 0, retried: 0, lost: 0, duplicated: 0, held: 0, heldDelivered: 0, restarts: 0 };
    const problems: string[] = [];
    const started = Date.now();

    for (let run = 0; run < RUNS; run++) {
      const rng = master.fork();
      const dir = tempDir("collie-r-");
      const state = join(dir, "st");
      const socket = join(dir, "desk.sock");
      const calls = Array.from({ length: rng.range(2, 4) }, (_, i) => `r${run}a${i}`);
      const deskArgs = ["--socket", socket, ...calls.flatMap((c) => ["--ask", c])];
      const agents: ChildAgent[] = [new ChildAgent("desk-agent.ts", deskArgs)];
      await agents[0]!.waitFor((m) => m.ready === true);
      let daemon = await startDaemon(state, 0, { desk: socket }, true);
      const port = Number(new URL(daemon.url).port);
      const token = daemon.token!;
      const base = daemon.url;
      const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
        const res = await fetch(`${base}${path}`, {
          method, signal: AbortSignal.timeout(20_000),
          headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const what = `run ${run}`;
      const asks = await until(async () => {
        const r = await call("GET", "/api/agents/desk/panes/p1");
        const list = r.status === 200 ? (r.body as unknown as PaneDetail).asks : [];
        return list.length === calls.length ? list : undefined;
      }, `${what}: the agent's asks`);
      const ranLines = (a: Action) => agents.flatMap((ag) => ag.all(a.ran));

      // The burst: sends, taps, renames and answers to some of the asks, one request id each.
      const toAnswer = new Set(calls.filter(() => rng.chance(0.5)));
      const actions: Action[] = [];
      const n = rng.range(6, 16);
      for (let i = 0; i < n; i++) {
        const id = requestId(`r${run}`);
        const kind = rng.weighted<string>([[4, "send"], [2, "tap"], [1, "rename"], [2, "answer"]]);
        if (kind === "answer" && toAnswer.size > 0) {
          const c = [...toAnswer][0]!;
          toAnswer.delete(c);
          const ask = asks.find((a) => a.toolCallId === c)!;
          actions.push({ id, path: `/api/agents/desk/panes/p1/asks/${ask.id}/answer`, body: { requestId: id, revision: ask.revision, answer: { kind: "permission", optionId: rng.pick(["allow", "deny"]) } }, ran: (m) => (m.answered as { toolCallId?: string } | undefined)?.toolCallId === c, tries: 0 });
        } else if (kind === "tap") {
          actions.push({ id, path: "/api/agents/desk/panes/p1/actions/escalate", body: { requestId: id, turnId: null }, ran: (m) => m.requestId === id, tries: 0 });
        } else if (kind === "rename") {
          actions.push({ id, path: "/api/agents/desk/rename", body: { requestId: id, target: { kind: "pane", id: "p2" }, title: `Renamed ${i}` }, ran: (m) => m.requestId === id, tries: 0 });
        } else {
          actions.push({ id, path: `/api/agents/desk/panes/${rng.pick(["p1", "p2"])}/send`, body: { requestId: id, text: `message ${i}` }, ran: (m) => m.requestId === id, tries: 0 });
        }
      }
      const killAfter = rng.range(0, n - 1);
      const inFlight: Promise<void>[] = [];
      const attempt = async (a: Action): Promise<void> => {
        a.tries++;
        try {
          const r = await call("POST", a.path, a.body);
          // No answer to rely on: the agent was unreachable for a moment; the phone tries again.
          if (r.status === 503 && r.body.error === "agent-unreachable") return;
          a.final = r;
        } catch {
          // No reply at all (the daemon died): "Not sure the answer arrived" — retried below.
        }
      };
      for (let i = 0; i < actions.length; i++) {
        inFlight.push(attempt(actions[i]!));
        if (i === killAfter) {
          await new Promise((r) => setTimeout(r, rng.range(0, 8)));
          await daemon.child.kill("SIGKILL");
          totals.restarts++;
        } else await new Promise((r) => setTimeout(r, rng.range(0, 3)));
      }
      await Promise.all(inFlight);
      if (daemon.child.child.exitCode === null && daemon.child.child.signalCode === null) {
        await daemon.child.kill("SIGKILL");
        totals.restarts++;
      }
      daemon = await startDaemon(state, port, { desk: socket }, false);
      // The phone's outbox: every action without an answer goes again with the same request id.
      await until(async () => {
        const pending = actions.filter((a) => !a.final);
        if (pending.length === 0) return true;
        totals.retried += pending.length;
        await Promise.all(pending.map(attempt));
        return actions.every((a) => a.final);
      }, `${what}: an answer for every action`).catch((err: Error) => problems.push(err.message));
      // A retry of an action that had already run must not run it again (they may still be on their way to stdout).
      await new Promise((r) => setTimeout(r, 150));

      for (const a of actions) {
        totals.actions++;
        let status = a.final?.status;
        if (status === 202 && a.final?.body.held === true) {
          // Held (the daemon was still starting): it lands once its ask shows open again (D-5).
          totals.held++;
          await until(() => ranLines(a).length > 0, `${what}: held ${a.id} delivered`).catch((err: Error) => problems.push(err.message));
          await new Promise((r) => setTimeout(r, 50));
          if (ranLines(a).length > 0) {
            status = 200;
            totals.heldDelivered++;
          }
        }
        const count = ranLines(a).length;
        if (status === 200) {
          totals.landed++;
          if (count === 0) {
            totals.lost++;
            problems.push(`${what}: ${a.path} ${a.id} answered 200 but never ran`);
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

      // Held answers across a restart (D-5, D-8): agent down, answers held, daemon killed, both back.
      const unanswered = asks.filter((ask) => !actions.some((a) => a.path.includes(ask.id)));
      if (rng.chance(0.5) && unanswered.length > 0) {
        await agents[agents.length - 1]!.kill();
        await until(async () => ((await call("GET", "/api/agents")).body.agents as { name: string; state: string }[]).find((x) => x.name === "desk")?.state === "unreachable", `${what}: desk unreachable`);
        const held: { ask: Ask; id: string }[] = [];
        for (const ask of unanswered) {
          const id = requestId(`held${run}`);
          const r = await call("POST", `/api/agents/desk/panes/p1/asks/${ask.id}/answer`, { requestId: id, revision: ask.revision, answer: { kind: "permission", optionId: "allow" } });
          if (r.status !== 202) problems.push(`${what}: a held answer got ${r.status} ${JSON.stringify(r.body)}`);
          held.push({ ask, id });
          totals.held++;
        }
        await daemon.child.kill("SIGKILL");
        totals.restarts++;
        daemon = await startDaemon(state, port, { desk: socket }, false);
        const again = new ChildAgent("desk-agent.ts", deskArgs);
        agents.push(again);
        await again.waitFor((m) => m.ready === true);
        for (const h of held) {
          const answered = (m: Message) => (m.answered as { toolCallId?: string } | undefined)?.toolCallId === h.ask.toolCallId;
          await again.waitFor(answered).catch((err: Error) => problems.push(`${what}: held answer ${h.id}: ${err.message}`));
          totals.actions++;
          const count = agents.flatMap((ag) => ag.all(answered)).length;
          if (count === 1 && again.all(answered).length === 1) totals.heldDelivered++;
          else if (count === 0) totals.lost++;
          else {
            totals.duplicated++;
            problems.push(`${what}: held answer ${h.id} landed ${count} times`);
          }
        }
        // And the daemon let go of them: nothing is held any more.
        await until(async () => {
          const r = await call("GET", "/api/agents/desk/panes/p1");
          return r.status === 200 && !(r.body as unknown as PaneDetail).asks.some((a) => held.some((h) => h.ask.id === a.id));
        }, `${what}: the held answers' asks closed`).catch((err: Error) => problems.push(err.message));
      }
      totals.runs++;
      await daemon.child.kill("SIGKILL");
      for (const ag of agents) await ag.kill();
    }

    report("fault-daemon-restart", {
      runs: totals.runs, actions: totals.actions, landed: totals.landed, refused: totals.refused, retried: totals.retried,
      "held-answers": totals.held, "held-delivered": totals.heldDelivered, restarts: totals.restarts, lost: totals.lost, duplicated: totals.duplicated,
      ms: Date.now() - started,
    });
    assert.deepEqual(problems, []);
    assert.equal(totals.lost, 0);
    assert.equal(totals.duplicated, 0);
  });
});
