/**
 * An answer whose fate is unknown (P-14, P-15, D-5, S-23, S-28), against the real daemon and the
 * example desk's refund approval:
 * - the network goes between the tap and its reply: the answer (sent on the live socket) reached
 *   the agent, the socket dropped before its reply, the phone heard nothing back: `Not sure the answer arrived. Retry sends it again.`; Retry sends the same request
 *   id and the refund lands exactly once;
 * - the agent is restarted while an answer is pending: Collie holds the tap (`Sent. Collie delivers
 *   it when the durable agent is back.`), the restarted desk raises the same ask again, Collie
 *   delivers the answer to it, and the refund runs once;
 * - Collie and the agent go down together: the tap stays in the phone's outbox, and once both are
 *   back the same ask returns and the answer lands once.
 * The file runs its own Collie (askTest): its restarts and refunds leave the other journeys alone.
 */
import { STRINGS } from "@colliepwa/shared";
import { expect } from "./fixtures.ts";
import { gateLive, items, openChat, SEEDED, TURN_TIMEOUT } from "./desk.ts";
import { answersPosted, askCard, asksAnnounced, askTest, cardLine, liveNews, nextAnswerReply, say } from "./asks.ts";

/** The card's own words where the specification leaves them to Collie (web/src/features/asks/words.ts). */
const WORDS = { retry: "Retry", held: (answer: string) => `Sent: ${answer}. Collie delivers it when the durable agent is back.` };

// The desk runs as the user's own agent here: Collie would start its own example again at once.
const test = askTest({ ownAgent: true });
test.use({ viewport: { width: 360, height: 740 } });

const REFUND = "refund wants to run";
const refunds = (page: Parameters<typeof items>[0]) => items(page, "tool").filter({ hasText: "refund(order:" });

test("the network cut between tap and reply: not sure, Retry lands exactly once", async ({ page, shot }) => {
  const { pane, title, intro } = SEEDED.maria;
  const live = await gateLive(page);
  const chat = await openChat(page, pane, title, intro);
  const posted = answersPosted(page);
  await say(page, "The parcel is lost, refund her please");
  const card = askCard(page, REFUND);
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });

  // The first answer reaches Collie and the agent (on the live socket, as the phone sends it
  // while that is open), then the link drops: no reply, no live news.
  live.cutAfterNextActReply();
  await card.getByRole("button", { name: STRINGS.allow, exact: true }).click();
  await expect(cardLine(page, REFUND)).toHaveText(STRINGS.notSureArrived);
  await expect(card).toHaveAttribute("data-outcome", "not-sure");
  const retry = card.getByRole("button", { name: WORDS.retry });
  await expect(retry).toBeEnabled();
  // The chat follows the card as it grows: the line and Retry are on screen, not under the belt.
  await expect(retry).toBeInViewport();
  // Only Retry sends it again: the answer buttons wait (P-14).
  await expect(card.getByRole("button", { name: STRINGS.allow, exact: true })).toBeDisabled();
  await shot("ask-not-sure");

  // The link is back: Retry sends the same request id; the agent's receipt answers it, nothing runs twice.
  const retried = nextAnswerReply(page);
  await retry.click();
  const again = await retried;
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ replayed: true });
  await expect(card).toHaveCount(0);
  expect(posted).toHaveLength(2);
  expect(posted[1]!.requestId).toBe(posted[0]!.requestId);
  expect(posted[1]!.answer).toEqual(posted[0]!.answer);

  live.release();
  await expect(items(page, "reply").filter({ hasText: "Done: I refunded 40 EUR for order 5521." })).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
  await expect(refunds(page)).toHaveCount(1);
  await expect(refunds(page)).toContainText("Refunded 40 EUR for order 5521");
  // A fresh read agrees: one refund, one reply.
  await page.reload();
  await expect(chat.log).toContainText(intro);
  await expect(refunds(page)).toHaveCount(1);
  await expect(items(page, "reply").filter({ hasText: "Done: I refunded" })).toHaveCount(1);
});

test("the agent restarted while an answer is pending: the same ask comes back, the answer lands once", async ({ page, collie }) => {
  test.setTimeout(90_000);
  const { pane, title, intro } = SEEDED.jonas;
  const news = liveNews(page);
  const chat = await openChat(page, pane, title, intro);
  const posted = answersPosted(page);
  await say(page, "He returned the jacket, refund him");
  const card = askCard(page, REFUND);
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });
  const askId = (await card.getAttribute("data-ask-id"))!;
  const refund = refunds(page);
  const callId = await refund.getAttribute("data-item-id");

  // The agent goes away (a crash); Collie stays, and so does the card.
  await collie.killAgent();
  await card.getByRole("button", { name: STRINGS.allow, exact: true }).click();
  // Collie holds the answer for the agent (202): the card says so.
  await expect(card.getByRole("status")).toHaveText(WORDS.held(STRINGS.allow));
  // The card shows which answer waits: Allow stays marked, Deny dims.
  await expect(card.getByRole("button", { name: STRINGS.allow, exact: true })).toHaveAttribute("data-chosen", "true");
  await expect(card.getByRole("button", { name: STRINGS.deny, exact: true })).not.toHaveAttribute("data-chosen");
  await expect(card).toHaveAttribute("data-phase", "held");
  expect(posted).toHaveLength(1);

  // The agent starts again: it raises the same call, so the same ask (S-23), and Collie delivers the
  // held answer to it: the card closes and the refund runs, once.
  await collie.startAgent();
  await expect(card).toHaveCount(0, { timeout: 30_000 });
  await expect(refund.locator("[data-status]")).toHaveAttribute("data-status", "done", { timeout: TURN_TIMEOUT });
  await expect(refund).toContainText("Refunded 120 EUR for order 5530");
  await expect(refund).toHaveAttribute("data-item-id", callId!);
  await expect(items(page, "reply").filter({ hasText: "Done: I refunded 120 EUR for order 5530." })).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
  // Collie delivered the held answer once the desk raised the same ask again, and the desk took it
  // (a held answer goes only to an open ask with its id, D-5); no other ask came up.
  expect(posted).toHaveLength(1); // the phone sent it once; Collie did the rest
  expect(news.filter((m) => m.type === "held-outcome").map((m) => [m.requestId, m.status])).toEqual([[posted[0]!.requestId, 200]]);
  expect(asksAnnounced(news, pane).filter((id) => id !== askId)).toEqual([]);

  await page.reload();
  await expect(chat.log).toContainText(intro);
  await expect(refunds(page)).toHaveCount(1);
  await expect(items(page, "reply").filter({ hasText: "Done: I refunded" })).toHaveCount(1);
  await expect(chat.log.locator("[data-ask-id]")).toHaveCount(0);
});

test("Collie and the agent restarted while an answer is pending on the phone: it lands once", async ({ page, collie }) => {
  test.setTimeout(90_000);
  const { pane, title, intro } = SEEDED.sofia;
  const chat = await openChat(page, pane, title, intro);
  const posted = answersPosted(page);
  await say(page, "The machine will be late, refund Sofia");
  const card = askCard(page, REFUND);
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });
  const askId = (await card.getAttribute("data-ask-id"))!;

  // Both go away; the tap cannot reach Collie and waits in the phone's outbox.
  await collie.kill();
  await card.getByRole("button", { name: STRINGS.allow, exact: true }).click();
  await expect(cardLine(page, REFUND)).toHaveText(STRINGS.notSureArrived);

  // Both come back: the phone sends the same request id again by itself; the desk raises the same
  // ask, the answer reaches it, and the refund runs once.
  await collie.start();
  await expect(chat.log.locator(`[data-ask-id="${askId}"]`)).toHaveCount(0, { timeout: 30_000 });
  await expect(items(page, "reply").filter({ hasText: "Done: I refunded 649 EUR for order 7781." })).toHaveCount(1, { timeout: 30_000 });
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
  await expect(refunds(page)).toHaveCount(1);
  await expect(refunds(page).locator("[data-status]")).toHaveAttribute("data-status", "done");
  expect(new Set(posted.map((p) => p.requestId)).size).toBe(1);

  await page.reload();
  await expect(chat.log).toContainText(intro);
  await expect(refunds(page)).toHaveCount(1);
  await expect(items(page, "reply").filter({ hasText: "Done: I refunded" })).toHaveCount(1);
});
