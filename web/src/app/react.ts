/** React's view of the phone: one context and hooks over the plain classes. */
import { createContext, useContext, useSyncExternalStore } from "react";
import type { Phone } from "./phone.ts";
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

/** Re-renders when the outbox changes (pending actions, results). */
export function useOutbox(): Phone["outbox"] {
  const phone = usePhone();
  useSyncExternalStore(
    (fn) => phone.outbox.subscribe(fn),
    () => phone.outbox.version,
  );
  return phone.outbox;
}
