/** The journeys' fixtures: one real Collie (with the example agent) per worker, and screenshots. */
import { test as base, expect, type Page } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startCollie, type CollieServer } from "./collie.ts";

export const test = base.extend<{ shot: (name: string) => Promise<void> }, { collie: CollieServer }>({
  collie: [
    async ({}, use) => {
      const collie = await startCollie();
      await use(collie);
      await collie.stop();
    },
    { scope: "worker" },
  ],
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
