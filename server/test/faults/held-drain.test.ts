/**
 * L-1, D-5, D-8, issue 35: the daemon killed (SIGKILL) in the middle of delivering a backlog of
 * held messages, then started again on the same port and state directory. Each run (seeded) holds
 * messages for two conversations of an agent that is down, starts the agent, kills the daemon once
 * the agent has taken a seeded number of them, and starts it again: every message reaches the agent
 * exactly once (a delivery that landed before the kill comes again as a replay, which runs
 * nothing), each conversation's in the phone's order. FAULT_RUNS / 2 runs (at least 2), seed FUZZ_SEED.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import { faultRuns, report, Rng, SEED } from "../../../sdk/test/helpers/fuzz.ts";
import { ChildAgent, killAllAgents } from "../helpers/child-agent.ts";
import { requestId } from "../helpers/daemon.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const RUNS = Math.max(2, Math.floor(faultRuns(4) / 2));

after(async () => {
  await killAllAgents();
  removeTempDirs();
});

async function startDaemon(state: string, port: number, socket: string, pair: boolean): Promise<{ child: ChildAgent; url: string; token?: string }> {
  const child = new ChildAgent("../daemon-child.ts", ["--state", state, "--port", String(port), "--agent", `desk=${socket}`, ...(pair ? ["--pair"] : [])]);
  const m = await child.waitFor((x) => typeof x.listening === "string");
  return { child, url: m.listening as string, ...(typeof m.token === "string" ? { token: m.token } : {}) };
}

test(`${RUNS} seeded runs: a daemon killed mid-drain delivers every held message once, in order`, { timeout: 60_000 + RUNS * 60_000 }, async () => {
  const master = new Rng(SEED ^ 0x4e1d);
  const totals = { runs: 0, held: 0, deliveredBeforeKill: 0, lost: 0, duplicated: 0, outOfOrder: 0 };
  const started = Date.now();
  for (let run = 0; run < RUNS; run++) {
    const rng = master.fork();
    const dir = tempDir("collie-h-");
    const state = join(dir, "st");
    const socket = join(dir, "desk.sock");
    let daemon = await startDaemon(state, 0, socket, true);
    const port = Number(new URL(daemon.url).port);
    const token = daemon.token!;
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${daemon.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(20_000) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    // The agent is down: the phone's messages are held, each conversation's in the order sent.
    const sent: Record<string, string[]> = { p1: [], p2: [] };
    const count = rng.range(40, 80);
    for (let i = 0; i < count; i++) {
      const pane = rng.next() < 0.5 ? "p1" : "p2";
      const id = requestId(`h${run}`);
      const r = await post(`/api/agents/desk/panes/${pane}/send`, { requestId: id, text: `#${i}` });
      assert.deepEqual(r, { status: 202, body: { held: true } });
      sent[pane]!.push(id);
    }
    totals.held += count;
    const agent = new ChildAgent("desk-agent.ts", ["--socket", socket]);
    await agent.waitFor((m) => m.ready === true);
    const got = () => agent.all((m) => m.got === "send");
    // The daemon dies while the backlog goes out.
    const killAt = rng.range(1, Math.floor(count / 2));
    await until(() => got().length >= killAt, `${killAt} delivered before the kill`, 60_000);
    await daemon.child.kill("SIGKILL");
    totals.deliveredBeforeKill += got().length;
    daemon = await startDaemon(state, port, socket, false);
    const all = [...sent.p1!, ...sent.p2!];
    await until(() => new Set(got().map((m) => m.requestId)).size === all.length, () => `every held message delivered (${new Set(got().map((m) => m.requestId)).size} of ${all.length})`, 60_000);
    // A moment for any second delivery to show.
    await new Promise((r) => setTimeout(r, 500));
    const ids = got().map((m) => m.requestId as string);
    totals.duplicated += ids.length - new Set(ids).size;
    totals.lost += all.filter((id) => !ids.includes(id)).length;
    for (const pane of ["p1", "p2"]) {
      const order = got().filter((m) => m.pane === pane).map((m) => m.requestId as string);
      if (JSON.stringify(order) !== JSON.stringify(sent[pane])) totals.outOfOrder++;
    }
    totals.runs++;
    await daemon.child.kill("SIGKILL");
    await agent.kill();
  }
  report("fault-held-drain", { ...totals, ms: Date.now() - started });
  assert.equal(totals.lost, 0, "lost");
  assert.equal(totals.duplicated, 0, "duplicated");
  assert.equal(totals.outOfOrder, 0, "conversations out of order");
});
