/**
 * Which phone answered, across a crew (C-1, issue #37): the lead forwards a phone's action to the
 * member with the phone's name in one header, so the member's record of a held answer (the chat's
 * `Allowed: refund · Pixel · 14:05`) names the phone that answered, not the lead machine. The name
 * is percent-encoded (a header carries ASCII only) and is only a label: who may act is still the
 * lead's crew credential, and the member's audit log still names the lead.
 */
import type { Device } from "../security/devices.ts";

export const PHONE_NAME_HEADER = "collie-phone-name";

/** A device name's longest form (as devices.ts keeps it). */
const NAME_MAX = 64;

/** The header naming `name` for a forwarded action; none without a name. */
export function phoneNameHeader(name: string | undefined): Record<string, string> {
  return name ? { [PHONE_NAME_HEADER]: encodeURIComponent(name.slice(0, NAME_MAX)) } : {};
}

/**
 * Who answered, as a decision names it: the paired phone; for a crew lead, the phone the lead
 * names in PHONE_NAME_HEADER (cleaned like a device name), else the lead itself.
 */
export function answeredBy(device: Device | undefined, header: unknown): string {
  if (!device) return "a phone";
  if (device.kind === "crew-lead" && typeof header === "string" && header.length <= NAME_MAX * 12) {
    try {
      const name = decodeURIComponent(header).replace(/[\p{Cc}\p{Cf}]/gu, "").trim().slice(0, NAME_MAX);
      if (name) return name;
    } catch {
      // not percent-encoded: the lead's own name
    }
  }
  return device.name;
}
