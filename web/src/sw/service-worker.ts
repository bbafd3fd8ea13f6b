/**
 * The service worker (P-26), built to /sw.js. It keeps the app shell so Collie opens from the home
 * screen with a flaky network or while the daemon restarts:
 * - navigations and `/`: network first, the cached index when the network fails (or hangs
 *   for more than 4 s);
 * - `/assets/*` (hashed file names, immutable): cache first;
 * - `/api/*` (live state) and `/sw.js` itself: never cached, never touched;
 * - other files of the origin (manifest, icons): network first, the cached copy when offline.
 * A new worker waits until the page asks it to take over (`SKIP_WAITING`, sent by the `Reload`
 * button of the update banner); on activate it drops the caches of older versions.
 *
 * Push (P-27, U-2; docs/push.md): shows an ask's notification (one per agent: a burst collapses),
 * withdraws it on a clear push, shows nothing while a Collie window is visible (the app shows the
 * card), and on a tap opens the conversation at the card. A notification's `Allow` / `Deny` (issue
 * 30) answers through the app's own action layer and outbox (the same route, request id rule and
 * storage as a tap on the card), then says what came of it in a quiet notification.
 *
 * Built on its own into one classic script (web/build/service-worker.ts), so it can share the
 * app's modules and still load as /sw.js without module workers.
 */
import { version } from "../../package.json";
import { PhoneActions, type SendResult } from "../app/actions.ts";
import { Api } from "../app/api.ts";
import { answeringOn, idbNotificationAnswers, idbSettings, type NotificationAnswer } from "../app/notification-answers.ts";
import { idbOutboxStorage, Outbox } from "../app/outbox.ts";
import { answerRoute, answerTag, goesWithAsk, noticeOf, outcomePlan, pickedAnswer, type PickedAnswer } from "./answer.ts";
import { clearPlan, clickUrl, collieVisible, parsePush, pickWindow, showPlan } from "./push.ts";

declare const self: ServiceWorkerGlobalScope;

/** Bump SHELL_REVISION when this file's caching changes; the web package's version is part too. */
const SHELL_REVISION = 1;
const PREFIX = "collie-shell-";
const SHELL = `${PREFIX}${version}-r${SHELL_REVISION}`;
const ASSETS = `${PREFIX}assets`;
/** Hashed assets kept at most; the oldest go first (old builds' files are never asked for again). */
const MAX_ASSETS = 80;
/** Where the app's index is kept. */
const INDEX = "/";

self.addEventListener("install", (event) => {
  event.waitUntil(precache());
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== SHELL && name !== ASSETS) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("message", (event) => {
  const data = event.data as { type?: unknown } | null;
  if (data && data.type === "SKIP_WAITING") void self.skipWaiting();
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  const path = url.pathname;
  if (path === "/api" || path.startsWith("/api/") || path === "/sw.js") return; // never cached
  if (req.mode === "navigate" || path === "/" || path === "/index.html") {
    event.respondWith(networkFirst(req, INDEX));
    return;
  }
  if (path.startsWith("/assets/")) {
    event.respondWith(cacheFirst(req));
    return;
  }
  event.respondWith(networkFirst(req, null));
});

/** The index and what it loads, so the very next start works offline. */
async function precache(): Promise<void> {
  const shell = await caches.open(SHELL);
  let html = "";
  try {
    const res = await fetch(INDEX, { cache: "no-cache" });
    if (!res.ok) return;
    html = await res.clone().text();
    await shell.put(INDEX, res);
  } catch {
    return; // offline at install: the first online navigation fills the cache
  }
  const assets = await caches.open(ASSETS);
  const urls = new Set<string>();
  for (const m of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
    const u = m[1]!;
    if (u.startsWith("/assets/")) urls.add(u);
  }
  await Promise.all(
    [...urls].map(async (u) => {
      try {
        const res = await fetch(u);
        if (res.ok) await assets.put(u, res);
      } catch {
        // cached on first use instead
      }
    }),
  );
  for (const u of ["/manifest.webmanifest", "/icons/icon-192.png", "/icons/icon-512.png"]) {
    try {
      const res = await fetch(u);
      if (res.ok) await shell.put(u, res);
    } catch {
      // optional
    }
  }
}

/** How long a navigation waits for the network before a cached index answers (a flaky network, P-26). */
const NAVIGATION_WAIT_MS = 4000;

/**
 * The network's answer, kept for later; the cached copy when the network fails. For the index,
 * a network that hangs longer than NAVIGATION_WAIT_MS is not waited for when a copy is cached
 * (the network's answer still refreshes the cache when it comes).
 */
async function networkFirst(req: Request, key: string | null): Promise<Response> {
  const shell = await caches.open(SHELL);
  const cacheKey = key ?? req;
  const network = (async () => {
    const res = await fetch(req);
    if (res.ok && res.type === "basic" && isCacheable(res, key !== null)) await shell.put(cacheKey, res.clone());
    return res;
  })();
  const fallback = async (): Promise<Response> => {
    const cached = await shell.match(cacheKey);
    if (cached) return cached;
    if (key === INDEX) {
      return new Response("Collie cannot be reached, and this phone has no copy of the app yet.", {
        status: 503,
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
    return Response.error();
  };
  if (key !== INDEX) return network.catch(fallback);
  network.catch(() => undefined); // a late failure after the cached copy answered is no error
  let timer: ReturnType<typeof setTimeout> | undefined;
  const slow = new Promise<Response | null>((resolve) => {
    timer = setTimeout(() => void shell.match(cacheKey).then((c) => resolve(c ?? null)), NAVIGATION_WAIT_MS);
  });
  try {
    const first = await Promise.race([network, slow]);
    if (first) return first;
    return await network; // no copy cached: wait for the network after all
  } catch {
    return fallback();
  } finally {
    clearTimeout(timer);
  }
}

/** Hashed files never change: the cached copy when there is one, else the network's, kept. */
async function cacheFirst(req: Request): Promise<Response> {
  const assets = await caches.open(ASSETS);
  const cached = await assets.match(req);
  if (cached) return cached;
  const res = await fetch(req);
  if (res.ok && res.type === "basic" && isCacheable(res, false)) {
    await assets.put(req, res.clone());
    void trim(assets);
  }
  return res;
}

/** Only the app's own files: never the daemon's 503 "not built" page, nor an HTML fallback for a missing asset. */
function isCacheable(res: Response, html: boolean): boolean {
  const type = res.headers.get("content-type") ?? "";
  if (/no-store/i.test(res.headers.get("cache-control") ?? "")) return false;
  return html ? type.startsWith("text/html") : !type.startsWith("text/html");
}

async function trim(cache: Cache): Promise<void> {
  const keys = await cache.keys();
  for (const k of keys.slice(0, Math.max(0, keys.length - MAX_ASSETS))) await cache.delete(k);
}

// ---- Push (P-27, U-1…U-4) -----------------------------------------------------------------------

self.addEventListener("push", (event) => {
  let text: string | null = null;
  try {
    text = event.data ? event.data.text() : null;
  } catch {
    text = null; // unreadable: FALLBACK below
  }
  event.waitUntil(inTurn(() => onPush(text)));
});

/**
 * Pushes are handled one at a time, in arrival order. Each one reads the notifications showing and
 * then replaces them (a burst collapses, a clear removes one ask), so two interleaved handlers
 * would drop an ask; and Chromium forgets a notification that `getNotifications()` reads while it
 * is still being shown.
 */
let pushTurn: Promise<void> = Promise.resolve();
function inTurn(work: () => Promise<void>): Promise<void> {
  const mine = pushTurn.then(work);
  pushTurn = mine.catch(() => undefined);
  return mine;
}

async function onPush(text: string | null): Promise<void> {
  const payload = parsePush(text);
  if (payload?.type === "clear") {
    const buttons = await maxButtons();
    for (const n of await self.registration.getNotifications({ tag: payload.tag })) {
      const plan = clearPlan(n.data, payload.askId, payload.tag, buttons);
      if (plan.kind === "close") n.close();
      else if (plan.kind === "replace") await self.registration.showNotification(plan.plan.title, plan.plan.options);
    }
    // An answer's outcome that still waited on the ask (held, not sent yet, changed) is over too.
    for (const n of await self.registration.getNotifications({ tag: answerTag(payload.tag, payload.askId) })) {
      if (goesWithAsk(n.data, payload.askId)) n.close();
    }
    return;
  }
  // A visible Collie window shows the card itself: no notification on top of it.
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  if (collieVisible(windows, self.location.origin)) return;
  const existing = payload ? await self.registration.getNotifications({ tag: payload.tag }) : [];
  const plan = showPlan(payload, existing.map((n) => n.data as unknown), await maxButtons());
  await self.registration.showNotification(plan.title, plan.options);
}

self.addEventListener("notificationclick", (event) => {
  const n = event.notification;
  n.close();
  // A button answers (issue 30); the notification itself, or a button this worker does not know, opens the card.
  const picked = event.action ? pickedAnswer(n.data, event.action, n.tag) : null;
  event.waitUntil(picked ? answerFromNotification(n.data as unknown, picked) : openFromNotification(n.data as unknown));
});

// ---- Answering from a notification (issue 30; docs/push.md) -------------------------------------

const settings = idbSettings();
const answers = idbNotificationAnswers();
/** The Background Sync tag under which answers that found no network are sent again. */
const RESEND = "collie-answers";

/**
 * How many buttons a notification may show: none when this device turned answering off, or when
 * the browser shows none (an iPhone: its notification opens the card, as before).
 */
async function maxButtons(): Promise<number> {
  const shown = typeof Notification === "undefined" ? 0 : ((Notification as unknown as { maxActions?: number }).maxActions ?? 0);
  if (shown <= 0) return 0;
  return (await answeringOn(settings)) ? shown : 0;
}

/** The app's action layer over the app's outbox (IndexedDB): the same request ids, storage and resends as a tap. */
function phoneActions(): { actions: PhoneActions; outbox: Outbox } {
  const outbox = new Outbox(new Api(), idbOutboxStorage());
  return { actions: new PhoneActions(outbox), outbox };
}

async function answerFromNotification(data: unknown, picked: PickedAnswer): Promise<void> {
  // The switch went off after the notification showed: its buttons no longer answer, they open the card.
  if ((await maxButtons()) === 0) return openFromNotification(data);
  // The ask leaves its agent's notification at once (the others in it stay, with their buttons):
  // the one showing now, should a newer push have replaced the one pressed, else what was pressed.
  await inTurn(async () => {
    const buttons = await maxButtons();
    const showing = await self.registration.getNotifications({ tag: picked.tag });
    for (const n of showing.length > 0 ? showing : [{ data, close: () => undefined }]) {
      const plan = clearPlan(n.data, picked.ask.askId, picked.tag, buttons);
      if (plan.kind === "close") n.close();
      else if (plan.kind === "replace") await self.registration.showNotification(plan.plan.title, plan.plan.options);
    }
  });
  const { params, body } = answerRoute(picked);
  const tap = phoneActions().actions.answer(params, body);
  const sent: NotificationAnswer = { request: tap.request, askId: picked.ask.askId, reply: null, at: Date.now(), notice: noticeOf(picked) };
  // Noted before any reply, so an answer this worker could not see through is still sent again.
  await answers.put(sent).catch(() => undefined);
  const result = await tap.result.catch((): SendResult => ({ kind: "no-reply" }));
  await settle(sent, result);
}

/** Keeps what an answer came to for the app, says it in a notification, and tells an open app. */
async function settle(a: NotificationAnswer, result: SendResult): Promise<NotificationAnswer> {
  const done: NotificationAnswer = { ...a, reply: result.kind === "reply" ? { status: result.reply.status, body: result.reply.body } : null };
  await answers.put(done).catch(() => undefined);
  const plan = outcomePlan(done);
  await self.registration.showNotification(plan.title, plan.options);
  if (done.reply === null) await resendWhenOnline();
  for (const win of await self.clients.matchAll({ type: "window", includeUncontrolled: true })) win.postMessage({ type: "collie-answered" });
  return done;
}

interface SyncRegistration {
  sync?: { register(tag: string): Promise<void> };
}

/** Asks the browser to wake this worker once the phone is online (Background Sync, where there is one). */
async function resendWhenOnline(): Promise<void> {
  try {
    await (self.registration as unknown as SyncRegistration).sync?.register(RESEND);
  } catch {
    // no Background Sync: the app sends it from the outbox when it opens (P-26)
  }
}

/** Background Sync's event (Chromium), which TypeScript's worker types leave out. */
interface SyncEvent extends ExtendableEvent {
  readonly tag: string;
}

(self as unknown as EventTarget).addEventListener("sync", (event) => {
  const e = event as SyncEvent;
  if (e.tag === RESEND) e.waitUntil(resendAnswers());
});

/**
 * Sends again, from the outbox and with their request ids, the answers from notifications that
 * found no network. One the outbox no longer holds was sent by the app meanwhile, which shows its
 * outcome: its notification goes. Rejects while one still finds no network, so the browser tries
 * again later.
 */
async function resendAnswers(): Promise<void> {
  const waiting = (await answers.all()).filter((a) => a.reply === null);
  if (waiting.length === 0) return;
  const { outbox } = phoneActions();
  await outbox.load();
  let offline = false;
  for (const a of waiting) {
    if (!outbox.pending.some((p) => p.requestId === a.request.requestId)) {
      await answers.delete(a.request.requestId);
      for (const n of await self.registration.getNotifications({ tag: answerTag(a.notice.tag, a.askId) })) n.close();
      continue;
    }
    const result = await outbox.send(a.request.requestId).catch((): SendResult => ({ kind: "no-reply" }));
    if (result.kind === "no-reply") offline = true;
    else await settle({ ...a, resent: true }, result);
  }
  if (offline) throw new Error("still no network: the browser tries again later");
}

async function openFromNotification(data: unknown): Promise<void> {
  const url = clickUrl(data, self.location.origin);
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const win = pickWindow(windows, self.location.origin);
  if (win) {
    // The open app goes to the conversation itself (sw/landing.ts): no reload, nothing lost.
    win.postMessage({ type: "collie-open", url });
    try {
      await win.focus();
    } catch {
      // focusing needs the notification's user activation; the page went to the card anyway
    }
    return;
  }
  await self.clients.openWindow(url);
}

// The browser replaced the subscription (expired, rotated): register the new one and name the old.
self.addEventListener("pushsubscriptionchange", (event) => {
  event.waitUntil(resubscribe(event.oldSubscription, event.newSubscription));
});

async function resubscribe(old: PushSubscription | null, fresh: PushSubscription | null): Promise<void> {
  let sub = fresh;
  if (!sub) {
    const res = await fetch("/api/push/key", { credentials: "same-origin", cache: "no-store" });
    if (!res.ok) return;
    const { publicKey } = (await res.json()) as { publicKey: string };
    sub = await self.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: publicKey });
  }
  const body = { subscription: sub.toJSON(), ...(old && old.endpoint !== sub.endpoint ? { replaces: old.endpoint } : {}) };
  await fetch("/api/push/subscriptions", {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}
