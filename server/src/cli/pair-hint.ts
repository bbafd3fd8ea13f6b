/**
 * `collie pair` on a loopback origin: Collie listens on 127.0.0.1, which a phone cannot
 * open, so a link there works only in a browser on this machine. One line says how a phone gets in.
 */
import { isLoopbackHost } from "../net/loopback.ts";

/** True when the origin's host is this machine's loopback (127.0.0.0/8, localhost, ::1). */
export function isLoopbackOrigin(origin: string): boolean {
  let host: string;
  try {
    host = new URL(origin).hostname;
  } catch {
    return false;
  }
  return isLoopbackHost(host);
}

/** The line `collie pair` adds under a loopback link, or null for any other origin. */
export function phoneHint(origin: string): string | null {
  if (!isLoopbackOrigin(origin)) return null;
  return `This link opens only on this machine. To pair a phone, reach Collie through a front door (a tailnet or a TLS proxy, docs/deployment.md) and run: collie pair --url https://<front door>`;
}
