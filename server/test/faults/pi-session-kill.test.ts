/**
 * Issue 36, L-1, D-5, S-23 with Pi's own session: a program built on `createAgentSession` and
 * `piPane` (server/test/fixtures/agents/pi-session-agent.ts) is killed -9 while its bash card is
 * open; the phone taps Allow through a real Collie, which holds it (202); the program starts again
 * on the same session. The same tool call comes back as the same card, the held Allow is delivered
 * once, Pi's bash runs once, the session file has each message once, and the history reads on.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { PaneDetail } from "@colliepwa/shared";
import type { HistoryItemsPage, HistoryPage } from "@colliepwa/durable-sdk/wire";
import { askIdFor } from "@colliepwa/durable-sdk";
import { ChildAgent as FixtureAgent } from "../../../sdk/test/helpers/child-agent.ts";
import { AGENTS_DIR, killAllAgents } from "../helpers/child-agent.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

after(async () => {
  await closeAllLive();
  await closeAllDaemons();
  await killAllAgents();
  removeTempDirs();
});

/** Pi's coding agent takes seconds to load on a busy machine: the hang guard is wider than the usual one. */
const piAgent = (args: string[]) => new FixtureAgent("pi-session-agent.ts", args, {}, { dir: AGENTS_DIR, deadlineMs: 180_000 });

const roles = (file: string): string[] =>
  readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; message?: { role: string } })
    .filter((e) => e.type === "message").map((e) => e.message!.role);

describe("a Pi AgentSession killed with its card open (issue 36)", () => {
  test("the same card comes back after the restart, the held Allow lands once and bash runs once", { timeout: 600_000 }, async () => {
    const dir = tempDir("collie-pik-");
    const socket = join(dir, "pi.sock");
    const ledger = join(dir, "work", "ledger.txt");
    const first = piAgent([socket, dir]);
    const ready = await first.waitFor((m) => m.ready === true);
    const pane = ready.sessionId as string;
    const file = ready.file as string;
    const d = await TestDaemon.start({ sources: { fixed: [{ name: "pi", endpoint: { kind: "socket", path: socket }, key: "pi" }] } });
    const live = await LiveClient.connect(d.wsUrl);
    const detail = async () => (await d.get<PaneDetail>(`/api/agents/pi/panes/${encodeURIComponent(pane)}`)).body;

    const sent = await d.post(`/api/agents/pi/panes/${encodeURIComponent(pane)}/send`, { requestId: requestId("send"), text: "Deploy it" });
    assert.equal(sent.status, 200);
    const ask = await until(async () => (await detail()).asks?.[0], "the bash card");
    const call = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; message?: { role: string; content: { type: string; id: string }[] } })
      .find((e) => e.type === "message" && e.message!.role === "assistant")!.message!.content.find((b) => b.type === "toolCall")!.id;
    assert.equal(ask.id, askIdFor(pane, call), "the ask id is askIdFor(pane, Pi's tool call id)");
    assert.deepEqual(roles(file), ["user", "assistant"]);

    await first.kill("SIGKILL");
    await d.waitState("pi", "unreachable");
    const tap = requestId("tap");
    const answer = { requestId: tap, revision: ask.revision, answer: { kind: "permission", optionId: "allow" } };
    const held = await d.post(`/api/agents/pi/panes/${encodeURIComponent(pane)}/asks/${ask.id}/answer`, answer);
    assert.equal(held.status, 202, "Collie holds the answer while the program is down");
    assert.equal(existsSync(ledger), false, "nothing ran before the restart");

    const second = piAgent([socket, dir]);
    const again = await second.waitFor((m) => m.ready === true);
    assert.equal(again.sessionId, pane, "the same session continues");
    await second.waitFor((m) => m.reply === "Deployed.");
    const settled = await until(async () => {
      const view = await detail();
      const tool = view.items?.find((i) => i.kind === "tool") as { status?: string } | undefined;
      // The reply comes in a later page than the call's result: wait for it too.
      const replied = view.items?.some((i) => i.kind === "reply");
      return (view.asks ?? []).length === 0 && tool?.status === "done" && replied ? view : undefined;
    }, "the call done, its reply in, and no card open");
    assert.deepEqual(settled.items!.map((i) => i.kind).filter((k) => k !== "notice"), ["user", "tool", "reply"]);

    assert.equal(readFileSync(ledger, "utf8"), "deployed\n", "bash ran once, in the new process");
    assert.deepEqual(roles(file), ["user", "assistant", "toolResult", "assistant"], "each message once in Pi's session file");
    const outcomes = await until(() => (live.of("held-outcome").length > 0 ? live.of("held-outcome") : undefined), "the held answer's outcome");
    assert.deepEqual(outcomes.map((m) => m.status), [200], "the held Allow was delivered once");
    assert.equal(d.daemon.held.count(), 0);
    // The phone retrying its tap is a replay, never a second run.
    const retried = await d.post(`/api/agents/pi/panes/${encodeURIComponent(pane)}/asks/${ask.id}/answer`, answer);
    assert.equal(retried.status, 200);
    assert.equal(retried.body.replayed, true);
    assert.equal(readFileSync(ledger, "utf8"), "deployed\n");

    const rows = (await d.get<HistoryPage>("/api/agents/pi/history")).body.rows;
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.state, "open");
    const items = (await d.get<HistoryItemsPage>(`/api/agents/pi/history/${encodeURIComponent(pane)}/items`)).body.items;
    assert.deepEqual(items.map((i) => `${i.kind}${"status" in i ? `:${i.status}` : ""}`), ["user", "tool:done", "reply"]);
    await live.close();
    await d.close();
    await second.kill();
  });
});
