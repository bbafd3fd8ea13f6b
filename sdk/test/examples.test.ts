/**
 * The README's quick start runs as written (S-5, S-9, S-21): started as its own process with the
 * socket from COLLIE_DURABLE_SOCKET, it shows its conversation, takes a message, asks before the
 * refund and finishes the turn after an Allow from the phone.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connectPhone, type FakePhone } from "../src/testing/index.ts";
import { NODE_FLAGS } from "./helpers/child-agent.ts";

const root = join(import.meta.dirname, "..", "..");

describe("examples/quick-start.ts (the README quick start)", () => {
  let dir: string;
  let agent: ChildProcess;
  let phone: FakePhone;
  let socket: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "collie-qs-"));
    socket = join(dir, "run", "desk.sock");
    agent = spawn(process.execPath, [...NODE_FLAGS, join(root, "sdk/examples/quick-start.ts")], {
      cwd: root,
      env: { ...process.env, COLLIE_DURABLE_SOCKET: socket },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const lines = createInterface({ input: agent.stdout! });
    const first = await new Promise<string>((resolve, reject) => {
      lines.once("line", resolve);
      agent.once("exit", (code) => reject(new Error(`quick start exited with ${code}`)));
    });
    assert.deepEqual(JSON.parse(first), { ready: true, socket });
    phone = connectPhone(socket);
  });

  after(async () => {
    phone?.disconnect();
    if (agent && agent.exitCode === null) {
      const gone = new Promise((r) => agent.once("exit", r));
      agent.kill("SIGTERM");
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows the Support workspace with Maria Lopez's ticket", async () => {
    const hello = await phone.hello();
    assert.equal(hello.name, "desk");
    const layout = await phone.layout();
    assert.equal(layout.ready, true);
    assert.deepEqual(layout.workspaces, [{ id: "support", title: "Support" }]);
    assert.deepEqual(layout.tabs, [{ id: "support:main", workspaceId: "support", title: "Tickets" }]);
    assert.equal(layout.panes[0]?.title, "Maria Lopez");
    assert.equal(layout.panes[0]?.harness, "desk");
  });

  it("asks before the refund and finishes the turn after Allow", async () => {
    const sent = await phone.send("ticket-1", "Please refund me");
    assert.equal(sent.status, 200);
    const ask = await phone.waitForAsk({ paneId: "ticket-1" });
    assert.equal(ask.kind, "permission");
    assert.equal(ask.title, "refund wants to run");
    assert.deepEqual(ask.tool, { name: "refund", call: 'refund(order: "5521", amount: 40)' });
    const answered = await phone.answer(ask, { kind: "permission", optionId: "allow" });
    assert.equal(answered.status, 200);
    // Follow the events until the pane is idle again, then read what it shows.
    for (let state = ""; state !== "idle"; ) {
      const page = await phone.events({ wait: 10_000 });
      for (const e of page.events) if (e.type === "state") state = e.summary.state;
      for (const v of page.views) state = v.pane.state;
    }
    const view = await phone.pane("ticket-1");
    const kinds = view.items.map((i) => i.kind);
    assert.deepEqual(kinds, ["notice", "user", "tool", "reply"]);
    const tool = view.items.find((i) => i.kind === "tool");
    assert.equal(tool?.kind === "tool" && tool.status, "done");
  });
});
