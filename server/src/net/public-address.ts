/**
 * Which addresses are the public internet (the security issue, item 4: push endpoints). Collie
 * connects to an address a paired device named only when it is a public unicast address: never to
 * this machine, the local network, a link-local metadata service (169.254.169.254) or an IPv6
 * unique-local or link-local address. An address that carries an IPv4 address inside it
 * (IPv4-mapped, NAT64, 6to4) is judged by the IPv4 address it carries.
 */

/** What kind of address an IP is; only `public` may be connected to on a stranger's word. */
export type AddressKind = "public" | "loopback" | "private" | "link-local" | "unique-local" | "reserved" | "invalid";

/** The words a refusal uses for each kind that is not public. */
export const ADDRESS_WORDS: Readonly<Record<Exclude<AddressKind, "public">, string>> = Object.freeze({
  loopback: "a loopback address",
  private: "a private network address",
  "link-local": "a link-local address",
  "unique-local": "a unique-local address",
  reserved: "a reserved or special-purpose address",
  invalid: "no valid address",
});

/** Classifies an IPv4 or IPv6 address (a zone `%eth0` is ignored); anything else is `invalid`. */
export function addressKind(ip: string): AddressKind {
  const bare = ip.replace(/%.*$/, "");
  const v4 = parseIpv4(bare);
  if (v4) return ipv4Kind(v4);
  const v6 = parseIpv6(bare);
  return v6 ? ipv6Kind(v6) : "invalid";
}

export function isPublicAddress(ip: string): boolean {
  return addressKind(ip) === "public";
}

function ipv4Kind([a, b, c]: readonly number[]): AddressKind {
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return "private";
  // 100.64.0.0/10, shared address space: carrier-grade NAT, and every tailnet address.
  if (a === 100 && b! >= 64 && b! <= 127) return "private";
  if (a === 169 && b === 254) return "link-local";
  if (
    a === 0 || a! >= 224 || // this network; multicast, reserved, broadcast
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol assignments, TEST-NET-1
    (a === 192 && b === 88 && c === 99) || // 6to4 relay anycast
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113) // TEST-NET-2, -3
  ) return "reserved";
  return "public";
}

function ipv6Kind(w: readonly number[]): AddressKind {
  const zeroUpTo = (n: number) => w.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(7) && w[7] === 1) return "loopback";
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d): the IPv4 address decides.
  if (zeroUpTo(5) && w[5] === 0xffff) return ipv4Kind(embedded(w[6]!, w[7]!));
  if (w[0] === 0x64 && w[1] === 0xff9b && w.slice(2, 6).every((x) => x === 0)) return ipv4Kind(embedded(w[6]!, w[7]!));
  // 6to4 (2002:a.b.c.d::/48): the IPv4 address it tunnels to.
  if (w[0] === 0x2002) return ipv4Kind(embedded(w[1]!, w[2]!));
  if ((w[0]! & 0xfe00) === 0xfc00) return "unique-local";
  if ((w[0]! & 0xffc0) === 0xfe80 || (w[0]! & 0xffc0) === 0xfec0) return "link-local";
  // Only global unicast (2000::/3) is public; inside it, Teredo and documentation are not.
  if ((w[0]! & 0xe000) !== 0x2000) return "reserved";
  if (w[0] === 0x2001 && (w[1] === 0 || w[1] === 0xdb8)) return "reserved";
  return "public";
}

const embedded = (hi: number, lo: number): number[] => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];

/** Four octets of a dotted-quad IPv4 address, or null. */
function parseIpv4(s: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return null;
  const octets = m.slice(1).map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

/** Eight 16-bit words of an IPv6 address (with `::` and a trailing dotted quad), or null. */
function parseIpv6(s: string): number[] | null {
  if (!/^[0-9a-fA-F:.]{2,45}$/.test(s)) return null;
  let text = s;
  const lastColon = text.lastIndexOf(":");
  if (lastColon < 0) return null;
  const last = text.slice(lastColon + 1);
  if (last.includes(".")) {
    // `::ffff:1.2.3.4` is `::ffff:102:304`.
    const v4 = parseIpv4(last);
    if (!v4) return null;
    text = `${text.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] === "" ? [] : halves[0]!.split(":");
  const rest = halves.length === 2 && halves[1] !== "" ? halves[1]!.split(":") : [];
  if ([...head, ...rest].some((h) => !/^[0-9a-fA-F]{1,4}$/.test(h))) return null;
  const given = head.length + rest.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  const fill = halves.length === 2 ? new Array<string>(8 - given).fill("0") : [];
  return [...head, ...fill, ...rest].map((h) => parseInt(h, 16));
}
