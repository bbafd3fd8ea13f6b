/**
 * The dashboard (P-1…P-4): the Durable agents section with the example agent's row.
 */
import { expect, openDashboard, test } from "./fixtures.ts";

test.use({ viewport: { width: 360, height: 740 } });

test("shows the example agent in the Durable agents section", async ({ page, shot }) => {
  await openDashboard(page);
  const row = page.locator('[data-agent="desk"]');
  await expect(row).toContainText("desk");
  await expect(row).toContainText("Experimental");
  // Line 2 (P-2): the name the agent gives itself, then its reach; no runtime version.
  await expect(row.locator(".row-line2")).toHaveText("desk, local");
  // The count is named for a screen reader and says what it counts to the eye.
  const open = row.getByRole("img", { name: "4 open" });
  await expect(open).toBeVisible();
  await expect(open).toHaveText("4open");
  await expect(open.locator(".count-hint")).toBeVisible();
  await shot("dashboard");
});

test("keeps Show only what needs you on the device", async ({ page }) => {
  await openDashboard(page);
  await page.getByRole("link", { name: "Settings" }).click();
  const toggle = page.getByRole("switch", { name: "Show only what needs you" });
  // Drawn in the theme (a green track when on), not as the browser's blue checkbox.
  const look = () => toggle.evaluate((el) => ({ appearance: getComputedStyle(el).appearance, width: getComputedStyle(el).width, track: getComputedStyle(el).backgroundColor }));
  const off = await look();
  expect(off.appearance).toBe("none");
  expect(off.width).toBe("46px");
  await toggle.check();
  await expect.poll(async () => (await look()).track).toBe("rgb(31, 111, 92)"); // after its short transition
  await page.reload();
  await expect(page.getByRole("switch", { name: "Show only what needs you" })).toBeChecked();
  await page.goto("/");
  // Nothing waits on you yet, so the section lists no agent.
  await expect(page.locator('[data-agent="desk"]')).toHaveCount(0);
  // …and says so, with no empty `Durable agents` heading over nothing (issue #37).
  await expect(page.getByRole("heading", { name: "Durable agents" })).toHaveCount(0);
  await expect(page.getByRole("status").filter({ hasText: "Nothing needs you right now." })).toHaveText(
    "Nothing needs you right now. Show only what needs you hides 1 durable agent. Change it in Settings",
  );
  await page.goto("/#/settings");
  await page.getByRole("switch", { name: "Show only what needs you" }).uncheck();
});
