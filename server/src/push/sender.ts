/**
 * Sends one push to one subscription (U-4): `web-push` encrypts the payload (aes128gcm, RFC 8291)
 * and signs the VAPID JWT (RFC 8292) in `generateRequestDetails`; the request itself is a plain
 * `fetch`, so a test push service on http://127.0.0.1 works the same as a real one.
 *
 * - 2xx: sent.
 * - 404 / 410: the subscription is gone (the phone unsubscribed or the browser dropped it);
 *   the caller removes it.
 * - a network failure, a timeout, 429 or 5xx: retried after each delay of `retryDelaysMs`
 *   (bounded; a 429's Retry-After is honoured up to the longest delay), then `failed`.
 * - any other status (400 BadWebPushTopic, 403 BadJwtToken, 413 …): `failed` at once.
 * Log lines name the endpoint by origin and hash only, never its path or the keys.
 */
import type { PushPayload } from "@colliepwa/shared";
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
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  log?: (line: string) => void;
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
  const doFetch = config.fetch ?? fetch;
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
      const res = await doFetch(details.endpoint, {
        method: "POST",
        headers,
        body: details.body ?? undefined,
        signal: AbortSignal.timeout(config.timeoutMs ?? TIMEOUT_MS),
        redirect: "error",
      });
      const text = await res.text().catch(() => "");
      if (res.status >= 200 && res.status < 300) return { outcome: "sent", status: res.status, attempts: attempt };
      if (res.status === 404 || res.status === 410) {
        config.log?.(`push: ${label} is gone (${res.status}); its subscription is removed`);
        return { outcome: "gone", status: res.status, attempts: attempt };
      }
      const reason = `${res.status} ${shortReason(text, sub.endpoint)}`.trim();
      last = { outcome: "failed", status: res.status, reason, attempts: attempt };
      if (!retriable(res.status)) break;
      const after = Number(res.headers.get("retry-after"));
      if (res.status === 429 && Number.isFinite(after) && after > 0) wait = Math.min(after * 1000, Math.max(0, ...delays));
    } catch (err) {
      const e = err as Error;
      const why = e.name === "TimeoutError" ? "timed out" : `network: ${(e.cause as Error | undefined)?.message ?? e.message}`;
      last = { outcome: "failed", status: null, reason: scrub(why, sub.endpoint), attempts: attempt };
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
