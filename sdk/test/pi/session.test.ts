/**
 * piPane over Pi's own `AgentSession` (issue 36): `createAgentSession` with Pi's read/bash/edit/write
 * tools on the faux model. Pi saves, `./pi` only reads: each message is in the session file once;
 * the pane's first page is what the session held; history says what happened; the phone's sends go
 * through the session's own `prompt` (its checks and extension hooks); a card open when the process
 * stopped comes back with the same ask id and runs once.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { fauxAssistantMessage, fauxText, fauxToolCall, type Context, type FauxProviderRegistration } from "@mariozechner/pi-ai";
import { askIdFor } from "../../src/core/ids.ts";
import { piHistory, piPane, PI_HOST_NAME } from "../../src/pi/index.ts";
import type { Item, PermissionAsk } from "../../src/wire/types.ts";
import { openRig, type Rig } from "../helpers/agent.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { removeTempDirs, tempDir } from "../helpers/temp-dirs.ts";
import { EventWatch, fauxModel, lastState, piSession, savedMessages } from "./rig.ts";

const toolUse = (call: ReturnType<typeof fauxToolCall>) => fauxAssistantMessage([call], { stopReason: "toolUse" });
const option = (ask: PermissionAsk, kind: string) => ask.options.find((o) => o.kind === kind)!.id;
const brief = (items: Item[]) => items.map((i) => `${i.kind}${"status" in i ? `:${i.status}` : ""}`);
/** The pane went idle after Pi wrote `text` as a whole reply. */
const replied = (pane: string, text: string) => (events: EventWatch["events"]) => {
  const at = events.findIndex((e) => e.type === "item" && e.pane === pane && e.item.kind === "reply" && e.item.text === text && !e.item.partial);
  return at >= 0 && events.slice(at).some((e) => e.type === "state" && e.pane === pane && e.summary.state === "idle");
};

describe("piPane over an AgentSession (issue 36)", () => {
  let rig: Rig | undefined;
  let faux: FauxProviderRegistration | undefined;
  afterEach(async () => {
    await rig?.close();
    faux?.unregister();
    rig = faux = undefined;
  });
  after(removeTempDirs);

  it("saves each message once: Pi saves, ./pi reads; history says done, denied and open", async () => {
    faux = fauxModel([
      toolUse(fauxToolCall("bash", { command: "echo hello > out.txt" })),
      fauxAssistantMessage("Wrote it."),
      toolUse(fauxToolCall("bash", { command: "rm out.txt" })),
      fauxAssistantMessage("Left it alone."),
    ]);
    const dir = tempDir("collie-pis-");
    const { session, cwd, sessionDir } = await piSession(faux, dir);
    rig = await openRig({ hostName: PI_HOST_NAME });
    const tab = rig.collie.workspace("pi", { title: "Pi" }).tab("sessions", { title: "Sessions" });
    const pane = piPane(tab, session, { id: "s-1", risky: (c) => c.toolName === "bash" });
    rig.collie.history(piHistory({ cwd, sessionDir }));
    assert.equal(pane.sessionId, session.sessionId);
    const watch = new EventWatch(rig.phone);
    await watch.prime();

    await rig.phone.send("s-1", "Write hello", { requestId: "r-1" });
    const first = (await rig.phone.waitForAsk({ paneId: "s-1" })) as PermissionAsk;
    assert.equal(existsSync(join(cwd, "out.txt")), false, "nothing ran before the answer");
    await rig.phone.answer(first, { kind: "permission", optionId: option(first, "allow") }, { requestId: "tap-1" });
    await watch.until(replied("s-1", "Wrote it."));
    assert.equal(readFileSync(join(cwd, "out.txt"), "utf8"), "hello\n", "Pi's own bash ran the command");

    await rig.phone.send("s-1", "Remove it", { requestId: "r-2" });
    const second = (await rig.phone.waitForAsk({ paneId: "s-1", where: (a) => a.id !== first.id })) as PermissionAsk;
    await rig.phone.answer(second, { kind: "permission", optionId: option(second, "deny") }, { requestId: "tap-2" });
    await watch.until(replied("s-1", "Left it alone."));
    await session.agent.waitForIdle();
    assert.equal(existsSync(join(cwd, "out.txt")), true, "the denied rm did not run");

    const roles = ["user", "assistant", "toolResult", "assistant"];
    assert.deepEqual(savedMessages(session.sessionFile!), [...roles, ...roles], "every message once, in order");
    assert.deepEqual(brief(watch.latest("s-1")), ["user", "tool:done", "reply", "user", "tool:denied", "reply"]);

    const rows = (await rig.phone.history()).body.rows;
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.id, session.sessionId);
    assert.equal(rows[0]!.state, "open", "the live session is open");
    assert.equal(rows[0]!.workspaceId, "pi");
    const items = (await rig.phone.historyItems(session.sessionId)).body.items;
    assert.deepEqual(brief(items), ["user", "tool:done", "reply", "user", "tool:denied", "reply"], "a denied call is denied");

    pane.close();
    assert.equal((await rig.phone.history()).body.rows[0]!.state, "closed");
  });

  it("builds the first page from the session: what Pi had before the pane, and what continueRecent restored", async () => {
    faux = fauxModel([
      toolUse(fauxToolCall("read", { path: "notes.md" })),
      fauxAssistantMessage("The notes say: ship on Friday."),
      fauxAssistantMessage("Friday."),
    ]);
    const dir = tempDir("collie-pis-");
    const before = await piSession(faux, dir);
    writeFileSync(join(before.cwd, "notes.md"), "ship on Friday\n");
    // Pi talks before any pane shows it.
    await before.session.prompt("What do the notes say?");
    rig = await openRig();
    const tab = rig.collie.workspace("pi").tab("sessions");
    const early = piPane(tab, before.session, { id: "s-early" });
    const page = early.view().items;
    assert.deepEqual(brief(page), ["user", "tool:done", "reply"], "messages before the pane was attached");
    assert.equal((page[0] as { text: string }).text, "What do the notes say?");
    assert.equal((page[1] as { output?: string }).output, "ship on Friday\n");
    early.close();
    before.session.dispose();

    // The same session, opened again the way a restarted program does.
    const { session } = await piSession(faux, dir, { resume: true });
    assert.equal(session.sessionId, before.session.sessionId);
    const pane = piPane(tab, session, { id: "s-resumed" });
    assert.deepEqual(pane.view().items.map((i) => i.id), page.map((i) => i.id), "the same entries give the same items");
    const watch = new EventWatch(rig.phone);
    await watch.prime();
    await rig.phone.send("s-resumed", "When?", { requestId: "r-1" });
    await watch.until(replied("s-resumed", "Friday."));
    assert.deepEqual(brief(pane.view().items), ["user", "tool:done", "reply", "user", "reply"], "new items come after the first page");
    assert.deepEqual(savedMessages(session.sessionFile!), ["user", "assistant", "toolResult", "assistant", "user", "assistant"]);
  });

  it("sends the phone's text through the session's prompt: extension input hooks see it and may transform or handle it", async () => {
    const seen: string[][] = [];
    let context: Context | undefined;
    faux = fauxModel([
      (ctx) => {
        context = ctx;
        return fauxAssistantMessage([fauxText("Heard.")]);
      },
    ]);
    const dir = tempDir("collie-pis-");
    const { session } = await piSession(faux, dir, {
      extensions: [
        (pi) => {
          pi.on("input", (event) => {
            seen.push([event.text, event.source]);
            if (event.text === "ping") return { action: "handled" };
            return { action: "transform", text: `${event.text} (via the hook)` };
          });
        },
      ],
    });
    rig = await openRig();
    const pane = piPane(rig.collie.workspace("pi").tab("sessions"), session, { id: "s-1" });
    const watch = new EventWatch(rig.phone);
    await watch.prime();

    const handled = await rig.phone.send("s-1", "ping", { requestId: "r-1" });
    assert.equal(handled.status, 200);
    await watch.until((events) => lastState(events, "s-1") === "idle" && events.some((e) => e.type === "state" && e.summary.state === "working"));
    assert.equal(context, undefined, "a handled input never reaches the model");

    await rig.phone.send("s-1", "hello", { requestId: "r-2" });
    await watch.until(replied("s-1", "Heard."));
    assert.deepEqual(seen, [["ping", "rpc"], ["hello", "rpc"]], "the hook saw each send, from an API source");
    const users = context!.messages.filter((m) => m.role === "user").map((m) => (m.content as { text: string }[])[0]!.text);
    assert.deepEqual(users, ["hello (via the hook)"]);
    // The phone's own line is the echo; the transformed text shows as Pi's user line.
    assert.deepEqual(watch.latest("s-1").filter((i) => i.kind === "user").map((i) => (i as { text: string }).text), ["ping", "hello", "hello (via the hook)"]);
    assert.equal(pane.currentState(), "idle");
  });

  it("refuses the phone's send with Pi's words when the session's own check fails (no key)", async () => {
    faux = fauxModel([fauxAssistantMessage("never")]);
    const dir = tempDir("collie-pis-");
    const { session } = await piSession(faux, dir, { noKey: true });
    rig = await openRig();
    const pane = piPane(rig.collie.workspace("pi").tab("sessions"), session, { id: "s-1" });
    const sent = await rig.phone.send("s-1", "Hello", { requestId: "r-1" });
    assert.equal(sent.status, 409);
    assert.equal(sent.body.error, "refused");
    assert.match(String(sent.body.message), /API key/);
    assert.equal(pane.currentState(), "idle");
    assert.deepEqual(pane.view().items.filter((i) => i.kind === "user"), [], "a refused send leaves no line");
    assert.equal(faux.state.callCount, 0);
  });

  it("stops the session's run from the phone: Pi aborts its own bash", async () => {
    faux = fauxModel([toolUse(fauxToolCall("bash", { command: "sleep 30 && echo late > late.txt" })), fauxAssistantMessage("never")]);
    const dir = tempDir("collie-pis-");
    const { session, cwd } = await piSession(faux, dir);
    rig = await openRig();
    const pane = piPane(rig.collie.workspace("pi").tab("sessions"), session, { id: "s-1" });
    const watch = new EventWatch(rig.phone);
    await watch.prime();
    const sent = await rig.phone.send("s-1", "Sleep", { requestId: "r-1" });
    await watch.until((events) => events.some((e) => e.type === "item" && e.item.kind === "tool"));
    const stopped = await rig.phone.stop("s-1", sent.body.turnId as string, { requestId: "r-2" });
    assert.equal(stopped.status, 200);
    assert.equal(session.isStreaming, false, "the run ended before the stop was answered");
    await watch.until((events) => events.some((e) => e.type === "item" && e.item.kind === "notice" && e.item.stopped === true));
    assert.equal(pane.currentState(), "idle");
    assert.equal(existsSync(join(cwd, "late.txt")), false);
  });

  it("raises a card again after a stop with it open, with the same ask id, and runs the call once", async () => {
    faux = fauxModel([toolUse(fauxToolCall("bash", { command: "echo deployed >> ledger.txt" })), fauxAssistantMessage("Deployed.")]);
    const dir = tempDir("collie-pis-");
    // The first process: the card opens, then everything stops without an answer (no result saved).
    const first = await piSession(faux, dir);
    const oldRig = await openRig({ clock: new ManualClock(Date.now()) });
    piPane(oldRig.collie.workspace("pi").tab("sessions"), first.session, { id: "s-deploy", risky: (c) => c.toolName === "bash" });
    await oldRig.phone.send("s-deploy", "Deploy", { requestId: "r-1" });
    const open = await oldRig.phone.waitForAsk({ paneId: "s-deploy" });
    const call = (first.session.messages.at(-1) as { content: { id: string }[] }).content[0]!.id;
    assert.equal(open.id, askIdFor("s-deploy", call));
    assert.deepEqual(savedMessages(first.session.sessionFile!), ["user", "assistant"]);
    await oldRig.close();

    const { session, cwd } = await piSession(faux, dir, { resume: true });
    rig = await openRig();
    const pane = piPane(rig.collie.workspace("pi").tab("sessions"), session, { id: "s-deploy", risky: (c) => c.toolName === "bash" });
    const again = (await rig.phone.waitForAsk({ paneId: "s-deploy" })) as PermissionAsk;
    assert.equal(again.id, open.id, "the same tool call is the same card");
    assert.deepEqual(brief(pane.view().items), ["user", "tool:running"], "the saved call is on the first page, once");
    assert.equal(existsSync(join(cwd, "ledger.txt")), false);
    await rig.phone.answer(again, { kind: "permission", optionId: option(again, "allow") }, { requestId: "tap-1" });
    const watch = new EventWatch(rig.phone);
    await watch.until((events) => events.some((e) => e.type === "item" && e.item.kind === "reply" && e.item.text === "Deployed." && !e.item.partial));
    await session.agent.waitForIdle();
    assert.equal(readFileSync(join(cwd, "ledger.txt"), "utf8"), "deployed\n", "the call ran once");
    assert.deepEqual(savedMessages(session.sessionFile!), ["user", "assistant", "toolResult", "assistant"], "the replayed call is saved once");
    assert.deepEqual(brief(pane.view().items), ["user", "tool:done", "reply"]);
  });
});
