/**
 * A durable agent that went away while the phone is in use (D-5, P-20, L-1), against the real
 * daemon and the example desk killed and started again:
 * - a message sent while the agent is down is held by Collie with the phone's request id, the line
 *   says so and survives a reload, and it is delivered once when the agent is back;
 * - a dead agent does not look alive: when the dashboard says `Unreachable`, the chat and the
 *   conversation list say it cannot be reached and what still works; no spinner, countdown or Stop
 *   pretends otherwise; an answer tapped meanwhile is held, and the card says which answer.
 * The file runs its own Collie (askTest): its restarts leave the other journeys alone.
 */
import { STRINGS } from "@colliepwa/shared";
import { expect } from "./fixtures.ts";
import { chatPath, items, openChat, pendingLines, SEEDED, TURN_TIMEOUT } from "./desk.ts";
import { askCard, askTest, say } from "./asks.ts";

/**
 * Collie's own words where the specification leaves them (web/src/features/chat/words.ts,
 * web/src/ui/AgentAway.tsx, web/src/features/asks/words.ts).
 */
const WORDS = {
  held: "Not delivered yet. Collie sends it when the durable agent is back.",
  awayChat: "The durable agent cannot be reached right now. Answers and messages wait in Collie and reach it when it is back; Stop and the agent's buttons work again then.",
  awayHome: "The durable agent cannot be reached right now. Its conversations show as it last left them; answers and messages wait in Collie until it is back.",
  lastSeenRunning: "Last seen running",
  heldAnswer: (answer: string) => `Sent: ${answer}. Collie delivers it when the durable agent is back.`,
  heldForTurn: "Not delivered yet. Collie sends it when the running turn ends.",
};

// The desk runs as the user's own agent here: Collie would start its own example again at once.
const test = askTest({ ownAgent: true });
test.use({ viewport: { width: 390, height: 844 } });

test("a message sent while the agent is down is held, survives a reload, and lands once when it is back", async ({ page, collie, shot }) => {
  test.setTimeout(90_000);
  const { pane, title, intro } = SEEDED.aiko;
  const text = "hello?";
  const sends: string[] = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().endsWith(`/panes/${pane}/send`)) sends.push((r.postDataJSON() as { requestId: string }).requestId);
  });
  const chat = await openChat(page, pane, title, intro);

  await collie.killAgent();
  await say(page, text);
  const line = pendingLines(page, text);
  await expect(line).toHaveCount(1);
  await expect(line).toHaveAttribute("data-state", "held");
  await expect(line).toContainText(WORDS.held);
  await expect(page.getByText("Not sent", { exact: true })).toHaveCount(0);
  await expect(page.getByText("Sending, not confirmed", { exact: true })).toHaveCount(0);
  await shot("send-held");

  // A reload, and leaving the chat and coming back: the line is still there, still held.
  await page.reload();
  await expect(chat.log).toContainText(intro);
  await expect(pendingLines(page, text)).toHaveAttribute("data-state", "held");
  await page.goBack();
  await page.goForward();
  await expect(pendingLines(page, text)).toContainText(WORDS.held);

  // The agent is back: Collie delivers it; the agent's copy replaces the line and it answers, once.
  await collie.startAgent();
  await expect(items(page, "user").filter({ hasText: text })).toHaveCount(1, { timeout: 30_000 });
  await expect(pendingLines(page, text)).toHaveCount(0);
  await expect(items(page, "reply").filter({ hasText: `Got it: "${text}"` })).toHaveCount(1, { timeout: TURN_TIMEOUT });
  // Every send the phone made carried one request id.
  expect(new Set(sends).size).toBe(1);

  await page.reload();
  await expect(chat.log).toContainText(intro);
  await expect(items(page, "user").filter({ hasText: text })).toHaveCount(1);
  await expect(items(page, "reply").filter({ hasText: `Got it: "${text}"` })).toHaveCount(1);
  await expect(page.locator("[data-own-line]")).toHaveCount(0);
});

test("the agent killed mid-turn: a message typed then is kept across a reload, sent and held, and lands once after the restart", async ({ page, collie, shot }) => {
  test.setTimeout(120_000);
  const { pane, title, intro } = SEEDED.maria;
  const text = "Please tell her we are on it today";
  // Every send of this message, across reloads and the restart: one request id.
  const sends: string[] = [];
  page.on("request", (r) => {
    if (r.method() !== "POST" || !r.url().endsWith(`/panes/${pane}/send`)) return;
    const body = r.postDataJSON() as { requestId: string; text: string };
    if (body.text === text) sends.push(body.requestId);
  });
  const chat = await openChat(page, pane, title, intro);
  await say(page, "Check the courier's note first, then refund her");
  const card = askCard(page, "refund wants to run");
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });

  // The agent dies mid-turn. What is typed now is the conversation's draft: a reload keeps it.
  await collie.killAgent();
  await expect(page.locator("[data-away]")).toHaveText(WORDS.awayChat);
  await expect(card.locator(".ask-expiry")).toContainText("Expires in");
  await chat.composer.fill(text);
  await page.reload();
  await expect(chat.log).toContainText(intro);
  await expect(chat.composer).toHaveValue(text);
  await expect(page.locator("[data-away]")).toHaveText(WORDS.awayChat);
  await expect(card.locator(".ask-expiry")).toContainText("Expires in");

  // Send works while the agent is down: Collie holds it, the line shows its clock and says so.
  await expect(chat.send).toBeEnabled();
  await chat.send.click();
  await expect(chat.composer).toHaveValue("");
  const line = pendingLines(page, text);
  await expect(line).toHaveAttribute("data-state", "held");
  await expect(line.getByRole("img", { name: "Sending" })).toBeVisible();
  await expect(line).toContainText(WORDS.held);
  await shot("agent-down-mid-turn-held");
  await page.reload();
  await expect(pendingLines(page, text)).toHaveAttribute("data-state", "held");
  await expect(chat.composer).toHaveValue("");

  // Collie restarts (and with it the example agent): the turn comes back, waiting on the same card,
  // and the message waits for the turn instead of being refused by it.
  await collie.kill();
  await collie.start();
  await expect(page.locator("[data-away]")).toHaveCount(0, { timeout: 30_000 });
  await expect(card).toBeVisible({ timeout: 30_000 });
  await expect(pendingLines(page, text)).toContainText(WORDS.heldForTurn);
  await expect(page.getByText("Not sent", { exact: true })).toHaveCount(0);
  await card.getByRole("button", { name: STRINGS.deny, exact: true }).click();

  // The turn ends: the message lands once, and the agent answers it.
  await expect(items(page, "user").filter({ hasText: text })).toHaveCount(1, { timeout: 30_000 });
  await expect(items(page, "reply").filter({ hasText: `Got it: "${text}"` })).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(pendingLines(page, text)).toHaveCount(0);
  expect(sends.length).toBeGreaterThan(0);
  expect(new Set(sends).size).toBe(1);
  await page.reload();
  await expect(chat.log).toContainText(intro);
  await expect(items(page, "user").filter({ hasText: text })).toHaveCount(1);
  await expect(items(page, "reply").filter({ hasText: `Got it: "${text}"` })).toHaveCount(1);
  await expect(page.getByText("Not sent", { exact: true })).toHaveCount(0);
});

test("three messages queued while Collie and the agent were down go one at a time, in order, each after the turn before; none ends Not sent", async ({ page, collie }) => {
  test.setTimeout(120_000);
  const { pane, title, intro } = SEEDED.jonas;
  const chat = await openChat(page, pane, title, intro);
  await expect(chat.composer).toBeVisible();
  await collie.kill();
  const texts = ["First, hello there", "Second, anyone on shift?", "Third, please answer me"];
  for (const text of texts) await say(page, text);
  for (const text of texts) await expect(pendingLines(page, text)).toHaveAttribute("data-state", "not-confirmed");

  // Collie comes back: the phone's outbox sends them in order; the desk takes one per turn, so
  // Collie holds the others until the turn before is over (issue 37 item 2).
  await collie.start();
  for (const text of texts) {
    await expect(items(page, "reply").filter({ hasText: `Got it: "${text}"` })).toHaveCount(1, { timeout: 30_000 });
  }
  await expect(page.getByText("Not sent", { exact: true })).toHaveCount(0);
  await expect(page.locator("[data-own-line]")).toHaveCount(0, { timeout: TURN_TIMEOUT });
  const order = await items(page, "user").evaluateAll((els, wanted) => els.map((e) => e.textContent ?? "").filter((t) => wanted.some((w) => t.includes(w))), texts);
  expect(order.map((t) => texts.findIndex((w) => t.includes(w)))).toEqual([0, 1, 2]);
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
});

test("a dead agent does not look alive: the chat and the list say it cannot be reached; an answer meanwhile is held and named", async ({ page, collie, shot }) => {
  test.setTimeout(90_000);
  const { pane, title, intro } = SEEDED.sofia;
  const chat = await openChat(page, pane, title, intro);
  await say(page, "The machine will be late, refund Sofia");
  const card = askCard(page, "refund wants to run");
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });
  const refund = items(page, "tool").filter({ hasText: "refund(order:" });
  await expect(refund.locator(".spinner")).toHaveCount(1);
  await expect(card.locator(".ask-expiry")).toContainText("Expires in");
  await expect(chat.stop).toBeEnabled();
  const note = page.locator("[data-away]");
  await expect(note).toHaveCount(0);

  // The agent dies. As soon as Collie knows (the dashboard's `Unreachable`), the chat says so.
  await collie.killAgent();
  await expect(note).toHaveText(WORDS.awayChat);
  await expect(refund.locator(".spinner")).toHaveCount(0);
  await expect(refund).toContainText(WORDS.lastSeenRunning);
  // The ask's deadline stays in sight (issue 32): a held answer reaches the agent only while it is open.
  await expect(card.locator(".ask-expiry")).toContainText("Expires in");
  await expect(chat.stop).toBeDisabled();
  await expect(page.locator("[data-dots]")).toHaveCount(0);
  await shot("agent-away-chat");

  // The conversation list says it too, and still lists the conversation; the dashboard row says Unreachable.
  await page.getByRole("link", { name: "Back" }).click();
  await expect(page.locator("[data-away]")).toHaveText(WORDS.awayHome);
  await expect(page.locator(`[data-pane="${pane}"]`)).toContainText(title);
  // One state, one sentence (issue #32): nothing at the list's end says the same again.
  await expect(page.getByText(STRINGS.historyNoAnswer)).toHaveCount(0);
  await page.getByRole("link", { name: "Back" }).click();
  await expect(page.locator('[data-agent="desk"]')).toContainText(STRINGS.unreachable);
  // A reload while it is down still finds the chat (not "closed"), with the note.
  await page.goto(chatPath(pane));
  await page.reload();
  await expect(chat.log).toContainText(intro);
  await expect(page.locator("[data-away]")).toHaveText(WORDS.awayChat);
  await expect(card).toBeVisible();

  // Allow is held for the agent, and the card says which answer waits: Allow stays marked, Deny dims.
  await card.getByRole("button", { name: STRINGS.allow, exact: true }).click();
  await expect(card.getByRole("status")).toHaveText(WORDS.heldAnswer(STRINGS.allow));
  await expect(card.getByRole("button", { name: STRINGS.allow, exact: true })).toHaveAttribute("data-chosen", "true");
  await expect(card.getByRole("button", { name: STRINGS.deny, exact: true })).not.toHaveAttribute("data-chosen");
  await shot("agent-away-held-answer");
  // A reload: the card still says which answer waits, from Collie's record (issue #34), with no
  // answer line besides it and no buttons offered again.
  await page.reload();
  await expect(chat.log).toContainText(intro);
  await expect(card.getByRole("status")).toHaveText(WORDS.heldAnswer(STRINGS.allow));
  await expect(card.getByRole("button", { name: STRINGS.allow, exact: true })).toHaveAttribute("data-chosen", "true");
  await expect(chat.log.locator(".decision-line")).toHaveCount(0);

  // Back: the note goes, the held answer lands, the refund runs once.
  await collie.startAgent();
  await expect(page.locator("[data-away]")).toHaveCount(0, { timeout: 30_000 });
  await expect(card).toHaveCount(0, { timeout: 30_000 });
  await expect(items(page, "reply").filter({ hasText: "Done: I refunded 649 EUR for order 7781." })).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(refund).toHaveCount(1);
  // Delivered and taken: no line stays (P-16), as for any answer given on the phone.
  await expect(chat.log.locator(".decision-line")).toHaveCount(0);
});

test("after the agent restarts, each row of the conversation list shows its newest item's or ask's time", async ({ page, collie }) => {
  test.setTimeout(90_000);
  await collie.killAgent();
  await collie.startAgent();
  await page.goto(`/#/agent/desk`);
  const rows = page.locator("ul.home-open [data-pane]");
  await expect(rows.first()).toBeVisible();
  await expect(page.locator("[data-away]")).toHaveCount(0);
  const panes = await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-pane")!));
  expect(panes.length).toBeGreaterThan(1);
  for (const pane of panes) {
    const detail = (await (await page.request.get(`/api/agents/desk/panes/${encodeURIComponent(pane)}`)).json()) as {
      items: { ts?: string }[]; asks: { createdAt: string }[];
    };
    const times = [...detail.items.flatMap((i) => (i.ts ? [Date.parse(i.ts)] : [])), ...detail.asks.map((a) => Date.parse(a.createdAt))];
    expect(times.length).toBeGreaterThan(0);
    const newest = new Date(Math.max(...times)).toISOString();
    await expect(page.locator(`[data-pane="${pane}"] time`)).toHaveAttribute("datetime", newest);
  }
});
