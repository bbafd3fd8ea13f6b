/**
 * Stops and closes from the phone (S-20, S-24, S-30, P-16, P-19): an ask the agent's own stop or
 * close handler ends leaves no "Decided in the durable agent" line, an idle pane has nothing to
 * stop, and a reopen or starter hook may say there is nothing to open.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { AskClosed } from "../../src/core/layout.ts";
import type { Pane } from "../../src/core/layout.ts";
import { openRig, type Rig } from "../helpers/agent.ts";

const notices = (pane: Pane) => pane.view().items.filter((i) => i.kind === "notice").map((i) => (i as { text: string }).text);

describe("ending asks from the phone (P-16)", () => {
  let rig: Rig;
  before(async () => {
    rig = await openRig({
      hooks: { onReopen: () => null, onStarter: () => null },
      starters: [{ id: "later", title: "Later" }],
    });
  });
  after(() => rig.close());

  it("leaves no Decided line when the stop handler aborts the turn's ask", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("stop-abort");
    const controller = new AbortController();
    pane.onStop(() => controller.abort());
    const turnId = pane.beginTurn();
    const asked = pane.ask({ kind: "text", toolCallId: "c1", itemId: "i1", title: "Note for the courier", signal: controller.signal });
    const outcome = asked.then(() => null, (err: unknown) => err);
    const reply = await rig.phone.stop("stop-abort", turnId);
    assert.equal(reply.status, 200);
    const err = await outcome;
    assert.ok(err instanceof AskClosed);
    assert.equal(err.decidedBy, "program");
    assert.deepEqual(notices(pane), ["stopped"]);
  });

  it("leaves no Decided line when the close hook's work ends an ask", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("close-abort");
    const controller = new AbortController();
    const asked = pane.ask({ kind: "text", toolCallId: "c2", itemId: "i2", title: "Anything else?", signal: controller.signal });
    const outcome = asked.then(() => null, (err: unknown) => err);
    const before = pane.view().items.length;
    pane.onStop(() => {});
    // The agent's close hook is global; emulate its work with the signal inside phoneEnding.
    await pane.phoneEnding(() => controller.abort());
    assert.ok((await outcome) instanceof AskClosed);
    assert.equal(pane.view().items.length, before, "no chat line was written");
  });

  it("answers moved-on and runs nothing when the pane is idle", async () => {
    const pane = rig.collie.workspace("w").tab("t").pane("idle");
    let ran = 0;
    pane.onStop(() => void ran++);
    const reply = await rig.phone.stop("idle", null);
    assert.equal(reply.status, 409);
    assert.equal(reply.body.error, "moved-on");
    assert.equal(ran, 0);
    assert.deepEqual(notices(pane), []);
  });

  it("answers 404 when onReopen or onStarter return null", async () => {
    const reopened = await rig.phone.reopen({ kind: "pane", id: "gone" });
    assert.equal(reopened.status, 404);
    assert.equal(reopened.body.error, "not-found");
    const started = await rig.phone.starter("later");
    assert.equal(started.status, 404);
  });
});
