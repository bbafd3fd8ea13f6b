/** Settings kept on the device (P-4). */
const ONLY_NEEDS_YOU = "collie.onlyNeedsYou";

export function readOnlyNeedsYou(storage: Pick<Storage, "getItem"> = localStorage): boolean {
  try {
    return storage.getItem(ONLY_NEEDS_YOU) === "1";
  } catch {
    return false;
  }
}

export function writeOnlyNeedsYou(on: boolean, storage: Pick<Storage, "setItem"> = localStorage): void {
  try {
    storage.setItem(ONLY_NEEDS_YOU, on ? "1" : "0");
  } catch {
    // private mode: the setting lasts for this page only
  }
}

/** Set by a successful pairing; cleared by an answer to the push offer (PushOffer.tsx). */
export const OFFER_KEY = "collie.offerPush";

export function markPushOffer(storage: Pick<Storage, "setItem"> | undefined = globalThis.localStorage): void {
  try {
    storage?.setItem(OFFER_KEY, "1");
  } catch {
    // private mode: no offer, Settings still has the switch
  }
}

/** Whether the dashboard still has the push offer to make: only then is its code loaded. */
export function pushOfferPending(storage: Pick<Storage, "getItem"> | undefined = globalThis.localStorage): boolean {
  try {
    return storage?.getItem(OFFER_KEY) === "1";
  } catch {
    return false;
  }
}
