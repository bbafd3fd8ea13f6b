/**
 * Pairing: an unpaired phone sees how to pair; the link `collie pair` prints pairs it; a
 * used link does not pair a second phone. `collie pair --state-dir D` links to the running
 * daemon's own port, and the code it prints can be typed on the pairing page.
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
  // Pair is the one thing to do here: drawn as the primary button, filled in the brand's colour
  // (issue 32, item 10), not as an outline like a secondary one.
  const pair = page.getByRole("button", { name: "Pair" });
  const look = await pair.evaluate((el) => ({ fill: getComputedStyle(el).backgroundColor, border: getComputedStyle(el).borderTopColor, text: getComputedStyle(el).color }));
  expect(look).toEqual({ fill: "rgb(31, 111, 92)", border: "rgb(31, 111, 92)", text: "rgb(255, 255, 255)" });
  await pair.click();
  await expect(page.getByRole("heading", { name: "Durable agents" })).toBeVisible();

  // Paired: the dashboard offers push once (where the browser can take it), and `Not now` puts it away.
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload();
  const offer = page.getByRole("region", { name: "Push notifications" });
  await expect(offer).toContainText("Get a notification on this phone when a durable agent needs your answer?");
  await offer.getByRole("button", { name: "Not now" }).click();
  await expect(offer).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole("heading", { name: "Durable agents" })).toBeVisible();
  await expect(offer).toHaveCount(0);

  const other = await browser.newContext({ baseURL: collie.url, storageState: undefined });
  const second = await other.newPage();
  await second.goto(link);
  await second.getByRole("button", { name: "Pair" }).click();
  await expect(second.getByRole("alert")).toContainText("not valid");
  await other.close();
  await phone.close();
  void shot;
});

test("collie pair --state-dir links to the running daemon's port; its code typed on the pairing page pairs", async ({ browser, collie }) => {
  // The journeys' daemon runs on an ephemeral port, never 7717: the link must name that port.
  const { code, link } = await collie.pairAsked();
  expect(link).toBe(`${collie.url}/#/pair/${code}`);

  const phone = await browser.newContext({ baseURL: collie.url, storageState: undefined });
  const page = await phone.newPage();
  await page.goto("/");
  await expect(page.getByText("This phone is not paired with Collie.")).toBeVisible();
  const field = page.getByRole("textbox", { name: "Pairing code" });
  // A wrong code: Collie's message, its command drawn as code, no literal backticks.
  await field.fill("AAAA-BBBB");
  await page.getByRole("button", { name: "Pair" }).click();
  const alert = page.getByRole("alert");
  await expect(alert).toContainText("Run collie pair again.");
  await expect(alert).not.toContainText("`");
  await expect(alert.locator("code")).toHaveText("collie pair");
  // The printed code, typed in lower case without its dash, pairs.
  await field.fill(code.replace("-", "").toLowerCase());
  await page.getByRole("button", { name: "Pair" }).click();
  await expect(page.getByRole("heading", { name: "Durable agents" })).toBeVisible();

  // The offer's Turn on: this machine's Chromium has no push service, and the card says so in words.
  await phone.grantPermissions(["notifications"], { origin: collie.url });
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload();
  const offer = page.getByRole("region", { name: "Push notifications" });
  await offer.getByRole("button", { name: "Turn on" }).click();
  await expect(offer.getByRole("status")).toHaveText(/^Push notifications could not be turned on: this browser has no push service|^Asks that need you reach this device/);
  await phone.close();
});

// Issue 37, item 6: with permission granted and a push service that never answers, `Turn on` spun
// "Turning push notifications on…" for 20 s and more, both buttons dimmed, until a reload.
test("the push offer gives up on a push service that never answers, says so, and its buttons work again", async ({ page, context, collie }) => {
  await context.grantPermissions(["notifications"], { origin: collie.url });
  // This browser's push service: asked for a subscription, it never answers.
  await page.addInitScript(() => {
    PushManager.prototype.subscribe = () => {
      (window as unknown as { subscribeAsked: boolean }).subscribeAsked = true;
      return new Promise<PushSubscription>(() => {});
    };
  });
  await page.clock.install();
  await page.goto("/");
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.evaluate(() => localStorage.setItem("collie.offerPush", "1"));
  await page.reload();
  const offer = page.getByRole("region", { name: "Push notifications" });
  const yes = offer.getByRole("button", { name: "Turn on" });
  const no = offer.getByRole("button", { name: "Not now" });
  await yes.click();
  await expect(offer.getByRole("status")).toHaveText("Turning push notifications on…");
  await expect(yes).toBeDisabled();
  await expect(no).toBeDisabled();

  // The 10 s start when the browser is asked (app/push.ts), after the app's own steps before it:
  // on a busy machine those can take longer than the test takes to move the clock.
  await page.waitForFunction(() => (window as unknown as { subscribeAsked?: boolean }).subscribeAsked === true);
  await page.clock.runFor(9_000);
  await expect(offer.getByRole("status")).toHaveText("Turning push notifications on…");
  await page.clock.runFor(1_000);
  await expect(offer.getByRole("status")).toHaveText(
    "Push notifications could not be turned on: the browser's push service did not answer in 10 seconds. Try again in a moment, or another browser.",
  );
  await expect(yes).toBeEnabled();
  await expect(no).toBeEnabled();
  await no.click();
  await expect(offer).toHaveCount(0);
});
