/**
 * Web Push end to end (P-27, U-2, U-4): an ask raised in the example desk is pushed by the real
 * daemon to a local https push service; the journey decrypts it with an independent RFC 8291
 * decryptor, checks the VAPID JWT, then delivers it through CDP (`ServiceWorker.deliverPushMessage`)
 * to the PWA's real service worker, reads the notification, taps it, and lands on the card. A
 * visible Collie window gets no notification; answering an ask withdraws its notification.
 *
 * Test seams (docs/push.md): `pushManager.subscribe()` needs a real push service, so the journey
 * registers the subscription straight through `POST /api/push/subscriptions`, with keys it made and
 * the endpoint of its own push service (trusted by the daemon through NODE_EXTRA_CA_CERTS). A
 * notification cannot be clicked through CDP, so the journey dispatches `notificationclick` for
 * the real notification inside the service worker; the handler is the one a tap runs.
 */
import { request as httpRequest } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CDPSession, Page, Worker } from "@playwright/test";
import type { PushPayload } from "@colliepwa/shared";
import { startCollie, type CollieServer } from "./collie.ts";
import { expect, test as base } from "./fixtures.ts";
import { post, SEEDED } from "./desk.ts";
import { makeCert } from "../server/test/helpers/cert.ts";
import { FakePushService } from "../server/test/push/helpers/push-service.ts";
import { decryptPush, makeSubscriber, verifyVapid, type TestSubscriber } from "../server/test/push/helpers/webpush-check.ts";

interface PushRig {
  service: FakePushService;
  dir: string;
}

/** A Collie of this file's own, whose pushes go to a local https push service. */
const test = base.extend<{ paired: void }, { collie: CollieServer; rig: PushRig }>({
  rig: [
    async ({}, use) => {
      const dir = mkdtempSync(join(tmpdir(), "collie-push-e2e-"));
      const service = await new FakePushService(makeCert(dir)).listen();
      await use({ service, dir });
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    },
    { scope: "worker" },
  ],
  collie: [
    async ({ rig }, use) => {
      const collie = await startCollie({ env: { NODE_EXTRA_CA_CERTS: join(rig.dir, "cert.pem") } });
      await use(collie);
      await collie.stop();
    },
    { scope: "worker" },
  ],
  // Pairs the browser context with this Collie through the admin socket, as `collie pair` does.
  paired: [
    async ({ page, collie }, use) => {
      if ((await page.request.get("/api/me")).status() === 401) {
        const r = await page.request.post("/api/pair", { data: { code: await pairCode(collie.stateDir), name: "push phone" } });
        expect(r.status()).toBe(200);
      }
      await use();
    },
    { auto: true },
  ],
});

test.use({ viewport: { width: 360, height: 740 } });

function pairCode(stateDir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ socketPath: join(stateDir, "admin.sock"), method: "POST", path: "/pair-codes" }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (c: string) => (body += c));
      res.on("end", () => {
        try {
          resolve((JSON.parse(body) as { code: string }).code);
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    req.once("error", reject);
    req.end();
  });
}

interface Shown {
  title: string;
  body: string;
  tag: string;
  data: { asks?: { askId: string }[] } | null;
}

/** The service worker as it runs now (it may have been stopped and started again meanwhile). */
async function worker(page: Page): Promise<Worker> {
  const ctx = page.context();
  return ctx.serviceWorkers().at(-1) ?? (await ctx.waitForEvent("serviceworker"));
}

/** The notifications the service worker shows, read inside the worker. */
async function notifications(page: Page): Promise<Shown[]> {
  try {
    return await (await worker(page)).evaluate(async () => {
      const reg = (globalThis as unknown as { registration: ServiceWorkerRegistration }).registration;
      return (await reg.getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data as Shown["data"] }));
    });
  } catch {
    return []; // the worker was stopping; the poll asks again
  }
}

/** Taps a notification: the service worker's own `notificationclick` handler runs for it. */
async function tap(page: Page, tag: string): Promise<void> {
  await (await worker(page)).evaluate(async (t) => {
    const g = globalThis as unknown as {
      registration: ServiceWorkerRegistration;
      NotificationEvent: new (type: string, init: { notification: Notification }) => Event;
      dispatchEvent(e: Event): boolean;
    };
    const [n] = await g.registration.getNotifications({ tag: t });
    if (!n) throw new Error(`no notification with tag ${t}`);
    g.dispatchEvent(new g.NotificationEvent("notificationclick", { notification: n }));
  }, tag);
}

/**
 * Delivers a push to the real service worker through CDP, then lets the worker handle it before
 * the journey reads notifications: CDP answers before the push event runs, and Chromium forgets a
 * notification that `getNotifications()` reads while it is still being shown.
 */
async function deliver(page: Page, cdp: CDPSession, registrationId: string, origin: string, data: string): Promise<void> {
  await cdp.send("ServiceWorker.deliverPushMessage", { origin, registrationId, data });
  await page.waitForTimeout(400);
}

/** How many of each endpoint's pushes the journey has read. */
const read = new Map<string, number>();

/** The next push Collie sent to `sub` (in order, none skipped), decrypted and its VAPID JWT verified. */
async function nextPush(service: FakePushService, sub: TestSubscriber, publicKey: string): Promise<{ text: string; payload: PushPayload; headers: Record<string, unknown> }> {
  const id = new URL(sub.endpoint).pathname.split("/").pop()!;
  const n = read.get(id) ?? 0;
  await service.waitFor(() => service.for(id).length > n, `push #${n + 1} to ${id}`, 30_000);
  read.set(id, n + 1);
  const req = service.for(id)[n]!;
  verifyVapid(req.headers.authorization, sub.endpoint, publicKey);
  const text = decryptPush(req.body, sub);
  return { text, payload: JSON.parse(text) as PushPayload, headers: req.headers };
}

/** Opens the app, waits for its service worker to control the page, and returns its registration id. */
async function openApp(page: Page, cdp: CDPSession, registrations: Map<string, string>, origin: string): Promise<string> {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Durable agents" })).toBeVisible();
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    for (let i = 0; i < 100 && !navigator.serviceWorker.controller; i++) await new Promise((r) => setTimeout(r, 50));
  });
  await expect.poll(() => registrations.get(`${origin}/`)).toBeTruthy();
  return registrations.get(`${origin}/`)!;
}

test("an ask's push shows a notification; a tap lands on its card; answering withdraws one", async ({ page, collie, rig, shot }) => {
  test.setTimeout(120_000);
  const { service } = rig;
  const origin = collie.url;
  await page.context().grantPermissions(["notifications"], { origin });

  // CDP: the service worker's registration id, for deliverPushMessage.
  const cdp = await page.context().newCDPSession(page);
  const registrations = new Map<string, string>();
  cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations: regs }) => {
    for (const r of regs) if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
  });
  await cdp.send("ServiceWorker.enable");
  const registrationId = await openApp(page, cdp, registrations, origin);

  // The test seam: this phone's subscription, registered straight with the daemon.
  const { publicKey } = (await (await page.request.get("/api/push/key")).json()) as { publicKey: string };
  const phone = makeSubscriber(service.endpoint("e2e-phone"));
  const registered = await page.request.post("/api/push/subscriptions", { data: { subscription: phone.json } });
  expect(registered.status()).toBe(201);

  // No Collie window on screen: the notification is the only way to hear of the ask.
  await page.goto("about:blank");

  // Maria asks for a refund: the desk's refund needs an approval, with the push line `refund needs a yes`.
  const maria = SEEDED.maria;
  expect((await post(page, `/api/agents/desk/panes/${maria.pane}/send`, { text: "Please refund order 5521" })).status()).toBe(200);
  const first = await nextPush(service, phone, publicKey);
  expect(first.payload.type).toBe("ask");
  if (first.payload.type !== "ask") return;
  expect(first.payload.title).toBe(`Permission needed in ${maria.title}`);
  expect(first.payload.body).toBe("refund needs a yes");
  expect(first.payload.url).toBe(`/#/agent/desk/pane/${maria.pane}/ask/${first.payload.askId}`);
  expect(first.headers.urgency).toBe("high");
  expect(first.headers["content-encoding"]).toBe("aes128gcm");
  const askId = first.payload.askId;

  // Delivered through CDP to the real service worker: it shows the notification.
  await deliver(page, cdp, registrationId, origin, first.text);
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
  await deliver(page, cdp, registrationId, origin, first.text);
  expect(await notifications(page)).toEqual([]);

  // Withdrawal: Jonas's courier note asks with no push line of its own (the body is the ask's title).
  await page.goto("about:blank");
  const jonas = SEEDED.jonas;
  expect((await post(page, `/api/agents/desk/panes/${jonas.pane}/send`, { text: "Add a courier note" })).status()).toBe(200);
  const second = await nextPush(service, phone, publicKey);
  expect(second.payload.type).toBe("ask");
  if (second.payload.type !== "ask") return;
  expect(second.payload.title).toBe(`Permission needed in ${jonas.title}`);
  expect(second.payload.body).toBe("A note for the courier?");
  const noteAskId = second.payload.askId;
  await deliver(page, cdp, registrationId, origin, second.text);
  await expect.poll(async () => (await notifications(page)).map((n) => n.title)).toEqual([`Permission needed in ${jonas.title}`]);

  // Answered from the phone: Collie sends a clear push for the ask, and the notification goes.
  const detail = (await (await page.request.get(`/api/agents/desk/panes/${jonas.pane}`)).json()) as { asks: { id: string; revision: string }[] };
  const open = detail.asks.find((a) => a.id === noteAskId)!;
  const answered = await post(page, `/api/agents/desk/panes/${jonas.pane}/asks/${open.id}/answer`, { revision: open.revision, answer: { kind: "text", text: "ring twice" } });
  expect(answered.status()).toBe(200);
  const clear = await nextPush(service, phone, publicKey);
  expect(clear.payload).toEqual({ v: 1, type: "clear", tag: "collie:desk", agent: "desk", machine: null, paneId: jonas.pane, askId: open.id });
  await deliver(page, cdp, registrationId, origin, clear.text);
  await expect.poll(async () => (await notifications(page)).length).toBe(0);

  // A burst (two pushes delivered back to back) collapses into one notification that keeps both asks.
  await cdp.send("ServiceWorker.deliverPushMessage", { origin, registrationId, data: first.text });
  await deliver(page, cdp, registrationId, origin, second.text);
  await expect.poll(async () => (await notifications(page)).map((n) => [n.title, n.body, n.data?.asks?.map((a) => a.askId)])).toEqual([
    [`Permission needed in ${jonas.title}`, "A note for the courier? (+1 more)", [noteAskId, askId]],
  ]);
  await deliver(page, cdp, registrationId, origin, JSON.stringify({ ...clear.payload, paneId: maria.pane, askId }));
  await deliver(page, cdp, registrationId, origin, clear.text);
  await expect.poll(async () => (await notifications(page)).length).toBe(0);

  // A push the worker cannot read still shows something sensible.
  await deliver(page, cdp, registrationId, origin, "not a Collie payload");
  await expect.poll(async () => (await notifications(page)).map((n) => [n.title, n.tag])).toEqual([["Collie", "collie"]]);
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
  await expect(page.locator(".push-setting").getByRole("status")).toHaveText(/^Push notifications could not be turned on: .+|^Asks that need you reach this device/);
  await shot("push-settings");
});
