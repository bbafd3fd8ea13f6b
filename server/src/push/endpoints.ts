/**
 * Where Collie may send a push (the security issue, item 4): a push endpoint is a URL a paired
 * device hands Collie, and Collie connects to it on every ask. Left open, that is a blind SSRF: a
 * device could make Collie knock on `https://127.0.0.1:22/`, a router, or a cloud metadata service
 * (169.254.169.254). Real push services (FCM, Mozilla autopush, Apple, Windows) are public https
 * names on port 443, so that is all Collie accepts:
 *
 * - `https:` on port 443, with a host name: no IP literal, no credentials;
 * - a public name: a dotted name outside the special-use and local domains (`localhost`,
 *   `*.local`, `*.internal`, `*.home.arpa` …);
 * - that resolves only to public addresses (`net/public-address.ts`): checked when the device
 *   registers it, and again when Collie connects, on the very address it connects to
 *   (`guardedLookup`), so a name that answers a public address first and a private one later (DNS
 *   rebinding) is refused at the connect.
 *
 * A refusal is a `SubscriptionError` whose message names the rule (the phone shows it, 400).
 * Two exceptions, never set by default: `allowLocal` (tests with a local push service over http)
 * and `allowedOrigins` (COLLIE_PUSH_ALLOW_ORIGINS: exact https origins of a push service the owner
 * runs on a local network, or the journeys' own).
 */
import { lookup as dnsLookup } from "node:dns";
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from "node:dns";
import { isIP } from "node:net";
import { ADDRESS_WORDS, addressKind } from "../net/public-address.ts";

/** A subscription Collie does not take; its message is for the phone (400 bad-request). */
export class SubscriptionError extends Error {
  override name = "SubscriptionError";
}

/** Resolves a host name to its addresses (injected in tests: they never need the internet). */
export type Resolve = (host: string) => Promise<readonly { address: string; family: number }[]>;

/** The system resolver, as a connection would use it. */
export const systemResolve: Resolve = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

export interface EndpointPolicy {
  /** Tests only: http or https, any host and port, no address check (a local test push service). */
  allowLocal: boolean;
  /** Exact origins (`https://push.lan:8443`) exempt from the port, name and address rules; https only. */
  allowedOrigins: ReadonlySet<string>;
  resolve: Resolve;
}

/** The policy that makes none of the exceptions. */
export function publicOnly(resolve: Resolve = systemResolve): EndpointPolicy {
  return { allowLocal: false, allowedOrigins: new Set(), resolve };
}

/** The origins in COLLIE_PUSH_ALLOW_ORIGINS (comma-separated), normalised; an entry that is not an https origin is left out. */
export function allowedOriginsFrom(value: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const raw of (value ?? "").split(",")) {
    try {
      const url = new URL(raw.trim());
      if (url.protocol === "https:") out.add(url.origin);
    } catch {
      // not a URL: ignored
    }
  }
  return out;
}

/**
 * Domains that never name a public host: special-use names (RFC 6761, 6762, 8375, 9476) and the
 * suffixes local networks and clouds use for themselves (`metadata.google.internal`).
 */
const LOCAL_SUFFIXES = [
  "localhost", "local", "localdomain", "internal", "intranet", "lan", "home", "corp", "private",
  "home.arpa", "arpa", "test", "invalid", "example", "onion", "alt",
];

/** Why a host name is not a public name, or null. */
function localName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  if (!h.includes(".")) return true; // a single label resolves through local search domains
  return LOCAL_SUFFIXES.some((s) => h === s || h.endsWith(`.${s}`));
}

/**
 * The URL rules (scheme, port, host): throws a SubscriptionError naming the rule. Returns the
 * parsed URL. Synchronous: run at registration and again before every send.
 */
export function checkEndpointUrl(endpoint: string, policy: EndpointPolicy): URL {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new SubscriptionError("The endpoint is not a URL.");
  }
  if (url.username || url.password) throw new SubscriptionError("The endpoint must not carry credentials.");
  if (policy.allowLocal && (url.protocol === "http:" || url.protocol === "https:")) return url;
  if (url.protocol !== "https:") throw new SubscriptionError("The endpoint must be an https URL.");
  if (policy.allowedOrigins.has(url.origin)) return url;
  if (url.port !== "") throw new SubscriptionError(`The push endpoint must be an https URL on port 443, not port ${url.port}.`);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) !== 0) throw new SubscriptionError(`The push endpoint must name its host, not an IP address (${host}).`);
  if (localName(host)) throw new SubscriptionError(`The push endpoint's host must be a public name, not localhost or a local network name (${host}).`);
  return url;
}

/** Whether the address rules apply to this URL (not for the policy's exceptions). */
function addressesChecked(url: URL, policy: EndpointPolicy): boolean {
  return !policy.allowLocal && !policy.allowedOrigins.has(url.origin);
}

/** The first address of `addresses` that is not public, with the words for its kind; null when all are public. */
function firstNonPublic(addresses: readonly { address: string }[]): string | null {
  for (const { address } of addresses) {
    const kind = addressKind(address);
    if (kind !== "public") return `${ADDRESS_WORDS[kind]} (${address})`;
  }
  return null;
}

/**
 * The address rule at registration: the host resolves, and to public addresses only (all of
 * them: a name with one private address among public ones is refused as a whole).
 */
export async function checkEndpointAddresses(url: URL, policy: EndpointPolicy): Promise<void> {
  if (!addressesChecked(url, policy)) return;
  const host = url.hostname;
  let addresses: readonly { address: string; family: number }[];
  try {
    addresses = await policy.resolve(host);
  } catch {
    throw new SubscriptionError(`The push endpoint's host ${host} could not be resolved.`);
  }
  if (addresses.length === 0) throw new SubscriptionError(`The push endpoint's host ${host} could not be resolved.`);
  const bad = firstNonPublic(addresses);
  if (bad) throw new SubscriptionError(`The push endpoint's host ${host} resolves to ${bad}: Collie pushes only to public addresses.`);
}

/** A connection refused by the address rule at send time; never retried. */
export class EndpointRefused extends Error {
  override name = "EndpointRefused";
  readonly code = "ENDPOINT_REFUSED";
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
/** The `lookup` option of `net.connect` / `http.request`. */
export type Lookup = (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => void;

/**
 * The `lookup` a push connection uses: it resolves with the policy's resolver and hands the
 * connection only public addresses, so the address checked is the address connected to (DNS
 * rebinding, the security issue). Null for a URL the address rules do not apply to.
 */
export function guardedLookup(url: URL, policy: EndpointPolicy): Lookup | null {
  if (!addressesChecked(url, policy)) return null;
  return (hostname, options, callback) => {
    policy.resolve(hostname).then(
      (addresses) => {
        const bad = firstNonPublic(addresses);
        if (bad || addresses.length === 0) {
          callback(new EndpointRefused(`${hostname} resolves to ${bad ?? "no address"} now; not sent`), "", 0);
          return;
        }
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
        if (usable.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: "ENOTFOUND" }), "", 0);
          return;
        }
        if (options.all === true) callback(null, usable.map((a) => ({ address: a.address, family: a.family })));
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, "", 0),
    );
  };
}
