/**
 * An answer that comes while Collie is still starting its link to the agent (Collie just restarted,
 * or a crew lead delivers the moment its member is back): it waits for the agent's asks a moment,
 * as every action does (STARTING_WAIT_MS), then reaches the agent and leaves its decision (issue
 * #34's record of who answered). Held without a decision, the chat and the lead's phone would never
 * learn who allowed it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import type { LiveMessage } from "@colliepwa/shared";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { fakeHello, fakeSummary } from "../helpers/fake-agent.ts";
import { HostileAgent, type HostileReply } from "../helpers/hostile-agent.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

const hostile: HostileAgent[] = [];
after(async () => {
  await closeAllLive();
  await closeAllDaemons();
  for (const h of hostile) await h.close();
  removeTempDirs();
});

const json = (v: unknown): HostileReply => ({ status: 200, body: JSON.stringify(v) });
const ASK = {
  id: "0123456789abcdef0123456789abcdef", revision: "0123456789abcdef", kind: "permission", paneId: "p1",
  toolCallId: "call-1", itemId: "tool-1", title: "Refund 20 EUR", tool: { name: "refund" },
  options: [{ id: "allow", kind: "allow", label: "Allow" }, { id: "deny", kind: "deny", label: "Deny" }],
  createdAt: "2026-12-02T14:00:00.000Z",
};

test("an answer sent while the agent's first page is on its way reaches the agent and leaves its decision", { timeout: 30_000 }, async () => {
  const dir = tempDir();
  const taken: string[] = [];
  // An agent whose first page takes 600 ms: Collie is `starting` all that time, and knows no ask.
  const agent = new HostileAgent((req) => {
    if (req.url.pathname === "/durable/hello") return json(fakeHello({ instance: "slow0001" }));
    if (req.url.pathname.endsWith("/events")) {
      if (!req.url.searchParams.has("after")) {
        const pane = fakeSummary("p1", { state: "waiting", openAsks: 1 });
        return { delayMs: 600, then: json({
          cursor: "slow0001.1", reset: true,
          layout: { ready: true, workspaces: [{ id: "w", title: "W" }], tabs: [{ id: "w:t", workspaceId: "w", title: "T" }], panes: [pane] },
          views: [{ pane, items: [], itemsCut: false, asks: [ASK] }], events: [],
        }) };
      }
      return { stall: true };
    }
    if (req.method === "POST" && req.url.pathname.endsWith("/answer")) {
      taken.push(req.url.pathname);
      return json({ ok: true, decidedAt: "2026-12-02T14:00:01.000Z" });
    }
    return { status: 404, body: JSON.stringify({ error: "not-found", message: "No such route." }) };
  });
  await agent.listen(join(dir, "slow.sock"));
  hostile.push(agent);
  const d = await TestDaemon.start({ sources: { fixed: [{ name: "slow", endpoint: { kind: "socket", path: join(dir, "slow.sock") }, key: "slow" }] } });
  const live = await LiveClient.connect(d.wsUrl);
  assert.equal((await d.agent("slow"))?.state, "starting", "the answer below comes while Collie is still starting");
  const id = requestId("starting");
  const r = await d.post(`/api/agents/slow/panes/p1/asks/${ASK.id}/answer`, { requestId: id, revision: ASK.revision, answer: { kind: "permission", optionId: "allow" } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(taken.length, 1, "the agent took it at once, not later from a hold");
  const decision = await live.waitFor<Extract<LiveMessage, { type: "decision" }>>((m) => m.type === "decision" && m.decision.askId === ASK.id, "the decision");
  assert.equal(decision.decision.optionKind, "allow");
  assert.equal(decision.decision.title, "Refund 20 EUR");
});
