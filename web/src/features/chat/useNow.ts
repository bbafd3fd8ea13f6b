/**
 * Re-renders now and then so time-based rules move on by themselves: a line the agent never
 * wrote back is hidden after 10 minutes (P-20), times roll over to dates. The clock is the phone's
 * (`phone.now`), injected, so tests control it.
 */
import { useEffect, useState } from "react";

export const TICK_MS = 10_000;

export function useNow(now: () => number, everyMs = TICK_MS): number {
  const [t, setT] = useState(now);
  useEffect(() => {
    const id = setInterval(() => setT(now()), everyMs);
    return () => clearInterval(id);
  }, [now, everyMs]);
  return t;
}
