/** The member's phone-API path for a lead route (C-1): parameters filled in, the crew key replaced, the query kept. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { crewKey, memberRoutePath } from "../../src/crew/member.ts";

test("a lead route becomes the member's route for the agent's own name, every parameter encoded", () => {
  assert.equal(crewKey("pi", "workshop"), "pi@workshop");
  assert.equal(memberRoutePath("answer", "pi", { pane: "p 1/x", ask: "a1" }, ""), "/api/agents/pi/panes/p%201%2Fx/asks/a1/answer");
  assert.equal(memberRoutePath("history", "pi", {}, "?after=c9&limit=20"), "/api/agents/pi/history?after=c9&limit=20");
  // A crew key given as a parameter never replaces the agent's own name on the member.
  assert.equal(memberRoutePath("rename", "pi", { agent: "pi@workshop" }, ""), "/api/agents/pi/rename");
});
