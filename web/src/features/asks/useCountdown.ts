/**
 * Keeps an ask's countdown current (P-9): re-renders when its words may change — each second in
 * the last minute, about every 15 s before, never after `Expired`. The clock is injected.
 */
import { useEffect, useState } from "react";
import { countdown, type Countdown } from "./countdown.ts";

export function useCountdown(expiresAt: string | undefined, now: () => number): Countdown | null {
  const [, setTick] = useState(0);
  const c = expiresAt === undefined ? null : countdown(expiresAt, now());
  const next = c?.nextTickMs ?? null;
  useEffect(() => {
    if (next === null) return;
    const id = setTimeout(() => setTick((t) => t + 1), next);
    return () => clearTimeout(id);
  });
  return c;
}
