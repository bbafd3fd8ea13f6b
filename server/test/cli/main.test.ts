/**
 * The `collie` command (D-6, D-7, X-1) as a child process: `collie agents` lists a running daemon's
 * agents with their state; `collie serve` with no sources.json runs the bundled example agent and
 * says where sources.json goes; `collie pair` gives a one-time link a phone trades for its pairing,
 * and the phone API then serves the example's conversations, history and starters.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, test } from "node:test";
import type { ChildProcess } from "node:child_process";
import type { Snapshot } from "@colliepwa/shared";
import { parseHistoryPage, parseStartersPage } from "@colliepwa/durable-sdk/wire";
import { killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { collie, collieProcess } from "../helpers/cli.ts";
import { closeAllDaemons, TestDaemon } from "../helpers/daemon.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const serving: ChildProcess[] = [];
after(async () => {
  for (const p of serving) if (p.exitCode === null && p.signalCode === null) {
    p.kill("SIGTERM");
    await once(p, "exit");
  }
  await closeAllDaemons();
  await killAllAgents();
  removeTempDirs();
});

test("collie agents lists a running daemon's agents with their state; no daemon is a clear error", async () => {
  const dir = tempDir();
  const state = join(dir, "state");
  await startAgent("desk-agent.ts", ["--socket", join(dir, "desk.sock")]);
  const d = await TestDaemon.start({
    stateDir: state,
    sources: {
      fixed: [
        { name: "desk", endpoint: { kind: "socket", path: join(dir, "desk.sock") }, key: "desk" },
        { name: "gone", endpoint: { kind: "socket", path: join(dir, "gone.sock") }, key: "gone" },
      ],
    },
  });
  await d.waitState("desk", "ready");
  await d.waitState("gone", "unreachable");
  const r = await collie(["agents", "--state-dir", state]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n");
  assert.match(lines[0]!, /^NAME\s+STATE\s+REACH\s+CONVERSATIONS$/);
  assert.match(lines.find((l) => l.startsWith("desk"))!, /^desk\s+ready\s+local\s+2 open, 0 waiting$/);
  assert.match(lines.find((l) => l.startsWith("gone"))!, /^gone\s+unreachable\s+local\s+\S.*/);

  await d.close();
  const none = await collie(["agents", "--state-dir", state]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no Collie is running with the state directory/);
});

test("collie serve without sources.json runs the bundled example agent and says where sources.json goes (D-7)", async () => {
  const dir = tempDir();
  const sources = join(dir, "nowhere", "sources.json");
  const proc = collieProcess(["serve", "--sources", sources, "--state-dir", join(dir, "state"), "--port", "0"]);
  serving.push(proc);
  const out: string[] = [];
  let stderr = "";
  proc.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  createInterface({ input: proc.stdout! }).on("line", (l) => out.push(l));
  const listening = await until(() => out.map((l) => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(l)?.[1]).find(Boolean), () => `the listening line; stdout ${out.join("\n")}; stderr ${stderr}`);
  assert.ok(out.some((l) => l.includes(`no sources.json at ${sources}`) && l.includes("bundled example agent")), out.join("\n"));
  assert.ok(out.some((l) => l.includes("collie durable attach")), out.join("\n"));

  // Pair the way a phone does: `collie pair` prints a one-time link; the code is traded for a cookie.
  const paired = await collie(["pair", "--json", "--state-dir", join(dir, "state"), "--url", listening]);
  assert.equal(paired.code, 0, paired.stderr);
  const { code: pairCode, link } = JSON.parse(paired.stdout) as { code: string; link: string };
  assert.equal(link, `${listening}/#/pair/${pairCode}`);
  // Without --url the running daemon says where it listens (here an ephemeral port, not 7717).
  const asked = await collie(["pair", "--json", "--state-dir", join(dir, "state")]);
  assert.equal(asked.code, 0, asked.stderr);
  const second = JSON.parse(asked.stdout) as { code: string; link: string };
  assert.equal(second.link, `${listening}/#/pair/${second.code}`);
  const unpaired = await fetch(`${listening}/api/snapshot`);
  assert.equal(unpaired.status, 401);
  const traded = await fetch(`${listening}/api/pair`, { method: "POST", headers: { "content-type": "application/json", origin: listening }, body: JSON.stringify({ code: pairCode, name: "test phone" }) });
  assert.equal(traded.status, 200);
  const cookie = traded.headers.get("set-cookie")!.split(";")[0]!;
  const fetch2 = (url: string) => fetch(url, { headers: { cookie } });
  const snap = await until(async () => {
    const s = (await (await fetch2(`${listening}/api/snapshot`)).json()) as Snapshot;
    return s.agents.find((a) => a.name === "desk")?.state === "ready" && s.conversations.length > 0 ? s : undefined;
  }, "the example agent ready with conversations");
  const desk = snap.agents.find((a) => a.name === "desk")!;
  assert.equal(desk.reach, "local");
  assert.equal(desk.caps?.history, true);
  const history = await fetch2(`${listening}/api/agents/desk/history`);
  assert.equal(history.status, 200);
  assert.ok(parseHistoryPage(await history.json()).ok);
  const starters = await fetch2(`${listening}/api/agents/desk/starters`);
  assert.equal(starters.status, 200);
  const page = await starters.json();
  assert.ok(parseStartersPage(page).ok);
  const pane = await fetch2(`${listening}/api/agents/desk/panes/${encodeURIComponent(snap.conversations[0]!.id)}`);
  assert.equal(pane.status, 200);

  const listed = await collie(["agents", "--state-dir", join(dir, "state")]);
  assert.match(listed.stdout, /^desk\s+ready\s+local\s+\d+ open, \d+ waiting$/m);

  proc.kill("SIGTERM");
  const [code] = await once(proc, "exit");
  assert.equal(code, 0, stderr);
});

test("collie serve with COLLIE_DURABLE_SOCKET set and no sources.json entry for it shows that agent and says so (S-5)", async () => {
  const dir = tempDir();
  const socket = join(dir, "durable.sock");
  await startAgent("desk-agent.ts", ["--socket", socket]);
  const sources = join(dir, "sources.json");
  writeFileSync(sources, JSON.stringify({ durable: [] }));
  const state = join(dir, "state");
  const proc = collieProcess(["serve", "--sources", sources, "--state-dir", state, "--port", "0"], { COLLIE_DURABLE_SOCKET: socket });
  serving.push(proc);
  const out: string[] = [];
  let stderr = "";
  proc.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  createInterface({ input: proc.stdout! }).on("line", (l) => out.push(l));
  await until(() => out.some((l) => l.includes("listening on")), () => `the listening line; stdout ${out.join("\n")}; stderr ${stderr}`);
  assert.ok(out.includes(`collie: COLLIE_DURABLE_SOCKET is set, so Collie also shows the agent on ${socket} as "durable" (no sources.json entry names that socket).`), out.join("\n"));
  const listed = await until(async () => {
    const r = await collie(["agents", "--state-dir", state]);
    return /^durable\s+ready\s+local\s+\d+ open/m.test(r.stdout) ? r : undefined;
  }, "the agent on COLLIE_DURABLE_SOCKET listed ready");
  assert.equal(listed.code, 0);
  proc.kill("SIGTERM");
  await once(proc, "exit");
});
