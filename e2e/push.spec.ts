/**
 * Web Push end to end (P-27, U-2, U-4): an ask raised in the example desk is pushed by the real
 * daemon to a local https push service; the journey decrypts it with an independent RFC 8291
 * decryptor, checks the VAPID JWT, then delivers it through CDP (`ServiceWorker.deliverPushMessage`)
 * to the PWA's real service worker, reads the notification, taps it, and lands on the card. A
 * visible Collie window gets no notification; answering an ask withdraws its notification.
 *
 *
 * The push service, the phone and the test seams are in push-rig.ts.
 */
import type { CollieServer } from "./collie.ts";
import { startCollie } from "./collie.ts";
import { expect, test as base } from "./fixtures.ts";
import { post, SEEDED } from "./desk.ts";
import { notifications, pairPage, PushPhone, pushRigFixture, tap, type PushRig } from "./push-rig.ts";

/** A Collie of this file's own, whose pushes go to a local https push service. */
const test = base.extend<{ paired: void }, { collie: CollieServer; rig: PushRig }>({
  rig: pushRigFixture,
  collie: [
    async ({ rig }, use) => {
      const collie = await startCollie({ env: rig.daemonEnv });
      await use(collie);
      await collie.stop();
    },
    { scope: "worker" },
  ],
  // Pairs the browser context with this Collie through the admin socket, as `collie pair` does.
  paired: [async ({ page, collie }, use) => use(await pairPage(page, collie.stateDir, "push phone")), { auto: true }],
});

test.use({ viewport: { width: 360, height: 740 } });

test("an ask's push shows a notification; a tap lands on its card; answering withdraws one", async ({ page, collie, rig, shot }) => {
  test.setTimeout(120_000);
  const phone = await PushPhone.open(page, collie.url, rig.service, "e2e-phone");

  // No Collie window on screen: the notification is the only way to hear of the ask.
  await page.goto("about:blank");

  // Maria asks for a refund: the desk's refund needs an approval, with the push line `refund needs a yes`.
  const maria = SEEDED.maria;
  expect((await post(page, `/api/agents/desk/panes/${maria.pane}/send`, { text: "Please refund order 5521" })).status()).toBe(200);
  const first = await phone.next();
  expect(first.payload.type).toBe("ask");
  if (first.payload.type !== "ask") return;
  expect(first.payload.title).toBe(`Permission needed in ${maria.title}`);
  expect(first.payload.body).toBe("refund needs a yes");
  expect(first.payload.url).toBe(`/#/agent/desk/pane/${maria.pane}/ask/${first.payload.askId}`);
  expect(first.headers.urgency).toBe("high");
  expect(first.headers["content-encoding"]).toBe("aes128gcm");
  const askId = first.payload.askId;

  // Delivered through CDP to the real service worker: it shows the notification.
  await phone.deliver(first.text);
  await expect.poll(async () => (await notifications(page)).map((n) => [n.title, n.body, n.tag])).toEqual([
    [`Permission needed in ${maria.title}`, "refund needs a yes", "collie:desk"],
  ]);

  // A tap with Collie open in the background: the app goes to the conversation and the card.
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Durable agents" })).toBeVisible();
  await tap(page, "collie:desk");
  await expect(page).toHaveURL(new RegExp(`#/agent/desk/pane/${maria.pane}/ask/${askId}$`));
  const card = page.locator(`[data-ask-id="${askId}"]`);
  await expect(card).toBeVisible();
  await expect(card).toBeInViewport();
  await expect(card).toContainText("refund wants to run");
  await expect.poll(async () => (await notifications(page)).length, { message: "the tapped notification is closed" }).toBe(0);
  await shot("push-landed-on-card");

  // While a Collie window is visible, a push shows nothing: the card is on screen already.
  await phone.deliver(first.text);
  expect(await notifications(page)).toEqual([]);

  // Withdrawal: Jonas's courier note asks with no push line of its own (the body is the ask's title).
  await page.goto("about:blank");
  const jonas = SEEDED.jonas;
  expect((await post(page, `/api/agents/desk/panes/${jonas.pane}/send`, { text: "Add a courier note" })).status()).toBe(200);
  const second = await phone.next();
  expect(second.payload.type).toBe("ask");
  if (second.payload.type !== "ask") return;
  expect(second.payload.title).toBe(`Permission needed in ${jonas.title}`);
  expect(second.payload.body).toBe("A note for the courier?");
  const noteAskId = second.payload.askId;
  await phone.deliver(second.text);
  await expect.poll(async () => (await notifications(page)).map((n) => n.title)).toEqual([`Permission needed in ${jonas.title}`]);

  // Answered from the phone: Collie sends a clear push for the ask, and the notification goes.
  const detail = (await (await page.request.get(`/api/agents/desk/panes/${jonas.pane}`)).json()) as { asks: { id: string; revision: string }[] };
  const open = detail.asks.find((a) => a.id === noteAskId)!;
  const answered = await post(page, `/api/agents/desk/panes/${jonas.pane}/asks/${open.id}/answer`, { revision: open.revision, answer: { kind: "text", text: "ring twice" } });
  expect(answered.status()).toBe(200);
  const clear = await phone.next();
  expect(clear.payload).toEqual({ v: 1, type: "clear", tag: "collie:desk", agent: "desk", machine: null, paneId: jonas.pane, askId: open.id });
  await phone.deliver(clear.text);
  await expect.poll(async () => (await notifications(page)).length).toBe(0);

  // A burst (two pushes delivered back to back) collapses into one notification that keeps both asks.
  await phone.deliverNow(first.text);
  await phone.deliver(second.text);
  await expect.poll(async () => (await notifications(page)).map((n) => [n.title, n.body, n.data?.asks?.map((a) => a.askId)])).toEqual([
    [`Permission needed in ${jonas.title}`, "A note for the courier? (+1 more)", [noteAskId, askId]],
  ]);
  await phone.deliver(JSON.stringify({ ...clear.payload, paneId: maria.pane, askId }));
  await phone.deliver(clear.text);
  await expect.poll(async () => (await notifications(page)).length).toBe(0);

  // A push the worker cannot read still shows something sensible.
  await phone.deliver("not a Collie payload");
  await expect.poll(async () => (await notifications(page)).map((n) => [n.title, n.tag])).toEqual([["Collie", "collie"]]);

  // Maria's conversation closed on the phone with her refund still asking: its notification is withdrawn too.
  expect((await post(page, "/api/agents/desk/close", { target: { kind: "pane", id: maria.pane } })).status()).toBe(200);
  const closed = await phone.next();
  expect(closed.payload).toEqual({ v: 1, type: "clear", tag: "collie:desk", agent: "desk", machine: null, paneId: maria.pane, askId });
});

test("Settings offers the push opt-in (P-27)", async ({ page, collie, shot }) => {
  await page.context().grantPermissions(["notifications"], { origin: collie.url });
  await page.goto("/#/settings");
  await page.evaluate(() => navigator.serviceWorker.ready);
  const toggle = page.getByRole("switch", { name: "Push notifications" });
  await expect(toggle).toBeEnabled();
  await expect(toggle).not.toBeChecked();
  await expect(page.locator(".push-setting").getByRole("status")).toHaveText("Get a notification when a durable agent needs your answer.");
  // This machine's Chromium reaches no push service, so subscribing fails: the row says so in words.
  await toggle.click();
  await expect(page.locator(".push-setting").getByRole("status")).toHaveText(/^Push notifications could not be turned on: this browser has no push service|^Asks that need you reach this device/);
  await shot("push-settings");
});
