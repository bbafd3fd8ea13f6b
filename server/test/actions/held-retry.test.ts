/**
 * A phone's retry of an answer Collie held (202): when the retry is taken directly (200), the
 * held answer goes at once, its decision's draft with it, so no later delivery replays it, and
 * the chat's record of the held answer goes with it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import type { Ask, PaneDetail } from "@colliepwa/shared";
import { MemoryDesk } from "../helpers/memory-desk.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";
import { openStateDb } from "../../src/store/db.ts";
import { Decisions, draftDecision } from "../../src/store/decisions.ts";
import { HeldWrites } from "../../src/store/held.ts";
import { heldAnswer } from "../helpers/held.ts";

after(async () => {
  await closeAllDaemons();
  removeTempDirs();
});

const TOOL_CALL = "call-retried";

test("a held answer's retry taken directly releases the held answer and its draft", async () => {
  const dir = tempDir();
  const stateDir = join(dir, "state");
  const desk = await MemoryDesk.open({ ask: [TOOL_CALL] });
  const asked = desk.messages.find((m) => m.asked)!.asked as Ask;
  const id = requestId("retried");
  // Held before (the agent was away), on an ask the agent has not raised again yet, so only the
  // retry can end it.
  const state = openStateDb(stateDir);
  new HeldWrites(state).hold(heldAnswer({ requestId: id, revision: asked.revision }));
  new Decisions(state).hold(id, "desk", draftDecision("p1", { ...asked, id: "0123456789abcdef0123456789abcdef" }, { kind: "permission", optionId: "allow" }, "Pixel"));
  state.close();
  const d = await TestDaemon.inject({ sources: { fixed: [{ name: "desk", endpoint: desk.endpoint, key: "desk" }] }, stateDir });
  const ask = await until(async () => (await d.get<PaneDetail>("/api/agents/desk/panes/p1")).body.asks?.find((a) => a.toolCallId === TOOL_CALL), "the ask in p1");
  assert.equal(d.daemon.held.count(), 1);
  // Held: the chat's record of it, for every phone (issue #34).
  const before = await d.get<PaneDetail>("/api/agents/desk/panes/p1");
  assert.deepEqual(before.body.decisions?.map((x) => [x.askId, x.held, x.requestId, x.device]), [["0123456789abcdef0123456789abcdef", true, id, "Pixel"]]);
  const r = await d.post(`/api/agents/desk/panes/p1/asks/${ask.id}/answer`, { requestId: id, revision: ask.revision, answer: { kind: "permission", optionId: "allow" } });
  assert.equal(r.status, 200);
  assert.equal(d.daemon.held.count(), 0);
  // Taken: no longer held, and an answer the agent took leaves no line (P-16).
  const detail = await d.get<PaneDetail>("/api/agents/desk/panes/p1");
  assert.deepEqual(detail.body.decisions, []);
  await d.close();
});
