/**
 * L-1, D-5, S-23: a durable agent killed (SIGKILL) while an ask is open and the phone's answer is
 * on its way, then started again. Each run (seeded) lays out 1–3 refunds that need approval, the
 * phone answers each (allow or deny) through a real daemon, and the agent dies at a random point:
 * before the answer, while it is in flight (a timed SIGKILL), or by its own hand at a chosen step
 * (the answer landed but nothing written; decided but the refund not run; refund run but nothing
 * answered). A new process of the same agent then resumes from its journal.
 *
 * Per run: every answer lands exactly once (one decision in the journal per call, the phone's),
 * every approved refund runs exactly once (one ledger line) and no denied one runs, and the phone
 * shows the right outcome (no open ask, the tool item done or denied, every held outcome a 200).
 * Figures: runs, actions, lost, duplicated (both 0). FAULT_RUNS (default 16), seed FUZZ_SEED.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { PaneDetail } from "@colliepwa/shared";
import { faultRuns, report, Rng, SEED } from "../../../sdk/test/helpers/fuzz.ts";
import { ChildAgent, killAllAgents } from "../helpers/child-agent.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const RUNS = faultRuns(16);

type Plan = "crash-before-journal" | "crash-after-journal" | "crash-after-action" | "kill-in-flight" | "kill-before-answer" | "no-kill";
const PLANS: readonly Plan[] = ["kill-in-flight", "crash-before-journal", "crash-after-journal", "crash-after-action", "kill-before-answer", "no-kill"];

const lines = (file: string): Record<string, unknown>[] =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : [];

after(async () => {
  await closeAllLive();
  await closeAllDaemons();
  await killAllAgents();
  removeTempDirs();
});

describe("an agent killed mid-answer and started again (L-1, D-5)", () => {
  test(`${RUNS} seeded runs: every answer lands once, every approved refund runs once, the phone shows it`, { timeout: 60_000 + RUNS * 30_000 }, async () => {
    const master = new Rng(SEED ^ 0x4b11);
    const totals = { runs: 0, answers: 0, actions: 0, lost: 0, duplicated: 0, wrong: 0, staleHeld: 0, held: 0 };
    const byPlan = new Map<Plan, number>();
    const problems: string[] = [];
    const started = Date.now();

    for (let run = 0; run < RUNS; run++) {
      const rng = master.fork();
      const dir = tempDir("collie-k-");
      const socket = join(dir, "a.sock");
      const journal = join(dir, "journal.jsonl");
      const ledger = join(dir, "ledger.jsonl");
      const calls = Array.from({ length: rng.range(1, 3) }, (_, i) => `r${run}c${i}`);
      const victim = rng.pick(calls);
      // Every kind of death once in the first runs, then drawn by weight.
      const plan = run < PLANS.length ? PLANS[run]! : rng.weighted<Plan>([[3, "crash-before-journal"], [2, "crash-after-journal"], [2, "crash-after-action"], [4, "kill-in-flight"], [2, "kill-before-answer"], [1, "no-kill"]]);
      byPlan.set(plan, (byPlan.get(plan) ?? 0) + 1);
      const allow = new Map(calls.map((c) => [c, c === victim ? rng.chance(0.85) : rng.chance(0.7)]));
      const args = ["--socket", socket, "--journal", journal, "--ledger", ledger, "--calls", calls.join(",")];
      const crash = plan.startsWith("crash-") ? ["--crash-at", plan.slice("crash-".length), "--crash-call", victim] : [];
      const what = `run ${run} (${plan}, victim ${victim}, ${calls.map((c) => `${c}:${allow.get(c) ? "allow" : "deny"}`).join(" ")})`;

      const first = new ChildAgent("ledger-agent.ts", [...args, ...crash]);
      await first.waitFor((m) => m.ready === true);
      const d = await TestDaemon.start({ sources: { fixed: [{ name: "ledger", endpoint: { kind: "socket", path: socket }, key: "ledger" }] } });
      const live = await LiveClient.connect(d.wsUrl);
      const detail = async () => (await d.get<PaneDetail>("/api/agents/ledger/panes/refunds")).body;
      const open = await until(async () => {
        const asks = (await detail()).asks ?? [];
        return asks.length === calls.length ? asks : undefined;
      }, `${what}: ${calls.length} open asks`);

      // The phone answers every ask, in a random order, one request id per tap (P-14).
      const replies: { call: string; status: number; body: Record<string, unknown> }[] = [];
      for (const call of [...calls].sort(() => rng.next() - 0.5)) {
        const ask = open.find((a) => a.toolCallId === call)!;
        const id = requestId(call);
        const answer = () => d.post(`/api/agents/ledger/panes/refunds/asks/${ask.id}/answer`, { requestId: id, revision: ask.revision, answer: { kind: "permission", optionId: allow.get(call) ? "allow" : "deny" } });
        if (call === victim && plan === "kill-before-answer") {
          await first.kill();
          await d.waitState("ledger", "unreachable");
        }
        let reply;
        if (call === victim && plan === "kill-in-flight") {
          const pending = answer();
          await new Promise((r) => setTimeout(r, rng.range(0, 12)));
          await first.kill();
          reply = await pending;
        } else reply = await answer();
        replies.push({ call, ...reply });
        if (reply.status === 202) totals.held++;
        if (reply.status !== 200 && reply.status !== 202) problems.push(`${what}: the answer to ${call} got ${reply.status} ${JSON.stringify(reply.body)}`);
      }
      // Whatever killed it, the agent comes back (a no-kill run keeps the first process).
      let second: ChildAgent | null = null;
      if (plan !== "no-kill") {
        await first.exited;
        second = new ChildAgent("ledger-agent.ts", args);
        await second.waitFor((m) => m.ready === true);
      }
      // Settle: every call decided and shown, no ask left open.
      const settled = await until(async () => {
        const view = await detail();
        if (!view.items || (view.asks ?? []).length > 0) return undefined;
        const tools = new Map(view.items.filter((i) => i.kind === "tool").map((i) => [i.id, (i as { status: string }).status]));
        return calls.every((c) => tools.get(`tool-${c}`) === (allow.get(c) ? "done" : "denied")) ? view : undefined;
      }, () => `${what}: every call decided and shown`, 20_000).catch((err: Error) => {
        problems.push(err.message);
        return null;
      });

      // Count, from the agent's own disk (the journal: decisions; the ledger: refunds run).
      const decided = lines(journal);
      const refunds = lines(ledger);
      for (const call of calls) {
        totals.answers++;
        const decisions = decided.filter((e) => e.call === call);
        const ran = refunds.filter((e) => e.call === call).length;
        if (decisions.length > 1) {
          totals.duplicated++;
          problems.push(`${what}: the answer to ${call} landed ${decisions.length} times`);
        }
        if (decisions.length === 1 && decisions[0]!.approved !== allow.get(call)) {
          totals.wrong++;
          problems.push(`${what}: ${call} was decided ${decisions[0]!.approved} against the phone's ${allow.get(call)}`);
        }
        if (allow.get(call)) {
          totals.actions++;
          if (ran === 0) {
            totals.lost++;
            problems.push(`${what}: the approved refund ${call} never ran (decisions: ${JSON.stringify(decisions)})`);
          }
          if (ran > 1) {
            totals.duplicated++;
            problems.push(`${what}: the refund ${call} ran ${ran} times`);
          }
        } else if (ran > 0) {
          totals.wrong++;
          problems.push(`${what}: the denied refund ${call} ran`);
        }
        if (decisions.length === 0 && ran === 0 && allow.get(call) === false && settled === null) totals.lost++;
      }
      // The phone's view: every held answer that came back did so with a 200.
      for (const m of live.of("held-outcome")) {
        if (m.status !== 200) problems.push(`${what}: held outcome ${m.status} ${JSON.stringify(m.body)}`);
      }
      // An answer held while the agent had already written its decision waits for an ask that
      // never comes back (it expires after 7 days): counted, harmless.
      totals.staleHeld += d.daemon.held.count();
      totals.runs++;
      await live.close();
      await d.close();
      await first.kill();
      await second?.kill();
    }

    report("fault-agent-kill", {
      runs: totals.runs, answers: totals.answers, actions: totals.actions, lost: totals.lost, duplicated: totals.duplicated,
      wrong: totals.wrong, "held-202": totals.held, "stale-held": totals.staleHeld, ms: Date.now() - started,
      plans: [...byPlan].map(([k, v]) => `${k}:${v}`).join(","),
    });
    assert.deepEqual(problems, []);
    assert.equal(totals.lost, 0);
    assert.equal(totals.duplicated, 0);
  });
});
