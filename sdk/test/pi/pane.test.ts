/**
 * piPane (S-35) over the real socket: a real Pi `Agent` on the faux provider, the fake phone of
 * ./testing on the other end. Pi → phone (items, turns, cards) and phone → Pi (send, steer, stop).
 */
import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall, type Context, type FauxProviderRegistration } from "@mariozechner/pi-ai";
import { askIdFor } from "../../src/core/ids.ts";
import { piPane, PI_HARNESS, PI_HOST_NAME } from "../../src/pi/index.ts";
import type { Item, PermissionAsk, ToolItem } from "../../src/wire/types.ts";
import { openRig, type Rig } from "../helpers/agent.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { EventWatch, fauxModel, lastState, piAgent, piTools } from "./rig.ts";

const toolUse = (call: ReturnType<typeof fauxToolCall>) => fauxAssistantMessage([call], { stopReason: "toolUse" });
const allowId = (ask: PermissionAsk, kind: string) => ask.options.find((o) => o.kind === kind)!.id;
const isDone = (pane: string) => (events: EventWatch["events"]) =>
  events.some((e) => e.type === "state" && e.pane === pane && e.summary.state === "working") && lastState(events, pane) === "idle";

describe("piPane (S-35)", () => {
  let rig: Rig | undefined;
  let faux: FauxProviderRegistration | undefined;
  afterEach(async () => {
    await rig?.close();
    faux?.unregister();
    rig = faux = undefined;
  });

  async function setup(responses: Parameters<typeof fauxModel>[0], opts: { tokensPerSecond?: number; clock?: ManualClock } = {}) {
    rig = await openRig({ hostName: PI_HOST_NAME, ...(opts.clock ? { clock: opts.clock } : {}) });
    faux = fauxModel(responses, opts);
    const tools = piTools();
    const agent = piAgent(faux, [tools.bash, tools.readFile, tools.wait]);
    const tab = rig.collie.workspace("pi", { title: "Pi" }).tab("sessions", { title: "Sessions" });
    const watch = new EventWatch(rig.phone);
    return { rig, faux, tools, agent, tab, watch, phone: rig.phone };
  }

  it("streams a reply as partial items, then writes it once more whole; a run is one turn", async () => {
    const text = "The flaky test waits on a timer that the suite never advances; inject the clock instead.";
    const { agent, tab, watch, phone } = await setup([fauxAssistantMessage([fauxThinking("Look at the timer."), fauxText(text)])], { tokensPerSecond: 150 });
    const pane = piPane(tab, agent, { id: "s-2041", title: "Fix the flaky test" });
    await watch.prime();
    assert.equal(pane.summary().harness, PI_HARNESS);

    const sent = await phone.send("s-2041", "Why is the test flaky?", { requestId: "r-1" });
    assert.equal(sent.status, 200);
    assert.equal(sent.body.turnId, pane.turnId);
    await watch.until(isDone("s-2041"));

    const replies = watch.items("s-2041").filter((i) => i.kind === "reply");
    const ids = new Set(replies.map((r) => r.id));
    assert.equal(ids.size, 1, "one reply item, rewritten in place");
    assert.ok(replies.length >= 2);
    assert.ok(replies.slice(0, -1).every((r) => "partial" in r && r.partial === true), "every write before the last is partial");
    assert.ok(replies.slice(0, -1).every((r) => text.startsWith((r as { text: string }).text)), "partial text grows toward the final");
    const last = replies.at(-1)!;
    assert.equal((last as { text: string }).text, text);
    assert.equal("partial" in last ? last.partial : undefined, undefined);

    const kinds = watch.latest("s-2041").map((i) => i.kind);
    assert.deepEqual(kinds, ["user", "thinking", "reply"], "the echo first, then the thinking, then the reply");
    assert.equal((watch.latest("s-2041")[0] as { requestId?: string }).requestId, "r-1");
    assert.equal(pane.currentState(), "idle");
  });

  it("raises a card for a risky call, runs nothing until Allow, then runs it exactly once", async () => {
    const call = fauxToolCall("bash", { command: "npm test" });
    const { agent, tab, watch, phone, tools } = await setup([toolUse(call), fauxAssistantMessage("All 212 tests pass.")]);
    const pane = piPane(tab, agent, {
      id: "s-2041",
      risky: (c) => c.toolName === "bash",
      approval: (c) => ({ title: `${c.toolName} wants to run`, push: { line: `${c.toolName} needs a yes` } }),
    });
    await watch.prime();
    await phone.send("s-2041", "Run the tests", { requestId: "r-1" });

    const ask = (await phone.waitForAsk({ paneId: "s-2041" })) as PermissionAsk;
    assert.equal(ask.id, askIdFor("s-2041", call.id), "the ask id comes from askIdFor(pane.id, toolCall.id)");
    assert.equal(ask.title, "bash wants to run");
    assert.equal(ask.tool?.call, 'bash(command: "npm test")');
    assert.deepEqual(ask.options.map((o) => o.kind), ["allow", "allow-always", "deny"]);
    await watch.until((events) => events.some((e) => e.type === "item" && e.item.kind === "tool"));
    const running = watch.latest("s-2041").find((i): i is ToolItem => i.kind === "tool")!;
    assert.equal(ask.itemId, running.id, "the card sits under its tool line");
    assert.equal(running.status, "running");
    assert.equal(pane.currentState(), "waiting");
    assert.deepEqual(tools.ran, [], "nothing ran before the answer");

    const answered = await phone.answer(ask, { kind: "permission", optionId: allowId(ask, "allow") }, { requestId: "tap-1" });
    assert.equal(answered.status, 200);
    await watch.until(isDone("s-2041"));
    await agent.waitForIdle();
    assert.deepEqual(tools.ran, ["npm test"], "it ran exactly once");
    const items = watch.latest("s-2041");
    const tool = items.find((i): i is ToolItem => i.kind === "tool")!;
    assert.equal(tool.status, "done");
    assert.equal(tool.output, "ran: npm test");
    assert.equal((items.at(-1) as { kind: string; text: string }).text, "All 212 tests pass.");
    const again = await phone.answer(ask, { kind: "permission", optionId: allowId(ask, "allow") }, { requestId: "tap-2" });
    assert.equal(again.body.error, "ask-answered");
  });

  it("leaves a denied call unrun; Pi gets the blocked result and goes on", async () => {
    const call = fauxToolCall("bash", { command: "rm -rf build" });
    let seen: Context | undefined;
    const { agent, tab, watch, phone, tools } = await setup([
      toolUse(call),
      (context) => {
        seen = context;
        return fauxAssistantMessage("I will not delete the build folder.");
      },
    ]);
    piPane(tab, agent, { id: "s-1", risky: (c) => c.toolName === "bash", blockedReason: (c, by) => `refused ${c.toolName} (${by})` });
    await watch.prime();
    await phone.send("s-1", "Clean up", { requestId: "r-1" });
    const ask = (await phone.waitForAsk({ paneId: "s-1" })) as PermissionAsk;
    await phone.answer(ask, { kind: "permission", optionId: allowId(ask, "deny") }, { requestId: "tap-1" });
    await watch.until(isDone("s-1"));
    await agent.waitForIdle();

    assert.deepEqual(tools.ran, []);
    const tool = watch.latest("s-1").find((i): i is ToolItem => i.kind === "tool")!;
    assert.equal(tool.status, "denied");
    const result = seen!.messages.find((m) => m.role === "toolResult");
    assert.ok(result && result.role === "toolResult");
    assert.equal(result.isError, true);
    assert.deepEqual(result.content, [{ type: "text", text: "refused bash (phone)" }]);
    assert.equal((watch.latest("s-1").at(-1) as { text: string }).text, "I will not delete the build folder.");
  });

  it("skips the card for a tool after Always allow, in that pane only", async () => {
    const { agent, tab, watch, phone, tools, faux } = await setup([
      toolUse(fauxToolCall("bash", { command: "ls" })),
      fauxAssistantMessage("Listed."),
      toolUse(fauxToolCall("bash", { command: "pwd" })),
      fauxAssistantMessage("Printed."),
    ]);
    piPane(tab, agent, { id: "s-1", risky: (c) => c.toolName === "bash" });
    await watch.prime();
    await phone.send("s-1", "List", { requestId: "r-1" });
    const ask = (await phone.waitForAsk({ paneId: "s-1" })) as PermissionAsk;
    await phone.answer(ask, { kind: "permission", optionId: allowId(ask, "allow-always") }, { requestId: "tap-1" });
    await watch.until(isDone("s-1"));
    await agent.waitForIdle();

    await phone.send("s-1", "Where am I?", { requestId: "r-2" });
    await watch.until((events) => events.filter((e) => e.type === "item" && e.item.kind === "reply" && e.item.text === "Printed." && !e.item.partial).length === 1);
    await agent.waitForIdle();
    assert.deepEqual(tools.ran, ["ls", "pwd"]);
    assert.equal(watch.events.filter((e) => e.type === "ask").length, 1, "one card for two calls");

    // Another pane's agent still asks: allow-always is remembered per pane.
    const other = piAgent(faux, [tools.bash]);
    faux.appendResponses([toolUse(fauxToolCall("bash", { command: "whoami" })), fauxAssistantMessage("Done.")]);
    piPane(tab, other, { id: "s-2", risky: (c) => c.toolName === "bash" });
    await watch.prime();
    await phone.send("s-2", "Who?", { requestId: "r-3" });
    const second = await phone.waitForAsk({ paneId: "s-2" });
    assert.equal(second.paneId, "s-2");
    assert.deepEqual(tools.ran, ["ls", "pwd"]);
  });

  it("stops the run on the phone's stop: Pi aborts, the pane goes idle", async () => {
    const { agent, tab, watch, phone, tools, faux } = await setup([toolUse(fauxToolCall("wait", {})), fauxAssistantMessage("never")]);
    const pane = piPane(tab, agent, { id: "s-1" });
    await watch.prime();
    const sent = await phone.send("s-1", "Wait", { requestId: "r-1" });
    await tools.waiting;
    assert.equal(agent.state.isStreaming, true);
    const stopped = await phone.stop("s-1", sent.body.turnId as string, { requestId: "r-2" });
    assert.equal(stopped.status, 200);
    assert.equal(agent.state.isStreaming, false, "the run ended before the stop was answered");
    await watch.until((events) => events.some((e) => e.type === "item" && e.item.kind === "notice" && e.item.stopped === true));
    assert.equal(pane.currentState(), "idle");
    const tool = watch.latest("s-1").find((i): i is ToolItem => i.kind === "tool")!;
    assert.equal(tool.status, "failed");
    await agent.waitForIdle();
    assert.ok(!watch.items("s-1").some((i) => i.kind === "reply"), "Pi wrote no reply after the stop");
    void faux;
  });

  it("blocks the call when the phone stops the run while its card is open", async () => {
    const { agent, tab, watch, phone, tools } = await setup([toolUse(fauxToolCall("bash", { command: "make deploy" })), fauxAssistantMessage("never")]);
    const pane = piPane(tab, agent, { id: "s-1", risky: (c) => c.toolName === "bash" });
    await watch.prime();
    await phone.send("s-1", "Deploy", { requestId: "r-1" });
    const ask = await phone.waitForAsk({ paneId: "s-1" });
    const stopped = await phone.stop("s-1", pane.turnId, { requestId: "r-2" });
    assert.equal(stopped.status, 200);
    assert.equal(agent.state.isStreaming, false);
    await watch.until((events) => events.some((e) => e.type === "item" && e.item.kind === "notice" && e.item.stopped === true));
    assert.deepEqual(tools.ran, []);
    assert.equal(pane.openAsks, 0);
    assert.ok(watch.events.some((e) => e.type === "ask-closed" && e.askId === ask.id && e.decidedBy === "program"));
    assert.ok(!watch.items("s-1").some((i) => i.kind === "notice" && i.text.startsWith("Decided in the durable agent")), "a stop from the phone leaves no Decided line (P-16)");
    const tool = watch.latest("s-1").find((i): i is ToolItem => i.kind === "tool")!;
    assert.equal(tool.status, "denied");
    assert.ok(!watch.items("s-1").some((i) => i.kind === "reply"));
  });

  it("blocks the call when its card times out, and Pi goes on with the reason", async () => {
    const clock = new ManualClock(Date.now());
    let seen: Context | undefined;
    const { agent, tab, watch, phone, tools } = await setup([
      toolUse(fauxToolCall("bash", { command: "make deploy" })),
      (context) => {
        seen = context;
        return fauxAssistantMessage("Nobody answered, so I did not deploy.");
      },
    ], { clock });
    piPane(tab, agent, { id: "s-1", risky: (c) => c.toolName === "bash", timeoutMs: 120_000 });
    await watch.prime();
    await phone.send("s-1", "Deploy", { requestId: "r-1" });
    const ask = await phone.waitForAsk({ paneId: "s-1" });
    assert.equal(Date.parse(ask.expiresAt!), clock.now() + 120_000);
    clock.advance(120_000);
    await agent.waitForIdle();
    assert.deepEqual(tools.ran, []);
    const result = seen!.messages.find((m) => m.role === "toolResult");
    assert.ok(result && result.role === "toolResult" && result.isError);
    assert.deepEqual(result.content, [{ type: "text", text: "bash was not run: nobody answered in time." }]);
    await watch.until((events) => events.some((e) => e.type === "item" && e.item.kind === "notice" && e.item.text === "Timed out before an answer: bash wants to run"));
  });

  it("steers the running agent: the text reaches Pi before its next model call", async () => {
    let seen: Context | undefined;
    const { agent, tab, watch, phone, tools } = await setup([
      toolUse(fauxToolCall("wait", {})),
      (context) => {
        seen = context;
        return fauxAssistantMessage("Using pnpm then.");
      },
    ]);
    const pane = piPane(tab, agent, { id: "s-1" });
    await watch.prime();
    await phone.send("s-1", "Install", { requestId: "r-1" });
    await tools.waiting;
    const steered = await phone.steer("s-1", "Use pnpm, not npm", pane.turnId, { requestId: "r-2" });
    assert.equal(steered.status, 200);
    tools.release();
    await watch.until(isDone("s-1"));
    await agent.waitForIdle();
    const users = seen!.messages.filter((m) => m.role === "user").map((m) => (m.content as { text: string }[])[0]!.text);
    assert.deepEqual(users, ["Install", "Use pnpm, not npm"]);
    const echoed = watch.latest("s-1").filter((i: Item) => i.kind === "user").map((i) => (i as { text: string }).text);
    assert.deepEqual(echoed, ["Install", "Use pnpm, not npm"], "the steer shows once, as the phone's echo");
  });

  it("queues a send while Pi runs as a follow-up, answered in the same turn", async () => {
    const { agent, tab, watch, phone, tools } = await setup([
      toolUse(fauxToolCall("wait", {})),
      fauxAssistantMessage("Installed."),
      fauxAssistantMessage("And the lockfile is committed."),
    ]);
    const pane = piPane(tab, agent, { id: "s-1" });
    await watch.prime();
    const first = await phone.send("s-1", "Install", { requestId: "r-1" });
    await tools.waiting;
    const second = await phone.send("s-1", "Commit the lockfile too", { requestId: "r-2" });
    assert.equal(second.body.turnId, first.body.turnId);
    tools.release();
    await watch.until(isDone("s-1"));
    await agent.waitForIdle();
    const replies = watch.latest("s-1").filter((i) => i.kind === "reply").map((i) => (i as { text: string }).text);
    assert.deepEqual(replies, ["Installed.", "And the lockfile is committed."]);
    assert.equal(pane.currentState(), "idle");
  });

  it("keeps the agent's own beforeToolCall: it runs first and its block stands", async () => {
    const { tab, phone, tools, faux, watch } = await setup([
      fauxAssistantMessage([fauxToolCall("bash", { command: "sudo reboot" }), fauxToolCall("read_file", { path: "README.md" })], { stopReason: "toolUse" }),
      fauxAssistantMessage("Read it; the reboot was refused."),
    ]);
    const looked: string[] = [];
    const agent = piAgent(faux, [tools.bash, tools.readFile], {
      beforeToolCall: async ({ toolCall }) => {
        looked.push(toolCall.name);
        return toolCall.name === "bash" ? { block: true, reason: "no sudo here" } : undefined;
      },
    });
    piPane(tab, agent, { id: "s-1", risky: (c) => c.toolName === "bash" });
    await watch.prime();
    await phone.send("s-1", "Reboot and read", { requestId: "r-1" });
    await watch.until(isDone("s-1"));
    await agent.waitForIdle();
    assert.deepEqual(looked.sort(), ["bash", "read_file"]);
    assert.deepEqual(tools.ran, ["read README.md"]);
    assert.equal(watch.events.filter((e) => e.type === "ask").length, 0, "a call the agent blocked needs no card");
    const bash = watch.latest("s-1").find((i): i is ToolItem => i.kind === "tool" && i.name === "bash")!;
    assert.equal(bash.status, "failed");
    assert.equal(bash.output, "no sudo here");
  });

  it("shows a model error as a notice and ends the turn", async () => {
    const { agent, tab, watch, phone } = await setup([fauxAssistantMessage([], { stopReason: "error", errorMessage: "429 rate limited" })]);
    piPane(tab, agent, { id: "s-1" });
    await watch.prime();
    await phone.send("s-1", "Hello", { requestId: "r-1" });
    await watch.until(isDone("s-1"));
    const notices = watch.latest("s-1").filter((i) => i.kind === "notice").map((i) => (i as { text: string }).text);
    assert.deepEqual(notices, ["429 rate limited"]);
  });

  it("checks its arguments", async () => {
    const { agent, tab } = await setup([]);
    assert.throws(() => piPane(tab, {} as typeof agent, { id: "s-1" }), /Pi Agent/);
    assert.throws(() => piPane(tab, agent, {} as { id: string }), /opts.id/);
    assert.throws(() => piPane(tab, agent, { id: "s 1" }), TypeError);
    assert.throws(() => piPane(tab, agent, { id: "s-1", timeoutMs: 0 }), RangeError);
    const pane = piPane(tab, agent, { id: "s-1" });
    assert.equal(piPane(tab, agent, { id: "s-1" }), pane, "the same agent again is the same pane");
    assert.throws(() => piPane(tab, piAgent(faux!, []), { id: "s-1" }), /another Pi agent/);
  });
});
