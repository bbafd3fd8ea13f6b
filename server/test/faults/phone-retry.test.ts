/**
 * D-5, P-14, P-20, P-26: the phone's connection dropped between its request and Collie's reply,
 * then the same tap retried with the same request id. Each case (seeded) sends one action — a
 * send, a button tap, a rename, a stop, an answer — over a raw connection that is cut at a random
 * moment: half-way through the request (Collie never got it), right after the request (Collie
 * handles it, the reply is lost) or a few milliseconds later; the phone then retries until it has
 * an answer. The agent runs every action exactly once: the retry gets the first answer
 * (`replayed: true`) or, when the first try never arrived, runs it now.
 * Figures: runs, cases, actions, lost, duplicated (both 0). FAULT_RUNS (default 4) × 40 cases.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { Ask } from "@colliepwa/shared";
import { faultRuns, report, Rng, SEED } from "../../../sdk/test/helpers/fuzz.ts";
import { dropRequest, requestBytes } from "../../../sdk/test/helpers/raw-http.ts";
import { killAllAgents, startAgent, type Message } from "../helpers/child-agent.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const RUNS = faultRuns(4);
const CASES_PER_RUN = 40;

after(async () => {
  await closeAllDaemons();
  await killAllAgents();
  removeTempDirs();
});

describe("the phone's connection dropped mid-request, then retried (D-5, P-14)", () => {
  test(`${RUNS} × ${CASES_PER_RUN} dropped requests retried with the same request id run exactly once`, { timeout: 60_000 + RUNS * 30_000 }, async () => {
    const master = new Rng(SEED ^ 0x7e7);
    const totals = { runs: 0, cases: 0, actions: 0, ran: 0, replayed: 0, refused: 0, lost: 0, duplicated: 0 };
    const drops = new Map<string, number>();
    const problems: string[] = [];
    const started = Date.now();

    for (let run = 0; run < RUNS; run++) {
      const rng = master.fork();
      const dir = tempDir("collie-p-");
      const { agent } = await startAgent("desk-agent.ts", ["--socket", join(dir, "desk.sock")]);
      const d = await TestDaemon.start({ sources: { fixed: [{ name: "desk", endpoint: { kind: "socket", path: join(dir, "desk.sock") }, key: "desk" }] } });
      await d.waitState("desk", "ready");
      let asks = 0;
      let commands = 0;
      const raise = async (): Promise<Ask> => {
        const toolCallId = `r${run}t${++asks}`;
        const id = `cmd-${++commands}`;
        agent.send({ id, cmd: "ask", toolCallId });
        const m = await agent.waitFor((x) => (x.asked as Ask | undefined)?.toolCallId === toolCallId);
        return m.asked as Ask;
      };

      for (let i = 0; i < CASES_PER_RUN; i++) {
        const id = requestId(`drop${run}`);
        const kind = rng.weighted<string>([[4, "send"], [2, "tap"], [1, "rename"], [1, "stop"], [3, "answer"]]);
        let path: string;
        let body: Record<string, unknown>;
        let ran: (m: Message) => boolean = (m) => m.requestId === id;
        if (kind === "answer") {
          const ask = await raise();
          path = `/api/agents/desk/panes/p1/asks/${ask.id}/answer`;
          body = { requestId: id, revision: ask.revision, answer: { kind: "permission", optionId: rng.pick(["allow", "deny"]) } };
          ran = (m) => (m.answered as { toolCallId?: string } | undefined)?.toolCallId === ask.toolCallId;
        } else if (kind === "tap") {
          path = "/api/agents/desk/panes/p1/actions/escalate";
          const turnId = (await d.get<{ conversation: { turnId: string | null } }>("/api/agents/desk/panes/p1")).body.conversation.turnId;
          body = { requestId: id, turnId };
        } else if (kind === "rename") {
          path = "/api/agents/desk/rename";
          body = { requestId: id, target: { kind: "pane", id: "p2" }, title: `Renamed ${i}` };
        } else if (kind === "stop") {
          path = "/api/agents/desk/panes/p1/stop";
          body = { requestId: id, turnId: null };
        } else {
          path = `/api/agents/desk/panes/${rng.pick(["p1", "p2"])}/send`;
          body = { requestId: id, text: `dropped ${i}` };
        }
        const how = rng.weighted<{ at: "before-end" } | { at: "after-write" } | { at: "after-ms"; ms: number }>([
          [1, { at: "before-end" }], [2, { at: "after-write" }], [2, { at: "after-ms", ms: rng.range(0, 5) }],
        ]);
        const label = how.at === "after-ms" ? `after-${how.ms}ms` : how.at;
        drops.set(label, (drops.get(label) ?? 0) + 1);
        const bytes = requestBytes("POST", path, { Host: `127.0.0.1:${d.port}`, Authorization: `Bearer ${d.token}`, "Content-Type": "application/json", Connection: "keep-alive" }, JSON.stringify(body));
        await dropRequest({ port: d.port }, bytes, how);
        // The phone retries the same tap (same request id) until it has an answer.
        const final = await until(async () => {
          const r = await d.post(path, body);
          return r.status === 503 ? undefined : r;
        }, `case ${run}/${i}: an answer to the retry`);
        // A second retry, as a phone that missed this reply too would send: still nothing new runs.
        const again = await d.post(path, body);
        await new Promise((r) => setTimeout(r, 20));
        const count = agent.all(ran).length;
        totals.cases++;
        totals.actions++;
        const what = `run ${run} case ${i} (${kind}, ${label}) ${id}`;
        if (final.status === 200) {
          if (final.body.replayed === true) totals.replayed++;
          if (count === 0) {
            totals.lost++;
            problems.push(`${what}: 200 ${JSON.stringify(final.body)} but it never ran`);
          } else totals.ran++;
          if (again.status !== 200 || again.body.replayed !== true) problems.push(`${what}: the second retry got ${again.status} ${JSON.stringify(again.body)}`);
        } else if (final.status === 409 || final.status === 404) {
          totals.refused++;
          if (count > 0) problems.push(`${what}: refused (${final.status} ${JSON.stringify(final.body)}) but it ran`);
        } else {
          totals.lost++;
          problems.push(`${what}: the retry got ${final.status} ${JSON.stringify(final.body)}`);
        }
        if (count > 1) {
          totals.duplicated++;
          problems.push(`${what}: ran ${count} times`);
        }
      }
      totals.runs++;
      await d.close();
      await agent.kill();
    }

    report("fault-phone-retry", {
      runs: totals.runs, cases: totals.cases, actions: totals.actions, ran: totals.ran, replayed: totals.replayed, refused: totals.refused,
      lost: totals.lost, duplicated: totals.duplicated, ms: Date.now() - started, drops: [...drops].map(([k, v]) => `${k}:${v}`).join(","),
    });
    assert.deepEqual(problems, []);
    assert.equal(totals.lost, 0);
    assert.equal(totals.duplicated, 0);
  });
});
