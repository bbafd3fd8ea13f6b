/**
 * A Pi session that stopped while it waited on a risky tool call (S-23, S-35): the agent is killed
 * with the card open, started again from its SessionManager file, raises the same ask id, and the
 * answer Collie held lands once: the tool runs once, in the new process, and the session reads on.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { askIdFor } from "../../src/core/ids.ts";
import { connectPhone } from "../../src/testing/index.ts";
import type { PermissionAsk } from "../../src/wire/types.ts";
import { killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { removeTempDirs, tempDir } from "../helpers/temp-dirs.ts";

describe("a Pi session across an agent restart (S-23, S-35)", () => {
  after(async () => {
    await killAllAgents();
    removeTempDirs();
  });

  it("raises the same ask again from the session file, and a held answer lands once", async () => {
    const dir = tempDir("collie-pi-");
    const socket = join(dir, "pi.sock");
    const cwd = join(dir, "project");
    const sessions = join(dir, "sessions");
    const ledger = join(dir, "ledger.txt");
    const args = [socket, cwd, sessions, ledger];

    const first = startAgent("pi-agent.ts", args);
    const ready = await first.waitForKey("ready");
    const phone = connectPhone(socket);
    assert.equal((await phone.send("s-deploy", "Deploy it", { requestId: "r-1" })).status, 200);
    const before = (await phone.waitForAsk({ paneId: "s-deploy" })) as PermissionAsk;
    const saved = readFileSync(ready.file as string, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const call = saved.find((e) => e.type === "message" && e.message.role === "assistant").message.content[0];
    assert.equal(call.type, "toolCall");
    assert.equal(before.id, askIdFor("s-deploy", call.id), "the ask id is askIdFor(pane id, Pi's tool call id)");

    await first.kill("SIGKILL");
    phone.disconnect();
    await assert.rejects(connectPhone(socket).answer(before, { kind: "permission", optionId: "allow" }, { requestId: "tap-1" }));
    assert.equal(existsSync(ledger), false, "nothing ran before the answer");

    const second = startAgent("pi-agent.ts", args);
    const again = await second.waitForKey("ready");
    assert.equal(again.sessionId, ready.sessionId, "the same session continues");
    const phone2 = connectPhone(socket);
    const raised = await phone2.waitForAsk({ paneId: "s-deploy" });
    assert.equal(raised.id, before.id, "the same tool call raises the same ask id");
    assert.equal(raised.revision, before.revision);

    const allow = before.options.find((o) => o.kind === "allow")!.id;
    const delivered = await phone2.answer(before, { kind: "permission", optionId: allow }, { requestId: "tap-1" });
    assert.equal(delivered.status, 200);
    const replayed = await phone2.answer(before, { kind: "permission", optionId: allow }, { requestId: "tap-1" });
    assert.equal(replayed.body.replayed, true);
    const other = await phone2.answer(before, { kind: "permission", optionId: allow }, { requestId: "tap-2" });
    assert.equal(other.body.error, "ask-answered");

    await second.waitFor((m) => m.reply === "Deployed.");
    assert.deepEqual(readFileSync(ledger, "utf8").trim().split("\n"), [`deploy ${second.pid}`], "the tool ran once, after the restart");

    const entries = readFileSync(ready.file as string, "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.type === "message");
    assert.deepEqual(entries.map((e) => e.message.role), ["user", "assistant", "toolResult", "assistant"], "the replayed call is saved once");

    const rows = await phone2.history();
    assert.equal(rows.body.rows.length, 1);
    assert.equal(rows.body.rows[0]!.id, ready.sessionId);
    assert.equal(rows.body.rows[0]!.state, "open");
    const items = await phone2.historyItems(ready.sessionId as string);
    assert.deepEqual(items.body.items.map((i) => `${i.kind}${"status" in i ? `:${i.status}` : ""}`), ["user", "tool:done", "reply"]);
    phone2.disconnect();
  });
});
