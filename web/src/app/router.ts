/** Hash routes: the app works from any static origin and survives reloads on any screen. */
import { useSyncExternalStore } from "react";
import { hashOf, parseHashRoute, type PhoneRoute } from "@colliepwa/shared";

/** A screen of the app: the shared table of the phone's addresses (shared/src/hash-routes.ts). */
export type Route = PhoneRoute;

export const parseRoute: (hash: string) => Route = parseHashRoute;

export function href(route: Route): string {
  return hashOf(route);
}

export function go(route: Route): void {
  location.hash = href(route);
}

const subscribe = (fn: () => void) => {
  window.addEventListener("hashchange", fn);
  return () => window.removeEventListener("hashchange", fn);
};

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => location.hash);
  return parseRoute(hash);
}
