/**
 * Pairing: an unpaired phone sees how to pair; the link `collie pair` prints pairs it; a
 * used link does not pair a second phone.
 */
import { expect, test } from "./fixtures.ts";

test.use({ viewport: { width: 360, height: 740 } });

test("an unpaired phone is told how to pair, and the printed link pairs it once", async ({ browser, collie, shot }) => {
  const phone = await browser.newContext({ baseURL: collie.url, storageState: undefined });
  const page = await phone.newPage();
  await page.goto("/");
  await expect(page.getByText("This phone is not paired with Collie.")).toBeVisible();
  const link = await collie.pairLink();
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "Pair this phone" })).toBeVisible();
  await page.screenshot({ path: "test-results/screens/pairing.png" });
  await page.getByRole("button", { name: "Pair" }).click();
  await expect(page.getByRole("heading", { name: "Durable agents" })).toBeVisible();

  const other = await browser.newContext({ baseURL: collie.url, storageState: undefined });
  const second = await other.newPage();
  await second.goto(link);
  await second.getByRole("button", { name: "Pair" }).click();
  await expect(second.getByRole("alert")).toContainText("not valid");
  await other.close();
  await phone.close();
  void shot;
});
