/**
 * The chat (P-19, P-20, P-22): your line with its clock, `Sent`, the agent's copy in its place, a
 * reply that grows with a cursor and then is final; Steer into a running turn; Stop it.
 * Aiko Tanaka's ticket takes the default reply; Jonas Weber's runs the exchange script.
 */
import { expect, test } from "./fixtures.ts";
import { gateLive, holdRequests, items, openChat, ownLines, pendingLines, SEEDED, TURN_TIMEOUT } from "./desk.ts";

test.use({ viewport: { width: 360, height: 740 } });

test("a message: your line, Sent, the agent's copy, a streamed reply", async ({ page, shot }) => {
  const { pane, title, intro } = SEEDED.aiko;
  // No word of the example's scripts in it (README.md): the default short streamed reply runs.
  const text = "Hello there, is anyone on shift today?";
  const live = await gateLive(page);
  const chat = await openChat(page, pane, title, intro);
  await expect(chat.stop).toBeDisabled(); // idle: a send starts a turn

  // Your line shows the moment you tap Send, with its clock, while the send is on its way (P-20).
  const sending = await holdRequests(page, new RegExp(`/panes/${pane}/send$`));
  await chat.composer.fill(text);
  await chat.send.click();
  await expect(chat.composer).toHaveValue("");
  await expect(pendingLines(page, text)).toHaveCount(1);
  await expect(pendingLines(page, text).getByRole("img", { name: "Sending" })).toBeVisible();
  await sending.arrived();

  // Hold Collie's messages from the first item after your line's copy: the copy is the newest line.
  let replyWrites = 0;
  const replyWrite = (m: { type: string; paneId?: string; item?: { kind?: string } }) => m.type === "item" && m.paneId === pane && m.item?.kind === "reply";
  // (The first item after it may be the agent's thinking, or the reply itself.)
  live.holdFrom((m) => {
    const after = m.type === "item" && m.paneId === pane && m.item?.kind !== "user";
    if (after && replyWrite(m)) replyWrites++;
    return after;
  });
  sending.release();

  // The agent took it: `Sent`, and its copy replaced your line: one copy of your text (P-20).
  const sentNote = page.getByRole("status").filter({ hasText: /^Sent$/ });
  await expect(sentNote).toBeVisible();
  await expect(items(page, "user").filter({ hasText: text })).toHaveCount(1);
  await expect(pendingLines(page, text)).toHaveCount(0);
  await expect(ownLines(page, text)).toHaveCount(1);

  // The reply's first part comes; hold from its second write on, so that part stays on screen.
  // `Sent` was a moment's note: it goes once something follows your line (issue 37).
  await live.holding();
  live.releaseUntil((m) => replyWrite(m) && ++replyWrites === 2);
  await expect(sentNote).toHaveCount(0);

  // The reply grows with a cursor at its end and no time (P-19).
  const growing = chat.log.locator('[data-kind="reply"].partial');
  await expect(growing).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(growing.locator("[data-cursor]")).toBeVisible();
  await expect(growing.locator("time")).toHaveCount(0);
  await live.holding();
  const partialText = (await growing.innerText()).trim();
  const replyId = await growing.getAttribute("data-item-id");
  expect(partialText).toMatch(/^Got it/);
  expect(partialText).not.toContain("Just say which.");
  await shot("chat-streaming");

  // Then the final text: the cursor goes, the time shows.
  live.release();
  const reply = chat.log.locator(`[data-item-id="${replyId}"]`); // the same item, grown in place (S-14)
  await expect(reply).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(reply).toContainText("Just say which.");
  await expect(reply.locator("[data-cursor]")).toHaveCount(0);
  await expect(reply.locator("time")).toHaveCount(1);
  await expect(chat.log.locator("[data-cursor]")).toHaveCount(0);
  await expect(reply).toContainText(`Got it: "${text}"`);
  await expect(reply).toContainText(partialText);
  await expect(items(page, "reply").filter({ hasText: `Got it: "${text}"` })).toHaveCount(1);
  // Still one copy of your line; the turn is over (Stop dims again).
  await expect(ownLines(page, text)).toHaveCount(1);
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
});

test("Steer reaches the running turn; Stop ends it", async ({ page }) => {
  const { pane, title, intro } = SEEDED.jonas;
  const chat = await openChat(page, pane, title, intro);
  await expect(chat.stop).toBeDisabled();
  await expect(chat.steer).toBeDisabled();

  // The exchange: steps with progress in line 2 (P-21), and a card that waits for a size.
  await chat.composer.fill("He got the wrong size, please exchange the jacket");
  await chat.send.click();
  const card = chat.log.getByRole("region", { name: "Which size should replace it?" });
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });
  await expect(chat.header).toContainText("Step 1 of 4: Reserve size");
  await expect(chat.stop).toBeEnabled();
  // Resolve is busy while a turn runs (P-22: a spinner, no tap).
  await expect(chat.belt.getByRole("button", { name: "Resolve" })).toHaveAttribute("aria-busy", "true");

  // Steer needs text; it sends it into the running turn and clears the composer (P-22).
  const steered = "Ship the new one before Friday";
  await chat.composer.fill(steered);
  await expect(chat.steer).toBeEnabled();
  await chat.steer.click();
  await expect(chat.composer).toHaveValue("");
  await expect(items(page, "user").filter({ hasText: steered })).toHaveCount(1);
  // It reads as steered, not as a new message.
  await expect(items(page, "user").filter({ hasText: steered }).locator(".steered-label")).toHaveText("Steered");
  await expect(page.getByText("Not sent", { exact: true })).toHaveCount(0);
  // Steering kept the turn: the card still waits.
  await expect(card).toBeVisible();

  // Stop ends the turn: the `stopped` note, the card goes, Stop (and Steer) dim again (P-19, P-22).
  const stoppedBefore = await items(page, "notice").filter({ hasText: /^stopped/ }).count();
  await chat.stop.click();
  await expect(items(page, "notice").filter({ hasText: /^stopped/ })).toHaveCount(stoppedBefore + 1);
  await expect(card).toHaveCount(0);
  await expect(chat.stop).toBeDisabled();
  await expect(chat.stop).toHaveAttribute("data-dimmed", "true");
  await expect(chat.steer).toBeDisabled();
  await expect(chat.belt.getByRole("button", { name: "Resolve" })).toBeEnabled();
  // The chain's progress went with the turn: line 2 is the subtitle again.
  await expect(chat.header).toContainText(SEEDED.jonas.subtitle);
});

test("during a turn the composer still sends: the message waits in Collie for the turn to end, then lands once; Steer is the belt's alone", async ({ page, shot }) => {
  const { pane, title, intro } = SEEDED.maria;
  const chat = await openChat(page, pane, title, intro);
  const form = chat.composer.locator("xpath=ancestor::form");
  await chat.composer.fill("Check the courier's note first, then refund her");
  await chat.send.click();
  // The turn runs (it waits on the refund's approval). One button in the composer, Send; Steer is the belt's.
  await expect(chat.stop).toBeEnabled({ timeout: TURN_TIMEOUT });
  await expect(form.getByRole("button", { name: "Steer", exact: true })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Steer", exact: true })).toHaveCount(1);
  // The desk takes no message during a turn (no followUp cap): the empty composer says it waits.
  await expect(chat.composer).toHaveAttribute("placeholder", "Message · sent when this turn ends");
  const later = "Is there anything else she needs from us?";
  await chat.composer.fill(later);
  await expect(chat.send).toBeEnabled();
  await chat.send.click();
  await expect(chat.composer).toHaveValue("");
  const line = pendingLines(page, later);
  await expect(line).toHaveAttribute("data-state", "held");
  await expect(line).toContainText("Not delivered yet. Collie sends it when the running turn ends.");
  await expect(page.getByText("Not sent", { exact: true })).toHaveCount(0);
  await shot("chat-send-during-turn");
  // The turn ends (stopped): Collie delivers it, the agent's copy replaces the line and it answers, once.
  await chat.stop.click();
  await expect(items(page, "user").filter({ hasText: later })).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(pendingLines(page, later)).toHaveCount(0);
  await expect(items(page, "reply").filter({ hasText: `Got it: "${later}"` })).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(page.getByText("Not sent", { exact: true })).toHaveCount(0);
  await expect(chat.composer).toHaveAttribute("placeholder", "Message", { timeout: TURN_TIMEOUT });
});

test("the composer says what it is for, grows with a long message, and the note Sent goes once the agent answered", async ({ page }) => {
  const { pane, title, intro } = SEEDED.aiko;
  const chat = await openChat(page, pane, title, intro);
  await expect(chat.composer).toHaveAttribute("placeholder", "Message");
  const oneLine = (await chat.composer.boundingBox())!.height;
  // Three lines' worth (wrapped, no newline): nothing is clipped.
  await chat.composer.fill("Could you check whether the corrected invoice went out, and whether the VAT rate on it is the reduced one she asked about last week?");
  const grown = await chat.composer.evaluate((el: HTMLTextAreaElement) => ({ scroll: el.scrollHeight, client: el.clientHeight }));
  expect(grown.scroll).toBeLessThanOrEqual(grown.client);
  expect((await chat.composer.boundingBox())!.height).toBeGreaterThan(oneLine * 1.5);
  await chat.composer.fill("");
  expect((await chat.composer.boundingBox())!.height).toBe(oneLine);

  // `Sent` shows once the agent took the line, and goes when its reply is finished.
  await chat.composer.fill("Thanks, that is all for today");
  await chat.send.click();
  const reply = items(page, "reply").filter({ hasText: 'Got it: "Thanks, that is all for today"' });
  await expect(reply).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(reply.locator("[data-cursor]")).toHaveCount(0, { timeout: TURN_TIMEOUT });
  await expect(page.getByRole("status").filter({ hasText: /^Sent$/ })).toHaveCount(0);
  // Times are grouped: no two items next to each other show the same time.
  const shown = await chat.log.locator(".row-slot").evaluateAll((slots) => slots.map((s) => s.querySelector(":scope > .item time")?.textContent ?? null));
  for (let i = 1; i < shown.length; i++) if (shown[i] !== null && shown[i - 1] !== null) expect(shown[i]).not.toBe(shown[i - 1]);
  expect(shown.filter((t) => t === null).length).toBeGreaterThan(0);
});
