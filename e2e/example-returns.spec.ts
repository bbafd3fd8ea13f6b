/**
 * The bundled example agent, when Collie started it (`npm start` with no sources.json), is brought
 * back by Collie after it dies (issue #32 item 11, D-7): killed as a crash would kill it, it is
 * started again on the retry table, and the phone sees it go and return without a reload: the
 * live stream says Unreachable, then the row is ready with its counts again and the chat answers.
 * The file runs its own Collie (askTest): the kill leaves the other journeys alone.
 */
import { STRINGS } from "@colliepwa/shared";
import { expect } from "./fixtures.ts";
import { items, openChat, SEEDED, TURN_TIMEOUT } from "./desk.ts";
import { askTest, liveNews, say } from "./asks.ts";

const test = askTest();
test.use({ viewport: { width: 390, height: 844 } });

test("the example Collie started comes back by itself after it is killed, and the phone sees it return", async ({ page, collie }) => {
  test.setTimeout(90_000);
  const news = liveNews(page);
  await page.goto("/");
  const row = page.locator('[data-agent="desk"]');
  await expect(row.getByRole("img", { name: /\d+ open/ })).toBeVisible();

  await collie.killAgent();
  // The phone heard it go (Unreachable) and come back (ready), on its live connection.
  await expect.poll(() => news.filter((m) => m.type === "agent" && (m.agent as { name: string }).name === "desk").map((m) => (m.agent as { state: string }).state).join(" "), { timeout: 30_000 })
    .toMatch(/unreachable( starting)* ready$/);
  await expect(row).not.toContainText(STRINGS.unreachable);
  await expect(row.getByRole("img", { name: /\d+ open/ })).toBeVisible();

  // It works: a message gets its answer.
  const { pane, title, intro } = SEEDED.aiko;
  await openChat(page, pane, title, intro);
  await say(page, "Are you back?");
  await expect(items(page, "reply").filter({ hasText: 'Got it: "Are you back?"' })).toHaveCount(1, { timeout: TURN_TIMEOUT });
});
