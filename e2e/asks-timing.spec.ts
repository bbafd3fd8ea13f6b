/**
 * Asks that end without the phone while their card is open (P-9, P-15, P-16, S-24), against the
 * real daemon and the example desk:
 * - the invoice card expires (its expiry made short with the desk's `DESK_ASK_EXPIRY_MS`): the line
 *   under the title counts down to `Expired`, the buttons stay, and a late tap is answered by the
 *   agent itself: `Timed out before an answer.`; the chat keeps `Timed out before an answer: …`;
 * - the courier's system books a delivery slot itself (the desk decides its own ask after a few
 *   seconds): a tap after that reads `Decided in the durable agent.`; the chat keeps
 *   `Decided in the durable agent: …`.
 * The phone hears of the ask's end only after its tap (its live messages held back from the
 * ask's closing on, a slow link), so the card is still open when the tap goes out.
 * The file runs its own Collie (askTest), started with the short expiry.
 */
import { STRINGS } from "@colliepwa/shared";
import { expect } from "./fixtures.ts";
import { gateLive, items, openChat, SEEDED, TURN_TIMEOUT } from "./desk.ts";
import { askCard, askTest, cardLine, say } from "./asks.ts";

/** Short enough to watch it run out, long enough that the card is drawn with seconds to spare. */
const EXPIRY_MS = 15_000;

const test = askTest({ env: { DESK_ASK_EXPIRY_MS: String(EXPIRY_MS) } });
test.use({ viewport: { width: 360, height: 740 } });

test("an ask that expires while its card is open: countdown to Expired, a late tap answered by the agent", async ({ page, shot }) => {
  test.setTimeout(90_000);
  const { pane, title, intro } = SEEDED.aiko;
  const live = await gateLive(page);
  const chat = await openChat(page, pane, title, intro);
  live.holdFrom((m) => m.type === "ask-closed" && m.paneId === pane);
  await say(page, "The invoice shows the wrong VAT rate, send a corrected one");

  const ASK = "How should the corrected invoice go out?";
  const card = askCard(page, ASK);
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });
  const expiry = card.locator(".ask-expiry");
  await expect(expiry).toHaveText(/^Expires in \d+ s$/);
  await shot("ask-expiring");

  // The countdown runs out on the phone; the buttons stay (P-9).
  await expect(expiry).toHaveText(STRINGS.expired, { timeout: EXPIRY_MS + TURN_TIMEOUT });
  const post = card.getByRole("button", { name: "Post", exact: true });
  await expect(post).toBeEnabled();
  // The agent closed the ask as timed out (the phone has not heard yet): the tap comes late.
  await live.holding();
  await post.click();
  await expect(cardLine(page, ASK)).toHaveText(STRINGS.timedOut);
  await expect(card).toHaveAttribute("data-outcome", "timed-out");
  await expect(post).toBeDisabled();
  await expect(card.getByRole("button", { name: "Email", exact: true })).toBeDisabled();

  // The phone hears the rest: the card goes, the chat keeps the line, the desk fell back to email.
  live.release();
  await expect(card).toHaveCount(0);
  await expect(items(page, "notice").filter({ hasText: STRINGS.timedOutLine(ASK) })).toHaveCount(1);
  // The specification's line once in the whole chat (issue #37): the call says only why it had no answer.
  await expect(chat.log.getByText(STRINGS.timedOutLine(ASK))).toHaveCount(1);
  const sends = items(page, "tool").filter({ hasText: "send_invoice(" });
  // A normal outcome, with no failure styling (P-16).
  await expect(sends.first()).toContainText("No answer in time");
  await expect(sends.first().locator("[data-status]")).toHaveAttribute("data-status", "done");
  await expect(sends.first()).not.toContainText("Failed");
  await expect(items(page, "reply").filter({ hasText: "Nobody picked a way in time, so I emailed the corrected invoice INV-2207" })).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(sends.nth(1)).toContainText("Sent INV-2207 by email");
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
  await expect(items(page, "notice").filter({ hasText: /^Decided in the durable agent:/ })).toHaveCount(0);
});

test("an ask decided in the agent while its card is open", async ({ page }) => {
  const { pane, title, intro } = SEEDED.sofia;
  const live = await gateLive(page);
  const chat = await openChat(page, pane, title, intro);
  live.holdFrom((m) => m.type === "ask-closed" && m.paneId === pane);
  await say(page, "Book a delivery slot before Friday");

  const ASK = "Which delivery slot should the courier book?";
  const card = askCard(page, ASK);
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });
  await expect(card.locator(".ask-expiry")).toHaveCount(0); // no expiry: the agent decides when it likes
  const friday = card.getByRole("button", { name: "Friday morning" });

  // The courier's system booked a slot, so the desk closed the ask; the phone has not heard yet.
  await live.holding();
  await friday.click();
  await expect(cardLine(page, ASK)).toHaveText(STRINGS.decidedInAgent);
  await expect(card).toHaveAttribute("data-outcome", "decided-in-agent");
  await expect(friday).toBeDisabled();
  await expect(card.getByRole("button", { name: "Thursday morning" })).toBeDisabled();

  live.release();
  await expect(card).toHaveCount(0);
  await expect(items(page, "notice").filter({ hasText: STRINGS.decidedLine(ASK) })).toHaveCount(1);
  await expect(chat.log.getByText(STRINGS.decidedLine(ASK))).toHaveCount(1);
  const bookings = items(page, "tool").filter({ hasText: "book_slot(" });
  await expect(bookings.first()).toContainText("Settled without an answer");
  await expect(bookings.first().locator("[data-status]")).toHaveAttribute("data-status", "done");
  await expect(bookings.first()).not.toContainText("Failed");
  await expect(items(page, "reply").filter({ hasText: "Booked Thursday morning for order 7781." })).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
  // The late tap changed nothing: Friday was never booked.
  await expect(chat.log).not.toContainText("Booked Friday morning");
});
