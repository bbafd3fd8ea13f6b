/**
 * piHistory (S-31, S-35): Pi's own saved sessions (SessionManager's JSONL files) are the history
 * the phone reads, over the real socket. Conversations are run by real Pi agents on the faux model.
 */
import { join } from "node:path";
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall, type Context } from "@mariozechner/pi-ai";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { piHistory, piPane } from "../../src/pi/index.ts";
import type { PermissionAsk } from "../../src/wire/types.ts";
import { openRig } from "../helpers/agent.ts";
import { removeTempDirs, tempDir } from "../helpers/temp-dirs.ts";
import { fauxModel, piAgent, piTools } from "./rig.ts";

const summary = (items: { kind: string; status?: string; text?: string }[]) =>
  items.map((i) => `${i.kind}${i.status ? `:${i.status}` : ""}${i.text ? ` ${i.text}` : ""}`);

describe("piHistory (S-31, S-35)", () => {
  after(removeTempDirs);

  it("lists every saved session, open while a pane shows it, and pages its items", async () => {
    const dir = tempDir("collie-pih-");
    const cwd = join(dir, "project");
    const sessionDir = join(dir, "sessions");
    const rig = await openRig();
    const faux = fauxModel([
      fauxAssistantMessage([fauxThinking("The README is short."), fauxToolCall("read_file", { path: "README.md" })], { stopReason: "toolUse" }),
      fauxAssistantMessage("It says hello."),
      fauxAssistantMessage([fauxToolCall("bash", { command: "rm -rf build" })], { stopReason: "toolUse" }),
      fauxAssistantMessage([fauxText("Left the build folder alone.")]),
    ]);
    try {
      const tools = piTools();
      const tab = rig.collie.workspace("pi", { title: "Pi" }).tab("sessions", { title: "Sessions" });
      const readSession = SessionManager.create(cwd, sessionDir);
      const reader = piAgent(faux, [tools.readFile]);
      const readPane = piPane(tab, reader, { id: "s-read", session: readSession });
      rig.collie.history(piHistory({ cwd, sessionDir }));
      rig.collie.ready();
      assert.equal(readPane.sessionId, readSession.getSessionId(), "the pane's sessionId is the Pi session's id");

      await rig.phone.send("s-read", "What does the README say?", { requestId: "r-1" });
      await reader.waitForIdle();

      const cleanSession = SessionManager.create(cwd, sessionDir);
      cleanSession.appendSessionInfo("Clean the build");
      const cleaner = piAgent(faux, [tools.bash]);
      piPane(tab, cleaner, { id: "s-clean", session: cleanSession, risky: (c) => c.toolName === "bash" });
      await rig.phone.send("s-clean", "Clean up", { requestId: "r-2" });
      const ask = (await rig.phone.waitForAsk({ paneId: "s-clean" })) as PermissionAsk;
      await rig.phone.answer(ask, { kind: "permission", optionId: ask.options.find((o) => o.kind === "deny")!.id }, { requestId: "tap-1" });
      await cleaner.waitForIdle();

      // Rows, newest first, one per page.
      const first = await rig.phone.history({ limit: 1 });
      assert.equal(first.status, 200);
      assert.equal(first.body.rows.length, 1);
      assert.ok(first.body.next, "a second page follows");
      const second = await rig.phone.history({ limit: 1, after: first.body.next! });
      assert.equal(second.body.next, undefined, "no next ends the list");
      const [clean, read] = [first.body.rows[0]!, second.body.rows[0]!];
      assert.equal(clean.id, cleanSession.getSessionId());
      assert.equal(clean.title, "Clean the build", "a named session shows its name");
      assert.equal(read.id, readSession.getSessionId());
      assert.equal(read.title, "What does the README say?", "an unnamed one its first user message");
      for (const row of [clean, read]) {
        assert.equal(row.state, "open");
        assert.equal(row.endedAt, undefined);
        assert.equal(row.workspaceId, "pi");
        assert.equal(row.tabId, "pi:sessions");
        assert.ok(Date.parse(row.startedAt) > 0);
      }
      assert.equal(read.items, 4);
      assert.equal(clean.items, 3);

      // Items, two per page, with the cursor.
      const page1 = await rig.phone.historyItems(read.id, { limit: 2 });
      assert.equal(page1.status, 200);
      const page2 = await rig.phone.historyItems(read.id, { limit: 2, after: page1.body.next! });
      assert.equal(page2.body.next, undefined);
      assert.deepEqual(summary([...page1.body.items, ...page2.body.items] as never), [
        "user What does the README say?",
        "thinking The README is short.",
        "tool:done",
        "reply It says hello.",
      ]);
      const tool = page2.body.items[0] as { call?: string; output?: string };
      assert.equal(tool.call, 'read_file(path: "README.md")');
      assert.equal(tool.output, "contents of README.md");

      const cleanItems = await rig.phone.historyItems(clean.id);
      assert.deepEqual(summary(cleanItems.body.items as never), ["user Clean up", "tool:denied", "reply Left the build folder alone."]);

      // A closed pane's session is closed, with an end.
      readPane.close();
      const after = await rig.phone.history();
      const closed = after.body.rows.find((r) => r.id === read.id)!;
      assert.equal(closed.state, "closed");
      assert.ok(closed.endedAt && Date.parse(closed.endedAt) >= Date.parse(closed.startedAt));
      assert.equal((await rig.phone.historyItems("no-such-session")).status, 404);
    } finally {
      faux.unregister();
      await rig.close();
    }
  });

  it("starts a pane's agent from its saved session, so the conversation goes on", async () => {
    const dir = tempDir("collie-pih-");
    const cwd = join(dir, "project");
    const sessionDir = join(dir, "sessions");
    let seen: Context | undefined;
    const faux = fauxModel([
      fauxAssistantMessage("Noted: the port is 8080."),
      (context) => {
        seen = context;
        return fauxAssistantMessage("8080.");
      },
    ]);
    const rig = await openRig();
    try {
      const tab = rig.collie.workspace("pi").tab("sessions");
      const session = SessionManager.create(cwd, sessionDir);
      const first = piAgent(faux, []);
      piPane(tab, first, { id: "s-1", session });
      await rig.phone.send("s-1", "Remember: the port is 8080", { requestId: "r-1" });
      await first.waitForIdle();
      rig.collie.pane("s-1")!.close();

      const reopened = SessionManager.open(session.getSessionFile()!, sessionDir);
      const second = piAgent(faux, []);
      piPane(tab, second, { id: "s-1b", session: reopened });
      assert.equal(second.state.messages.length, 2, "the agent starts from the saved messages");
      await rig.phone.send("s-1b", "Which port?", { requestId: "r-2" });
      await second.waitForIdle();
      const texts = seen!.messages.map((m) => m.role);
      assert.deepEqual(texts, ["user", "assistant", "user"]);
    } finally {
      faux.unregister();
      await rig.close();
    }
  });

  it("checks its options and cursors", async () => {
    assert.throws(() => piHistory(null as never), TypeError);
    assert.throws(() => piHistory({ cwd: "" }), /cwd/);
    assert.throws(() => piHistory({ sessionDir: "/tmp/x" }), /sessionDir goes with cwd/);
    const dir = tempDir("collie-pih-");
    const provider = piHistory({ cwd: dir, sessionDir: join(dir, "none") });
    assert.deepEqual(await provider.list({ limit: 10 }), { rows: [] });
    assert.equal(await provider.items("nope", { limit: 10 }), null);
    await assert.rejects(async () => provider.list({ after: "x y", limit: 10 }), RangeError);
  });
});
