/**
 * Crew invites (C-1): a member Collie hands out a one-time invite that a lead Collie trades for a
 * long-lived crew credential. The credential is a device row of kind `crew-lead` (devices.ts), so
 * the gate accepts it wherever it accepts a paired phone (reads and actions), `collie devices`
 * lists it and `collie devices revoke` cuts it, open WebSockets included. An invite is a one-time
 * code like a pairing code (security/one-time-codes.ts: only its hash kept, 10 minutes, one use,
 * wrong guesses lock the guesser), of three groups instead of two.
 */
import type { StateDb } from "../store/db.ts";
import type { Device, Devices } from "../security/devices.ts";
import { CODE_TTL_MS, OneTimeCodes } from "../security/one-time-codes.ts";

/** How long an invite lives. */
export const INVITE_TTL_MS = CODE_TTL_MS;

export type RedeemResult =
  | { ok: true; device: Device; token: string }
  | { ok: false; reason: "wrong-invite" | "expired" | "too-many-tries" };

export class Invites {
  readonly #devices: Devices;
  readonly #codes: OneTimeCodes;

  constructor(state: StateDb, devices: Devices, now: () => number = Date.now) {
    this.#devices = devices;
    // Three groups, not pairing's two: an invite is pasted, not typed, and grants a whole machine.
    this.#codes = new OneTimeCodes(state, { table: "crew_invites", groups: 3 }, now);
  }

  /** A new one-time invite, e.g. `K7F3-Q2ZP-8MWX`; only its hash is kept. */
  create(): { invite: string; expiresAt: number } {
    const { code, expiresAt } = this.#codes.create();
    return { invite: code, expiresAt };
  }

  /** Trades an invite for a crew credential naming the lead `leadName`; `guesser` as in `guesserOf`. */
  redeem(invite: string, leadName: string, guesser: string): RedeemResult {
    const r = this.#codes.redeem(invite, guesser);
    if (!r.ok) return { ok: false, reason: r.reason === "wrong" ? "wrong-invite" : r.reason };
    return { ok: true, ...this.#devices.issue(leadName, "crew-lead") };
  }
}
