/**
 * Registers the service worker (P-26) and notices a new version waiting to take over, so the
 * update banner can offer `Reload`. Reloading loses nothing: unsent answers and sends live in the
 * outbox (idb-keyval) and go out again with the same request ids after the reload.
 */
import { listenForNotificationOpens } from "./landing.ts";

type Listener = () => void;

let waiting: ServiceWorker | null = null;
const listeners = new Set<Listener>();

/** The new worker waiting to take over, or null. */
export function waitingWorker(): ServiceWorker | null {
  return waiting;
}

export function subscribeUpdate(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Says a new worker is installed and waiting (exported for tests). */
export function announceUpdate(worker: ServiceWorker | null): void {
  if (worker === waiting) return;
  waiting = worker;
  for (const l of listeners) l();
}

/** Lets the waiting worker take over, and reloads once it controls the page. */
export function applyUpdate(): void {
  const worker = waiting;
  const sw = typeof navigator !== "undefined" ? navigator.serviceWorker : undefined;
  if (!worker || !sw) {
    location.reload();
    return;
  }
  let reloading = false;
  sw.addEventListener("controllerchange", () => {
    if (reloading) return;
    reloading = true;
    location.reload();
  });
  worker.postMessage({ type: "SKIP_WAITING" });
}

/** How often a visible app asks the server whether /sw.js changed (the browser also checks on navigation). */
const UPDATE_CHECK_MS = 30 * 60 * 1000;

export function registerServiceWorker(): void {
  listenForNotificationOpens(); // a tap on a push opens the card (P-27)
  if (import.meta.env.DEV) return; // Vite's dev server serves no /sw.js
  if (typeof navigator === "undefined" || !("serviceWorker" in navigator) || !navigator.serviceWorker) return;
  const start = () => {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(watch, (err: unknown) => {
      console.warn("collie: the service worker was not registered", err);
    });
  };
  if (document.readyState === "complete") start();
  else window.addEventListener("load", start, { once: true });
}

function watch(reg: ServiceWorkerRegistration): void {
  const sw = navigator.serviceWorker;
  // Only an update needs a reload; the first worker simply starts working.
  const isUpdate = () => sw.controller !== null;
  if (reg.waiting && isUpdate()) announceUpdate(reg.waiting);
  reg.addEventListener("updatefound", () => {
    const worker = reg.installing;
    if (!worker) return;
    worker.addEventListener("statechange", () => {
      if (worker.state === "installed" && isUpdate()) announceUpdate(worker);
    });
  });
  // A long-lived home-screen app rarely navigates: look for a new version when it comes back.
  let lastCheck = Date.now();
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible" || Date.now() - lastCheck < UPDATE_CHECK_MS) return;
    lastCheck = Date.now();
    reg.update().catch(() => undefined);
  });
}
