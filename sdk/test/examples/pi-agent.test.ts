/**
 * The Pi agent example (S-35) as a user runs it: its own process, the faux model (no network, no
 * key), the fake phone over the real socket. Reads a file, asks before the shell, saves sessions.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connectPhone, type FakePhone } from "../../src/testing/index.ts";
import type { PermissionAsk, ToolItem } from "../../src/wire/types.ts";
import { removeTempDirs, tempDir } from "../helpers/temp-dirs.ts";
import { EventWatch, lastState } from "../pi/rig.ts";

const root = join(import.meta.dirname, "..", "..", "..");
const MAIN = join(root, "sdk/examples/pi-agent/main.ts");

function start(args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; first: Promise<string>; stderr: () => string } {
  const child = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", MAIN, ...args], {
    cwd: root,
    env: { ...process.env, PI_PROVIDER: "", PI_MODEL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (err += c));
  const first = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`exited with ${code}:\n${err}`)));
  });
  return { child, first, stderr: () => err };
}

describe("examples/pi-agent (S-35)", () => {
  let agent: ChildProcess;
  let phone: FakePhone;
  let socket: string;
  let sessions: string;
  let paneId: string;

  before(async () => {
    const dir = tempDir("collie-pia-");
    socket = join(dir, "pi.sock");
    const work = join(dir, "work");
    sessions = join(dir, "sessions");
    mkdirSync(work);
    writeFileSync(join(work, "README.md"), "# Widget\nIt makes widgets.\n");
    const started = start(["--socket", socket, "--cwd", work, "--sessions", sessions]);
    agent = started.child;
    const ready = JSON.parse(await started.first);
    assert.deepEqual(ready, { ready: true, socket, model: "faux (scripted, no network)" });
    phone = connectPhone(socket);
  });

  after(async () => {
    phone?.disconnect();
    if (agent && agent.exitCode === null) {
      const gone = new Promise((r) => agent.once("exit", r));
      agent.kill("SIGTERM");
      await gone;
    }
    removeTempDirs();
  });

  it("shows one Pi session in Pi › Sessions, as pi-durable, with only what it wires", async () => {
    const hello = await phone.hello();
    assert.equal(hello.name, "pi-durable");
    assert.deepEqual(
      Object.entries(hello.caps).filter(([, on]) => on).map(([cap]) => cap).sort(),
      ["asks", "close", "followUp", "history", "rename", "reopen", "send", "starters", "steer", "stop"],
    );
    const layout = await phone.layout();
    assert.deepEqual(layout.tabs, [{ id: "pi:sessions", workspaceId: "pi", title: "Sessions" }]);
    assert.equal(layout.panes.length, 1);
    assert.equal(layout.panes[0]!.harness, "pi");
    paneId = layout.panes[0]!.id;
    assert.equal(layout.panes[0]!.sessionId, paneId);
  });

  it("reads a file without asking, and asks before the shell runs", async () => {
    const watch = new EventWatch(phone);
    await watch.prime();
    await phone.send(paneId, "read README.md", { requestId: "r-1" });
    await watch.until((events) => events.some((e) => e.type === "state" && e.summary.state === "working") && lastState(events, paneId) === "idle");
    const read = watch.latest(paneId).find((i): i is ToolItem => i.kind === "tool")!;
    assert.equal(read.name, "read_file");
    assert.equal(read.status, "done");
    assert.match(read.output!, /It makes widgets/);
    assert.equal((await phone.layout()).panes[0]!.title, "read README.md", "a new session takes its first message as its title");

    await phone.send(paneId, "run echo hello from the shell", { requestId: "r-2" });
    const ask = (await phone.waitForAsk({ paneId, timeoutMs: 15_000 })) as PermissionAsk;
    assert.equal(ask.title, "bash wants to run");
    assert.equal(ask.tool?.call, 'bash(command: "echo hello from the shell")');
    await phone.answer(ask, { kind: "permission", optionId: ask.options.find((o) => o.kind === "allow")!.id }, { requestId: "tap-1" });
    await watch.until((events) => events.some((e) => e.type === "item" && e.item.id === ask.itemId && e.item.kind === "tool" && e.item.status === "done"));
    await watch.until((events) => lastState(events, paneId) === "idle" && events.some((e) => e.type === "item" && e.item.kind === "reply" && !e.item.partial && e.item.text === "bash returned:\nhello from the shell"));
  });

  it("saves the session in the sessions folder and serves it as history", async () => {
    assert.equal(readdirSync(sessions).filter((f) => f.endsWith(".jsonl")).length, 1);
    const rows = await phone.history();
    assert.equal(rows.body.rows.length, 1);
    assert.equal(rows.body.rows[0]!.id, paneId);
    assert.equal(rows.body.rows[0]!.title, "read README.md");
    const items = await phone.historyItems(paneId);
    assert.deepEqual(items.body.items.filter((i) => i.kind === "tool").map((i) => (i as ToolItem).status), ["done", "done"]);
  });

  it("opens a new session from the starter", async () => {
    const opened = await phone.starter("new-session", { requestId: "s-1" });
    assert.equal(opened.status, 200);
    const layout = await phone.layout();
    assert.equal(layout.panes.length, 2);
  });

  it("stops a session's run when the phone closes it, and lists it closed", async () => {
    await phone.send(paneId, "run echo never", { requestId: "r-3" });
    const ask = await phone.waitForAsk({ paneId, timeoutMs: 15_000 });
    const closed = await phone.close({ kind: "pane", id: paneId }, { requestId: "c-1" });
    assert.equal(closed.status, 200);
    assert.ok(!(await phone.layout()).panes.some((p) => p.id === paneId));
    const late = await phone.answer(ask, { kind: "permission", optionId: "allow" }, { requestId: "tap-9" });
    assert.notEqual(late.status, 200, "the closed card takes no answer");
    const row = (await phone.history()).body.rows.find((r) => r.id === paneId)!;
    assert.equal(row.state, "closed");
    const items = await phone.historyItems(paneId);
    const tools = items.body.items.filter((i): i is ToolItem => i.kind === "tool");
    assert.equal(tools.at(-1)!.status, "denied", "the run stopped before the command ran");
    assert.ok(!tools.some((t) => t.output?.includes("never")));
  });

  it("refuses to start with a provider but no model", async () => {
    const started = start(["--socket", join(tempDir("collie-pia-"), "x.sock")], { PI_PROVIDER: "anthropic" });
    await assert.rejects(started.first, /PI_MODEL/);
  });
});
