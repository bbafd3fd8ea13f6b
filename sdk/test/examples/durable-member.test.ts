/**
 * The support desk example (S-36) end to end: started as its own child process (so the descendant
 * check, S-7, lets this test process write), driven by the fake phone over the real socket.
 * Every wait follows the events long-poll (W-3) until the state it waits for; nothing sleeps and
 * nothing asserts on timing.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connectPhone, type FakePhone } from "../../src/testing/index.ts";
import { isKnownAsk } from "../../src/wire/index.ts";
import { NODE_FLAGS } from "../helpers/child-agent.ts";
import type { Ask, HistoryRow, Item, PaneEvent, PaneState, PaneSummary, Progress } from "../../src/index.ts";

const root = join(import.meta.dirname, "..", "..", "..");
const MAIN = join(root, "sdk/examples/durable-member/main.ts");
const ASK_WAIT = { timeoutMs: 15_000 };

/** Every child started, so the after hook leaves none behind, even when a start failed half way. */
const children = new Set<ChildProcess>();

/** Starts main.ts as a child and resolves once it printed its ready line. */
async function startAgent(socket: string, store: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...NODE_FLAGS, MAIN, "--socket", socket, "--store", store], {
    cwd: root,
    // The invoice card's expiry, short so its timeout path runs within the test (the default is 2 minutes).
    env: { ...process.env, DESK_ASK_EXPIRY_MS: "400" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (err += c));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`the desk exited with ${code} before it was ready:\n${err}`)));
  });
  assert.deepEqual(JSON.parse(first), { ready: true, socket });
  return child;
}

/** SIGTERM, as a service manager stops it; SIGKILL only if it hangs, so a broken desk cannot hang the run. */
async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const gone = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  child.kill("SIGTERM");
  const stuck = setTimeout(() => child.kill("SIGKILL"), 10_000);
  try {
    return await gone;
  } finally {
    clearTimeout(stuck);
  }
}

/**
 * Follows the events long-poll from a snapshot on: collects a pane's events and knows each pane's
 * state, so a test waits for "idle" (or anything else) by reading, not by sleeping.
 */
class Follower {
  readonly #phone: FakePhone;
  #cursor = "";
  readonly events: PaneEvent[] = [];
  readonly summaries = new Map<string, PaneSummary>();

  private constructor(phone: FakePhone) {
    this.#phone = phone;
  }

  static async start(phone: FakePhone): Promise<Follower> {
    const f = new Follower(phone);
    const page = await phone.events({ after: null });
    f.#cursor = page.cursor;
    for (const v of page.views) f.summaries.set(v.pane.id, v.pane);
    return f;
  }

  state(paneId: string): PaneState | undefined {
    return this.summaries.get(paneId)?.state;
  }

  async until(done: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 30_000; // only a guard against hanging; the long-poll decides when
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
      const page = await this.#phone.events({ after: this.#cursor, wait: 10_000 });
      this.#cursor = page.cursor;
      for (const v of page.views) this.summaries.set(v.pane.id, v.pane);
      for (const e of page.events) {
        this.events.push(e);
        if (e.type === "state") this.summaries.set(e.pane, e.summary);
      }
    }
  }

  idle(paneId: string): Promise<void> {
    return this.until(() => this.state(paneId) === "idle", `${paneId} to be idle`);
  }

  /** Every progress the pane showed while followed. */
  progress(paneId: string): Progress[] {
    return this.events.flatMap((e) => (e.pane === paneId && e.type === "state" && e.summary.progress ? [e.summary.progress] : []));
  }
}

const byKind = <K extends Item["kind"]>(items: Item[], kind: K) => items.filter((i): i is Extract<Item, { kind: K }> => i.kind === kind);
/** How many items say `text`, as their text or as a tool's output: what the chat shows. */
const saying = (items: Item[], text: string) => items.filter((i) => ("text" in i && i.text === text) || (i.kind === "tool" && i.output === text)).length;
const tools = (items: Item[]) => byKind(items, "tool").map((t) => ({ name: t.name, status: t.status, output: t.output }));

describe("examples/durable-member (the support desk, S-36)", () => {
  let dir: string;
  let socket: string;
  let store: string;
  let agent: ChildProcess | undefined;
  let phone: FakePhone;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "collie-dm-"));
    socket = join(dir, "run", "desk.sock");
    store = join(dir, "desk.json");
    agent = await startAgent(socket, store);
    phone = connectPhone(socket);
  });

  after(async () => {
    phone?.disconnect();
    await Promise.all([...children].map(stop));
    rmSync(dir, { recursive: true, force: true });
  });

  it("lays out two workspaces, their tabs and the seeded conversations (S-9)", async () => {
    const hello = await phone.hello();
    assert.equal(hello.name, "desk");
    assert.equal(hello.caps.history, true);
    assert.equal(hello.caps.starters, true);
    assert.equal(hello.caps.terminal, false);
    const layout = await phone.layout();
    assert.equal(layout.ready, true);
    assert.deepEqual(layout.workspaces, [{ id: "support", title: "Support" }, { id: "billing", title: "Billing" }]);
    assert.deepEqual(layout.tabs, [
      { id: "support:tickets", workspaceId: "support", title: "Tickets" },
      { id: "support:vip", workspaceId: "support", title: "VIP" },
      { id: "billing:refunds", workspaceId: "billing", title: "Refunds" },
    ]);
    assert.deepEqual(layout.panes.map((p) => [p.id, p.tabId, p.title]), [
      ["ticket-5521", "support:tickets", "Maria Lopez"],
      ["ticket-5530", "support:tickets", "Jonas Weber"],
      ["vip-7781", "support:vip", "Sofia Rossi"],
      ["inv-2207", "billing:refunds", "Aiko Tanaka"],
    ]);
    const maria = layout.panes[0]!;
    assert.equal(maria.sessionId, "ticket-5521"); // S-31: with a history provider, sessionId = pane id
    assert.equal(maria.subtitle, "Order 5521 · lost in transit");
    assert.deepEqual(maria.actions, [
      { id: "escalate", label: "Escalate", icon: "flag" },
      { id: "resolve", label: "Resolve", icon: "check" },
      { id: "archive", label: "Archive", icon: "archive", disabled: true },
    ]);
    const view = await phone.pane("ticket-5521");
    assert.deepEqual(view.items.map((i) => [i.kind, "text" in i ? i.text : ""]), [["notice", "Ticket opened: the parcel for order 5521 never arrived."]]);
  });

  it("runs a refund end to end: the approval card, Allow, a streamed reply and a done tool (S-25)", async () => {
    const sent = await phone.send("ticket-5521", "The parcel never came. Can she get a refund?");
    assert.equal(sent.status, 200);
    const turnId = sent.body.turnId as string;
    assert.equal(typeof turnId, "string");
    const follow = await Follower.start(phone);

    const ask = await phone.waitForAsk({ paneId: "ticket-5521", ...ASK_WAIT });
    assert.equal(ask.kind, "permission");
    assert.equal(ask.title, "refund wants to run");
    assert.deepEqual(ask.tool, { name: "refund", call: 'refund(order: "5521", amount: 40)' });
    assert.equal(ask.reason, 'order: "5521"\namount: 40');
    assert.deepEqual(ask.push, { line: "refund needs a yes" });
    assert.deepEqual(isKnownAsk(ask) && ask.kind === "permission" && ask.options, [
      { id: "allow", kind: "allow", label: "Allow" },
      { id: "deny", kind: "deny", label: "Deny" },
    ]);
    assert.ok(ask.expiresAt, "the approval card has an expiry");

    // While the turn waits on the phone, Resolve is busy and a tap on it is refused (S-18, P-22).
    const waiting = (await phone.layout()).panes.find((p) => p.id === "ticket-5521")!;
    assert.equal(waiting.state, "waiting");
    assert.equal(waiting.actions.find((a) => a.id === "resolve")?.busy, true);
    const busyTap = await phone.action("ticket-5521", "resolve", turnId);
    assert.equal(busyTap.status, 409);
    assert.equal(busyTap.body.error, "refused");

    const answered = await phone.answer(ask, { kind: "permission", optionId: "allow" });
    assert.equal(answered.status, 200);
    await follow.idle("ticket-5521");

    const view = await phone.pane("ticket-5521");
    assert.deepEqual(view.asks, []);
    assert.equal(view.items.some((i) => "partial" in i && i.partial), false, "no growing item is left");
    assert.deepEqual(tools(view.items), [
      { name: "lookup_order", status: "done", output: "Order 5521: Running shoes, 40 EUR, lost in transit" },
      { name: "refund", status: "done", output: "Refunded 40 EUR for order 5521" },
    ]);
    const reply = byKind(view.items, "reply").at(-1)!;
    assert.match(reply.text, /^Done: I refunded 40 EUR for order 5521\./);
    // The reply grew in partial writes before its final text (S-15).
    const writes = follow.events.flatMap((e) => (e.type === "item" && e.item.id === reply.id ? [e.item] : []));
    assert.ok(writes.length >= 2);
    assert.equal("partial" in writes.at(-1)!, false);
    assert.ok(writes.slice(0, -1).every((i) => "partial" in i && i.partial === true));
    assert.deepEqual(byKind(view.items, "link").map((l) => l.href), ["https://desk.example.com/orders/5521/refund"]);
    assert.equal(byKind(view.items, "thinking").length, 1);
    assert.equal(view.pane.subtitle, "Order 5521 · refunded");
    assert.equal(view.pane.actions.find((a) => a.id === "resolve")?.busy, undefined);

    // A second refund, denied: the tool item says so and nothing moves (S-25).
    await phone.send("ticket-5521", "Refund her once more?");
    const again = await Follower.start(phone);
    const second = await phone.waitForAsk({ paneId: "ticket-5521", ...ASK_WAIT });
    assert.notEqual(second.id, ask.id);
    assert.equal((await phone.answer(second, { kind: "permission", optionId: "deny" })).status, 200);
    await again.idle("ticket-5521");
    const denied = await phone.pane("ticket-5521");
    assert.deepEqual(tools(denied.items).at(-1), { name: "refund", status: "denied", output: "Denied on the phone" });
    assert.match(byKind(denied.items, "reply").at(-1)!.text, /^Understood, no refund for order 5521\./);
  });

  it("takes a choice, a multiple choice, a form, a text and a steer in one exchange (S-21)", async () => {
    const sent = await phone.send("ticket-5530", "The jacket is the wrong size, can we exchange it?");
    assert.equal(sent.status, 200);
    const turnId = sent.body.turnId as string;
    const follow = await Follower.start(phone);

    const size = await phone.waitForAsk({ paneId: "ticket-5530", ...ASK_WAIT });
    assert.equal(size.kind, "choice");
    assert.equal(size.title, "Which size should replace it?");
    assert.equal(isKnownAsk(size) && size.kind === "choice" && size.multiple, undefined);
    assert.deepEqual(isKnownAsk(size) && size.kind === "choice" && size.options.map((o) => o.label), ["S", "M", "L", "XL"]);
    // A steer goes into the running turn (P-22); the model takes it into account.
    const steer = await phone.steer("ticket-5530", "Ship it before Friday", turnId);
    assert.equal(steer.status, 200);
    assert.equal(steer.body.turnId, turnId);
    assert.equal((await phone.answer(size, { kind: "choice", optionIds: ["l"] })).status, 200);

    const extras = await phone.waitForAsk({ paneId: "ticket-5530", where: (a) => a.id !== size.id, ...ASK_WAIT });
    assert.equal(isKnownAsk(extras) && extras.kind === "choice" && extras.multiple, true);
    assert.equal((await phone.answer(extras, { kind: "choice", optionIds: ["gift", "express"] })).status, 200);

    const form = await phone.waitForAsk({ paneId: "ticket-5530", where: (a) => a.kind === "form", ...ASK_WAIT });
    assert.equal(form.title, "Where should the replacement go?");
    assert.deepEqual(isKnownAsk(form) && form.kind === "form" && form.fields.map((f) => [f.id, f.type, f.required ?? false]), [
      ["street", "text", true],
      ["country", "select", false],
      ["door", "toggle", false],
    ]);
    // A required field left empty is not taken (S-21); the card stays open.
    const empty = await phone.answer(form, { kind: "form", values: { street: "", country: "at" } });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error, "invalid-answer");
    assert.equal((await phone.answer(form, { kind: "form", values: { street: "Hauptstraße 5", country: "at", door: true } })).status, 200);

    const note = await phone.waitForAsk({ paneId: "ticket-5530", where: (a) => a.kind === "text", ...ASK_WAIT });
    assert.equal(note.title, "A note for the courier?");
    assert.equal(isKnownAsk(note) && note.kind === "text" && note.limit, 200);
    assert.equal((await phone.answer(note, { kind: "text", text: "Ring twice" })).status, 200);
    await follow.idle("ticket-5530");

    const view = await phone.pane("ticket-5530");
    assert.deepEqual(tools(view.items), [
      { name: "reserve_item", status: "done", output: "Reserved size L" },
      { name: "add_extras", status: "done", output: "Added Gift wrap, Express shipping" },
      { name: "update_address", status: "done", output: "Hauptstraße 5, Austria, leave at door" },
      { name: "save_note", status: "done", output: "Saved: Ring twice" },
    ]);
    // Each card sat under its own tool call (P-9).
    const toolIds = byKind(view.items, "tool").map((t) => t.id);
    assert.deepEqual([size, extras, form, note].map((a) => a.itemId), toolIds);
    assert.deepEqual(byKind(view.items, "user").map((u) => u.text), ["The jacket is the wrong size, can we exchange it?", "Ship it before Friday"]);
    const reply = byKind(view.items, "reply").at(-1)!;
    assert.equal(reply.partial, undefined);
    assert.match(reply.text, /size L is reserved/);
    assert.match(reply.text, /"Ship it before Friday"/);
    const md = byKind(view.items, "markdown").at(-1)!;
    assert.match(md.text, /^- New size: \*\*L\*\*$/m);
    assert.match(md.text, /^- Extras: Gift wrap, Express shipping$/m);
    assert.match(md.text, /^- Ship to: Hauptstraße 5, Austria \(leave at door\)$/m);
    assert.match(md.text, /^- Courier note: Ring twice$/m);
    assert.match(md.text, /\[Track the exchange\]\(https:\/\/desk\.example\.com\/orders\/5530\)/);
    // The chain showed its steps (S-18, P-21) and the progress went when the turn ended.
    const steps = follow.progress("ticket-5530");
    for (const [current, label] of [[1, "Reserve size"], [2, "Add extras"], [3, "Save address"], [4, "Save note"]] as const) {
      assert.ok(steps.some((p) => p.kind === "steps" && p.current === current && p.total === 4 && p.label === label), `step ${current} of 4: ${label}`);
    }
    assert.equal(view.pane.progress, undefined);
    assert.equal(view.pane.subtitle, "Order 5530 · exchange reserved");
  });

  it("a stop in the middle of a turn closes its ask and leaves a stopped note (P-16, P-19)", async () => {
    const sent = await phone.send("vip-7781", "Please pass a note to the courier");
    const turnId = sent.body.turnId as string;
    const follow = await Follower.start(phone);
    const ask = await phone.waitForAsk({ paneId: "vip-7781", ...ASK_WAIT });
    assert.equal(ask.kind, "text");
    const stopped = await phone.stop("vip-7781", turnId);
    assert.equal(stopped.status, 200);
    await follow.idle("vip-7781");

    const view = await phone.pane("vip-7781");
    assert.deepEqual(view.asks, []);
    const notices = byKind(view.items, "notice");
    assert.deepEqual(notices.filter((n) => n.stopped).map((n) => n.text), ["stopped"]);
    assert.equal(notices.some((n) => n.text.startsWith("Decided in the durable agent")), false, "a stop leaves no decided line");
    assert.deepEqual(tools(view.items), [{ name: "save_note", status: "failed", output: "Stopped before it finished" }]);
    assert.equal(view.items.some((i) => "partial" in i && i.partial), false);
    assert.equal(view.pane.progress, undefined);
    // The answer to the closed card is not taken: the agent decided it (P-15).
    const late = await phone.answer(ask, { kind: "text", text: "too late" });
    assert.equal(late.status, 409);
    assert.equal(late.body.error, "ask-decided");
    // Nothing runs any more, so a second stop is refused and a steer has moved on.
    assert.equal((await phone.stop("vip-7781", turnId)).status, 409);
    assert.equal((await phone.steer("vip-7781", "hello?", turnId)).body.error, "moved-on");
  });

  it("an action tap with the current turn id runs; a stale one has moved on (S-20)", async () => {
    const first = (await phone.layout()).panes.find((p) => p.id === "ticket-5530")!.turnId!;
    const escalate = await phone.action("ticket-5530", "escalate", first);
    assert.equal(escalate.status, 200);
    let pane = (await phone.layout()).panes.find((p) => p.id === "ticket-5530")!;
    assert.equal(pane.badge, "Escalated");
    assert.equal(pane.actions.find((a) => a.id === "escalate")?.disabled, true);
    assert.equal((await phone.action("ticket-5530", "escalate", first)).body.reason, "disabled");

    const sent = await phone.send("ticket-5530", "Thanks!");
    const second = sent.body.turnId as string;
    assert.notEqual(second, first);
    const follow = await Follower.start(phone);
    await follow.idle("ticket-5530");
    const stale = await phone.action("ticket-5530", "resolve", first);
    assert.equal(stale.status, 409);
    assert.equal(stale.body.error, "moved-on");
    const resolve = await phone.action("ticket-5530", "resolve", second);
    assert.equal(resolve.status, 200);
    pane = (await phone.layout()).panes.find((p) => p.id === "ticket-5530")!;
    assert.equal(pane.subtitle, "Resolved");
    assert.equal(pane.actions.find((a) => a.id === "archive")?.disabled, undefined);

    // Archive closes the conversation from the agent's side; history keeps it as closed.
    assert.equal((await phone.action("ticket-5530", "archive", second)).status, 200);
    assert.equal((await phone.layout()).panes.some((p) => p.id === "ticket-5530"), false);
  });

  it("the invoice shows a failed call, code, a percentage and a card that times out gracefully (S-24)", async () => {
    const sent = await phone.send("inv-2207", "Aiko says the invoice is wrong");
    assert.equal(sent.status, 200);
    const follow = await Follower.start(phone);
    await follow.idle("inv-2207");

    const asks = follow.events.flatMap((e): Ask[] => (e.pane === "inv-2207" && e.type === "ask" ? [e.ask] : []));
    assert.equal(asks.length, 1);
    assert.equal(asks[0]!.title, "How should the corrected invoice go out?");
    assert.ok(asks[0]!.expiresAt, "the card has an expiry");
    assert.ok(follow.events.some((e) => e.type === "ask-closed" && e.askId === asks[0]!.id && e.decidedBy === "timeout"));

    const view = await phone.pane("inv-2207");
    assert.deepEqual(tools(view.items), [
      { name: "fetch_invoice", status: "failed", output: "the eu-old archive did not answer in 5 s" },
      { name: "fetch_invoice", status: "done", output: "Fetched INV-2207 from the eu archive" },
      { name: "upload_invoice", status: "done", output: "Uploaded INV-2207 (2 pages)" },
      { name: "send_invoice", status: "done", output: "No answer in time" },
      { name: "send_invoice", status: "done", output: "Sent INV-2207 by email" },
    ]);
    // The specification's line once in the chat: the SDK's notice, not repeated by the call (issue #37).
    assert.equal(saying(view.items, "Timed out before an answer: How should the corrected invoice go out?"), 1);
    const code = byKind(view.items, "code")[0]!;
    assert.equal(code.lang, "json");
    assert.equal(JSON.parse(code.text).invoice, "INV-2207");
    assert.match(byKind(view.items, "reply").at(-1)!.text, /emailed the corrected invoice INV-2207/);
    assert.deepEqual(byKind(view.items, "link").map((l) => l.href), ["https://desk.example.com/invoices/INV-2207"]);
    const percents = follow.progress("inv-2207").filter((p) => p.kind === "percent");
    assert.ok(percents.some((p) => p.kind === "percent" && p.value === 42 && p.label === "Uploading corrected invoice"));
  });

  it("a starter opens a new conversation (P-25)", async () => {
    const starters = await phone.starters();
    assert.deepEqual(starters.body.starters.map((s) => [s.id, s.title]), [["new-ticket", "New ticket"], ["refund-check", "Refund check"]]);

    const opened = await phone.starter("new-ticket", { requestId: "starter-1" });
    assert.equal(opened.status, 200);
    const paneId = opened.body.paneId as string;
    // A replay opens nothing new and gets the same pane (S-28).
    const again = await phone.starter("new-ticket", { requestId: "starter-1" });
    assert.deepEqual(again.body, { ...opened.body, replayed: true });
    const layout = await phone.layout();
    const pane = layout.panes.find((p) => p.id === paneId)!;
    assert.equal(pane.title, "New ticket");
    assert.equal(pane.tabId, "support:tickets");
    assert.equal(layout.panes.filter((p) => p.title === "New ticket").length, 1);

    const check = await phone.starter("refund-check");
    const checkId = check.body.paneId as string;
    const follow = await Follower.start(phone);
    await follow.idle(checkId);
    const view = await phone.pane(checkId);
    assert.equal(view.pane.tabId, "billing:refunds");
    assert.match(byKind(view.items, "markdown")[0]!.text, /^- Order 5521: 40 EUR to Maria Lopez$/m);
  });

  it("keeps renames and closings across a restart; reopen brings a closed conversation back (S-12, S-30)", async () => {
    assert.equal((await phone.rename({ kind: "pane", id: "ticket-5521" }, "Maria Lopez (refunded)")).status, 200);
    assert.equal((await phone.rename({ kind: "tab", id: "support:vip" }, "VIP desk")).status, 200);
    const shown = await phone.pane("inv-2207");
    assert.equal((await phone.close({ kind: "pane", id: "inv-2207" })).status, 200);
    const before = await phone.pane("ticket-5521");
    const stoppedBefore = await phone.pane("vip-7781");

    phone.disconnect();
    assert.equal(await stop(agent!), 0);
    agent = await startAgent(socket, store);
    phone = connectPhone(socket);

    const layout = await phone.layout();
    assert.equal(layout.ready, true);
    assert.equal(layout.panes.find((p) => p.id === "ticket-5521")?.title, "Maria Lopez (refunded)");
    assert.equal(layout.tabs.find((t) => t.id === "support:vip")?.title, "VIP desk");
    assert.equal(layout.panes.some((p) => p.id === "inv-2207"), false, "a closed conversation stays closed");
    assert.equal(layout.panes.some((p) => p.id === "ticket-5530"), false, "an archived one too");
    // The open conversation is laid out again as it was.
    const after = await phone.pane("ticket-5521");
    assert.deepEqual(after.items.map((i) => [i.id, i.kind]), before.items.map((i) => [i.id, i.kind]));
    assert.equal(after.pane.subtitle, "Order 5521 · refunded");
    // Including the lines the SDK wrote itself: the echoed send and the stopped note (P-19, P-20).
    const stoppedAfter = await phone.pane("vip-7781");
    assert.deepEqual(stoppedAfter.items.map((i) => [i.id, i.kind]), stoppedBefore.items.map((i) => [i.id, i.kind]));
    assert.deepEqual(byKind(stoppedAfter.items, "notice").filter((n) => n.stopped).map((n) => n.text), ["stopped"]);

    const rows = (await phone.history({ limit: 500 })).body.rows;
    const closed = rows.find((r) => r.id === "inv-2207")!;
    assert.equal(closed.state, "closed");
    assert.ok(closed.endedAt);
    assert.equal(rows.find((r) => r.id === "ticket-5530")?.state, "closed");
    const stored = await phone.historyItems("inv-2207");
    assert.equal(stored.status, 200);
    assert.equal(closed.items, stored.body.items.length);
    // History serves what the phone saw, the timed-out line included (S-24, S-31).
    assert.deepEqual(stored.body.items.map((i) => [i.id, i.kind]), shown.items.map((i) => [i.id, i.kind]));
    assert.ok(stored.body.items.some((i) => i.kind === "notice" && i.text === "Timed out before an answer: How should the corrected invoice go out?"));
    assert.equal((await phone.historyItems("no-such-conversation")).status, 404);

    const reopened = await phone.reopen({ kind: "pane", id: "inv-2207" });
    assert.equal(reopened.status, 200);
    assert.equal(reopened.body.paneId, "inv-2207");
    const back = await phone.pane("inv-2207");
    assert.equal(back.pane.tabId, "billing:refunds");
    assert.deepEqual(back.items.map((i) => i.id), stored.body.items.map((i) => i.id));
    const row = (await phone.history({ limit: 500 })).body.rows.find((r) => r.id === "inv-2207")!;
    assert.equal(row.state, "open");
    assert.equal(row.endedAt, undefined);
  });

  it("history pages return every row once, newest first, and end without next (S-31)", async () => {
    const all = (await phone.history({ limit: 500 })).body;
    assert.equal(all.next, undefined);
    assert.equal(all.rows.length, 6);
    const paged: HistoryRow[] = [];
    let after: string | undefined;
    for (let pages = 0; ; pages++) {
      assert.ok(pages < 10, "the pages end");
      const page = await phone.history({ limit: 2, ...(after ? { after } : {}) });
      assert.equal(page.status, 200);
      paged.push(...page.body.rows);
      if (page.body.next === undefined) break;
      assert.match(page.body.next, /^[\x21-\x7e]{1,512}$/);
      after = page.body.next;
    }
    assert.deepEqual(paged.map((r) => r.id), all.rows.map((r) => r.id));
    const starts = paged.map((r) => r.startedAt);
    assert.deepEqual(starts, [...starts].sort().reverse());
    assert.deepEqual(new Set(paged.map((r) => r.state)), new Set(["open", "closed"]));
  });
});

describe("examples/durable-member: approvals that outlive a restart, Always allow, an ask the desk decides", () => {
  let dir: string;
  let socket: string;
  let store: string;
  let agent: ChildProcess | undefined;
  let phone: FakePhone;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "collie-dm-"));
    socket = join(dir, "run", "desk.sock");
    store = join(dir, "desk.json");
    agent = await startAgent(socket, store);
    phone = connectPhone(socket);
  });

  after(async () => {
    phone?.disconnect();
    await Promise.all([...children].map(stop));
    rmSync(dir, { recursive: true, force: true });
  });

  it("Always allow lets the second stock check through without a card (S-27)", async () => {
    assert.equal((await phone.send("vip-7781", "Is it still in stock?")).status, 200);
    const follow = await Follower.start(phone);
    const ask = await phone.waitForAsk({ paneId: "vip-7781", ...ASK_WAIT });
    assert.equal(ask.title, "check_stock wants to run");
    assert.deepEqual(isKnownAsk(ask) && ask.kind === "permission" && ask.options.map((o) => o.kind), ["allow", "allow-always", "deny"]);
    assert.equal((await phone.answer(ask, { kind: "permission", optionId: "allow-always" })).status, 200);
    await follow.idle("vip-7781");
    const view = await phone.pane("vip-7781");
    assert.deepEqual(tools(view.items), [
      { name: "check_stock", status: "done", output: "Berlin: 3 in stock" },
      { name: "check_stock", status: "done", output: "Vienna: none" },
    ]);
    assert.equal(follow.events.filter((e) => e.type === "ask" && e.ask.id !== ask.id).length, 0, "no card after the first one");
    assert.match(byKind(view.items, "reply").at(-1)!.text, /^Stock of the Espresso machine: Berlin: 3 in stock; Vienna: none\./);
  });

  it("a slot nobody picks is booked by the courier's system: decided in the agent (S-24, P-16)", async () => {
    assert.equal((await phone.send("inv-2207", "Book a delivery slot")).status, 200);
    const follow = await Follower.start(phone);
    const ask = await phone.waitForAsk({ paneId: "inv-2207", ...ASK_WAIT });
    assert.equal(ask.title, "Which delivery slot should the courier book?");
    await follow.idle("inv-2207");
    assert.ok(follow.events.some((e) => e.type === "ask-closed" && e.askId === ask.id && e.decidedBy === "program"));
    const late = await phone.answer(ask, { kind: "choice", optionIds: ["fri"] });
    assert.equal(late.status, 409);
    assert.equal(late.body.error, "ask-decided");
    const view = await phone.pane("inv-2207");
    assert.deepEqual(tools(view.items), [
      { name: "book_slot", status: "done", output: "Settled without an answer" },
      { name: "book_slot", status: "done", output: "Booked Thursday morning for order 6012" },
    ]);
    assert.equal(saying(view.items, "Decided in the durable agent: Which delivery slot should the courier book?"), 1);
  });

  it("a refund waiting for an Allow when the desk is killed comes back as the same ask after a restart (S-23)", async () => {
    assert.equal((await phone.send("ticket-5521", "Refund her, please")).status, 200);
    const ask = await phone.waitForAsk({ paneId: "ticket-5521", where: (a) => a.kind === "permission", ...ASK_WAIT });
    const before = await phone.pane("ticket-5521");

    phone.disconnect();
    const gone = new Promise((r) => agent!.once("exit", r));
    agent!.kill("SIGKILL");
    await gone;
    agent = await startAgent(socket, store);
    phone = connectPhone(socket);

    const again = await phone.waitForAsk({ paneId: "ticket-5521", ...ASK_WAIT });
    assert.equal(again.id, ask.id);
    assert.equal(again.revision, ask.revision);
    const running = await phone.pane("ticket-5521");
    assert.equal(running.pane.state, "waiting");
    assert.deepEqual(running.items.map((i) => i.id), before.items.map((i) => i.id), "the call keeps its item; nothing else was added");
    const follow = await Follower.start(phone);
    assert.equal((await phone.answer(again, { kind: "permission", optionId: "allow" })).status, 200);
    await follow.idle("ticket-5521");
    const view = await phone.pane("ticket-5521");
    assert.deepEqual(tools(view.items), [
      { name: "lookup_order", status: "done", output: "Order 5521: Running shoes, 40 EUR, lost in transit" },
      { name: "refund", status: "done", output: "Refunded 40 EUR for order 5521" },
    ]);
    assert.equal(byKind(view.items, "reply").filter((r) => r.text.startsWith("Done: I refunded 40 EUR for order 5521.")).length, 1);
    assert.equal(new Set(view.items.map((i) => i.id)).size, view.items.length);

    // Decided: a later restart raises nothing again.
    phone.disconnect();
    assert.equal(await stop(agent!), 0);
    agent = await startAgent(socket, store);
    phone = connectPhone(socket);
    const after = await phone.pane("ticket-5521");
    assert.deepEqual(after.asks, []);
    assert.equal(after.pane.state, "idle");
  });
});
