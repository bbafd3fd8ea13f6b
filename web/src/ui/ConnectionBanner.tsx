/**
 * Says so while Collie cannot be reached; what is drawn stays drawn (P-26). When what is drawn is
 * the phone's own saved copy (an offline start, app/view-cache.ts), it says that too, with the
 * time it was saved: it may not be current.
 */
import { useRef } from "react";
import { usePhoneState } from "../app/react.ts";
import { shortTime } from "../app/rules.ts";
import { WORDS } from "@colliepwa/shared/strings";

export const BANNER_WORDS = WORDS.banner;

export function ConnectionBanner() {
  const { status, loaded, cachedAt } = usePhoneState();
  // Once Collie could not be reached, the banner stays through every reconnect attempt until it is
  // back: shown and hidden at each attempt, it pushed the page down and up again (issue 32: a
  // layout shift of 0.14 on opening a chat whose live connection failed).
  const wasOffline = useRef(false);
  if (status === "offline") wasOffline.current = true;
  if (status === "online") wasOffline.current = false;
  const saved = cachedAt !== null ? BANNER_WORDS.saved(shortTime(new Date(cachedAt).toISOString(), Date.now())) : null;
  if (!saved && (status === "online" || (!loaded && status === "connecting" && !wasOffline.current))) return null;
  return (
    <div className="banner banner-offline" role="status" aria-live="polite" data-saved-view={saved ? "" : undefined}>
      {status === "offline" ? BANNER_WORDS.offline : status === "online" ? "" : BANNER_WORDS.reconnecting}
      {saved && <span className="banner-saved"> {saved}</span>}
    </div>
  );
}
