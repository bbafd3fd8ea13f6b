/** The journeys' fixtures: one real Collie (with the example agent) per worker, and screenshots. */
import { test as base, expect, type Page } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startCollie, type CollieServer } from "./collie.ts";
import { watchActs } from "./acts.ts";

export const test = base.extend<{ shot: (name: string) => Promise<void> }, { collie: CollieServer; pairedState: string }>({
  collie: [
    async ({}, use) => {
      const collie = await startCollie();
      await use(collie);
      await collie.stop();
    },
    { scope: "worker" },
  ],
  // Pairs a phone once per worker through the same path a user takes: `collie pair` prints a
  // link, the phone opens it and taps Pair. Every page of the worker then carries that pairing.
  pairedState: [
    async ({ browser, collie }, use) => {
      const context = await browser.newContext({ baseURL: collie.url });
      const page = await context.newPage();
      await page.goto(await collie.pairLink());
      await page.getByRole("button", { name: "Pair" }).click();
      await expect(page.getByRole("heading", { name: "Collie" })).toBeVisible();
      // The one-time push offer is the pairing journey's to show (pairing.spec.ts); the others start past it.
      await page.evaluate(() => localStorage.removeItem("collie.offerPush"));
      const file = join(collie.stateDir, "paired-state.json");
      await context.storageState({ path: file });
      await context.close();
      await use(file);
    },
    { scope: "worker" },
  ],
  storageState: async ({ pairedState }, use) => use(pairedState),
  // Answers go on the live socket while it is open: every page's acts are watched (acts.ts).
  page: async ({ page }, use) => {
    watchActs(page);
    await use(page);
  },
  baseURL: async ({ collie }, use) => use(collie.url),
  // Saves a phone-size screenshot for a reviewer (test-results/screens, not committed).
  shot: async ({ page }, use) => {
    const dir = join(import.meta.dirname, "..", "test-results", "screens");
    mkdirSync(dir, { recursive: true });
    await use(async (name: string) => {
      await page.screenshot({ path: join(dir, `${name}.png`), fullPage: false, animations: "disabled" });
    });
  },
});

export { expect };

/** Opens the dashboard and waits until the example agent is ready. */
export async function openDashboard(page: Page): Promise<void> {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Durable agents" })).toBeVisible();
  await expect(page.locator('[data-agent="desk"]')).not.toContainText("Starting");
}
