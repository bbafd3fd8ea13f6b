/**
 * Landing from a notification (P-27): the service worker tells an open Collie window where a tap
 * goes (`{type: "collie-open", url}`), and the app goes there without a reload; a new window opens
 * at that address directly. The address names the card (`#/agent/<a>/pane/<p>/ask/<id>`): once
 * the chat draws it, it is scrolled into view.
 */
import { parseHashRoute } from "@colliepwa/shared";

/** The ask id named by a hash route, if any (`…/pane/<p>/ask/<id>`). */
export function askIdFromHash(hash: string): string | null {
  const route = parseHashRoute(hash);
  return route.name === "chat" ? route.ask ?? null : null;
}

/** Goes to a same-origin app address from the service worker (only its hash: no reload). */
export function openInApp(url: string, loc: Pick<Location, "origin" | "hash"> = location): boolean {
  let u: URL;
  try {
    u = new URL(url, loc.origin);
  } catch {
    return false;
  }
  if (u.origin !== loc.origin) return false;
  loc.hash = u.hash || "#/";
  return true;
}

const REVEAL_WAIT_MS = 10_000;
let stopWaiting: (() => void) | null = null;

/** Scrolls the card the address names into view once it is drawn (waits up to 10 s for it). */
export function revealCard(doc: Document = document, hash: string = location.hash): void {
  stopWaiting?.();
  const id = askIdFromHash(hash);
  if (!id) return;
  const selector = `[data-ask-id="${id.replace(/["\\]/g, "\\$&")}"]`; // a quoted attribute value
  const show = (): boolean => {
    const card = doc.querySelector<HTMLElement>(selector);
    if (!card) return false;
    card.scrollIntoView({ block: "center" });
    return true;
  };
  if (show()) return;
  const observer = new MutationObserver(() => {
    if (show()) stop();
  });
  const timer = setTimeout(() => stop(), REVEAL_WAIT_MS);
  const stop = () => {
    observer.disconnect();
    clearTimeout(timer);
    stopWaiting = null;
  };
  stopWaiting = stop;
  observer.observe(doc.body, { childList: true, subtree: true });
}

/** Listens for the service worker's `collie-open` and reveals the card the address names. */
export function listenForNotificationOpens(): void {
  if (typeof window === "undefined") return;
  navigator.serviceWorker?.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as { type?: unknown; url?: unknown } | null;
    if (data && data.type === "collie-open" && typeof data.url === "string") openInApp(data.url);
  });
  window.addEventListener("hashchange", () => revealCard());
  revealCard();
}
