/**
 * The line under an ask's title while it has an expiry (P-9, P-16): `Expires in 4 min` (minutes,
 * rounded up) while a minute or more is left, `Expires in 40 s` below a minute, then `Expired`.
 * Pure: the clock is passed in. Also says when the words change next, so the card re-renders each
 * second only in the last minute, else about every 15 s.
 */
import { STRINGS } from "@colliepwa/shared";

/** How often the card looks at the clock while more than a minute is left. */
export const SLOW_TICK_MS = 15_000;
/** ... and in the last minute. */
export const FAST_TICK_MS = 1_000;

export interface Countdown {
  text: string;
  /** True once the expiry passed. The buttons stay: the agent answers a late tap itself. */
  expired: boolean;
  /** When to look again (ms from now); null once expired. */
  nextTickMs: number | null;
}

/** The countdown for an ask expiring at `expiresAt` (ISO time or ms), read at `now` (ms). */
export function countdown(expiresAt: string | number, now: number): Countdown {
  const end = typeof expiresAt === "number" ? expiresAt : Date.parse(expiresAt);
  if (!Number.isFinite(end)) return { text: STRINGS.expired, expired: true, nextTickMs: null };
  const left = end - now;
  const secs = Math.ceil(left / 1000);
  if (secs <= 0) return { text: STRINGS.expired, expired: true, nextTickMs: null };
  if (secs < 60) return { text: STRINGS.expiresInSec(secs), expired: false, nextTickMs: FAST_TICK_MS };
  // Look again at the latest when the last minute starts, so seconds begin on time.
  const toLastMinute = left - 59_000;
  return { text: STRINGS.expiresInMin(Math.ceil(secs / 60)), expired: false, nextTickMs: Math.max(FAST_TICK_MS, Math.min(SLOW_TICK_MS, toLastMinute)) };
}
