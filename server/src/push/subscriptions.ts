/**
 * The phones' push subscriptions (U-4), kept in the state database. An endpoint is a capability
 * URL (whoever knows it can push to that phone), so it never appears in logs: `endpointLabel`
 * names it by origin and a short hash.
 */
import { createHash } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import type { PushSubscriptionJson } from "@colliepwa/shared";
import { checkEndpointUrl, type EndpointPolicy, SubscriptionError } from "./endpoints.ts";

export { SubscriptionError };

export interface StoredSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/**
 * At most this many subscriptions per paired device (the security issue, item 5): a browser has
 * one, and a few more cover an endpoint that changed without the phone naming the old one. A new
 * one beyond it replaces that device's own subscription unused the longest, never another's.
 */
export const MAX_SUBSCRIPTIONS_PER_DEVICE = 4;
/** At most this many in all; a new subscription past it is refused (another device's is never evicted). */
export const MAX_SUBSCRIPTIONS = 64;

/**
 * Checks the shape of a subscription from the phone: an endpoint the URL rules take
 * (`endpoints.ts`: https, port 443, a public name), a 65-byte P-256 key and a 16-byte auth secret.
 * Throws SubscriptionError with a message for the phone. The address rule (where the name
 * resolves) is asynchronous and checked by the caller (`PushService.register`).
 */
export function checkSubscription(sub: PushSubscriptionJson, policy: EndpointPolicy): StoredSubscription {
  checkEndpointUrl(sub.endpoint, policy);
  const p256dh = Buffer.from(sub.keys.p256dh, "base64url");
  if (p256dh.length !== 65 || p256dh[0] !== 0x04) throw new SubscriptionError("keys.p256dh is not a P-256 public key.");
  if (Buffer.from(sub.keys.auth, "base64url").length !== 16) throw new SubscriptionError("keys.auth is not a 16-byte secret.");
  // Kept as the browser wrote it: the phone names it the same way when it opts out.
  return { endpoint: sub.endpoint, keys: { p256dh: sub.keys.p256dh, auth: sub.keys.auth } };
}

/** How logs name an endpoint: its origin and a short hash, never its secret path. */
export function endpointLabel(endpoint: string): string {
  let origin = "?";
  try {
    origin = new URL(endpoint).origin;
  } catch {
    // not a URL: the hash alone
  }
  return `${origin} #${createHash("sha256").update(endpoint).digest("hex").slice(0, 8)}`;
}

export class Subscriptions {
  readonly #db: DatabaseSync;
  readonly #now: () => number;

  constructor(db: DatabaseSync, now: () => number = Date.now) {
    this.#db = db;
    this.#now = now;
  }

  /**
   * Adds or refreshes a subscription of the paired `device` that made it (revoking the device
   * removes it); `replaces` (the endpoint this device used before) is dropped, if it is this
   * device's. A subscription belongs to the device that made it: another device cannot take it
   * over, except the same browser paired again (the same endpoint with the same keys, which only
   * that browser holds). Returns whether the endpoint was new, whether a replaced one was dropped
   * and how many of this device's own were let go for its cap. Throws SubscriptionError.
   */
  upsert(sub: StoredSubscription, opts: { device: string; replaces?: string | undefined }): { created: boolean; replaced: boolean; evicted: number } {
    const { device, replaces } = opts;
    const now = this.#now();
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const existing = this.#db.prepare("SELECT device_id, p256dh, auth FROM push_subscriptions WHERE endpoint = ?").get(sub.endpoint) as
        | { device_id: string | null; p256dh: string; auth: string }
        | undefined;
      if (existing && existing.device_id !== device && existing.device_id !== null && (existing.p256dh !== sub.keys.p256dh || existing.auth !== sub.keys.auth)) {
        throw new SubscriptionError("This push endpoint is another paired device's subscription.");
      }
      let replaced = false;
      if (replaces !== undefined && replaces !== sub.endpoint) {
        replaced = Number(this.#db.prepare("DELETE FROM push_subscriptions WHERE endpoint = ? AND device_id = ?").run(replaces, device).changes) > 0;
      }
      this.#db.prepare(
        `INSERT INTO push_subscriptions (endpoint, p256dh, auth, created_at, updated_at, device_id) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth, updated_at = excluded.updated_at,
           device_id = excluded.device_id, failures = 0, last_error = NULL`,
      ).run(sub.endpoint, sub.keys.p256dh, sub.keys.auth, now, now, device);
      // Bound one device's share of the fan-out: its own subscriptions unused the longest go first.
      const evicted = Number(this.#db.prepare(
        `DELETE FROM push_subscriptions WHERE endpoint IN (
           SELECT endpoint FROM push_subscriptions WHERE device_id = ? ORDER BY updated_at DESC, created_at DESC LIMIT -1 OFFSET ?)`,
      ).run(device, MAX_SUBSCRIPTIONS_PER_DEVICE).changes);
      const total = (this.#db.prepare("SELECT count(*) AS n FROM push_subscriptions").get() as { n: number }).n;
      if (!existing && total > MAX_SUBSCRIPTIONS) {
        throw new SubscriptionError(`This Collie keeps at most ${MAX_SUBSCRIPTIONS} push subscriptions. Revoke a device you no longer use (collie devices).`);
      }
      this.#db.exec("COMMIT");
      return { created: !existing, replaced, evicted };
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  /**
   * Removes a subscription: with `device`, only when it is that device's (the phone turning push
   * off); without, whatever its device (the push service said it is gone).
   */
  remove(endpoint: string, opts: { device?: string } = {}): boolean {
    const r = opts.device === undefined
      ? this.#db.prepare("DELETE FROM push_subscriptions WHERE endpoint = ?").run(endpoint)
      : this.#db.prepare("DELETE FROM push_subscriptions WHERE endpoint = ? AND device_id = ?").run(endpoint, opts.device);
    return Number(r.changes) > 0;
  }

  /** The subscriptions a push goes to: only those of a device that is paired now. */
  all(): StoredSubscription[] {
    const rows = this.#db.prepare(
      "SELECT s.endpoint, s.p256dh, s.auth FROM push_subscriptions s JOIN devices d ON d.id = s.device_id ORDER BY s.created_at",
    ).all() as { endpoint: string; p256dh: string; auth: string }[];
    return rows.map((r) => ({ endpoint: r.endpoint, keys: { p256dh: r.p256dh, auth: r.auth } }));
  }

  get size(): number {
    return (this.#db.prepare("SELECT count(*) AS n FROM push_subscriptions s JOIN devices d ON d.id = s.device_id").get() as { n: number }).n;
  }

  /** A delivery went through: the failure count starts over. */
  delivered(endpoint: string): void {
    this.#db.prepare("UPDATE push_subscriptions SET failures = 0, last_error = NULL, updated_at = ? WHERE endpoint = ?").run(this.#now(), endpoint);
  }

  /** A delivery failed (not 404/410): counted, with a short reason without secrets. */
  failed(endpoint: string, reason: string): void {
    this.#db.prepare("UPDATE push_subscriptions SET failures = failures + 1, last_error = ? WHERE endpoint = ?").run(reason.slice(0, 200), endpoint);
  }

  /** The failure count and last reason of one subscription (tests, diagnostics). */
  health(endpoint: string): { failures: number; lastError: string | null } | undefined {
    const r = this.#db.prepare("SELECT failures, last_error FROM push_subscriptions WHERE endpoint = ?").get(endpoint) as { failures: number; last_error: string | null } | undefined;
    return r ? { failures: r.failures, lastError: r.last_error } : undefined;
  }
}
