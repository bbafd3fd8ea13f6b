/**
 * Crew invites (C-1): a member Collie hands out a one-time invite that a lead Collie trades for a
 * long-lived crew credential. The credential is a device row of kind `crew-lead` (devices.ts), so
 * the gate accepts it wherever it accepts a paired phone (reads and actions), `collie devices`
 * lists it and `collie devices revoke` cuts it, open WebSockets included. Invites follow the
 * pairing codes' rules: only hashes are kept, a code lives 10 minutes and dies when used, and
 * wrong guesses are limited (per address for peers that are not loopback, and in total).
 */
import type { StateDb } from "../store/db.ts";
import { hash, newCode, normalize, type Device, type Devices } from "../security/devices.ts";


/** How long an invite lives. */
export const INVITE_TTL_MS = 10 * 60 * 1000;
/** Wrong invites (from anywhere) within an invite's lifetime after which every open invite dies. */
export const MAX_WRONG_INVITES = 5;
/** Wrong invites from one address within an invite's lifetime after which it is refused outright. */
export const MAX_WRONG_INVITES_PER_SOURCE = 3;

export type RedeemResult =
  | { ok: true; device: Device; token: string }
  | { ok: false; reason: "wrong-invite" | "expired" | "too-many-tries" };

export class Invites {
  readonly #state: StateDb;
  readonly #devices: Devices;
  readonly #now: () => number;

  constructor(state: StateDb, devices: Devices, now: () => number = Date.now) {
    this.#state = state;
    this.#devices = devices;
    this.#now = now;
  }

  /** A new one-time invite, e.g. `K7F3-Q2ZP-8MWX`; only its hash is kept. */
  create(): { invite: string; expiresAt: number } {
    // Three groups, not pairing's two: an invite is pasted, not typed, and grants a whole machine.
    const invite = newCode(3);
    const now = this.#now();
    const expiresAt = now + INVITE_TTL_MS;
    this.#state.db.prepare("INSERT INTO crew_invites (code_hash, created_at, expires_at) VALUES (?, ?, ?)").run(hash(normalize(invite)), now, expiresAt);
    return { invite, expiresAt };
  }

  /**
   * Trades an invite for a crew credential naming the lead `leadName`. `source` is the caller's
   * address for the per-address limit, or null for a loopback peer (any client of a front door).
   */
  redeem(invite: string, leadName: string, source: string | null): RedeemResult {
    const db = this.#state.db;
    const now = this.#now();
    db.prepare("DELETE FROM crew_invites WHERE expires_at < ?").run(now - INVITE_TTL_MS);
    db.prepare("DELETE FROM crew_invite_failures WHERE at < ?").run(now - INVITE_TTL_MS);
    if (source !== null) {
      const fromSource = (db.prepare("SELECT COUNT(*) AS n FROM crew_invite_failures WHERE source = ?").get(source) as { n: number }).n;
      if (fromSource >= MAX_WRONG_INVITES_PER_SOURCE) return { ok: false, reason: "too-many-tries" };
    }
    const h = hash(normalize(invite));
    const row = db.prepare("SELECT expires_at FROM crew_invites WHERE code_hash = ?").get(h) as { expires_at: number } | undefined;
    if (!row) {
      db.prepare("INSERT INTO crew_invite_failures (at, source) VALUES (?, ?)").run(now, source ?? "front-door");
      const total = (db.prepare("SELECT COUNT(*) AS n FROM crew_invite_failures").get() as { n: number }).n;
      // Guessing: after a few wrong invites in total, every open invite dies (a new `collie crew invite` is needed).
      if (total >= MAX_WRONG_INVITES) db.prepare("DELETE FROM crew_invites").run();
      return { ok: false, reason: "wrong-invite" };
    }
    db.prepare("DELETE FROM crew_invites WHERE code_hash = ?").run(h); // one use
    if (row.expires_at < now) return { ok: false, reason: "expired" };
    return { ok: true, ...this.#devices.issue(leadName, "crew-lead") };
  }
}
