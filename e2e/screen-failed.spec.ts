/**
 * A screen whose code cannot be loaded (offline before the service worker kept it, or an update
 * that replaced it) says so and offers Try again and the way back, instead of a blank app; Try
 * again, once the code can be fetched, draws the screen. The service worker is blocked so that the
 * page's own requests for the screen's chunk reach the network, where the journey cuts them.
 */
import { expect, openDashboard, test } from "./fixtures.ts";
import { WORDS } from "@colliepwa/shared";

test.use({ serviceWorkers: "block", viewport: { width: 360, height: 740 } });

test("the agent's home cannot be loaded: the app says so; Try again draws it once its code can be fetched", async ({ page, shot }) => {
  const chunk = /\/assets\/AgentHome-[^/]*\.js$/;
  await page.route(chunk, (route) => route.abort("internetdisconnected"));
  await openDashboard(page);
  await page.getByRole("link", { name: /^desk Experimental/ }).click();
  const failed = page.getByRole("alert").filter({ hasText: WORDS.screen.screenFailed });
  await expect(failed).toBeVisible();
  await expect(failed.getByRole("link", { name: WORDS.screen.backToDashboard })).toBeVisible();
  await shot("screen-failed");

  await page.unroute(chunk);
  await failed.getByRole("button", { name: WORDS.screen.tryAgain }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("desk Experimental");
  await expect(page.getByRole("list", { name: WORDS.screen.openConversations })).toBeVisible();
  await expect(failed).toHaveCount(0);
});
