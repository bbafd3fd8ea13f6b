/**
 * Cards that take input (P-10, S-21) against the real daemon and the example desk: a choice (one
 * tap sends), a multiple choice (`Pick any`, rows toggle, `Send` sends the set), a form whose
 * required field is missing (refused on the phone, nothing sent) and then sent, and a text at the
 * agent's limit of 200 characters (`200 of 200`, typing stops there). Each answer is checked by
 * what the agent does with it next.
 * The file runs its own Collie (askTest), so the tickets it changes leave the other journeys alone.
 */
import { STRINGS } from "@colliepwa/shared";
import { expect } from "./fixtures.ts";
import { items, openChat, SEEDED, TURN_TIMEOUT } from "./desk.ts";
import { answersPosted, askCard, askTest, say } from "./asks.ts";

const test = askTest();
test.use({ viewport: { width: 360, height: 740 } });

const tool = (page: Parameters<typeof items>[0], call: string) => items(page, "tool").filter({ hasText: call });
const status = (page: Parameters<typeof items>[0], call: string) => tool(page, call).locator("[data-status]");

test("a choice, then a multiple choice: the exchange takes both", async ({ page }) => {
  const { pane, title, intro } = SEEDED.jonas;
  const chat = await openChat(page, pane, title, intro);
  const posted = answersPosted(page);
  await say(page, "He got the wrong size, please exchange the jacket");

  // A choice: one row per option, with its description; one tap sends (P-10).
  const size = askCard(page, "Which size should replace it?");
  await expect(size).toBeVisible({ timeout: TURN_TIMEOUT });
  await expect(size).toHaveAttribute("data-ask-kind", "choice");
  await expect(size).toContainText("Jonas ordered size M.");
  await expect(size.getByRole("button")).toHaveText(["S", "M", "L", /^XL\s*Only two left$/]);
  await expect(size.getByText(STRINGS.pickAny)).toHaveCount(0);
  await size.getByRole("button", { name: "L", exact: true }).click();
  await expect(size).toHaveCount(0);
  expect(posted.at(-1)!.answer).toEqual({ kind: "choice", optionIds: ["l"] });
  await expect(status(page, "reserve_item(")).toHaveAttribute("data-status", "done", { timeout: TURN_TIMEOUT });
  await expect(tool(page, "reserve_item(")).toContainText("Reserved size L");

  // A multiple choice: rows toggle under `Pick any`; `Send` sends the set (nothing picked is an answer too).
  const extras = askCard(page, "Anything to add to the exchange?");
  await expect(extras).toBeVisible({ timeout: TURN_TIMEOUT });
  const group = extras.getByRole("group", { name: STRINGS.pickAny });
  await expect(group).toContainText(STRINGS.pickAny);
  const send = extras.getByRole("button", { name: STRINGS.send, exact: true });
  const gift = extras.getByRole("button", { name: "Gift wrap" });
  const express = extras.getByRole("button", { name: "Express shipping" });
  const label = extras.getByRole("button", { name: "Return label by email" });
  await expect(send).toBeEnabled();
  await gift.click();
  await express.click();
  await label.click();
  await label.click(); // and off again
  await expect(gift).toHaveAttribute("aria-pressed", "true");
  await expect(express).toHaveAttribute("aria-pressed", "true");
  await expect(label).toHaveAttribute("aria-pressed", "false");
  const before = posted.length;
  await expect(send).toBeEnabled();
  expect(posted).toHaveLength(before); // toggling sends nothing
  await send.click();
  await expect(extras).toHaveCount(0);
  expect(posted.at(-1)!.answer).toEqual({ kind: "choice", optionIds: ["gift", "express"] });
  await expect(status(page, "add_extras(")).toHaveAttribute("data-status", "done", { timeout: TURN_TIMEOUT });
  await expect(tool(page, "add_extras(")).toContainText("Added Gift wrap, Express shipping");

  // The rest of the exchange: the address and the courier note, then the summary shows both picks.
  const where = askCard(page, "Where should the replacement go?");
  await expect(where).toBeVisible({ timeout: TURN_TIMEOUT });
  await where.getByRole("textbox", { name: /Street and number/ }).fill("Hauptstraße 5");
  await where.getByRole("button", { name: STRINGS.send, exact: true }).click();
  await expect(where).toHaveCount(0);
  const note = askCard(page, "A note for the courier?");
  await expect(note).toBeVisible({ timeout: TURN_TIMEOUT });
  await note.getByRole("textbox").fill("Ring twice");
  await note.getByRole("button", { name: STRINGS.send, exact: true }).click();
  await expect(note).toHaveCount(0);
  const summary = items(page, "markdown").filter({ hasText: "Exchange for order 5530" });
  await expect(summary).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(summary).toContainText("New size: L");
  await expect(summary).toContainText("Extras: Gift wrap, Express shipping");
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
});

test("a form with its required field missing is refused on the phone, then sent", async ({ page, shot }) => {
  const { pane, title, intro } = SEEDED.maria;
  const chat = await openChat(page, pane, title, intro);
  const posted = answersPosted(page);
  await say(page, "Please correct the delivery address");

  const card = askCard(page, "Correct the delivery address");
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });
  await expect(card).toHaveAttribute("data-ask-kind", "form");
  // Fields stacked under one Send; the required one is marked (P-10).
  const street = card.getByRole("textbox", { name: /Street and number/ });
  const country = card.getByRole("combobox", { name: "Country" });
  const door = card.getByRole("switch", { name: "Leave at door" });
  await expect(card.locator("[data-field]")).toHaveCount(3);
  await expect(card.locator('[data-field="street"]')).toContainText(STRINGS.required);
  await expect(card.locator('[data-field="country"]')).not.toContainText(STRINGS.required);
  await expect(card.locator('[data-field="street"]')).toContainText("0 of 120");

  // Everything but the street, then Send: refused on the phone, the field named, nothing sent.
  await country.selectOption({ label: "Austria" });
  await door.check();
  const send = card.getByRole("button", { name: STRINGS.send, exact: true });
  await send.click();
  const problem = card.getByRole("alert");
  await expect(problem).toHaveText("Fill this in to send.");
  await expect(street).toHaveAttribute("aria-invalid", "true");
  await expect(street).toBeFocused();
  await shot("ask-form-refused");
  await expect(card).toBeVisible();
  await expect(card).toHaveAttribute("data-phase", "idle");
  expect(posted).toHaveLength(0);
  // What was filled in stays.
  await expect(country).toHaveValue("at");
  await expect(door).toBeChecked();

  // The street filled in: the problem goes, Send sends the form.
  await street.fill("Hauptstraße 5");
  await expect(problem).toHaveCount(0);
  await expect(card.locator('[data-field="street"]')).toContainText("13 of 120");
  await send.click();
  await expect(card).toHaveCount(0);
  expect(posted).toHaveLength(1);
  expect(posted[0]!.answer).toEqual({ kind: "form", values: { street: "Hauptstraße 5", country: "at", door: true } });
  await expect(status(page, "update_address(")).toHaveAttribute("data-status", "done", { timeout: TURN_TIMEOUT });
  await expect(tool(page, "update_address(")).toContainText("Hauptstraße 5, Austria, leave at door");
  await expect(items(page, "reply").filter({ hasText: "Saved: Hauptstraße 5, Austria, leave at door." })).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
});

test("a text answer at the agent's limit", async ({ page }) => {
  const { pane, title, intro } = SEEDED.sofia;
  const chat = await openChat(page, pane, title, intro);
  const posted = answersPosted(page);
  await say(page, "Leave a courier note for the driver");

  const card = askCard(page, "A note for the courier?");
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });
  await expect(card).toHaveAttribute("data-ask-kind", "text");
  const input = card.getByRole("textbox", { name: "A note for the courier?" });
  const send = card.getByRole("button", { name: STRINGS.send, exact: true });
  await expect(input).toHaveAttribute("placeholder", "e.g. ring twice");
  await expect(card).toContainText(STRINGS.counter(0, 200));
  await expect(send).toBeEnabled(); // an empty note is an answer too

  // Exactly 200 characters (code points, as the agent counts them), one of them an emoji.
  const head = "Espresso machine for Sofia Rossi, fragile, keep upright. Ring twice at the side door, then leave it with the café next door if nobody answers. ☕ ";
  const note = head + "x".repeat(200 - Array.from(head).length);
  expect(Array.from(note)).toHaveLength(200);
  await input.fill(note);
  await expect(card).toContainText(STRINGS.counter(200, 200));
  // Typing never goes over the limit (P-10).
  await input.press("End");
  await input.pressSequentially("more");
  await expect(input).toHaveValue(note);
  await expect(card).toContainText(STRINGS.counter(200, 200));

  await send.click();
  await expect(card).toHaveCount(0);
  expect(posted).toHaveLength(1);
  expect(posted[0]!.answer).toEqual({ kind: "text", text: note });
  // The agent took all 200 characters: the note is saved whole and the courier told.
  await expect(status(page, "save_note(")).toHaveAttribute("data-status", "done", { timeout: TURN_TIMEOUT });
  await expect(tool(page, "save_note(")).toContainText(`Saved: ${note}`);
  await expect(status(page, "notify_courier(")).toHaveAttribute("data-status", "done", { timeout: TURN_TIMEOUT });
  await expect(items(page, "reply").filter({ hasText: "The courier has the note for order 7781." })).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
});

test("asks that allow an empty answer take one: a multiple choice with nothing picked, an empty note", async ({ page }) => {
  const { pane, title, intro } = SEEDED.aiko;
  const chat = await openChat(page, pane, title, intro);
  const posted = answersPosted(page);
  await say(page, "She wants to swap it for another size");
  const size = askCard(page, "Which size should replace it?");
  await expect(size).toBeVisible({ timeout: TURN_TIMEOUT });
  await size.getByRole("button").first().click();

  // Nothing picked: Send sends the empty set, and the agent takes it as "no extras".
  const extras = askCard(page, "Anything to add to the exchange?");
  await expect(extras).toBeVisible({ timeout: TURN_TIMEOUT });
  await extras.getByRole("button", { name: STRINGS.send, exact: true }).click();
  await expect(extras).toHaveCount(0);
  expect(posted.at(-1)!.answer).toEqual({ kind: "choice", optionIds: [] });
  await expect(tool(page, "add_extras(")).toContainText("No extras", { timeout: TURN_TIMEOUT });

  const where = askCard(page, "Where should the replacement go?");
  await expect(where).toBeVisible({ timeout: TURN_TIMEOUT });
  await where.getByRole("textbox", { name: /Street and number/ }).fill("Ringstraße 1");
  await where.getByRole("button", { name: STRINGS.send, exact: true }).click();

  // An empty note: Send sends it; no note, and nothing failed.
  const note = askCard(page, "A note for the courier?");
  await expect(note).toBeVisible({ timeout: TURN_TIMEOUT });
  await note.getByRole("button", { name: STRINGS.send, exact: true }).click();
  await expect(note).toHaveCount(0);
  expect(posted.at(-1)!.answer).toEqual({ kind: "text", text: "" });
  await expect(status(page, "save_note(")).toHaveAttribute("data-status", "done", { timeout: TURN_TIMEOUT });
  const summary = items(page, "markdown").filter({ hasText: "Extras: none" });
  await expect(summary).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(summary).toContainText("Courier note: none");
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
});
