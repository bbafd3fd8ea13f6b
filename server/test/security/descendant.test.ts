/**
 * The descendant check seen through the daemon (S-7): a process the agent started is refused on
 * the agent's socket, while the daemon (the agent's parent here, not its descendant) answers.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { closeAllDaemons, TestDaemon } from "../helpers/daemon.ts";
import { killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

after(async () => {
  await closeAllDaemons();
  await killAllAgents();
  removeTempDirs();
});

describe("the descendant check through the daemon (S-7)", () => {
  test("the daemon's answer lands while a child process of the agent is refused", async () => {
    const dir = tempDir();
    const socket = join(dir, "ask.sock");
    const { agent } = await startAgent("../../../../sdk/test/fixtures/agents/ask-agent.ts", [socket]);
    const d = await TestDaemon.start({ sources: { fixed: [{ name: "ask", endpoint: { kind: "socket", path: socket }, key: "a" }] } });
    await d.waitState("ask", "ready");
    agent.send({ id: "c1", cmd: "child", op: "answer" });
    const child = await agent.waitFor((m) => m.id === "c1");
    assert.equal((child.child as { status: number }).status, 403);
    const snap = await d.snapshot();
    const conv = snap.conversations.find((c) => c.agent === "ask")!;
    const detail = await d.get<{ asks: { id: string; revision: string }[] }>(`/api/agents/ask/panes/${conv.id}`);
    const ask = detail.body.asks[0]!;
    const answered = await d.post(`/api/agents/ask/panes/${conv.id}/asks/${ask.id}/answer`, { requestId: "phone-1", revision: ask.revision, answer: { kind: "permission", optionId: "allow" } });
    assert.equal(answered.status, 200);
    await agent.waitFor((m) => "answered" in m);
  });
});

