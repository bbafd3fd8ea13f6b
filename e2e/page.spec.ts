/**
 * What the page tells the browser and the phone around it (issue 32, item 9; issue 37, item 18):
 * a private app keeps crawlers out (`/robots.txt`) and describes itself; the browser's bar is not
 * green in dark mode; with a 59 px status bar drawn over the page (an iPhone's safe-area inset,
 * `viewport-fit=cover`), every screen's header sits below it, also once the page scrolls.
 */
import type { Page } from "@playwright/test";
import { expect, openDashboard, test } from "./fixtures.ts";
import { openChat, SEEDED } from "./desk.ts";

test.use({ viewport: { width: 390, height: 844 } });

test("/robots.txt keeps every crawler out, as text, not the app's page; the page has a description", async ({ page }) => {
  const robots = await page.request.get("/robots.txt");
  expect(robots.status()).toBe(200);
  expect(robots.headers()["content-type"]).toBe("text/plain; charset=utf-8");
  expect(await robots.text()).toBe("User-agent: *\nDisallow: /\n");
  await openDashboard(page);
  await expect(page.locator('meta[name="description"]')).toHaveAttribute("content", /durable agents/);
});

/** The theme colour the browser applies now: the first `theme-color` whose media matches. */
const themeColor = (page: Page) => page.evaluate(() =>
  Array.from(document.querySelectorAll<HTMLMetaElement>('meta[name="theme-color"]')).find((m) => !m.media || matchMedia(m.media).matches)?.content);

test("the browser's bar is the brand's green by day and the dark background at night", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await openDashboard(page);
  expect(await themeColor(page)).toBe("#1f6f5c");
  await page.emulateMedia({ colorScheme: "dark" });
  expect(await themeColor(page)).toBe("#111315");
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(background).toBe("rgb(17, 19, 21)");
});

test("with a 59 px status bar over the page, every header sits below it, scrolled or not", async ({ page }) => {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Emulation.setSafeAreaInsetsOverride", { insets: { top: 59, bottom: 34, left: 0, right: 0 } });
  const top = (selector: string) => page.locator(selector).first().evaluate((el) => el.getBoundingClientRect().top);

  await openDashboard(page);
  expect(await top("header.topbar")).toBeGreaterThanOrEqual(59);
  // Nothing of the page shows through the status bar: its strip is the page's background.
  const strip = await page.evaluate(() => {
    const hit = document.elementFromPoint(195, 20);
    return hit === document.documentElement || hit === document.body ? "page" : hit?.tagName;
  });
  expect(strip).toBe("page");

  // The list, scrolled to its end: the sticky header stops below the status bar.
  await page.goto("/#/agent/desk");
  await expect(page.locator('[data-pane="ticket-5521"]')).toBeVisible();
  await page.setViewportSize({ width: 390, height: 400 });
  await page.mouse.wheel(0, 2000);
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
  expect(await top("header.topbar")).toBeGreaterThanOrEqual(59);
  await page.setViewportSize({ width: 390, height: 844 });

  // The chat: its header below the status bar, its composer above the home indicator.
  const chat = await openChat(page, SEEDED.maria.pane, SEEDED.maria.title, SEEDED.maria.intro);
  expect(await top("header.chat-header")).toBeGreaterThanOrEqual(59);
  const bottom = await chat.composer.evaluate((el) => el.getBoundingClientRect().bottom);
  expect(bottom).toBeLessThanOrEqual(844 - 34);

  // The pairing page too.
  await page.goto("/#/pair/AAAA-BBBB");
  expect(await top("header.topbar")).toBeGreaterThanOrEqual(59);
});
