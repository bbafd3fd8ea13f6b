/**
 * Permission cards (P-9, P-10, P-11, P-15, S-25, S-27) against the real daemon and the example
 * desk: `refund` waits on `requireApproval`; Allow → the promise resolves `approved: true`, which
 * the phone sees as what the agent does next (the tool runs, the reply says so); Deny → the tool is
 * denied; `Always allow` takes two taps and lets the next call through without a card; two phones
 * answer the same ask, the second one reads `Already answered…`.
 * The file runs its own Collie (askTest), so its refunds leave the other journeys' tickets alone.
 */
import { STRINGS } from "@colliepwa/shared";
import { expect } from "./fixtures.ts";
import { chatParts, gateLive, items, openChat, SEEDED, TURN_TIMEOUT } from "./desk.ts";
import { answersPosted, askCard, asksAnnounced, askTest, cardLine, liveNews, say } from "./asks.ts";

const test = askTest();
test.use({ viewport: { width: 360, height: 740 } });

const REFUND = "refund wants to run";
/** Answered on the phone: the ask leaves no `Decided…` or `Timed out…` line (P-16). */
const endedLines = /^(Decided in the durable agent|Timed out before an answer):/;

test("Allow: the refund runs and the agent says so", async ({ page, shot }) => {
  const { pane, title, intro } = SEEDED.maria;
  const chat = await openChat(page, pane, title, intro);
  const posted = answersPosted(page);
  await say(page, "The parcel never came. Can she get a refund?");

  // The card under the refund call: caption, title, the call on one line, the arguments, Allow / Deny.
  const card = askCard(page, REFUND);
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });
  await expect(card).toHaveAttribute("data-ask-kind", "permission");
  await expect(card).toContainText(STRINGS.needsYourAnswer("desk"));
  // The call shows once, on the tool item right above; the card does not repeat it.
  await expect(card.locator(".ask-call")).toHaveCount(0);
  await expect(items(page, "tool").locator(".tool-call", { hasText: 'refund(order: "5521", amount: 40)' })).toHaveCount(1);
  await expect(card).toContainText('order: "5521"');
  await expect(card.getByRole("button")).toHaveText([STRINGS.allow, STRINGS.deny]);
  const refund = items(page, "tool").filter({ hasText: 'refund(order: "5521", amount: 40)' });
  await expect(refund.locator("[data-status]")).toHaveAttribute("data-status", "running");
  // The card sits right under the call it concerns (P-9).
  const itemId = await refund.getAttribute("data-item-id");
  await expect(chat.log.locator(`[data-item-id="${itemId}"] + .ask-slot`).getByRole("region", { name: REFUND })).toBeVisible();
  await shot("ask-permission");

  const viaHttp: string[] = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().includes("/answer")) viaHttp.push(r.url());
  });
  await card.getByRole("button", { name: STRINGS.allow, exact: true }).click();
  // Accepted: the card closes (P-15)…
  await expect(card).toHaveCount(0);
  expect(posted).toHaveLength(1);
  expect(posted[0]!.answer).toEqual({ kind: "permission", optionId: "allow" });
  // …the answer went on the open live socket, not as a request of its own (issue 31).
  expect(viaHttp).toEqual([]);
  // …and requireApproval resolved `approved: true`: the refund ran and the reply says so.
  await expect(refund.locator("[data-status]")).toHaveAttribute("data-status", "done", { timeout: TURN_TIMEOUT });
  await expect(refund).toContainText("Refunded 40 EUR for order 5521");
  const reply = items(page, "reply").filter({ hasText: "Done: I refunded 40 EUR for order 5521." });
  await expect(reply).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
  await expect(chat.header).toContainText("Order 5521 · refunded");
  await expect(items(page, "notice").filter({ hasText: endedLines })).toHaveCount(0);
  // An ask answered on the phone leaves no line (P-16, issue #34): the tap had its own card.
  await expect(chat.log.locator(".decision-line")).toHaveCount(0);
  await page.reload();
  await expect(chat.log).toContainText("Done: I refunded 40 EUR for order 5521.");
  await expect(chat.log.locator(".decision-line")).toHaveCount(0);
});

test("Deny: the refund does not run", async ({ page }) => {
  const { pane, title, intro } = SEEDED.jonas;
  const chat = await openChat(page, pane, title, intro);
  await say(page, "He sent the jacket back, please refund it");
  const card = askCard(page, REFUND);
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });
  await expect(card.locator(".ask-call")).toHaveCount(0);
  await expect(items(page, "tool").locator(".tool-call", { hasText: 'refund(order: "5530", amount: 120)' })).toHaveCount(1);

  await card.getByRole("button", { name: STRINGS.deny, exact: true }).click();
  await expect(card).toHaveCount(0);
  // requireApproval resolved `approved: false`: the call shows denied, the reply offers something else.
  const refund = items(page, "tool").filter({ hasText: "refund(order:" });
  await expect(refund.locator("[data-status]")).toHaveAttribute("data-status", "denied", { timeout: TURN_TIMEOUT });
  await expect(refund).toContainText("Denied on the phone");
  await expect(items(page, "reply").filter({ hasText: "Understood, no refund for order 5530." })).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
  await expect(chat.header).toContainText(SEEDED.jonas.subtitle); // still delivered: nothing moved
  await expect(items(page, "notice").filter({ hasText: endedLines })).toHaveCount(0);
});

test("Always allow takes two taps; the next call passes without a card", async ({ page, collie }) => {
  test.setTimeout(120_000);
  const { pane, title, intro } = SEEDED.sofia;
  const news = liveNews(page);
  const chat = await openChat(page, pane, title, intro);
  const posted = answersPosted(page);
  await say(page, "Is the espresso machine still in stock?");

  const card = askCard(page, "check_stock wants to run");
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });
  await expect(card.locator(".ask-call")).toHaveCount(0);
  await expect(items(page, "tool").locator(".tool-call", { hasText: 'check_stock(product: "Espresso machine", warehouse: "Berlin")' })).toHaveCount(1);
  await expect(card.getByRole("button")).toHaveText([STRINGS.allow, STRINGS.alwaysAllow, STRINGS.deny]);

  // First tap: the button asks again and names the tool; nothing is sent (P-11).
  const always = card.locator('button[data-option="allow-always"]');
  const boxes = async () => Promise.all((await card.getByRole("button").all()).map((btn) => btn.boundingBox()));
  const before = await boxes();
  await always.click();
  await expect(always).toContainText(STRINGS.tapAgainToAlwaysAllow);
  // Arming it reflows nothing: every button keeps its place and size.
  expect(await boxes()).toEqual(before);
  await expect(always).toContainText("check_stock");
  await expect(card).toBeVisible();
  expect(posted).toHaveLength(0);

  // Second tap sends it.
  await always.click();
  await expect(card).toHaveCount(0);
  expect(posted).toHaveLength(1);
  expect(posted[0]!.answer).toEqual({ kind: "permission", optionId: "allow-always" });

  // Both warehouses are checked; the second call raised no card.
  const checks = items(page, "tool").filter({ hasText: "check_stock(" });
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
  await expect(checks).toHaveCount(2);
  await expect(checks.locator('[data-status="done"]')).toHaveCount(2);
  await expect(checks).toHaveText([/Berlin: 3 in stock/, /Vienna: none/]);
  await expect(items(page, "reply").filter({ hasText: "Stock of the Espresso machine: Berlin: 3 in stock; Vienna: none." })).toHaveCount(1);
  expect(asksAnnounced(news, pane)).toHaveLength(1);

  // And so does every later call of the tool: a second check runs with no card at all.
  await say(page, "Check the stock once more, please");
  await expect(checks).toHaveCount(4, { timeout: TURN_TIMEOUT });
  await expect(items(page, "reply").filter({ hasText: "Stock of the Espresso machine" })).toHaveCount(2, { timeout: TURN_TIMEOUT });
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
  await expect(checks.locator('[data-status="done"]')).toHaveCount(4);
  await expect(chat.log.locator("[data-ask-id]")).toHaveCount(0);
  expect(asksAnnounced(news, pane)).toHaveLength(1);
  expect(posted).toHaveLength(1);
  // No answer line in the chat (P-16); the agent's home lists the tool as always allowed.
  await expect(chat.log.locator(".decision-line")).toHaveCount(0);
  await page.goto("/#/agent/desk");
  const list = page.getByRole("region", { name: "Always allowed" });
  await expect(list.locator("[data-tool]")).toHaveText([/^check_stock · Phone · /]);
  // What it means and how it ends, one tap away (issue #32).
  await list.getByText("What this means").click();
  await expect(list).toContainText("A tool leaves this list when the agent asks about it again.");

  // The desk dies; Collie started it, so Collie brings it back, and it has forgotten: asked about
  // check_stock again, the tool leaves the list, which shows what the agent says now (issue #37).
  await collie.killAgent();
  await openChat(page, pane, title, intro);
  await expect(page.locator("[data-away]")).toHaveCount(0, { timeout: 30_000 });
  await say(page, "And the stock now?");
  const again = askCard(page, "check_stock wants to run");
  await expect(again).toBeVisible({ timeout: TURN_TIMEOUT });
  await page.goto("/#/agent/desk");
  await expect(page.locator('[data-pane="vip-7781"]')).toBeVisible();
  await expect(list).toHaveCount(0);
  await openChat(page, pane, title, intro);
  // Denied for Berlin, then asked for Vienna: each call has its own card, and each Deny ends its own.
  for (const warehouse of ["Berlin", "Vienna"]) {
    const card = again.filter({ hasText: `warehouse: "${warehouse}"` });
    await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });
    await card.getByRole("button", { name: STRINGS.deny, exact: true }).click();
    await expect(card).toHaveCount(0);
  }
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
});

test("two phones answer the same ask: the second reads Already answered", async ({ page, browser }) => {
  const { pane, title, intro } = SEEDED.aiko;
  // The second phone carries the first one's pairing (its cookies), as a second tab of the same user would.
  const other = await browser.newContext({ storageState: await page.context().storageState(), viewport: { width: 360, height: 740 } });
  try {
    const second = await other.newPage();
    const secondLive = await gateLive(second);
    const chat = await openChat(page, pane, title, intro);
    const secondChat = await openChat(second, pane, title, intro);

    await say(page, "Aiko wants her money back for the lamp, refund it");
    const card = askCard(page, REFUND);
    const secondCard = askCard(second, REFUND);
    await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });
    await expect(secondCard).toBeVisible({ timeout: TURN_TIMEOUT });
    await expect(secondCard).toHaveAttribute("data-ask-id", (await card.getAttribute("data-ask-id"))!);

    // The second phone hears nothing more for now (a slow link), so its card stays open.
    secondLive.freeze();
    await card.getByRole("button", { name: STRINGS.allow, exact: true }).click();
    await expect(card).toHaveCount(0);
    await expect(items(page, "reply").filter({ hasText: "Done: I refunded 89.9 EUR for order 6012." })).toHaveCount(1, { timeout: TURN_TIMEOUT });

    // The second phone taps Deny on its still open card: another answer came first (P-15).
    await secondCard.getByRole("button", { name: STRINGS.deny, exact: true }).click();
    await expect(cardLine(second, REFUND)).toHaveText(STRINGS.alreadyAnswered);
    await expect(secondCard).toHaveAttribute("data-outcome", "already-answered");
    await expect(secondCard.getByRole("button", { name: STRINGS.allow, exact: true })).toBeDisabled();
    await expect(secondCard.getByRole("button", { name: STRINGS.deny, exact: true })).toBeDisabled();

    // Its news arrive: the card goes, and it shows the one refund the first phone allowed.
    secondLive.release();
    await expect(secondCard).toHaveCount(0);
    const refunds = items(second, "tool").filter({ hasText: "refund(order:" });
    await expect(refunds).toHaveCount(1);
    await expect(refunds.locator("[data-status]")).toHaveAttribute("data-status", "done");
    await expect(items(second, "reply").filter({ hasText: "Done: I refunded 89.9 EUR for order 6012." })).toHaveCount(1);
    await expect(secondChat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
    await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
    await expect(items(page, "tool").filter({ hasText: "refund(order:" }).locator("[data-status]")).toHaveAttribute("data-status", "done");
  } finally {
    await other.close();
  }
});
