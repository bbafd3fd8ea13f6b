/**
 * What ./pi reads from Pi's sessions (S-35): where a stopped session was waiting on tool calls, and
 * Pi ids as wire ids. A session stopped half way through a batch runs the whole batch again.
 */
import { join } from "node:path";
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { fauxAssistantMessage, fauxToolCall } from "@mariozechner/pi-ai";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { wireId } from "../../src/pi/items.ts";
import { waitingOnTools } from "../../src/pi/sessions.ts";
import { piPane } from "../../src/pi/index.ts";
import { openRig } from "../helpers/agent.ts";
import { removeTempDirs, tempDir } from "../helpers/temp-dirs.ts";
import { fauxModel, piAgent, piTools } from "./rig.ts";

const user = (text: string): AgentMessage => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 });
const calls = (...ids: string[]): AgentMessage =>
  fauxAssistantMessage(ids.map((id) => fauxToolCall("read_file", { path: `${id}.md` }, { id })), { stopReason: "toolUse" });
const result = (id: string): AgentMessage => ({ role: "toolResult", toolCallId: id, toolName: "read_file", content: [{ type: "text", text: "ok" }], isError: false, timestamp: 2 });

describe("waitingOnTools", () => {
  it("finds the assistant message whose calls have no results", () => {
    const messages = [user("go"), calls("a", "b")];
    assert.deepEqual(waitingOnTools(messages), { index: 1, message: messages[1] });
  });

  it("finds it when only some results were saved", () => {
    const messages = [user("go"), calls("a", "b"), result("a")];
    assert.equal(waitingOnTools(messages)?.index, 1);
  });

  it("finds nothing when every call has its result, the turn ended, or the user spoke since", () => {
    assert.equal(waitingOnTools([user("go"), calls("a"), result("a")]), undefined);
    assert.equal(waitingOnTools([user("go"), fauxAssistantMessage("done")]), undefined);
    assert.equal(waitingOnTools([user("go"), calls("a"), user("never mind")]), undefined);
    assert.equal(waitingOnTools([]), undefined);
  });
});

describe("wireId", () => {
  it("keeps a Pi id that follows the ID rule and hashes one that does not, the same way every time", () => {
    assert.equal(wireId("toolu_01AbC"), "toolu_01AbC");
    assert.equal(wireId("call_1|fc_2"), "call_1|fc_2");
    const odd = wireId("call with spaces/and?slashes");
    assert.match(odd, /^h-[0-9a-f]{32}$/);
    assert.equal(wireId("call with spaces/and?slashes"), odd);
  });
});

describe("a session stopped half way through a batch", () => {
  after(removeTempDirs);

  it("runs the whole batch again and leaves the early result on an abandoned branch", async () => {
    const dir = tempDir("collie-pis-");
    const session = SessionManager.create(join(dir, "project"), join(dir, "sessions"));
    session.appendMessage(user("read both") as Parameters<SessionManager["appendMessage"]>[0]);
    session.appendMessage(calls("call-a", "call-b") as Parameters<SessionManager["appendMessage"]>[0]);
    const early = session.appendMessage(result("call-a") as Parameters<SessionManager["appendMessage"]>[0]);

    const rig = await openRig();
    const faux = fauxModel([fauxAssistantMessage("Read both.")]);
    try {
      const tools = piTools();
      const agent = piAgent(faux, [tools.readFile]);
      piPane(rig.collie.workspace("pi").tab("sessions"), agent, { id: "s-1", session });
      await agent.waitForIdle();
      assert.deepEqual(tools.ran.sort(), ["read call-a.md", "read call-b.md"]);
      const branch = session.getBranch().flatMap((e) => (e.type === "message" ? [e.message.role] : []));
      assert.deepEqual(branch, ["user", "assistant", "toolResult", "toolResult", "assistant"]);
      assert.ok(!session.getBranch().some((e) => e.id === early), "the early result is off the branch");
      assert.equal(session.getEntries().filter((e) => e.type === "message" && e.message.role === "assistant").length, 2, "the replayed call is not saved twice");
    } finally {
      faux.unregister();
      await rig.close();
    }
  });
});
