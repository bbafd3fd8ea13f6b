/**
 * An ask survives a restart of its agent (S-23, L-1): the same tool call raised again by a new
 * process has the same id and revision, so the phone's answer lands, and the refund runs once.
 */
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { askIdFor } from "../../src/core/ids.ts";
import { connectPhone } from "../../src/testing/index.ts";
import { killAllAgents, startAgent } from "../helpers/child-agent.ts";

describe("an open ask across an agent restart (S-23, L-1)", () => {
  const dir = mkdtempSync(join(tmpdir(), "collie-restart-"));
  const socket = join(dir, "run", "refunds.sock");
  const ledger = join(dir, "ledger.txt");
  after(async () => {
    await killAllAgents();
    rmSync(dir, { recursive: true, force: true });
  });

  it("documents the askIdFor vector for (ticket-1, call-1)", () => {
    assert.equal(askIdFor("ticket-1", "call-1"), "970f8a0b30368fbbcab73013d31d2d51");
  });

  it("is answered once after the agent is killed mid-ask and started again", async () => {
    const first = startAgent("refund-agent.ts", [socket, ledger]);
    await first.waitForKey("ready");
    const phone = connectPhone(socket);
    const before = await phone.waitForAsk({ paneId: "ticket-1" });
    assert.equal(before.id, "970f8a0b30368fbbcab73013d31d2d51");

    await first.kill("SIGKILL");
    phone.disconnect();
    // While the agent is down the answer cannot arrive (Collie holds it, D-5).
    await assert.rejects(connectPhone(socket).answer(before, { kind: "permission", optionId: "allow" }, { requestId: "tap-1" }));

    const second = startAgent("refund-agent.ts", [socket, ledger]);
    await second.waitForKey("ready");
    const again = connectPhone(socket);
    const after = await again.waitForAsk({ paneId: "ticket-1" });
    assert.equal(after.id, before.id, "the same tool call has the same ask id");
    assert.equal(after.revision, before.revision, "the same content has the same revision");

    const delivered = await again.answer(before, { kind: "permission", optionId: "allow" }, { requestId: "tap-1" });
    assert.equal(delivered.status, 200);
    const retried = await again.answer(before, { kind: "permission", optionId: "allow" }, { requestId: "tap-1" });
    assert.equal(retried.status, 200);
    assert.equal(retried.body.replayed, true);
    const other = await again.answer(before, { kind: "permission", optionId: "allow" }, { requestId: "tap-2" });
    assert.equal(other.body.error, "ask-answered");

    const decided = await second.waitForKey("decided");
    assert.equal((decided.decided as { approved: boolean }).approved, true);
    assert.ok(existsSync(ledger));
    assert.deepEqual(readFileSync(ledger, "utf8").trim().split("\n"), [`refund 5521 ${second.pid}`]);
    again.disconnect();
  });
});
