/**
 * Sends one push to one subscription (U-4): `web-push` encrypts the payload (aes128gcm, RFC 8291)
 * and signs the VAPID JWT (RFC 8292) in `generateRequestDetails`; the request itself is a plain
 * `node:https` POST (`postPush`) that connects only where `lookup` allows (the address rule of
 * endpoints.ts, applied to the address connected to), follows no redirect and reads at most a few
 * KiB of the answer. A test push service on http://127.0.0.1 works the same as a real one.
 *
 * - 2xx: sent.
 * - 404 / 410: the subscription is gone (the phone unsubscribed or the browser dropped it);
 *   the caller removes it.
 * - a network failure, a timeout, 429 or 5xx: retried after each delay of `retryDelaysMs`
 *   (bounded; a 429's Retry-After is honoured up to the longest delay), then `failed`.
 * - an endpoint whose name resolves to an address that is not public now: `failed` at once,
 *   nothing connected.
 * - any other status (400 BadWebPushTopic, 403 BadJwtToken, 413, a redirect …): `failed` at once.
 * Log lines name the endpoint by origin and hash only, never its path or the keys.
 */
import { createRequire } from "node:module";
import type { PushPayload } from "@colliepwa/shared";
import { http } from "../net/http.ts";
import { EndpointRefused, type Lookup } from "./endpoints.ts";
import { endpointLabel, type StoredSubscription } from "./subscriptions.ts";
import type { VapidKeys } from "./vapid.ts";

export interface SendOptions {
  /** Seconds the push service keeps the message for an offline phone. */
  ttl: number;
  urgency: "very-low" | "low" | "normal" | "high";
  /** Replaces an undelivered message with the same topic (see payload.ts `safeTopic`). */
  topic?: string;
}

export interface SenderConfig {
  vapid: VapidKeys & { subject: string };
  /** Delays before each retry, in ms; the number of retries is its length. */
  retryDelaysMs?: readonly number[];
  /** Per attempt. */
  timeoutMs?: number;
  /** The POST itself (tests replace it); `postPush` by default. */
  post?: PushPost;
  /** Where the connection may go (endpoints.ts `guardedLookup`); the system's lookup when absent. */
  lookup?: Lookup | null;
  sleep?: (ms: number) => Promise<void>;
  log?: (line: string) => void;
}

/** What Collie reads of a push service's answer. */
export interface PushAnswer {
  status: number;
  retryAfter: string | null;
  /** The start of the body (a reason such as `{"reason":"BadJwtToken"}`). */
  body: string;
}

export type PushPost = (endpoint: string, init: { headers: Record<string, string>; body: Buffer | undefined; timeoutMs: number; lookup: Lookup | null }) => Promise<PushAnswer>;

/** How much of a push service's answer is read: its reason, never a page. */
const ANSWER_BYTES = 4096;

/**
 * One POST to a push endpoint over `node:https` (`node:http` for a test service), on a fresh
 * connection (no pool: every connection passes `lookup`). Rejects on a network failure, on the
 * lookup's refusal (EndpointRefused) and after `timeoutMs` (an Error named TimeoutError).
 */
export const postPush: PushPost = (endpoint, init) =>
  new Promise((resolve, reject) => {
    const url = new URL(endpoint);
    const transport = url.protocol === "https:" ? https() : http;
    const headers = { ...init.headers, "content-length": String(init.body?.length ?? 0) };
    const req = transport.request(url, { method: "POST", headers, agent: false, ...(init.lookup ? { lookup: init.lookup } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        if (size >= ANSWER_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
      });
      res.once("end", () => {
        clearTimeout(timer);
        const retryAfter = res.headers["retry-after"];
        resolve({ status: res.statusCode ?? 0, retryAfter: typeof retryAfter === "string" ? retryAfter : null, body: Buffer.concat(chunks).subarray(0, ANSWER_BYTES).toString("utf8") });
      });
      res.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error("timed out"), { name: "TimeoutError" })), init.timeoutMs);
    req.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(init.body);
  });

/** `node:https`, loaded on the first push only (as web-push is, below). */
let httpsModule: typeof import("node:https") | null = null;
function https(): typeof import("node:https") {
  httpsModule ??= createRequire(import.meta.url)("node:https") as typeof import("node:https");
  return httpsModule;
}

export type SendResult =
  | { outcome: "sent"; status: number; attempts: number }
  | { outcome: "gone"; status: number; attempts: number }
  | { outcome: "failed"; status: number | null; reason: string; attempts: number };

export const RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000];
const TIMEOUT_MS = 10_000;

/** The subject Collie signs with when COLLIE_PUSH_SUBJECT is not set. Apple refuses `@localhost`. */
export const DEFAULT_SUBJECT = "mailto:collie-push@example.com";

const retriable = (status: number) => status === 429 || status >= 500;

export async function sendPush(sub: StoredSubscription, payload: PushPayload, opts: SendOptions, config: SenderConfig): Promise<SendResult> {
  const delays = config.retryDelaysMs ?? RETRY_DELAYS_MS;
  const post = config.post ?? postPush;
  const sleep = config.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const label = endpointLabel(sub.endpoint);
  // Loaded on the first push, not at start: web-push and what it pulls in are about 15 MB of a
  // daemon's memory that a Collie without subscriptions never needs (issue: memory).
  const { default: webpush } = await import("web-push");
  const details = webpush.generateRequestDetails(sub, JSON.stringify(payload), {
    vapidDetails: config.vapid,
    TTL: opts.ttl,
    urgency: opts.urgency,
    contentEncoding: "aes128gcm",
    ...(opts.topic ? { topic: opts.topic } : {}),
  });
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(details.headers)) headers[k] = String(v);
  let last: SendResult = { outcome: "failed", status: null, reason: "not sent", attempts: 0 };
  for (let attempt = 1; attempt <= delays.length + 1; attempt++) {
    let wait = delays[attempt - 1] ?? 0;
    try {
      const res = await post(details.endpoint, { headers, body: details.body ?? undefined, timeoutMs: config.timeoutMs ?? TIMEOUT_MS, lookup: config.lookup ?? null });
      if (res.status >= 200 && res.status < 300) return { outcome: "sent", status: res.status, attempts: attempt };
      if (res.status === 404 || res.status === 410) {
        config.log?.(`push: ${label} is gone (${res.status}); its subscription is removed`);
        return { outcome: "gone", status: res.status, attempts: attempt };
      }
      const reason = `${res.status} ${shortReason(res.body, sub.endpoint)}`.trim();
      last = { outcome: "failed", status: res.status, reason, attempts: attempt };
      if (!retriable(res.status)) break;
      const after = Number(res.retryAfter);
      if (res.status === 429 && Number.isFinite(after) && after > 0) wait = Math.min(after * 1000, Math.max(0, ...delays));
    } catch (err) {
      const e = err as Error;
      const why = e.name === "TimeoutError" ? "timed out" : e instanceof EndpointRefused ? `refused: ${e.message}` : `network: ${(e.cause as Error | undefined)?.message ?? e.message}`;
      last = { outcome: "failed", status: null, reason: scrub(why, sub.endpoint), attempts: attempt };
      // The address rule does not change its mind in a second: nothing is connected, nothing retried.
      if (e instanceof EndpointRefused) break;
    }
    if (attempt <= delays.length) await sleep(wait);
  }
  if (last.outcome === "failed") config.log?.(`push: ${label} failed after ${last.attempts} attempt(s): ${last.reason}`);
  return last;
}

/** The push service's reason (Apple: `{"reason":"BadJwtToken"}`), short, without the endpoint. */
function shortReason(body: string, endpoint: string): string {
  let text = body;
  try {
    const j = JSON.parse(body) as { reason?: unknown; message?: unknown; error?: unknown };
    const r = j.reason ?? j.message ?? j.error;
    if (typeof r === "string") text = r;
  } catch {
    // plain text
  }
  return scrub(text, endpoint);
}

/** One short line without the endpoint's secret path. */
function scrub(text: string, endpoint: string): string {
  let out = text.split(endpoint).join("<endpoint>");
  try {
    const path = new URL(endpoint).pathname;
    if (path.length > 1) out = out.split(path).join("/…");
  } catch {
    // not a URL
  }
  return out.replace(/\s+/g, " ").slice(0, 120);
}
