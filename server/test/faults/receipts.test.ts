/**
 * S-28, S-30, D-5: the receipt store full, through the daemon, with a real agent. The phone taps a
 * button more than RECEIPTS_PER_GROUP (1000) times, then replays every request id: a kept id gets
 * the first answer again (`replayed: true`), a dropped one `500 receipt-dropped` — and nothing runs
 * for either. A closed pane drops its receipts with it: a replay of one of its sends is
 * `receipt-dropped`, a replay of the close itself is `replayed`.
 * Figures: runs, actions, replays, lost, duplicated (both 0). Runs: FAULT_RUNS / 20 (at least 1).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { RECEIPTS_PER_GROUP } from "@colliepwa/durable-sdk/wire";
import { faultRuns, report } from "../../../sdk/test/helpers/fuzz.ts";
import { killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { pool } from "../../../sdk/test/helpers/raw-http.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

const RUNS = Math.max(1, Math.ceil(faultRuns(20) / 20));
const EXTRA = 60; // taps beyond the store's size: the oldest 60 receipts are dropped

after(async () => {
  await closeAllDaemons();
  await killAllAgents();
  removeTempDirs();
});

describe("receipts beyond the store's size (S-28)", () => {
  test(`${RUNS} run(s) of ${RECEIPTS_PER_GROUP + EXTRA} taps and their replays: receipt-dropped or replayed, nothing runs twice`, { timeout: 60_000 + RUNS * 60_000 }, async () => {
    const totals = { runs: 0, actions: 0, replays: 0, replayed: 0, dropped: 0, lost: 0, duplicated: 0 };
    const problems: string[] = [];
    const started = Date.now();
    for (let run = 0; run < RUNS; run++) {
      const dir = tempDir("collie-rc-");
      const { agent } = await startAgent("desk-agent.ts", ["--socket", join(dir, "desk.sock")]);
      const d = await TestDaemon.start({ sources: { fixed: [{ name: "desk", endpoint: { kind: "socket", path: join(dir, "desk.sock") }, key: "desk" }] } });
      await d.waitState("desk", "ready");
      const ids = Array.from({ length: RECEIPTS_PER_GROUP + EXTRA }, () => requestId(`tap${run}`));
      const tap = (id: string) => d.post("/api/agents/desk/panes/p1/actions/escalate", { requestId: id, turnId: null });
      // In order, so the oldest are the first ones (one pane: one receipt group).
      await pool(ids.entries(), 1, async ([, id]) => {
        const r = await tap(id);
        if (r.status !== 200 || r.body.replayed === true) problems.push(`tap ${id}: ${r.status} ${JSON.stringify(r.body)}`);
        totals.actions++;
      });
      const ranOf = (id: string) => agent.all((m) => m.requestId === id).length;
      // Replays: the dropped ones answer receipt-dropped, the kept ones replayed; nothing runs.
      await pool(ids.entries(), 8, async ([i, id]) => {
        const r = await tap(id);
        totals.replays++;
        if (i < EXTRA) {
          if (r.status === 500 && r.body.error === "receipt-dropped") totals.dropped++;
          else problems.push(`replay of dropped ${i}: ${r.status} ${JSON.stringify(r.body)}`);
        } else if (r.status === 200 && r.body.replayed === true) totals.replayed++;
        else problems.push(`replay of kept ${i}: ${r.status} ${JSON.stringify(r.body)}`);
      });
      // A closed pane takes its receipts with it (S-30); the close's own receipt stays.
      const sends = [requestId("p2send"), requestId("p2send")];
      for (const id of sends) assert.equal((await d.post("/api/agents/desk/panes/p2/send", { requestId: id, text: "before close" })).status, 200);
      const closeId = requestId("close");
      assert.equal((await d.post("/api/agents/desk/close", { requestId: closeId, target: { kind: "pane", id: "p2" } })).status, 200);
      for (const id of sends) {
        const r = await d.post("/api/agents/desk/panes/p2/send", { requestId: id, text: "before close" });
        totals.replays++;
        if (r.status === 500 && r.body.error === "receipt-dropped") totals.dropped++;
        else problems.push(`replay of a closed pane's send: ${r.status} ${JSON.stringify(r.body)}`);
      }
      const closeAgain = await d.post("/api/agents/desk/close", { requestId: closeId, target: { kind: "pane", id: "p2" } });
      totals.replays++;
      if (closeAgain.status === 200 && closeAgain.body.replayed === true) totals.replayed++;
      else problems.push(`replay of the close: ${closeAgain.status} ${JSON.stringify(closeAgain.body)}`);
      totals.actions += sends.length + 1;

      await new Promise((r) => setTimeout(r, 100));
      for (const id of [...ids, ...sends, closeId]) {
        const n = ranOf(id);
        if (n === 0) totals.lost++;
        if (n > 1) {
          totals.duplicated++;
          problems.push(`${id} ran ${n} times`);
        }
      }
      totals.runs++;
      await d.close();
      await agent.kill();
    }
    report("fault-receipts-full", {
      runs: totals.runs, actions: totals.actions, replays: totals.replays, replayed: totals.replayed, "receipt-dropped": totals.dropped,
      lost: totals.lost, duplicated: totals.duplicated, ms: Date.now() - started,
    });
    assert.deepEqual(problems.slice(0, 10), []);
    assert.equal(totals.lost, 0);
    assert.equal(totals.duplicated, 0);
  });
});
