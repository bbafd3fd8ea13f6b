/**
 * The belt's own buttons (P-22, P-23, S-20): a tap runs the agent's action; a tap that names a turn
 * the conversation has left runs nothing and says `The conversation moved on, so the action did
 * not run.` Sofia Rossi's ticket; no other journey writes to it.
 */
import { STRINGS } from "@colliepwa/shared";
import { expect, test } from "./fixtures.ts";
import { chatParts, currentTurn, gateLive, items, openChat, panePath, post, SEEDED, TURN_TIMEOUT } from "./desk.ts";

test.use({ viewport: { width: 360, height: 740 } });

const { pane, title, intro } = SEEDED.sofia;

test("Escalate runs and then stays disabled", async ({ page, shot }) => {
  const chat = await openChat(page, pane, title, intro);
  const escalate = chat.belt.getByRole("button", { name: "Escalate" });
  await expect(escalate).toBeEnabled();
  await escalate.click();
  await expect(items(page, "notice").filter({ hasText: "Escalated to the team lead." })).toHaveCount(1);
  // The desk disables it once escalated: dimmed in place, no tap (P-22).
  await expect(escalate).toBeDisabled();
  await expect(escalate).toHaveAttribute("data-dimmed", "true");
  await expect(chat.belt.getByRole("button")).toHaveText(["Steer", "Stop", "Escalate", "Resolve", "Archive"]);
  await expect(page.getByRole("status").filter({ hasText: STRINGS.movedOn })).toHaveCount(0);
  await shot("belt");
});

test("a tap on a turn the conversation left: moved on, nothing runs", async ({ page, shot }) => {
  // The phone hears nothing from Collie while the conversation moves on (a slow link): it still
  // shows the turn it saw last, and a tap names that one.
  const live = await gateLive(page);
  const chat = await openChat(page, pane, title, intro);
  const resolve = chat.belt.getByRole("button", { name: "Resolve" });
  await expect(resolve).toBeEnabled();
  const seen = await currentTurn(page, pane);
  live.freeze();

  // Another phone sends a message: a new turn starts.
  const sent = await post(page, `${panePath(pane)}/send`, { text: "Any news for Sofia today?" });
  expect(sent.status()).toBe(200);
  const { turnId: newTurn } = (await sent.json()) as { turnId: string };
  expect(newTurn).toBeTruthy();
  expect(newTurn).not.toBe(seen);

  // The API says so for the old turn id (S-20) and runs nothing…
  const stale = await post(page, `${panePath(pane)}/actions/resolve`, { turnId: seen });
  expect(stale.status()).toBe(409);
  expect(await stale.json()).toMatchObject({ error: "moved-on" });

  // …and so does the phone's own tap, which names the turn it saw (P-23).
  await resolve.click();
  await expect(page.getByRole("status").filter({ hasText: STRINGS.movedOn })).toBeVisible();
  await shot("belt-moved-on");

  // Collie's news arrive: the other phone's line and the agent's reply, and Resolve never ran.
  live.release();
  await expect(items(page, "user").filter({ hasText: "Any news for Sofia today?" })).toHaveCount(1);
  await expect(items(page, "reply").filter({ hasText: 'Got it: "Any news for Sofia today?"' })).toHaveCount(1, { timeout: TURN_TIMEOUT });
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
  await expect(items(page, "notice").filter({ hasText: "Marked as resolved." })).toHaveCount(0);
  await expect(resolve).toBeEnabled();
  // A tap that names the turn the phone now sees runs.
  await resolve.click();
  await expect(items(page, "notice").filter({ hasText: "Marked as resolved." })).toHaveCount(1);
  await expect(chatParts(page).header).toContainText("Resolved");
});

test("on a 390×844 phone the bars stay small and every belt button is on screen, 44 px tall", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const jonas = SEEDED.jonas;
  const chat = await openChat(page, jonas.pane, jonas.title, jonas.intro);
  const buttons = chat.belt.getByRole("button");
  await expect(buttons).toHaveText(["Steer", "Stop", "Escalate", "Resolve", "Archive"]);
  // Every button within the screen (the belt wraps, issue 32), each a 44 px target (issue 37).
  for (const b of await buttons.all()) {
    const box = (await b.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(box.height).toBeGreaterThanOrEqual(44);
  }
  const header = (await chat.header.boundingBox())!.height;
  const footer = (await page.locator(".chat-footer").boundingBox())!.height;
  expect(header).toBeLessThanOrEqual(52);
  expect(footer).toBeLessThanOrEqual(170);

  // During a turn the busy button keeps its label, readable, with its spinner.
  await chat.composer.fill("He got the wrong size, please exchange the jacket");
  await chat.send.click();
  const resolve = chat.belt.getByRole("button", { name: "Resolve" });
  await expect(resolve).toHaveAttribute("aria-busy", "true", { timeout: TURN_TIMEOUT });
  await expect(resolve.locator(".belt-label")).toBeVisible();
  expect(Number(await resolve.locator(".belt-label").evaluate((el) => getComputedStyle(el).opacity))).toBe(1);
  await expect(resolve.locator(".belt-spinner")).toBeVisible();
  await chat.stop.click();
  await expect(resolve).toBeEnabled({ timeout: TURN_TIMEOUT });
});
