/**
 * Issue 29: the real `pi` CLI with Collie's extension (sdk/src/pi/extension.ts), a real Collie (its
 * admin socket starts the Pi desk), the scripted model on loopback. RPC mode is Pi's headless mode
 * with a UI, so the extension's terminal dialog is there and answered on stdin as a terminal would;
 * print mode has none. What a phone sees is read through Collie's phone API.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Conversation, PaneDetail } from "@colliepwa/shared";
import type { HistoryItemsPage, HistoryPage } from "@colliepwa/durable-sdk/wire";
import { startScriptedModel, type ScriptedModel } from "../../../sdk/test/helpers/scripted-model.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { killAllPi, PI_DEADLINE_MS, startPi, type PiCli, type PiEnv } from "../helpers/pi-cli.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const wait = <T>(fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, what: string | (() => string)) => until(fn, what, PI_DEADLINE_MS);
const brief = (items: { kind: string; status?: string }[]) => items.map((i) => `${i.kind}${i.status ? `:${i.status}` : ""}`);

let model: ScriptedModel;
before(async () => {
  model = await startScriptedModel();
});
after(async () => {
  await killAllPi();
  await closeAllLive();
  await closeAllDaemons();
  await model.close();
  removeTempDirs();
});

/** A Collie with a state directory (so it has an admin socket), and the env a `pi` needs to find it. */
async function collie(): Promise<{ d: TestDaemon; env: PiEnv; dir: string }> {
  const dir = tempDir("collie-pic-");
  const state = join(dir, "state");
  mkdirSync(state, { mode: 0o700 });
  const agentDir = join(dir, "agent");
  model.agentDir(agentDir);
  const d = await TestDaemon.start({ sources: { fixed: [] }, stateDir: state });
  return { d, dir, env: { agentDir, collieState: state } };
}

function folder(dir: string, name: string): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  return path;
}

/** The conversation of the `pi` running in `cwd`, once the phone has it. */
async function conversationIn(d: TestDaemon, cwd: string): Promise<Conversation> {
  return wait(async () => (await d.snapshot()).conversations.find((c) => c.agent === "pi" && c.cwd === cwd), `the conversation of the pi in ${cwd}`);
}

const detail = async (d: TestDaemon, pane: string) => (await d.get<PaneDetail>(`/api/agents/pi/panes/${encodeURIComponent(pane)}`)).body;

async function openAsk(d: TestDaemon, pane: string) {
  return wait(async () => (await detail(d, pane)).asks?.[0], "a card");
}

const answer = (d: TestDaemon, pane: string, ask: { id: string; revision: string }, optionId: string) =>
  d.post(`/api/agents/pi/panes/${encodeURIComponent(pane)}/asks/${ask.id}/answer`, { requestId: requestId("tap"), revision: ask.revision, answer: { kind: "permission", optionId } });

/** The tool item and the reply once Pi answered after a call. */
async function afterCall(d: TestDaemon, pane: string, reply: RegExp) {
  return wait(async () => {
    const view = await detail(d, pane);
    const done = view.items?.some((i) => i.kind === "reply" && !("partial" in i && i.partial) && reply.test(i.text));
    return done ? view : undefined;
  }, `a reply like ${reply}`);
}

const sessionRoles = (file: string): string[] =>
  readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; message?: { role: string } }).filter((e) => e.type === "message").map((e) => e.message!.role);

describe("the pi CLI on the phone (issue 29)", { timeout: 3_600_000 }, () => {
  test("a running pi is a conversation of the agent pi: a message from the phone reaches it, Allow runs bash, quitting ends it and history reads on", async () => {
    const { d, dir, env } = await collie();
    const live = await LiveClient.connect(d.wsUrl);
    const cwd = folder(dir, "widget");
    const pi = startPi(["--mode", "rpc"], cwd, env);
    const conv = await conversationIn(d, cwd);
    const agent = (await d.agent("pi"))!;
    assert.equal(agent.selfName, "pi-durable");
    assert.equal(agent.reach, "local", "line 2 reads pi-durable, local (P-2)");
    assert.equal(conv.harness, "pi");
    assert.equal(conv.title, "widget", "a session without a message yet is named by its folder");
    assert.equal(conv.subtitle, cwd, "line 2 of the row names the folder");

    const sent = await d.post(`/api/agents/pi/panes/${encodeURIComponent(conv.id)}/send`, { requestId: requestId("send"), text: "run echo hello-from-phone" });
    assert.equal(sent.status, 200);
    const ask = await openAsk(d, conv.id);
    assert.equal(ask.title, "bash wants to run");
    assert.equal(ask.kind === "permission" && ask.tool?.call, 'bash(command: "echo hello-from-phone")');
    assert.deepEqual(ask.kind === "permission" && "options" in ask ? ask.options.map((o: { kind: string }) => o.kind) : [], ["allow", "allow-always", "deny"]);
    // The terminal asks too: first answer wins.
    await pi.waitFor((l) => l.type === "extension_ui_request" && l.method === "select", "the terminal's dialog");
    assert.equal((await answer(d, conv.id, ask, "allow")).status, 200);
    const view = await afterCall(d, conv.id, /^Output: hello-from-phone/);
    assert.deepEqual(brief(view.items!), ["user", "tool:done", "reply"]);
    assert.equal((view.items![1] as { output?: string }).output, "hello-from-phone\n");
    const closed = await live.waitFor((m) => m.type === "ask-closed" && m.askId === ask.id, "the card's close");
    assert.equal(closed.type === "ask-closed" && closed.decidedBy, "phone");
    await wait(async () => (await d.snapshot()).conversations.find((c) => c.id === conv.id)?.title === "run echo hello-from-phone", "the title from the first message");

    // Quitting pi ends the conversation; Pi's saved session reads on as history.
    pi.child.stdin!.end();
    await pi.exited;
    await wait(async () => !(await d.snapshot()).conversations.some((c) => c.id === conv.id), "the conversation ended");
    const rows = (await d.get<HistoryPage>("/api/agents/pi/history")).body.rows;
    const row = rows.find((r) => r.id === conv.id)!;
    assert.equal(row.state, "closed");
    assert.equal(row.subtitle, cwd);
    const items = (await d.get<HistoryItemsPage>(`/api/agents/pi/history/${encodeURIComponent(conv.id)}/items`)).body.items;
    assert.deepEqual(brief(items as never), ["user", "tool:done", "reply"]);
    assert.deepEqual(sessionRoles(sessionFile(join(env.agentDir, "sessions"), conv.id)), ["user", "assistant", "toolResult", "assistant"], "Pi saved each message once");
  });

  test("the terminal answers first: Deny there refuses the call, and the phone's card closes as decided in the agent", async () => {
    const { d, dir, env } = await collie();
    const live = await LiveClient.connect(d.wsUrl);
    const cwd = folder(dir, "cleanup");
    const pi = startPi(["--mode", "rpc"], cwd, env);
    const conv = await conversationIn(d, cwd);
    pi.send({ type: "prompt", message: "run rm -rf build" });
    const ask = await openAsk(d, conv.id);
    const dialog = await pi.waitFor((l) => l.type === "extension_ui_request" && l.method === "select", "the terminal's dialog");
    assert.deepEqual(dialog.options, ["Allow", "Always allow bash in this session", "Deny"]);
    pi.send({ type: "extension_ui_response", id: dialog.id, value: "Deny" });
    const closed = await live.waitFor((m) => m.type === "ask-closed" && m.askId === ask.id, "the card's close");
    assert.equal(closed.type === "ask-closed" && closed.decidedBy, "program", "decidedBy says the agent's side answered");
    const view = await afterCall(d, conv.id, /^Refused: bash was not run: the user refused it in the terminal/);
    assert.deepEqual(brief(view.items!).filter((k) => k !== "notice"), ["user", "tool:denied", "reply"]);
    assert.ok(view.items!.some((i) => i.kind === "notice" && i.text === "Decided in the durable agent: bash wants to run"), "P-16's line in the chat");
    // A late tap on the phone is told the agent decided (P-15).
    const late = await answer(d, conv.id, ask, "allow");
    assert.equal(late.body.error, "ask-decided");
    await pi.kill("SIGTERM");
  });

  test("Always allow on the phone lets the tool through for the rest of this session; --collie-ask names what is asked", async () => {
    const { d, dir, env } = await collie();
    const cwd = folder(dir, "notes");
    const pi = startPi(["--mode", "rpc", "--collie-ask", "bash"], cwd, env);
    const conv = await conversationIn(d, cwd);
    const send = (text: string) => d.post(`/api/agents/pi/panes/${encodeURIComponent(conv.id)}/send`, { requestId: requestId("send"), text });
    await send("write notes.txt not asked");
    await afterCall(d, conv.id, /^Output: Successfully wrote/);
    assert.equal(readFileSync(join(cwd, "notes.txt"), "utf8"), "not asked", "write is not asked when --collie-ask says bash");
    await send("run echo first");
    const ask = await openAsk(d, conv.id);
    assert.equal((await answer(d, conv.id, ask, "allow-always")).status, 200);
    await afterCall(d, conv.id, /^Output: first/);
    await send("run echo second");
    await afterCall(d, conv.id, /^Output: second/);
    assert.equal((await detail(d, conv.id)).asks?.length ?? 0, 0);
    assert.equal(pi.dialogs().length, 1, "one card, one dialog, for two calls");
    await pi.kill("SIGTERM");
  });

  test("Steer reaches the running turn and Stop aborts it, from the phone", async () => {
    const { d, dir, env } = await collie();
    const cwd = folder(dir, "slow");
    const pi = startPi(["--mode", "rpc"], cwd, env);
    const conv = await conversationIn(d, cwd);
    const path = `/api/agents/pi/panes/${encodeURIComponent(conv.id)}`;
    const sent = await d.post(`${path}/send`, { requestId: requestId("send"), text: "slow 15" });
    await wait(async () => (await detail(d, conv.id)).items?.some((i) => i.kind === "reply" && i.text.startsWith("tick")), "the reply streaming");
    const steered = await d.post(`${path}/steer`, { requestId: requestId("steer"), text: "and then say hi", turnId: sent.body.turnId });
    assert.equal(steered.status, 200);
    // A Send while Pi works is a follow-up: it waits for the run to end.
    const followUp = await d.post(`${path}/send`, { requestId: requestId("send"), text: "follow up please" });
    assert.equal(followUp.status, 200);
    assert.equal(followUp.body.turnId, sent.body.turnId, "the send joins the running turn");
    await afterCall(d, conv.id, /^Heard: and then say hi/);
    await afterCall(d, conv.id, /^Heard: follow up please/);
    const order = (await detail(d, conv.id)).items!.flatMap((i) => (i.kind === "reply" && !("partial" in i && i.partial) ? [i.text.slice(0, 12)] : []));
    assert.deepEqual(order.map((t) => t.split(" ")[0]), ["tick", "Heard:", "Heard:"], "the steer, then the follow-up, after the run");
    const asked = model.requests.map((r) => r.messages.at(-1)).filter((m) => m?.role === "user").map((m) => JSON.stringify(m!.content));
    assert.ok(asked.some((c) => c.includes("and then say hi")), "the steer reached the model in the same session");

    const second = await d.post(`${path}/send`, { requestId: requestId("send"), text: "slow 300" });
    await wait(async () => (await detail(d, conv.id)).items?.filter((i) => i.kind === "reply" && i.text.startsWith("tick")).length === 2, "the second reply streaming");
    const stopped = await d.post(`${path}/stop`, { requestId: requestId("stop"), turnId: second.body.turnId });
    assert.equal(stopped.status, 200);
    await wait(async () => (await detail(d, conv.id)).items?.some((i) => i.kind === "notice" && "stopped" in i && i.stopped === true), "the stopped note");
    await pi.waitFor((l) => l.type === "agent_end" && JSON.stringify(l).includes("aborted"), "pi's run aborted");
    const replies = (await detail(d, conv.id)).items!.flatMap((i) => (i.kind === "reply" && i.text.startsWith("tick") ? [i.text] : []));
    assert.equal(replies.length, 2);
    assert.ok(!replies[1]!.includes("Done slowly"), "the stopped reply never finished");
    await pi.kill("SIGTERM");
  });

  test("several pi at once are one conversation each, grouped by folder; one killed -9 ends at once", async () => {
    const { d, dir, env } = await collie();
    const a = folder(dir, "alpha");
    const b = folder(dir, "beta");
    const piA = startPi(["--mode", "rpc"], a, env);
    const piB = startPi(["--mode", "rpc"], b, env);
    const [ca, cb] = await Promise.all([conversationIn(d, a), conversationIn(d, b)]);
    // Pi saves a session once it has a message: each says something first.
    piA.send({ type: "prompt", message: "hello from alpha" });
    piB.send({ type: "prompt", message: "hello from beta" });
    await Promise.all([afterCall(d, ca.id, /^Heard: hello from alpha/), afterCall(d, cb.id, /^Heard: hello from beta/)]);
    assert.notEqual(ca.id, cb.id);
    assert.notEqual(ca.tabId, cb.tabId, "a workspace per folder");
    assert.equal(ca.workspaceTitle, a);
    assert.equal(cb.workspaceTitle, b);
    await piA.kill("SIGKILL");
    await wait(async () => {
      const s = await d.snapshot();
      return !s.conversations.some((c) => c.id === ca.id) && s.conversations.some((c) => c.id === cb.id);
    }, "the killed pi's conversation ended, the other stays");
    const history = await d.get<HistoryPage>("/api/agents/pi/history");
    assert.equal(history.status, 200, JSON.stringify(history.body));
    const rows = history.body.rows;
    assert.equal(rows.find((r) => r.id === ca.id)?.state, "closed");
    assert.equal(rows.find((r) => r.id === cb.id)?.state, "open");
    await piB.kill("SIGTERM");
  });

  test("pi -p with Collie: a call made as pi starts waits for the link and asks the phone; with Collie gone it is refused, never run unasked", async () => {
    const { d, dir, env } = await collie();
    const cwd = folder(dir, "printed");
    const first = startPi(["-p", "run echo early"], cwd, env);
    const conv = await conversationIn(d, cwd);
    const ask = await openAsk(d, conv.id);
    assert.equal((await answer(d, conv.id, ask, "allow")).status, 200);
    assert.equal(await first.exited, 0);
    assert.match(first.stdout, /Output: early/);

    const second = startPi(["-p", "run echo never"], folder(dir, "orphaned"), { ...env, extra: { COLLIE_PI_AWAY_MS: "1000" } });
    const conv2 = await conversationIn(d, join(dir, "orphaned"));
    await openAsk(d, conv2.id);
    await d.close(); // Collie goes with the card open; no terminal can answer it
    assert.equal(await second.exited, 0);
    assert.match(second.stdout, /Refused: bash was not run: Collie went away before anyone answered\./);
    assert.equal(second.stderr.match(/collie: Collie went away/g)?.length, 1);
  });

  test("Collie away: pi -p works as without the extension and says so once", async () => {
    const dir = tempDir("collie-pic-");
    const agentDir = join(dir, "agent");
    model.agentDir(agentDir);
    const cwd = folder(dir, "plain");
    const pi = startPi(["-p", "run echo plain"], cwd, { agentDir, collieState: join(dir, "no-collie") });
    assert.equal(await pi.exited, 0);
    assert.match(pi.stdout, /Output: plain/, "bash ran, unasked, as without the extension");
    assert.equal(pi.stderr.match(/collie: Collie is not running/g)?.length, 1, `said once; stderr:\n${pi.stderr}`);
  });

  test("Collie killed mid-turn: pi finishes the turn, says so once, works on unasked, and shows again when Collie is back", async () => {
    const { d, dir, env } = await collie();
    const cwd = folder(dir, "outlive");
    const pi = startPi(["--mode", "rpc"], cwd, { ...env, extra: { COLLIE_PI_AWAY_MS: "1000" } });
    const conv = await conversationIn(d, cwd);
    pi.send({ type: "prompt", message: "slow 12" });
    await wait(async () => (await detail(d, conv.id)).items?.some((i) => i.kind === "reply" && i.text.startsWith("tick")), "the turn under way");
    const from = pi.lines.length;
    await d.close(); // the daemon and its desk go; the link breaks mid-turn
    await pi.waitFor((l) => pi.lines.indexOf(l) >= from && l.type === "agent_end", "the turn's end");
    assert.ok(JSON.stringify(pi.after(from, (l) => l.type === "agent_end")).includes("Done slowly."), "the turn ran to its end");
    await wait(() => pi.notes().some((n) => n.startsWith("Collie went away")), "the note");
    pi.send({ type: "prompt", message: "run echo unasked" });
    await pi.waitFor((l) => l.type === "agent_end" && JSON.stringify(l).includes("Output: unasked"), "the call ran unasked");
    assert.equal(pi.dialogs().length, 0);
    assert.equal(pi.notes().filter((n) => n.startsWith("Collie went away")).length, 1, "said once");

    // Collie again, on the same state: the session is back on the phone with its conversation so far.
    const again = await TestDaemon.start({ sources: { fixed: [] }, stateDir: env.collieState });
    const back = await conversationIn(again, cwd);
    assert.equal(back.id, conv.id);
    const view = await wait(async () => {
      const v = (await again.get<PaneDetail>(`/api/agents/pi/panes/${encodeURIComponent(back.id)}`)).body;
      return (v.items?.length ?? 0) >= 4 ? v : undefined;
    }, "the first page");
    assert.deepEqual(brief(view.items! as never).slice(0, 5), ["user", "reply", "user", "tool:done", "reply"]);
    await wait(() => pi.notes().some((n) => n.startsWith("Collie is back")), "the note that Collie is back");
    await pi.kill("SIGTERM");
  });
});

/** The file Pi saved session `id` in, under its sessions folder (one folder per working directory). */
function sessionFile(sessions: string, id: string): string {
  for (const folder of readdirSync(sessions)) {
    const file = readdirSync(join(sessions, folder)).find((f) => f.endsWith(`_${id}.jsonl`));
    if (file) return join(sessions, folder, file);
  }
  throw new Error(`no session ${id} under ${sessions}`);
}
