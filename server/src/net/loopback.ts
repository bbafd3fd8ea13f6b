/**
 * This machine, as the daemon names it in its rules (one module, so the rules cannot drift):
 *
 * - `PLAIN_HTTP_HOSTS`: the hosts an agent's URL may use plain http for (D-1), which are also the
 *   only URLs that count as `local` (D-3): `127.0.0.1` and `localhost`, exactly as the
 *   specification names them (`[::1]` and https to this machine are `remote`).
 * - `isLoopbackHostName`: a Host header or URL host naming this machine by a loopback name
 *   (`127.0.0.1`, `localhost`, `[::1]`): the gate asks these to name Collie's own port.
 * - `isLoopbackHost`: any loopback host, the whole 127.0.0.0/8 and `*.localhost` included (a link
 *   there opens only on this machine, so `collie pair` says how a phone gets in).
 * - `isLoopbackAddress`: a peer address of this machine (127.0.0.0/8, ::1, IPv4-mapped): behind a
 *   front door every client arrives from one of these.
 */
export const PLAIN_HTTP_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost"]);

const LOOPBACK_HOST_NAMES: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "[::1]"]);

export function isLoopbackHostName(name: string): boolean {
  return LOOPBACK_HOST_NAMES.has(name.toLowerCase());
}

const V4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "[::1]" || h === "::1" || V4_LOOPBACK.test(h);
}

export function isLoopbackAddress(ip: string): boolean {
  const v4 = ip.startsWith("::ffff:") ? ip.slice(7) : ip;
  return V4_LOOPBACK.test(v4) || ip === "::1";
}
