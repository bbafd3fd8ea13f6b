/**
 * Answering from the notification (issue 30; docs/push.md), end to end: an agent's approval
 * (e2e/approval-agent.ts, the real SDK's `requireApproval`) is pushed by the real daemon to a local
 * push service, decrypted, delivered to the PWA's real service worker, and answered with the
 * notification's own button: the worker's `notificationclick` handler runs with the button's
 * action (a notification cannot be pressed through CDP, push-rig.ts). The journeys assert on what
 * the agent received (`approved`, `decidedBy: "phone"`, one run), on the notification that says
 * what happened, and on what the app shows when it is opened afterwards.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Page } from "@playwright/test";
import { STRINGS, WORDS, type PushPayload } from "@colliepwa/shared";
import { startCollie, type CollieServer } from "./collie.ts";
import { expect, test as base } from "./fixtures.ts";
import { post } from "./desk.ts";
import { notifications, press, PushPhone, pushRigFixture, tap, type Push, type PushRig } from "./push-rig.ts";

const AGENT = "approvals";
const TAG = `collie:${AGENT}`;
const root = join(import.meta.dirname, "..");

/** One line of what the agent received (approval-agent.ts). */
interface Received {
  pane: string;
  callId: string;
  approved?: boolean;
  decidedBy?: string;
  ran?: boolean;
  picked?: string[];
}

/** The approval agent on its own socket, and a sources.json that names it. */
interface Approvals {
  sources: string;
  /** What the agent received in one conversation, in order. */
  received(pane: string): Received[];
  /** Kills the agent (SIGKILL, as a crash would); Collie finds it unreachable. */
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function startApprovals(): Promise<Approvals> {
  const dir = mkdtempSync(join(tmpdir(), "collie-answer-"));
  const socket = join(dir, "run", "approvals.sock");
  let child: ChildProcess | null = null;
  const start = async () => {
    const c = spawn(process.execPath, [
      "--conditions=collie-source", "--disable-warning=ExperimentalWarning", join(root, "e2e/approval-agent.ts"), "--socket", socket, "--dir", dir,
    ], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
    child = c;
    await new Promise<void>((resolve, reject) => {
      c.once("exit", (code) => reject(new Error(`the approval agent exited (${code}) before it was ready`)));
      createInterface({ input: c.stdout! }).on("line", (line) => {
        if (line.includes('"ready":true')) resolve();
      });
    });
  };
  const end = async (signal: NodeJS.Signals) => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once("exit", r));
    c.kill(signal);
    await exited;
  };
  await start();
  const sources = join(dir, "sources.json");
  writeFileSync(sources, JSON.stringify({ durable: [{ name: AGENT, socket }] }), { mode: 0o600 });
  const file = join(dir, "received.jsonl");
  return {
    sources,
    received: (pane) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Received) : []).filter((r) => r.pane === pane),
    kill: () => end("SIGKILL"),
    start,
    async stop() {
      await end("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const test = base.extend<object, { collie: CollieServer; rig: PushRig; approvals: Approvals }>({
  rig: pushRigFixture,
  approvals: [
    async ({}, use) => {
      const approvals = await startApprovals();
      await use(approvals);
      await approvals.stop();
    },
    { scope: "worker" },
  ],
  collie: [
    async ({ rig, approvals }, use) => {
      const collie = await startCollie({ sources: approvals.sources, env: rig.daemonEnv });
      await use(collie);
      await collie.stop();
    },
    { scope: "worker" },
  ],
});

test.use({ viewport: { width: 360, height: 740 } });

const chatOf = (pane: string, askId?: string) => `/#/agent/${AGENT}/pane/${pane}${askId ? `/ask/${askId}` : ""}`;
const titleOf = (pane: string) => `Permission needed in Refunds ${pane}`;
const answerTag = (askId: string) => `${TAG}:answer:${askId}`;
const REFUND_LINE = "refund needs a yes";

/** The next push about a conversation, of a kind (pushes about other conversations are passed over). */
async function nextFor(phone: PushPhone, pane: string, type: PushPayload["type"]): Promise<Push> {
  for (;;) {
    const push = await phone.next();
    if (push.payload.type === type && "paneId" in push.payload && push.payload.paneId === pane) return push;
  }
}

/** Sends a message to one of the agent's conversations (the phone API, a fresh request id). */
async function say(page: Page, pane: string, text: string): Promise<void> {
  expect((await post(page, `/api/agents/${AGENT}/panes/${pane}/send`, { text })).status()).toBe(200);
}

/** Raises a refund's approval in `pane` with no Collie window on screen; returns its push, delivered. */
async function raiseAndDeliver(page: Page, phone: PushPhone, pane: string, text = "refund 1"): Promise<{ push: Push; askId: string }> {
  await page.goto("about:blank");
  await say(page, pane, text);
  const push = await nextFor(phone, pane, "ask");
  if (push.payload.type !== "ask") throw new Error("not an ask");
  await phone.deliver(push.text);
  return { push, askId: push.payload.askId };
}

/** The notifications showing, as [title, body, buttons]. */
const shown = async (page: Page) => (await notifications(page)).map((n) => [n.title, n.body, n.buttons]);

test("Allow on the notification: approved by the phone, the call runs once, the app shows the answer", async ({ page, collie, rig, approvals, shot }) => {
  test.setTimeout(120_000);
  const phone = await PushPhone.open(page, collie.url, rig.service, "allow-phone");
  const { push, askId } = await raiseAndDeliver(page, phone, "allow");
  // The push names the ask's buttons by ids and revision; Always allow is never one of them.
  if (push.payload.type !== "ask") return;
  expect(push.payload.answers).toEqual({
    kind: "permission", revision: expect.stringMatching(/^[0-9a-f]{16}$/), what: "refund",
    options: [{ id: "allow", title: STRINGS.allow, optionKind: "allow" }, { id: "deny", title: STRINGS.deny, optionKind: "deny" }],
  });
  await expect.poll(() => shown(page)).toEqual([[titleOf("allow"), REFUND_LINE, [STRINGS.allow, STRINGS.deny]]]);

  await press(page, TAG, STRINGS.allow);
  const callId = "refund-allow-1";
  await expect.poll(() => approvals.received("allow")).toEqual([
    { pane: "allow", callId, approved: true, decidedBy: "phone" },
    { pane: "allow", callId, ran: true },
  ]);
  // The ask's notification is replaced by a quiet one that says what happened.
  await expect.poll(() => notifications(page)).toEqual([
    expect.objectContaining({ title: WORDS.chat.decided("allow", "refund"), body: titleOf("allow"), tag: answerTag(askId), buttons: [], silent: true }),
  ]);
  // Collie withdraws the ask's notification as it always does; the quiet line stays.
  await phone.deliver((await nextFor(phone, "allow", "clear")).text);
  await expect.poll(() => shown(page)).toEqual([[WORDS.chat.decided("allow", "refund"), titleOf("allow"), []]]);

  // Opened later, the app shows the answer as if it had been tapped there: no card and, as for a
  // tap in the app, no chat line (P-16).
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Durable agents" })).toBeVisible();
  await tap(page, answerTag(askId));
  await expect(page).toHaveURL(new RegExp(`#/agent/${AGENT}/pane/allow/ask/${askId}$`));
  await expect(page.getByRole("log").locator(".decision-line")).toHaveCount(0); // P-16: an answer from the phone leaves no line
  await expect(page.locator(`[data-ask-id="${askId}"]`)).toHaveCount(0);
  await shot("push-answer-allowed");
  expect(approvals.received("allow").filter((r) => r.ran)).toHaveLength(1);
});

test("Deny on the notification: the agent's approval resolves denied by the phone and the call never runs", async ({ page, collie, rig, approvals }) => {
  test.setTimeout(120_000);
  const phone = await PushPhone.open(page, collie.url, rig.service, "deny-phone");
  const { askId } = await raiseAndDeliver(page, phone, "deny");
  await expect.poll(() => shown(page)).toEqual([[titleOf("deny"), REFUND_LINE, [STRINGS.allow, STRINGS.deny]]]);
  await press(page, TAG, STRINGS.deny);
  await expect.poll(() => approvals.received("deny")).toEqual([{ pane: "deny", callId: "refund-deny-1", approved: false, decidedBy: "phone" }]);
  await expect.poll(() => shown(page)).toEqual([[WORDS.chat.decided("deny", "refund"), titleOf("deny"), []]]);
  await page.goto(chatOf("deny"));
  await expect(page.getByRole("log").locator(".decision-line")).toHaveCount(0); // P-16: an answer from the phone leaves no line
  await expect(page.locator(`[data-ask-id="${askId}"]`)).toHaveCount(0);
});

test("a choice of two: its labels are the buttons, and a press picks one", async ({ page, collie, rig, approvals }) => {
  test.setTimeout(120_000);
  const phone = await PushPhone.open(page, collie.url, rig.service, "choice-phone");
  await raiseAndDeliver(page, phone, "choice", "courier 1");
  await expect.poll(() => shown(page)).toEqual([[titleOf("choice"), "Which courier?", ["DHL Express", "UPS"]]]);
  await press(page, TAG, "UPS");
  await expect.poll(() => approvals.received("choice")).toEqual([{ pane: "choice", callId: "courier-1", picked: ["ups"] }]);
  await expect.poll(() => shown(page)).toEqual([[WORDS.chat.decided(undefined, "Which courier?"), titleOf("choice"), []]]);
});

test("the ask changed since the push: the notification says so, and its tap opens the card with the same line", async ({ page, collie, rig, approvals, shot }) => {
  test.setTimeout(120_000);
  const phone = await PushPhone.open(page, collie.url, rig.service, "changed-phone");
  const { askId } = await raiseAndDeliver(page, phone, "changed");
  // The agent asks the same call again with another amount: the same ask, another revision. The
  // phone misses the clear push in between, so the old notification is still showing.
  await say(page, "changed", "change 1");
  await nextFor(phone, "changed", "clear");
  // Collie open in the background this time: the worker tells it what the press came to.
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Durable agents" })).toBeVisible();
  await press(page, TAG, STRINGS.allow);
  await expect.poll(() => shown(page)).toEqual([[titleOf("changed"), STRINGS.askChanged, []]]);
  expect(approvals.received("changed")).toEqual([]);

  await tap(page, answerTag(askId));
  await expect(page).toHaveURL(new RegExp(`#/agent/${AGENT}/pane/changed/ask/${askId}$`));
  const card = page.locator(`[data-ask-id="${askId}"]`);
  await expect(card.getByRole("status")).toHaveText(STRINGS.askChanged);
  await expect(card).toContainText("amount: 400");
  await shot("push-answer-changed");
  // Read again, then tapped in the app: the new revision is answered.
  await card.getByRole("button", { name: STRINGS.allow, exact: true }).click();
  await expect.poll(() => approvals.received("changed")).toEqual([
    { pane: "changed", callId: "refund-changed-1", approved: true, decidedBy: "phone" },
    { pane: "changed", callId: "refund-changed-1", ran: true },
  ]);
});

test("no network: the answer waits in the outbox and is sent when the phone is back, exactly once", async ({ page, collie, rig, approvals }) => {
  test.setTimeout(150_000);
  const phone = await PushPhone.open(page, collie.url, rig.service, "offline-phone");
  const context = page.context();

  // Back online, the browser's Background Sync wakes the worker, which sends it from the outbox.
  const first = await raiseAndDeliver(page, phone, "offline", "refund 1");
  await context.setOffline(true);
  await press(page, TAG, STRINGS.allow);
  await expect.poll(() => shown(page)).toEqual([[titleOf("offline"), WORDS.push.answerOffline(STRINGS.allow), []]]);
  expect(approvals.received("offline")).toEqual([]);
  await context.setOffline(false);
  await phone.sync("collie-answers");
  await expect.poll(() => approvals.received("offline")).toEqual([
    { pane: "offline", callId: "refund-offline-1", approved: true, decidedBy: "phone" },
    { pane: "offline", callId: "refund-offline-1", ran: true },
  ]);
  await expect.poll(() => notifications(page)).toContainEqual(expect.objectContaining({ title: WORDS.chat.decided("allow", "refund"), tag: answerTag(first.askId) }));

  // Or the app, opened once the phone is back, sends it from the same outbox, as a tap of its own.
  const second = await raiseAndDeliver(page, phone, "offline", "refund 2");
  await context.setOffline(true);
  await press(page, TAG, STRINGS.allow);
  await expect.poll(async () => (await notifications(page)).find((n) => n.tag === answerTag(second.askId))?.body).toBe(WORDS.push.answerOffline(STRINGS.allow));
  await context.setOffline(false);
  await page.goto(chatOf("offline"));
  await expect.poll(() => approvals.received("offline").filter((r) => r.callId === "refund-offline-2")).toEqual([
    { pane: "offline", callId: "refund-offline-2", approved: true, decidedBy: "phone" },
    { pane: "offline", callId: "refund-offline-2", ran: true },
  ]);
  await expect(page.locator(`[data-ask-id="${second.askId}"]`)).toHaveCount(0);
  await expect(page.getByRole("log").locator(".decision-line")).toHaveCount(0); // P-16: an answer from the phone leaves no line
  // Nothing answered twice: one approval and one run per call, whoever sent it.
  expect(approvals.received("offline").filter((r) => r.ran).map((r) => r.callId)).toEqual(["refund-offline-1", "refund-offline-2"]);
});

test("Collie down when the button is pressed: kept on the phone, sent once Collie is back", async ({ page, collie, rig, approvals }) => {
  test.setTimeout(150_000);
  const phone = await PushPhone.open(page, collie.url, rig.service, "down-phone");
  const { askId } = await raiseAndDeliver(page, phone, "down");
  await collie.kill();
  await press(page, TAG, STRINGS.allow);
  await expect.poll(() => shown(page)).toEqual([[titleOf("down"), WORDS.push.answerOffline(STRINGS.allow), []]]);
  await collie.start();
  // Collie back and connected to the agent again, the ask open in its view.
  await expect.poll(async () => {
    const r = await page.request.get(`/api/agents/${AGENT}/panes/down`);
    return r.status() === 200 ? ((await r.json()) as { asks: { id: string }[] }).asks.map((a) => a.id) : [];
  }).toEqual([askId]);
  await phone.sync("collie-answers");
  await expect.poll(() => approvals.received("down")).toEqual([
    { pane: "down", callId: "refund-down-1", approved: true, decidedBy: "phone" },
    { pane: "down", callId: "refund-down-1", ran: true },
  ]);
  await expect.poll(() => shown(page)).toEqual([[WORDS.chat.decided("allow", "refund"), titleOf("down"), []]]);
  await page.goto(chatOf("down"));
  await expect(page.getByRole("log").locator(".decision-line")).toHaveCount(0); // P-16: an answer from the phone leaves no line
  await expect(page.locator(`[data-ask-id="${askId}"]`)).toHaveCount(0);
});

test("the agent cannot be reached: Collie holds the answer, the card says so, and it lands once the agent is back", async ({ page, collie, rig, approvals }) => {
  test.setTimeout(150_000);
  const phone = await PushPhone.open(page, collie.url, rig.service, "unreachable-phone");
  const { askId } = await raiseAndDeliver(page, phone, "unreachable");
  await approvals.kill();
  await press(page, TAG, STRINGS.allow);
  const held = WORDS.asks.held(STRINGS.allow);
  await expect.poll(() => shown(page)).toEqual([[titleOf("unreachable"), held, []]]);

  // Its tap opens the card with the same line, the chosen answer marked.
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Durable agents" })).toBeVisible();
  await tap(page, answerTag(askId));
  const card = page.locator(`[data-ask-id="${askId}"]`);
  await expect(card.getByRole("status")).toHaveText(held);
  expect(approvals.received("unreachable")).toEqual([]);

  // The agent is back and asks again: Collie delivers the held answer, once (its reconnect waits
  // out a backoff of some seconds).
  await approvals.start();
  await expect.poll(() => approvals.received("unreachable"), { timeout: 30_000 }).toEqual([
    { pane: "unreachable", callId: "refund-unreachable-1", approved: true, decidedBy: "phone" },
    { pane: "unreachable", callId: "refund-unreachable-1", ran: true },
  ]);
  await expect(card).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByRole("log").locator(".decision-line")).toHaveCount(0); // P-16: an answer from the phone leaves no line
  // The ask ended: the held notification goes with it.
  await phone.deliver((await nextFor(phone, "unreachable", "clear")).text);
  await expect.poll(async () => (await notifications(page)).filter((n) => n.tag === answerTag(askId))).toEqual([]);
});

test("the Settings switch off: no buttons, and a button shown before answers nothing", async ({ page, collie, rig, approvals, shot }) => {
  test.setTimeout(120_000);
  const phone = await PushPhone.open(page, collie.url, rig.service, "off-phone");
  const toggle = async (on: boolean) => {
    await page.goto("/#/settings");
    const row = page.getByRole("switch", { name: WORDS.push.answerLabel });
    await expect(row).toBeChecked({ checked: !on });
    await row.click();
    await expect(row).toBeChecked({ checked: on });
    // The switch shows the new state at once and writes it to IndexedDB after: read back from
    // there, it is what the service worker reads (a push delivered right after must see it).
    await page.reload();
    await expect(page.getByRole("switch", { name: WORDS.push.answerLabel })).toBeChecked({ checked: on });
  };
  await page.goto("/#/settings");
  // On by default, with what it means on a locked phone.
  await expect(page.getByRole("switch", { name: WORDS.push.answerLabel })).toBeChecked();
  await expect(page.locator(".answer-setting")).toContainText(WORDS.push.answerLocked);
  await shot("push-answer-setting");
  await toggle(false);

  const { push, askId } = await raiseAndDeliver(page, phone, "off");
  await expect.poll(() => shown(page)).toEqual([[titleOf("off"), REFUND_LINE, []]]);

  // Shown while it was on, then turned off: the old button opens the card and answers nothing.
  await toggle(true);
  await page.goto("about:blank");
  await phone.deliver(push.text);
  await expect.poll(() => shown(page)).toEqual([[titleOf("off"), REFUND_LINE, [STRINGS.allow, STRINGS.deny]]]);
  await toggle(false);
  await press(page, TAG, STRINGS.allow);
  await expect(page).toHaveURL(new RegExp(`#/agent/${AGENT}/pane/off/ask/${askId}$`));
  const card = page.locator(`[data-ask-id="${askId}"]`);
  await expect(card).toBeVisible();
  await expect(card.getByRole("button", { name: STRINGS.allow, exact: true })).toBeEnabled();
  expect(approvals.received("off")).toEqual([]);
});
