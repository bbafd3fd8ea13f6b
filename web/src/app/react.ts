/** React's view of the phone: one context and hooks over the plain classes. */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { RepeatUntilSure, type PhoneActions } from "./actions.ts";
import type { Phone } from "./phone.ts";
import { Reader } from "./reads.ts";
import type { PhoneState } from "./store.ts";

export const PhoneContext = createContext<Phone | null>(null);

export function usePhone(): Phone {
  const phone = useContext(PhoneContext);
  if (!phone) throw new Error("usePhone outside <PhoneContext.Provider>");
  return phone;
}

export function usePhoneState(): PhoneState {
  const phone = usePhone();
  return useSyncExternalStore(phone.store.subscribe, phone.store.getState);
}

/** The action layer (actions.ts); re-renders when what it knows changes (pending actions, results). */
export function useActions(): PhoneActions {
  const phone = usePhone();
  // One subscribe per phone: a new function each render would make React unsubscribe and subscribe again.
  const subscribe = useCallback((fn: () => void) => phone.actions.subscribe(fn), [phone]);
  useSyncExternalStore(subscribe, () => phone.actions.version);
  return phone.actions;
}

/** A control whose next tap sends an unsure tap again with its request id (actions.ts). */
export function useRepeatUntilSure(): RepeatUntilSure {
  const phone = usePhone();
  const [repeat] = useState(() => new RepeatUntilSure(phone.actions));
  return repeat;
}

/**
 * The read layer for one component (reads.ts): its reads, a fresh one replacing the ones before,
 * all dropped when it unmounts, so a stale answer never reaches it.
 */
export function useRead(): Reader {
  const phone = usePhone();
  const reader = useMemo(() => new Reader(phone.api), [phone]);
  useEffect(() => () => reader.drop(), [reader]);
  return reader;
}
