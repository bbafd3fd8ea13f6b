/** The member's phone-API path for a lead route (C-1): parameters filled in, the crew key replaced, the query kept. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { memberPath } from "../../src/crew/crew.ts";
import { crewKey } from "../../src/crew/member.ts";

test("a lead route becomes the member's route for the agent's own name, every parameter encoded", () => {
  assert.equal(crewKey("pi", "workshop"), "pi@workshop");
  assert.equal(
    memberPath("/api/agents/:agent/panes/:pane/asks/:ask/answer", { agent: "pi@workshop", pane: "p 1/x", ask: "a1" }, "pi", "/api/agents/pi%40workshop/panes/p%201%2Fx/asks/a1/answer"),
    "/api/agents/pi/panes/p%201%2Fx/asks/a1/answer",
  );
  assert.equal(memberPath("/api/agents/:agent/history", { agent: "pi@workshop" }, "pi", "/api/agents/pi@workshop/history?after=c9&limit=20"), "/api/agents/pi/history?after=c9&limit=20");
});
