/**
 * Push opt-in (P-27, U-4; docs/push.md), without React: ask for permission, subscribe with
 * Collie's VAPID public key and register the subscription with the daemon. A device that
 * subscribes again (a new key, a browser that rotated its endpoint) names the endpoint it
 * replaces, so Collie drops the old one at once. The browser parts come in through `PushEnv`, so
 * tests drive it with fakes: `pushManager.subscribe()` needs a real push service.
 */
import type { Api } from "./api.ts";
import { WORDS } from "@colliepwa/shared/strings";

/** What the setting shows. */
export type PushState = "unsupported" | "denied" | "off" | "on";

/** A failure the setting shows in words. */
export class PushError extends Error {
  override name = "PushError";
}

export interface PushEnv {
  /** This origin's service worker registration; undefined when there is none. */
  registration(): Promise<ServiceWorkerRegistration | undefined>;
  /** The notification permission; null when the browser has no notifications. */
  permission(): NotificationPermission | null;
  requestPermission(): Promise<NotificationPermission>;
  api: Pick<Api, "call">;
  /** Where the endpoint this device registered is remembered. */
  storage: Pick<Storage, "getItem" | "setItem" | "removeItem">;
  /** Resolves after `ms` (the browser's timer; tests pass their own clock). */
  wait(ms: number): Promise<void>;
}

/**
 * How long the browser's push service has to give a subscription (issue 37, item 6): a browser
 * without a reachable push service may never answer, and the switch would spin with both buttons
 * dimmed until a reload. A real one answers in a second or two.
 */
export const SUBSCRIBE_TIMEOUT_MS = 10_000;

/** The endpoint this device registered last, so a new subscription can name the one it replaces. */
const ENDPOINT_KEY = "collie.pushEndpoint";

export const PUSH_WORDS = WORDS.push;

/** The browser's own environment (navigator, Notification, localStorage). */
export function browserPushEnv(api: PushEnv["api"]): PushEnv {
  return {
    registration: async () => {
      const sw = typeof navigator !== "undefined" ? navigator.serviceWorker : undefined;
      if (!sw) return undefined;
      return sw.getRegistration("/");
    },
    permission: () => (typeof Notification === "undefined" ? null : Notification.permission),
    requestPermission: () => Notification.requestPermission(),
    api,
    storage: typeof localStorage !== "undefined" ? localStorage : memoryStorage(),
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}

/** The browser's answer, or a PushError in words once SUBSCRIBE_TIMEOUT_MS passed without one. */
async function inTime<T>(env: PushEnv, answer: Promise<T>): Promise<T> {
  const late = env.wait(SUBSCRIBE_TIMEOUT_MS).then(() => {
    throw new PushError(PUSH_WORDS.failed(PUSH_WORDS.timedOut(SUBSCRIBE_TIMEOUT_MS / 1000)));
  });
  return Promise.race([answer, late]);
}

function memoryStorage(): PushEnv["storage"] {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v), removeItem: (k) => void m.delete(k) };
}

async function pushManager(env: PushEnv): Promise<PushManager | null> {
  const reg = await env.registration();
  return reg && "pushManager" in reg && reg.pushManager ? reg.pushManager : null;
}

/** Where this device stands now. */
export async function pushState(env: PushEnv): Promise<PushState> {
  const permission = env.permission();
  const manager = permission === null ? null : await pushManager(env);
  if (permission === null || !manager) return "unsupported";
  if (permission === "denied") return "denied";
  if (permission !== "granted") return "off";
  return (await manager.getSubscription()) ? "on" : "off";
}

/** base64url → bytes (the VAPID key as `applicationServerKey`). */
export function fromBase64Url(s: string): Uint8Array<ArrayBuffer> {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(s.length / 4) * 4, "=");
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function sameKey(a: ArrayBuffer | null | undefined, b: Uint8Array): boolean {
  if (!a || a.byteLength !== b.length) return false;
  const x = new Uint8Array(a);
  return x.every((v, i) => v === b[i]);
}

const message = (body: unknown, fallback: string): string =>
  body && typeof body === "object" && typeof (body as { message?: unknown }).message === "string" ? (body as { message: string }).message : fallback;

/**
 * Turns push on for this device: permission, subscription (a new one when Collie's key changed),
 * registration with the daemon. Resolves to the new state (`denied` when the user said no);
 * throws PushError with words for the setting.
 */
export async function turnPushOn(env: PushEnv): Promise<PushState> {
  const manager = env.permission() === null ? null : await pushManager(env);
  if (!manager) throw new PushError(PUSH_WORDS.unsupported);
  let permission = env.permission();
  if (permission === "default") permission = await env.requestPermission();
  if (permission !== "granted") return permission === "denied" ? "denied" : "off";

  const keyReply = await env.api.call("pushKey", {});
  if (keyReply.status === 404) throw new PushError(PUSH_WORDS.noPush);
  if (keyReply.status !== 200 || typeof keyReply.body.publicKey !== "string") throw new PushError(PUSH_WORDS.failed(message(keyReply.body, `Collie answered ${keyReply.status}.`)));
  const key = fromBase64Url(keyReply.body.publicKey);

  let previous = env.storage.getItem(ENDPOINT_KEY);
  let sub = await inTime(env, manager.getSubscription());
  if (sub && !sameKey(sub.options.applicationServerKey, key)) {
    // Subscribed with another key (Collie's keys were reset): that subscription is useless now.
    previous = sub.endpoint;
    await sub.unsubscribe().catch(() => false);
    sub = null;
  }
  if (!sub) {
    const asked = manager.subscribe({ userVisibleOnly: true, applicationServerKey: key }).catch((err: unknown) => {
      throw new PushError(PUSH_WORDS.failed(browserRefusal(err)));
    });
    // A subscription that arrives after the timeout stays in the browser: the next tap, or the
    // next start (renewPush), registers it with Collie.
    asked.catch(() => undefined);
    sub = await inTime(env, asked);
  }
  const json = sub.toJSON();
  if (!json.endpoint || !json.keys?.p256dh || !json.keys.auth) throw new PushError(PUSH_WORDS.failed("the browser gave no keys."));
  const subscription = { endpoint: json.endpoint, expirationTime: json.expirationTime ?? null, keys: { p256dh: json.keys.p256dh, auth: json.keys.auth } };
  const reply = await env.api.call("pushSubscribe", {}, previous && previous !== json.endpoint ? { subscription, replaces: previous } : { subscription });
  if (reply.status !== 200 && reply.status !== 201) throw new PushError(PUSH_WORDS.failed(message(reply.body, `Collie answered ${reply.status}.`)));
  env.storage.setItem(ENDPOINT_KEY, json.endpoint);
  return "on";
}

/**
 * Registers this device's subscription with Collie again when push is on here (at app start): a
 * subscription belongs to the device that made it, and Collie drops any it cannot tie to a paired
 * device, so a phone that had push on keeps it. Never asks for permission; failures stay silent
 * (the Settings switch shows where the device stands).
 */
export async function renewPush(env: PushEnv): Promise<void> {
  if ((await pushState(env).catch(() => "unsupported" as const)) !== "on") return;
  await turnPushOn(env).catch(() => undefined);
}

/** Turns push off: unsubscribes in the browser and tells the daemon to forget this device. */
export async function turnPushOff(env: PushEnv): Promise<PushState> {
  const manager = await pushManager(env);
  const sub = manager ? await manager.getSubscription() : null;
  const endpoint = sub?.endpoint ?? env.storage.getItem(ENDPOINT_KEY);
  if (sub) await sub.unsubscribe().catch(() => false);
  env.storage.removeItem(ENDPOINT_KEY);
  if (endpoint) {
    const reply = await env.api.call("pushUnsubscribe", {}, { endpoint });
    if (reply.status !== 200) throw new PushError(PUSH_WORDS.offFailed(message(reply.body, `Collie answered ${reply.status}.`)));
  }
  return manager ? "off" : "unsupported";
}

/**
 * The browser's refusal to subscribe, in Collie's words (issue 21: no raw browser text): a
 * browser without a push service says so (Chromium: AbortError "Registration failed - push
 * service not available"); anything else is a plain refusal.
 */
export function browserRefusal(err: unknown): string {
  const name = (err as { name?: unknown } | null)?.name;
  const text = String((err as { message?: unknown } | null)?.message ?? "");
  if (name === "AbortError" || /push service/i.test(text)) return PUSH_WORDS.noService;
  return PUSH_WORDS.refused;
}
