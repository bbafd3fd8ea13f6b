/**
 * The Pi desk and its link (issue 29, docs/pi.md): the link's golden fixtures, read by the reader of
 * each end (the desk reads a pi's lines, a pi reads the desk's); then a desk on real sockets, a raw
 * link client standing in for a `pi`, the fake phone on the durable socket. Hostile lines from a pi
 * (garbage, binary, floods, a line past the limit, a wrong version, a second claim on a session, a
 * process inside another pi) end that link or are dropped; the desk goes on serving.
 */
import { spawn } from "node:child_process";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { after, afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { openPiDesk, folderLabel, type PiDesk } from "../../src/pi/desk.ts";
import { LINK_LINE_BYTES, parseDeskLine, parsePiLine } from "../../src/pi/link.ts";
import { connectPhone, type FakePhone } from "../../src/testing/index.ts";
import type { PermissionAsk } from "../../src/wire/types.ts";
import { loadWireFixtures } from "../fixtures/load.ts";
import { AGENTS_DIR, NODE_FLAGS } from "../helpers/child-agent.ts";
import { removeTempDirs, tempDir } from "../helpers/temp-dirs.ts";

const FIXTURES = new URL("../fixtures/pi-link/", import.meta.url).pathname;

describe("the link's golden fixtures, read by each end", () => {
  const fixtures = loadWireFixtures(FIXTURES);
  it("covers both directions, accepted and refused", () => {
    const seen = new Set(fixtures.map((f) => `${f.type}/${f.expect}`));
    assert.deepEqual([...seen].sort(), ["DeskLine/accept", "DeskLine/reject", "PiLine/accept", "PiLine/reject"]);
  });
  for (const f of fixtures) {
    it(f.id, () => {
      const parsed = f.type === "PiLine" ? parsePiLine(JSON.stringify(f.message)) : parseDeskLine(JSON.stringify(f.message));
      if (f.expect === "accept") {
        assert.ok(parsed.ok, `${f.about}: ${parsed.ok ? "" : parsed.error}`);
        if (f.value !== undefined) assert.deepEqual(JSON.parse(JSON.stringify(parsed.value)), f.value);
      } else {
        assert.equal(parsed.ok, false, f.about);
        assert.ok(!parsed.ok && parsed.error.includes(f.error!), `${f.about}: got ${parsed.ok ? "ok" : parsed.error}`);
      }
    });
  }
  it("refuses a line that is not JSON or is past the limit", () => {
    assert.deepEqual(parsePiLine("{nope"), { ok: false, error: "line: is not JSON" });
    assert.equal(parsePiLine(`"${"x".repeat(LINK_LINE_BYTES)}"`).ok, false);
    assert.equal(parseDeskLine("\u0000\u0001").ok, false);
  });
});

/** A raw link client: what a `pi` would write, line by line, and what the desk answers. */
class RawPi {
  readonly socket: Socket;
  readonly lines: Record<string, unknown>[] = [];
  readonly closed: Promise<void>;
  #buffer = "";

  constructor(path: string) {
    this.socket = connect({ path });
    this.socket.setEncoding("utf8");
    this.socket.on("error", () => {});
    this.socket.on("data", (chunk: string) => {
      this.#buffer += chunk;
      let at: number;
      while ((at = this.#buffer.indexOf("\n")) >= 0) {
        this.lines.push(JSON.parse(this.#buffer.slice(0, at)) as Record<string, unknown>);
        this.#buffer = this.#buffer.slice(at + 1);
      }
    });
    this.closed = new Promise((resolve) => this.socket.once("close", () => resolve()));
  }

  write(message: unknown): void {
    this.socket.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
  }

  hello(id: string, cwd = "/home/me/src/widget", title = ""): void {
    this.write({ type: "hello", v: 1, session: { id, cwd, title }, working: false });
  }

  async next(type: string): Promise<Record<string, unknown>> {
    for (;;) {
      const found = this.lines.find((l) => l.type === type);
      if (found) return found;
      if (this.socket.destroyed) throw new Error(`the link closed before a ${type} line; got ${JSON.stringify(this.lines)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

async function until<T>(fn: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let i = 0; ; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    if (i > 2000) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("the Pi desk", () => {
  let desk: PiDesk | undefined;
  let phone: FakePhone | undefined;
  const raws: RawPi[] = [];
  afterEach(async () => {
    for (const r of raws.splice(0)) r.socket.destroy();
    phone?.disconnect();
    await desk?.close();
    desk = phone = undefined;
  });
  after(removeTempDirs);

  async function open(opts: { writesOnlyFrom?: number } = {}) {
    const dir = tempDir("collie-desk-");
    desk = await openPiDesk({ socket: join(dir, "desk.sock"), link: join(dir, "link.sock"), stateDir: dir, writesOnlyFrom: opts.writesOnlyFrom ?? process.pid, log: () => {} });
    phone = connectPhone(desk.collie.socketPath);
    return { desk, phone, raw: () => {
      const r = new RawPi(desk!.linkPath);
      raws.push(r);
      return r;
    } };
  }

  it("refuses a link that keeps sending malformed lines, logging only the first few; the desk stays up", async () => {
    const dir = tempDir("collie-desk-");
    const logged: string[] = [];
    desk = await openPiDesk({ socket: join(dir, "desk.sock"), link: join(dir, "link.sock"), stateDir: dir, writesOnlyFrom: process.pid, log: (l) => logged.push(l) });
    const hostile = new RawPi(desk.linkPath);
    raws.push(hostile);
    for (let i = 0; i < 10_000; i++) hostile.write(i % 2 ? "null" : { type: 42 });
    assert.deepEqual(await hostile.next("refused"), { type: "refused", reason: "too many malformed lines" });
    await hostile.closed;
    assert.ok(logged.length <= 7, `${logged.length} log lines for 10 000 malformed ones`);
    assert.equal(logged.filter((l) => /^refused a link/.test(l)).length, 1);
    // Another pi links as before.
    const good = new RawPi(desk.linkPath);
    raws.push(good);
    good.hello("0123456789abcdef0123456789abcdef");
    assert.equal((await good.next("welcome")).type, "welcome");
  });

  it("shows a pi's session as a conversation in its folder's workspace, with its items and its card", async () => {
    const { phone, raw } = await open();
    const pi = raw();
    pi.hello("sess-1", "/home/me/src/widget", "Fix the test");
    const welcome = await pi.next("welcome");
    assert.equal(welcome.paneId, "sess-1");
    pi.write({ type: "working" });
    pi.write({ type: "item", item: { id: "u-1", kind: "user", text: "<script>alert(1)</script>" } });
    pi.write({ type: "item", item: { id: "call_1", kind: "tool", name: "bash", status: "running", call: 'bash(command: "ls")' } });
    pi.write({ type: "ask", toolCallId: "call_1", toolName: "bash", args: { command: "ls" }, title: "bash wants to run" });
    const ask = (await phone.waitForAsk({ paneId: "sess-1" })) as PermissionAsk;
    assert.equal(ask.itemId, "call_1", "the card sits under its tool line");
    assert.equal(ask.tool?.call, 'bash(command: "ls")');
    const layout = await phone.layout();
    const pane = layout.panes.find((p) => p.id === "sess-1")!;
    assert.equal(pane.title, "Fix the test");
    assert.equal(pane.cwd, "/home/me/src/widget");
    assert.equal(layout.workspaces.find((w) => pane.tabId.startsWith(`${w.id}:`))!.title, "/home/me/src/widget");
    const view = await phone.pane("sess-1");
    assert.equal((view.items[0] as { text: string }).text, "<script>alert(1)</script>", "a pi's text is data, never markup");
    const hello = await phone.hello();
    assert.equal(hello.name, "pi-durable");
    assert.equal(hello.descendantCheck, process.platform === "linux");

    await phone.answer(ask, { kind: "permission", optionId: ask.options.find((o) => o.kind === "allow-always")!.id }, { requestId: "tap-1" });
    const answer = await pi.next("answer");
    assert.deepEqual(answer, { type: "answer", toolCallId: "call_1", approved: true, decidedBy: "phone", always: true });
  });

  it("relays the phone's send, steer and stop; a stop waits for the pi's idle", async () => {
    const { phone, raw } = await open();
    const pi = raw();
    pi.hello("sess-2");
    await pi.next("welcome");
    const sent = await phone.send("sess-2", "Hello pi", { requestId: "r-1" });
    assert.equal(sent.status, 200);
    assert.ok(sent.body.turnId, "an idle pi's send begins a turn");
    assert.deepEqual(await pi.next("send"), { type: "send", text: "Hello pi", steer: false });
    pi.write({ type: "working" });
    const steered = await phone.steer("sess-2", "shorter", sent.body.turnId as string, { requestId: "r-2" });
    assert.equal(steered.status, 200);
    await until(() => (pi.lines.filter((l) => l.type === "send").length === 2 ? true : undefined), "the steer");
    assert.deepEqual(pi.lines.filter((l) => l.type === "send")[1], { type: "send", text: "shorter", steer: true });
    const stopping = phone.stop("sess-2", sent.body.turnId as string, { requestId: "r-3" });
    await pi.next("stop");
    pi.write({ type: "idle" });
    assert.equal((await stopping).status, 200);
    const view = await phone.pane("sess-2");
    assert.ok(view.items.some((i) => i.kind === "notice" && i.stopped === true));
  });

  it("ends a pi's conversation when its link closes, with the card closed; the phone's late answer and send are refused", async () => {
    const { phone, raw, desk } = await open();
    const pi = raw();
    pi.hello("sess-3");
    await pi.next("welcome");
    pi.write({ type: "ask", toolCallId: "call_9", toolName: "bash", args: { command: "make" } });
    const ask = await phone.waitForAsk({ paneId: "sess-3" });
    pi.socket.destroy(); // as a pi killed -9
    await until(() => (desk.linked.size === 0 ? true : undefined), "the link gone");
    const layout = await phone.layout();
    assert.ok(!layout.panes.some((p) => p.id === "sess-3"), "the conversation ended");
    const late = await phone.answer(ask, { kind: "permission", optionId: "allow" }, { requestId: "tap-late" });
    assert.equal(late.status, 409, "not taken: the card went with its pi");
    assert.equal(pi.lines.filter((l) => l.type === "answer").length, 0, "nothing reaches a pi that is gone");
    const send = await phone.send("sess-3", "still there?", { requestId: "r-late" });
    assert.equal(send.status, 404, "a conversation that ended takes no send");
  });

  it("leaves no conversation for a pi gone while its hello was read (no stale row)", async () => {
    const { phone, raw, desk } = await open();
    const ghost = raw();
    ghost.hello("ghost");
    ghost.socket.end(); // gone before the desk looked up who called
    const later = raw();
    later.hello("alive");
    await later.next("welcome");
    await until(() => (desk.linked.has("alive") ? true : undefined), "the live one linked");
    assert.deepEqual((await phone.layout()).panes.map((p) => p.id), ["alive"]);
  });

  it("drops a malformed line from a pi, ends the link on a line past the limit, and goes on serving others", async () => {
    const { phone, raw } = await open();
    const pi = raw();
    pi.hello("sess-4");
    await pi.next("welcome");
    pi.write("not json at all");
    pi.write(Buffer.from([0xff, 0xfe, 0x00, 0x01]).toString("latin1"));
    pi.write(JSON.stringify({ type: "item", item: { id: "x", kind: "user", text: 42 } }));
    pi.write(`${"[".repeat(50_000)}${"]".repeat(50_000)}`);
    pi.write({ type: "item", item: null });
    pi.write({ type: "ask", toolCallId: "c", toolName: "bash", args: { huge: "x".repeat(70 * 1024) } });
    pi.write(`{"type":"ask","toolCallId":"deep","toolName":"bash","args":${"[".repeat(200_000)}${"]".repeat(200_000)}}`);
    // A flood of valid lines is taken in order.
    for (let i = 0; i < 2000; i++) pi.write({ type: "item", item: { id: `n-${i % 5}`, kind: "notice", text: `line ${i}` } });
    pi.write({ type: "item", item: { id: "ok-1", kind: "notice", text: "still here" } });
    await until(async () => ((await phone.pane("sess-4")).items.some((i) => i.id === "ok-1") ? true : undefined), "the good line after the bad ones");
    assert.equal((await phone.pane("sess-4")).asks.length, 0, "an ask past its size is no card");

    const flood = raw();
    flood.hello("sess-5");
    await flood.next("welcome");
    flood.socket.write("x".repeat(LINK_LINE_BYTES + 10));
    await flood.closed;
    await until(async () => ((await phone.layout()).panes.some((p) => p.id === "sess-5") ? undefined : true), "a link past the limit ends, and its conversation with it");
    pi.write({ type: "item", item: { id: "ok-2", kind: "notice", text: "the desk lives" } });
    await until(async () => ((await phone.pane("sess-4")).items.some((i) => i.id === "ok-2") ? true : undefined), "the desk still serving");
  });

  it("refuses a link that does not start with hello, speaks another version, or claims a session already shown", async () => {
    const { raw } = await open();
    const rude = raw();
    rude.write({ type: "working" });
    assert.match(String((await rude.next("refused")).reason), /starts with hello/);
    await rude.closed;

    const old = raw();
    old.write({ type: "hello", v: 2, session: { id: "s", cwd: "/x", title: "" }, working: false });
    assert.match(String((await old.next("refused")).reason), /link v2 and the desk v1/);

    const first = raw();
    first.hello("same");
    await first.next("welcome");
    const second = raw();
    second.hello("same");
    assert.match(String((await second.next("refused")).reason), /on the phone already/);
    assert.ok(!first.socket.destroyed, "the first keeps its session");
  });

  it("refuses a link from a process started by a linked pi (its tool cannot pose as a pi)", { skip: process.platform !== "linux" }, async () => {
    const { raw, desk } = await open();
    const pi = raw(); // this process is the linked "pi"
    pi.hello("parent-session");
    await pi.next("welcome");
    const script = `const s=require("node:net").connect(${JSON.stringify(desk.linkPath)});let b="";s.on("data",d=>{b+=d;if(b.includes("\\n")){process.stdout.write(b);process.exit(0)}});s.write(JSON.stringify({type:"hello",v:1,session:{id:"child-session",cwd:"/tmp",title:""},working:false})+"\\n");`;
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    await new Promise((r) => child.once("exit", r));
    assert.match(out, /"refused".*started by another pi/);
  });

  it("takes phone writes only from the process that started it, not from any other process of the user", { skip: process.platform !== "linux" }, async () => {
    const { raw, desk, phone } = await open({ writesOnlyFrom: process.pid }); // this test stands in for Collie
    const pi = raw();
    pi.hello("p1");
    await pi.next("welcome");
    // An orphan (its parent gone: no descendant of this process, nor of the desk's) the plain
    // descendant check would let write; a pi's bash could start one.
    const script = join(AGENTS_DIR, "phone-call.ts");
    const sh = spawn("sh", ["-c", `"${process.execPath}" ${NODE_FLAGS.join(" ")} "${script}" "${desk.collie.socketPath}" send &`], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    sh.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    await until(() => (out.includes("\n") ? true : undefined), "the orphan's reply");
    const reply = JSON.parse(out) as { status: number; body: { error?: string } };
    assert.equal(reply.status, 403);
    assert.equal(reply.body.error, "caller-refused");
    assert.equal((await phone.send("p1", "from Collie", { requestId: "r-collie" })).status, 200, "the one writer is taken");
  });

  it("names a folder under the home folder with ~", () => {
    assert.equal(folderLabel("/home/me/src/widget", "/home/me"), "~/src/widget");
    assert.equal(folderLabel("/home/me", "/home/me"), "~");
    assert.equal(folderLabel("/home/meta/x", "/home/me"), "/home/meta/x");
    assert.equal(folderLabel("/srv/app", "/"), "/srv/app");
  });
});
