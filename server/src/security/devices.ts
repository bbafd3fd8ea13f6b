/**
 * Paired devices: a phone trades a short-lived one-time pairing code for a device token.
 * Collie keeps only hashes of both; codes expire after 10 minutes, die when used, and every code
 * dies after a few wrong tries; a revoked device is refused at its next request (and its open
 * WebSocket is closed by the gate).
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { StateDb } from "../store/db.ts";


/** How long a pairing code lives. */
export const CODE_TTL_MS = 10 * 60 * 1000;
/** Wrong tries (from anywhere) within the code's lifetime after which every open code dies. */
export const MAX_WRONG_TRIES = 5;
/** Wrong tries from one source within a code's lifetime after which it is refused outright. */
export const MAX_WRONG_TRIES_PER_SOURCE = 3;

/** Peer addresses of this machine: per-address counting skips them (net/loopback.ts). */
export { isLoopbackAddress } from "../net/loopback.ts";

// Crockford-style alphabet: no 0/O, 1/I/L confusion when typed from a screen.
const ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";

export const hash = (s: string): string => createHash("sha256").update(s, "utf8").digest("hex");

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

export class Devices {
  readonly #state: StateDb;
  readonly #now: () => number;
  readonly #revoked = new Set<(id: string) => void>();

  constructor(state: StateDb, now: () => number = Date.now) {
    this.#state = state;
    this.#now = now;
  }

  /** A new one-time code, e.g. `K7F3-Q2ZP`; only its hash is kept. */
  createCode(): { code: string; expiresAt: number } {
    const code = newCode(2);
    const now = this.#now();
    const expiresAt = now + CODE_TTL_MS;
    this.#state.db.prepare("INSERT INTO pairing_codes (code_hash, created_at, expires_at) VALUES (?, ?, ?)").run(hash(normalize(code)), now, expiresAt);
    return { code, expiresAt };
  }

  /**
   * Trades a code for a device token. `source` identifies the caller for the per-source limit;
   * null for a caller that cannot be told apart (a front door's loopback): then only the global
   * limit counts.
   */
  pair(code: string, name: string, source: string | null): PairResult {
    const db = this.#state.db;
    const now = this.#now();
    db.prepare("DELETE FROM pairing_codes WHERE expires_at < ?").run(now - CODE_TTL_MS);
    db.prepare("DELETE FROM pairing_failures WHERE at < ?").run(now - CODE_TTL_MS);
    if (source !== null) {
      const fromSource = (db.prepare("SELECT COUNT(*) AS n FROM pairing_failures WHERE source = ?").get(source) as { n: number }).n;
      if (fromSource >= MAX_WRONG_TRIES_PER_SOURCE) return { ok: false, reason: "too-many-tries" };
    }
    const h = hash(normalize(code));
    const row = db.prepare("SELECT code_hash, expires_at FROM pairing_codes WHERE code_hash = ?").get(h) as { code_hash: string; expires_at: number } | undefined;
    if (!row) {
      db.prepare("INSERT INTO pairing_failures (at, source) VALUES (?, ?)").run(now, source ?? "front-door");
      const total = (db.prepare("SELECT COUNT(*) AS n FROM pairing_failures").get() as { n: number }).n;
      // Guessing: after a few wrong tries in total, every open code dies (a new `collie pair` is needed).
      if (total >= MAX_WRONG_TRIES) db.prepare("DELETE FROM pairing_codes").run();
      return { ok: false, reason: "wrong-code" };
    }
    db.prepare("DELETE FROM pairing_codes WHERE code_hash = ?").run(h); // one-time
    if (row.expires_at < now) return { ok: false, reason: "expired" };
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
    const row = this.#state.db.prepare("SELECT id, name, kind, token_hash, created_at, last_seen FROM devices WHERE token_hash = ?").get(h) as
      | { id: string; name: string; kind: DeviceKind; token_hash: string; created_at: number; last_seen: number }
      | undefined;
    if (!row || !timingSafeEqual(Buffer.from(row.token_hash, "hex"), Buffer.from(h, "hex"))) return null;
    const now = this.#now();
    if (now - row.last_seen > 60_000) this.#state.db.prepare("UPDATE devices SET last_seen = ? WHERE id = ?").run(now, row.id);
    return { id: row.id, name: row.name, kind: row.kind, createdAt: row.created_at, lastSeen: row.last_seen };
  }

  list(): Device[] {
    return (this.#state.db.prepare("SELECT id, name, kind, created_at, last_seen FROM devices ORDER BY created_at").all() as { id: string; name: string; kind: DeviceKind; created_at: number; last_seen: number }[])
      .map((r) => ({ id: r.id, name: r.name, kind: r.kind, createdAt: r.created_at, lastSeen: r.last_seen }));
  }

  /** Revokes a device; returns false when there is no such device. */
  revoke(id: string): boolean {
    const changed = Number(this.#state.db.prepare("DELETE FROM devices WHERE id = ?").run(id).changes);
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

/** A random code of `groups` groups of four characters, e.g. `K7F3-Q2ZP`. */
export function newCode(groups: number): string {
  const bytes = randomBytes(groups * 4);
  let raw = "";
  for (const b of bytes) raw += ALPHABET[b % ALPHABET.length];
  return raw.match(/.{4}/g)!.join("-");
}

/** A code as typed: case and separators do not matter. */
export function normalize(code: string): string {
  return code.toUpperCase().replace(/[^0-9A-Z]/g, "");
}

function cleanName(name: string, fallback: string): string {
  const clean = String(name ?? "").replace(/[\p{Cc}\p{Cf}]/gu, "").trim().slice(0, 64);
  return clean || fallback;
}
