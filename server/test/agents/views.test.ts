/**
 * Views read on demand (issue: memory stays small): Collie mirrors only a short tail of each pane,
 * so its heap follows what phones look at, not what agents keep; a chat a phone opens gets the
 * pane's whole view, read from the agent and kept current while held; a watched chat whose agent
 * restarts gets its whole content again, never a tail.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { after, test } from "node:test";
import type { LiveMessage, PaneDetail } from "@colliepwa/shared";
import { MIRROR_TAIL_ITEMS } from "../../src/agents/mirror.ts";
import { killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { closeAllDaemons, TestDaemon } from "../helpers/daemon.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

after(async () => {
  await closeAllLive();
  await closeAllDaemons();
  await killAllAgents();
  removeTempDirs();
});

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const heapAfterGc = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const fixed = (socket: string) => ({ fixed: [{ name: "full", endpoint: { kind: "socket" as const, path: socket }, key: "full" }] });

/** The bound this design keeps: the tails of 200 panes are a few MB; their whole views were about 150 MB. */
const HEAP_BOUND_MB = 40;

test(`200 panes of 2000 items each: Collie's heap after GC grows by less than ${HEAP_BOUND_MB} MB`, { timeout: 240_000 }, async () => {
  const dir = tempDir();
  const socket = join(dir, "full.sock");
  await startAgent("full-agent.ts", ["--socket", socket, "--panes", "200", "--items", "2000"]);
  const before = heapAfterGc();
  const d = await TestDaemon.start({ sources: fixed(socket) });
  await until(async () => (await d.agent("full"))?.counts.open === 200, "200 panes mirrored", 120_000);
  const grown = (heapAfterGc() - before) / 2 ** 20;
  console.log(`# MEMORY views-on-demand panes=200 items=2000 heap-growth-mb=${grown.toFixed(1)} bound-mb=${HEAP_BOUND_MB}`);
  assert.ok(grown < HEAP_BOUND_MB, `heap grew ${grown.toFixed(1)} MB`);

  // Opening a chat reads its whole view from the agent.
  const open = await d.get<PaneDetail>("/api/agents/full/panes/p7");
  assert.equal(open.status, 200);
  assert.equal(open.body.items.length, 2000);
  assert.equal(open.body.items.at(-1)!.id, "i1999");
  await closeAllDaemons();
});

test("a chat's whole view is read when it opens, kept current while held, and sent whole again after the agent restarts", { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const socket = join(dir, "small.sock");
  const first = await startAgent("full-agent.ts", ["--socket", socket, "--panes", "2", "--items", "300"]);
  const d = await TestDaemon.start({ sources: fixed(socket) });
  await d.waitState("full", "ready");
  // What Collie mirrors of a pane nobody opened: the tail.
  assert.equal(d.daemon.agents.get("full")!.mirror.detail("p1")!.items.length, MIRROR_TAIL_ITEMS);
  assert.equal(d.daemon.agents.get("full")!.mirror.detail("p1")!.itemsCut, true);

  const live = await LiveClient.connect(d.wsUrl);
  live.send({ type: "watch", agent: "full", pane: "p0" });
  const view = await live.waitFor<Extract<LiveMessage, { type: "view" }>>((m) => m.type === "view" && m.paneId === "p0", "the view of p0");
  assert.equal(view.detail.items.length, 300, "the whole view, not the tail");

  // Kept current while held: a new item shows in the next read without losing the old ones.
  first.agent.send({ cmd: "item", pane: "p0", id: "late", text: "a late reply" });
  await live.waitFor((m) => m.type === "item" && m.paneId === "p0" && m.item.id === "late", "the late item");
  const again = await d.get<PaneDetail>("/api/agents/full/panes/p0");
  assert.equal(again.body.items.length, 301);
  assert.equal(again.body.items.at(-1)!.id, "late");

  // The agent restarts while the chat is open: the watcher gets the whole view again.
  const from = live.messages.length;
  await first.agent.kill();
  await d.waitState("full", "unreachable");
  await startAgent("full-agent.ts", ["--socket", socket, "--panes", "2", "--items", "300"]);
  const fresh = await live.waitFor<Extract<LiveMessage, { type: "view" }>>((m) => m.type === "view" && m.paneId === "p0", "the view after the restart", from);
  assert.equal(fresh.detail.items.length, 300);
  assert.ok(!live.messages.slice(from).some((m) => m.type === "view" && m.paneId === "p0" && m.detail.items.length === MIRROR_TAIL_ITEMS), "never a tail");
});

test("a phone that watches twelve chats at once gets each one's whole view, however few are read at a time", { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const socket = join(dir, "many.sock");
  await startAgent("full-agent.ts", ["--socket", socket, "--panes", "12", "--items", "400"]);
  const d = await TestDaemon.start({ sources: fixed(socket) });
  await d.waitState("full", "ready");
  const live = await LiveClient.connect(d.wsUrl);
  const panes = Array.from({ length: 12 }, (_, i) => `p${i}`);
  for (const pane of panes) live.send({ type: "watch", agent: "full", pane });
  for (const pane of panes) {
    const view = await live.waitFor<Extract<LiveMessage, { type: "view" }>>((m) => m.type === "view" && m.paneId === pane, `the view of ${pane}`);
    assert.equal(view.detail.items.length, 400, `${pane}: the whole view`);
  }
  // A chat opened meanwhile waits its turn, then gets its whole view too.
  const open = await d.get<PaneDetail>("/api/agents/full/panes/p3");
  assert.equal(open.body.items.length, 400);
});
