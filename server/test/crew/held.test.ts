/** Actions a lead holds for a member it cannot reach (C-1, D-5): one hold per request id, oldest first, dropped after HOLD_MS. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { openStateDb } from "../../src/store/db.ts";
import { HOLD_MS } from "../../src/store/held-answers.ts";
import { HeldCrewActions } from "../../src/crew/held.ts";

const action = (requestId: string, heldAt: number, machine = "workshop") => ({
  machine, requestId, agent: "desk", action: "send", path: "/api/agents/desk/panes/p1/send", body: { requestId, text: `t ${requestId}` }, heldAt,
});

test("a retry of a held request id keeps the first hold; each member's are listed oldest first", () => {
  const held = new HeldCrewActions(openStateDb(":memory:"));
  held.hold(action("r2", 20));
  held.hold(action("r1", 10));
  held.hold({ ...action("r1", 30), body: { requestId: "r1", text: "changed" } });
  held.hold(action("r1", 5, "attic"));
  assert.deepEqual(held.forMachine("workshop").map((h) => [h.requestId, h.heldAt, h.body.text]), [["r1", 10, "t r1"], ["r2", 20, "t r2"]]);
  held.release("workshop", "r1");
  assert.deepEqual(held.forMachine("workshop").map((h) => h.requestId), ["r2"]);
  assert.deepEqual(held.forMachine("attic").map((h) => h.requestId), ["r1"]);
});

test("an action held longer than HOLD_MS is dropped and returned for the audit log", () => {
  const held = new HeldCrewActions(openStateDb(":memory:"));
  held.hold(action("old", 0));
  held.hold(action("new", HOLD_MS));
  assert.deepEqual(held.expire(HOLD_MS + 1).map((h) => h.requestId), ["old"]);
  assert.deepEqual(held.forMachine("workshop").map((h) => h.requestId), ["new"]);
});
