/**
 * Says so while Collie cannot be reached; what is drawn stays drawn (P-26). When what is drawn is
 * the phone's own saved copy (an offline start, app/view-cache.ts), it says that too, with the
 * time it was saved: it may not be current.
 */
import { usePhoneState } from "../app/react.ts";
import { shortTime } from "../app/rules.ts";
import { WORDS } from "@colliepwa/shared/strings";

export const BANNER_WORDS = WORDS.banner;

export function ConnectionBanner() {
  const { status, loaded, cachedAt } = usePhoneState();
  const saved = cachedAt !== null ? BANNER_WORDS.saved(shortTime(new Date(cachedAt).toISOString(), Date.now())) : null;
  if (!saved && (status === "online" || (!loaded && status === "connecting"))) return null;
  return (
    <div className="banner banner-offline" role="status" aria-live="polite" data-saved-view={saved ? "" : undefined}>
      {status === "offline" ? BANNER_WORDS.offline : status === "online" ? "" : BANNER_WORDS.reconnecting}
      {saved && <span className="banner-saved"> {saved}</span>}
    </div>
  );
}
