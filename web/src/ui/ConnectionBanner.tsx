/**
 * One banner while Collie cannot be reached (issue 37, item 5); what is drawn stays drawn (P-26).
 * It says which end is away: this phone (the browser is offline) or Collie. When what is drawn is
 * the phone's own saved copy (an offline start, app/view-cache.ts), it says that too, with the
 * time it was saved: it may not be current. While it shows, no other note about being away does
 * (ui/AgentAway.tsx): what Collie last said about an agent is not news while Collie is not heard.
 */
import { useRef, useSyncExternalStore } from "react";
import { usePhoneState } from "../app/react.ts";
import { shortTime } from "../app/rules.ts";
import type { PhoneState } from "../app/store.ts";
import { WORDS } from "@colliepwa/shared/strings";

export const BANNER_WORDS = WORDS.banner;

/**
 * Whether the connection banner shows: this phone is offline (a socket may stay open for minutes
 * after the network went, so the browser's word counts at once), Collie is not heard now, or what
 * is drawn is a saved copy.
 */
export function connectionBannerShown(state: Pick<PhoneState, "status" | "loaded" | "cachedAt">, online: boolean, wasOffline = false): boolean {
  return !online || state.cachedAt !== null || !(state.status === "online" || (!state.loaded && state.status === "connecting" && !wasOffline));
}

/** The browser's own word on its network: `navigator.onLine`, followed through its events. */
function subscribeNetwork(changed: () => void): () => void {
  window.addEventListener("online", changed);
  window.addEventListener("offline", changed);
  return () => {
    window.removeEventListener("online", changed);
    window.removeEventListener("offline", changed);
  };
}
const phoneOnline = (): boolean => typeof navigator === "undefined" || navigator.onLine !== false;

/** Whether this phone's network is up, as the browser says. */
export const usePhoneOnline = (): boolean => useSyncExternalStore(subscribeNetwork, phoneOnline, () => true);

export function ConnectionBanner() {
  const state = usePhoneState();
  const online = usePhoneOnline();
  // Once Collie could not be reached, the banner stays through every reconnect attempt until it is
  // back: shown and hidden at each attempt, it pushed the page down and up again (issue 32: a
  // layout shift of 0.14 on opening a chat whose live connection failed).
  const wasOffline = useRef(false);
  if (state.status === "offline") wasOffline.current = true;
  if (state.status === "online") wasOffline.current = false;
  if (!connectionBannerShown(state, online, wasOffline.current)) return null;
  const { status, cachedAt } = state;
  const saved = cachedAt !== null ? BANNER_WORDS.saved(shortTime(new Date(cachedAt).toISOString(), Date.now())) : null;
  const away = !online ? BANNER_WORDS.phoneOffline : status === "offline" ? BANNER_WORDS.offline : status === "online" ? "" : BANNER_WORDS.reconnecting;
  return (
    <div className="banner banner-offline" role="status" aria-live="polite" data-saved-view={saved ? "" : undefined} data-away={!online ? "phone" : status === "online" ? undefined : "collie"}>
      {away}
      {saved && <span className="banner-saved">{away ? " " : ""}{saved}</span>}
    </div>
  );
}
