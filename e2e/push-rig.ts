/**
 * What a journey needs to follow Web Push end to end (P-27, U-2): a local https push service the
 * daemon pushes to, and a phone that reads what arrived there (decrypted with an independent
 * RFC 8291 decryptor, its VAPID JWT checked) and hands it to the PWA's real service worker
 * through CDP (`ServiceWorker.deliverPushMessage`).
 *
 * Test seams (docs/push.md): `pushManager.subscribe()` needs a real push service, so the phone
 * registers its subscription straight through `POST /api/push/subscriptions`, with keys it made and
 * the endpoint of the local push service (trusted by the daemon through NODE_EXTRA_CA_CERTS). A
 * notification cannot be clicked through CDP, so `tap` dispatches `notificationclick` for the real
 * notification inside the service worker; the handler is the one a tap runs. A button (`press`,
 * issue 30) is the same event with the button's `action`, read from the real notification.
 */
import { request as httpRequest } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CDPSession, Page, Worker } from "@playwright/test";
import type { PushPayload } from "@colliepwa/shared";
import { expect } from "./fixtures.ts";
import { makeCert } from "../server/test/helpers/cert.ts";
import { FakePushService } from "../server/test/push/helpers/push-service.ts";
import { decryptPush, makeSubscriber, verifyVapid, type TestSubscriber } from "../server/test/push/helpers/webpush-check.ts";

export interface PushRig {
  service: FakePushService;
  /** The push service's certificate: pass it to the daemon as NODE_EXTRA_CA_CERTS. */
  caFile: string;
  close(): Promise<void>;
}

export async function startPushRig(): Promise<PushRig> {
  const dir = mkdtempSync(join(tmpdir(), "collie-push-e2e-"));
  const service = await new FakePushService(makeCert(dir)).listen();
  return {
    service,
    caFile: join(dir, "cert.pem"),
    async close() {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The push service as a worker-scoped fixture: `base.extend({ rig: pushRigFixture, … })`. */
export const pushRigFixture: [({}, use: (rig: PushRig) => Promise<void>) => Promise<void>, { scope: "worker" }] = [
  async ({}, use) => {
    const rig = await startPushRig();
    await use(rig);
    await rig.close();
  },
  { scope: "worker" },
];

/** A one-time pairing code from the daemon's admin socket, as `collie pair` gets one. */
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

/** Pairs the page's browser context with the daemon in `stateDir`, unless it is paired already. */
export async function pairPage(page: Page, stateDir: string, name: string): Promise<void> {
  if ((await page.request.get("/api/me")).status() !== 401) return;
  const r = await page.request.post("/api/pair", { data: { code: await pairCode(stateDir), name } });
  expect(r.status()).toBe(200);
}

export interface Shown {
  title: string;
  body: string;
  tag: string;
  data: { asks?: { askId: string }[] } | null;
  /** The buttons' titles (issue 30). */
  buttons: string[];
  silent: boolean | null;
}

/** The service worker as it runs now (it may have been stopped and started again meanwhile). */
async function worker(page: Page): Promise<Worker> {
  const ctx = page.context();
  return ctx.serviceWorkers().at(-1) ?? (await ctx.waitForEvent("serviceworker"));
}

/** The notifications the service worker shows, read inside the worker. */
export async function notifications(page: Page): Promise<Shown[]> {
  try {
    return await (await worker(page)).evaluate(async () => {
      const reg = (globalThis as unknown as { registration: ServiceWorkerRegistration }).registration;
      return (await reg.getNotifications()).map((n) => ({
        title: n.title, body: n.body, tag: n.tag, data: n.data as Shown["data"], silent: n.silent,
        buttons: ((n as unknown as { actions?: { title: string }[] }).actions ?? []).map((a) => a.title),
      }));
    });
  } catch {
    return []; // the worker was stopping; the poll asks again
  }
}

/** Taps a notification: the service worker's own `notificationclick` handler runs for it. */
export async function tap(page: Page, tag: string): Promise<void> {
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
 * Presses a notification's button by its title: the service worker's own `notificationclick`
 * handler runs with the button's `action`, as the browser runs it (issue 30).
 */
export async function press(page: Page, tag: string, title: string): Promise<void> {
  await (await worker(page)).evaluate(async ([t, label]) => {
    const g = globalThis as unknown as {
      registration: ServiceWorkerRegistration;
      NotificationEvent: new (type: string, init: { notification: Notification; action: string }) => Event;
      dispatchEvent(e: Event): boolean;
    };
    const [n] = await g.registration.getNotifications({ tag: t });
    if (!n) throw new Error(`no notification with tag ${t}`);
    const button = ((n as unknown as { actions?: { action: string; title: string }[] }).actions ?? []).find((a) => a.title === label);
    if (!button) throw new Error(`the notification ${t} has no button ${label}`);
    g.dispatchEvent(new g.NotificationEvent("notificationclick", { notification: n, action: button.action }));
  }, [tag, title] as const);
}

export interface Push {
  /** The decrypted payload as sent. */
  text: string;
  payload: PushPayload;
  headers: Record<string, unknown>;
}

/**
 * A phone with the app open, its service worker in control, and a push subscription registered
 * with the daemon. It reads the pushes Collie sent to it, in order, and delivers them to the worker.
 */
export class PushPhone {
  #read = 0;

  readonly page: Page;
  readonly origin: string;
  readonly #service: FakePushService;
  readonly #cdp: CDPSession;
  readonly #registrationId: string;
  readonly #subscriber: TestSubscriber;
  readonly #publicKey: string;

  private constructor(p: { page: Page; origin: string; service: FakePushService; cdp: CDPSession; registrationId: string; subscriber: TestSubscriber; publicKey: string }) {
    this.page = p.page;
    this.origin = p.origin;
    this.#service = p.service;
    this.#cdp = p.cdp;
    this.#registrationId = p.registrationId;
    this.#subscriber = p.subscriber;
    this.#publicKey = p.publicKey;
  }

  /** Opens the app at `/` (its dashboard heading must show), then registers a subscription named `name`. */
  static async open(page: Page, origin: string, service: FakePushService, name: string): Promise<PushPhone> {
    await page.context().grantPermissions(["notifications"], { origin });
    // CDP: the service worker's registration id, for deliverPushMessage.
    const cdp = await page.context().newCDPSession(page);
    const registrations = new Map<string, string>();
    cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations: regs }) => {
      for (const r of regs) if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
    });
    await cdp.send("ServiceWorker.enable");
    await page.goto("/");
    await expect(page.getByRole("heading", { name: "Durable agents" })).toBeVisible();
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      for (let i = 0; i < 100 && !navigator.serviceWorker.controller; i++) await new Promise((r) => setTimeout(r, 50));
    });
    await expect.poll(() => registrations.get(`${origin}/`)).toBeTruthy();

    // The test seam: this phone's subscription, registered straight with the daemon.
    const { publicKey } = (await (await page.request.get("/api/push/key")).json()) as { publicKey: string };
    const subscriber = makeSubscriber(service.endpoint(name));
    const registered = await page.request.post("/api/push/subscriptions", { data: { subscription: subscriber.json } });
    expect(registered.status()).toBe(201);
    return new PushPhone({ page, origin, service, cdp, registrationId: registrations.get(`${origin}/`)!, subscriber, publicKey });
  }

  /** The next push Collie sent to this phone (in order, none skipped), decrypted and its VAPID JWT verified. */
  async next(): Promise<Push> {
    const id = new URL(this.#subscriber.endpoint).pathname.split("/").pop()!;
    const n = this.#read;
    await this.#service.waitFor(() => this.#service.for(id).length > n, `push #${n + 1} to ${id}`, 30_000);
    this.#read = n + 1;
    const req = this.#service.for(id)[n]!;
    verifyVapid(req.headers.authorization, this.#subscriber.endpoint, this.#publicKey);
    const text = decryptPush(req.body, this.#subscriber);
    return { text, payload: JSON.parse(text) as PushPayload, headers: req.headers };
  }

  /** Hands a push to the service worker and goes on at once (CDP answers before the push event runs). */
  async deliverNow(data: string): Promise<void> {
    await this.#cdp.send("ServiceWorker.deliverPushMessage", { origin: this.origin, registrationId: this.#registrationId, data });
  }

  /** Fires a Background Sync event in the service worker, as the browser does once the phone is online. */
  async sync(tag: string): Promise<void> {
    await this.#cdp.send("ServiceWorker.dispatchSyncEvent", { origin: this.origin, registrationId: this.#registrationId, tag, lastChance: false });
  }

  /**
   * Hands a push to the service worker, then lets the worker handle it before the journey reads
   * notifications: Chromium forgets a notification that `getNotifications()` reads while it is
   * still being shown.
   */
  async deliver(data: string): Promise<void> {
    await this.deliverNow(data);
    await this.page.waitForTimeout(400);
  }
}
