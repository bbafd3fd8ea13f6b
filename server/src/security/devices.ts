/**
 * Paired devices: a phone trades a one-time pairing code (one-time-codes.ts) for a device
 * token. Collie keeps only hashes of both; a revoked device is refused at its next request (and its
 * open WebSocket is closed by the gate).
 */
import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { StatementSync } from "node:sqlite";
import type { StateDb } from "../store/db.ts";
import { hash, OneTimeCodes } from "./one-time-codes.ts";

export { CODE_TTL_MS, hash, MAX_WRONG_TRIES } from "./one-time-codes.ts";

/** A phone, or a lead Collie of a crew (C-1) that reads and acts here as a phone does. */
export type DeviceKind = "phone" | "crew-lead";

export interface Device {
  id: string;
  name: string;
  kind: DeviceKind;
  createdAt: number;
  lastSeen: number;
}

export type PairResult =
  | { ok: true; device: Device; token: string }
  | { ok: false; reason: "wrong-code" | "expired" | "too-many-tries" };

/** Devices the gate keeps in memory (a phone, a few more phones, crew leads: far fewer). */
const MAX_CACHED = 256;

export class Devices {
  readonly #state: StateDb;
  readonly #now: () => number;
  readonly #codes: OneTimeCodes;
  readonly #revoked = new Set<(id: string) => void>();
  /**
   * The gate's lookup, prepared once: every request checks a token, and preparing the statement
   * each time cost about 15 times the lookup itself (a flood of requests spent most of its time
   * there, issue 38, item 7).
   */
  #byToken: StatementSync | null = null;
  #seen: StatementSync | null = null;
  /**
   * Paired devices already looked up, by their token's hash: the gate checks every request, and
   * on the daemon's busy loop the SQLite read cost 10–20 times what it costs in a tight loop
   * (issue 31: ~140 µs on the tap's path). Only tokens that matched are kept (a flood of wrong
   * ones adds nothing), and at most MAX_CACHED. Every write to `devices` is this class's (one
   * daemon per state directory, cli/state-lock.ts), so dropping a revoked device here is enough.
   */
  readonly #known = new Map<string, Device>();

  constructor(state: StateDb, now: () => number = Date.now) {
    this.#state = state;
    this.#now = now;
    this.#codes = new OneTimeCodes(state, { table: "pairing_codes", groups: 2 }, now);
  }

  /** A new one-time code, e.g. `K7F3-Q2ZP`; only its hash is kept. */
  createCode(): { code: string; expiresAt: number } {
    return this.#codes.create();
  }

  /**
   * Trades a code for a device token. `guesser` is who sends it (`guesserOf`): too many wrong codes
   * lock that guesser out for a while, never the code (one-time-codes.ts).
   */
  pair(code: string, name: string, guesser: string): PairResult {
    const r = this.#codes.redeem(code, guesser);
    if (!r.ok) return { ok: false, reason: r.reason === "wrong" ? "wrong-code" : r.reason };
    return { ok: true, ...this.issue(name, "phone") };
  }

  /** A new device row and its token (only the token's hash is kept). */
  issue(name: string, kind: DeviceKind): { device: Device; token: string } {
    const now = this.#now();
    const token = randomBytes(32).toString("base64url");
    const device: Device = { id: randomUUID(), name: cleanName(name, kind === "crew-lead" ? "Collie" : "Phone"), kind, createdAt: now, lastSeen: now };
    this.#state.db.prepare("INSERT INTO devices (id, name, kind, token_hash, created_at, last_seen) VALUES (?, ?, ?, ?, ?, ?)").run(device.id, device.name, kind, hash(token), now, now);
    return { device, token };
  }

  /** The device a token belongs to, or null. Compares hashes in constant time. */
  check(token: string | undefined): Device | null {
    if (!token || token.length > 256) return null;
    const h = hash(token);
    const device = this.#known.get(h) ?? this.#lookup(h);
    if (!device) return null;
    const now = this.#now();
    if (now - device.lastSeen > 60_000) {
      this.#seen ??= this.#state.db.prepare("UPDATE devices SET last_seen = ? WHERE id = ?");
      this.#seen.run(now, device.id);
      device.lastSeen = now;
    }
    return { ...device };
  }

  /** The device of a token's hash from the database (then kept in `#known`), or null. */
  #lookup(h: string): Device | null {
    this.#byToken ??= this.#state.db.prepare("SELECT id, name, kind, token_hash, created_at, last_seen FROM devices WHERE token_hash = ?");
    const row = this.#byToken.get(h) as
      | { id: string; name: string; kind: DeviceKind; token_hash: string; created_at: number; last_seen: number }
      | undefined;
    // The index found the row by the hash; the hashes are still compared in constant time.
    if (!row || !timingSafeEqual(Buffer.from(row.token_hash, "hex"), Buffer.from(h, "hex"))) return null;
    const device: Device = { id: row.id, name: row.name, kind: row.kind, createdAt: row.created_at, lastSeen: row.last_seen };
    if (this.#known.size >= MAX_CACHED) this.#known.delete(this.#known.keys().next().value!);
    this.#known.set(h, device);
    return device;
  }

  list(): Device[] {
    return (this.#state.db.prepare("SELECT id, name, kind, created_at, last_seen FROM devices ORDER BY created_at").all() as { id: string; name: string; kind: DeviceKind; created_at: number; last_seen: number }[])
      .map((r) => ({ id: r.id, name: r.name, kind: r.kind, createdAt: r.created_at, lastSeen: r.last_seen }));
  }

  /** Revokes a device; returns false when there is no such device. */
  revoke(id: string): boolean {
    const changed = Number(this.#state.db.prepare("DELETE FROM devices WHERE id = ?").run(id).changes);
    // Refused from its very next request: its token is known no more.
    for (const [h, device] of this.#known) if (device.id === id) this.#known.delete(h);
    if (changed > 0) for (const fn of this.#revoked) fn(id);
    return changed > 0;
  }

  /** Called with the id of each revoked device (the gate closes its WebSockets). */
  onRevoked(fn: (id: string) => void): void {
    this.#revoked.add(fn);
  }
}

/** How the audit log names a device: a phone by its id, a crew lead by its name and id (C-1). */
export function auditName(device: Device): string {
  return device.kind === "crew-lead" ? `crew lead ${device.name} (${device.id})` : device.id;
}

function cleanName(name: string, fallback: string): string {
  const clean = String(name ?? "").replace(/[\p{Cc}\p{Cf}]/gu, "").trim().slice(0, 64);
  return clean || fallback;
}
