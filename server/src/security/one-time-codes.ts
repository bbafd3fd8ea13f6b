/**
 * One-time codes (X-1, C-1): a pairing code (`collie pair`) and a crew invite (`collie crew
 * invite`) are the same thing, made and redeemed here, once: a short random code the owner makes on
 * this machine, kept only as a hash, alive for 10 minutes and spent by its first redemption.
 *
 * Guessing locks the guesser, never the code (issue 38, item 8). Before, five wrong codes in all,
 * from anywhere, killed every open code: a stranger sending two wrong codes a second kept the
 * owner's fresh code and a fresh invite dead. Now a guesser with MAX_WRONG_TRIES wrong codes within
 * GUESS_WINDOW_MS is refused outright (`too-many-tries`, "Too many tries") until that window has
 * passed, right code or not; everyone else, the owner included, is judged on their own code. A
 * code of 8 characters from 31 (about 40 bits) outlives no more than a handful of guesses from each
 * guesser.
 *
 * Who is guessing (`guesserOf`): the peer's address; behind a front door, where every client comes
 * from loopback, the client address the front door forwarded (the last `X-Forwarded-For` entry:
 * Caddy and `tailscale serve` write it, and a client cannot forge the entry its proxy appends).
 * A loopback peer that forwards nothing is one guesser, "this machine".
 *
 * Who guessed wrong is kept in memory, at most MAX_GUESSERS of them (the oldest go first), not in
 * the state database: a flood of guessers costs no disk and no table scan per try.
 */
import { hash as digest, randomBytes } from "node:crypto";
import { isIP } from "node:net";
import type { ApiErrorCode } from "@colliepwa/shared";
import type { StatementSync } from "node:sqlite";
import type { StateDb } from "../store/db.ts";
import { isLoopbackAddress } from "../net/loopback.ts";

/** How long a code lives. */
export const CODE_TTL_MS = 10 * 60 * 1000;
/** Wrong codes one guesser may send within GUESS_WINDOW_MS before it is refused outright. */
export const MAX_WRONG_TRIES = 3;
/** The window wrong tries are counted in, and how long a guesser stays refused. */
export const GUESS_WINDOW_MS = CODE_TTL_MS;
/** Guessers remembered at once; past it the one remembered longest is forgotten. */
export const MAX_GUESSERS = 10_000;

/** The guesser behind a loopback peer that forwards no client address. */
export const THIS_MACHINE = "this machine";

// Crockford-style alphabet: no 0/O, 1/I/L confusion when typed from a screen.
const ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";

/** SHA-256 of a code or token, in hex; the one-shot form: the gate hashes every request's token. */
export const hash = (s: string): string => digest("sha256", s, "hex");

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

/**
 * Who sends a code: `ip` (the peer), or for a loopback peer the last address of its
 * `X-Forwarded-For` (the client of the front door), else THIS_MACHINE.
 */
export function guesserOf(ip: string, forwardedFor: string | string[] | undefined): string {
  if (!isLoopbackAddress(ip)) return ip;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor ?? "";
  const last = header.split(",").map((s) => s.trim()).filter(Boolean).at(-1) ?? "";
  const client = last.replace(/^\[(.*)\](:\d+)?$/, "$1").replace(/^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/, "$1");
  return isIP(client) !== 0 ? client : THIS_MACHINE;
}

export type Redemption = { ok: true } | { ok: false; reason: "wrong" | "expired" | "too-many-tries" };

/** The table a kind of code lives in: `pairing_codes` or `crew_invites` (same columns). */
export type CodeTable = "pairing_codes" | "crew_invites";

export class OneTimeCodes {
  readonly #state: StateDb;
  readonly #table: CodeTable;
  readonly #groups: number;
  readonly #now: () => number;
  /** Wrong tries per guesser: how many, since when (insertion order is age). */
  readonly #guessers = new Map<string, { wrong: number; since: number }>();
  /** Statements prepared once (preparing costs far more than running them; the route is public). */
  #sql: { prune: StatementSync; find: StatementSync; spend: StatementSync } | null = null;

  constructor(state: StateDb, kind: { table: CodeTable; groups: number }, now: () => number = Date.now) {
    this.#state = state;
    this.#table = kind.table;
    this.#groups = kind.groups;
    this.#now = now;
  }

  /** A new code; only its hash is kept. */
  create(): { code: string; expiresAt: number } {
    const code = newCode(this.#groups);
    const now = this.#now();
    const expiresAt = now + CODE_TTL_MS;
    this.#state.db.prepare(`INSERT INTO ${this.#table} (code_hash, created_at, expires_at) VALUES (?, ?, ?)`).run(hash(normalize(code)), now, expiresAt);
    return { code, expiresAt };
  }

  /** Spends `code` for `guesser` (`guesserOf`): ok once, then it is gone. */
  redeem(code: string, guesser: string): Redemption {
    const db = this.#state.db;
    const sql = (this.#sql ??= {
      prune: db.prepare(`DELETE FROM ${this.#table} WHERE expires_at < ?`),
      find: db.prepare(`SELECT expires_at FROM ${this.#table} WHERE code_hash = ?`),
      spend: db.prepare(`DELETE FROM ${this.#table} WHERE code_hash = ?`),
    });
    const now = this.#now();
    sql.prune.run(now - CODE_TTL_MS);
    const seen = this.#guessers.get(guesser);
    if (seen && now - seen.since >= GUESS_WINDOW_MS) this.#guessers.delete(guesser);
    else if (seen && seen.wrong >= MAX_WRONG_TRIES) return { ok: false, reason: "too-many-tries" };
    const h = hash(normalize(code));
    const row = sql.find.get(h) as { expires_at: number } | undefined;
    if (!row) {
      this.#wrong(guesser, now);
      return { ok: false, reason: "wrong" };
    }
    sql.spend.run(h); // one use
    return row.expires_at < now ? { ok: false, reason: "expired" } : { ok: true };
  }

  /** Guessers counted now (tests, diagnostics). */
  get guessers(): number {
    return this.#guessers.size;
  }

  #wrong(guesser: string, now: number): void {
    const seen = this.#guessers.get(guesser);
    if (seen) {
      seen.wrong++;
      return;
    }
    if (this.#guessers.size >= MAX_GUESSERS) {
      for (const [key, g] of this.#guessers) if (now - g.since >= GUESS_WINDOW_MS) this.#guessers.delete(key);
      if (this.#guessers.size >= MAX_GUESSERS) this.#guessers.delete(this.#guessers.keys().next().value as string);
    }
    this.#guessers.set(guesser, { wrong: 1, since: now });
  }
}

/** What a refused redemption says on the phone, and its catalog code (the pairing page, `crew join`). */
export function refusal(kind: "pairing" | "invite", reason: "wrong" | "expired" | "too-many-tries"): { code: ApiErrorCode; message: string } {
  const again = kind === "pairing" ? "run `collie pair` again" : "run `collie crew invite` on the member again";
  if (reason === "too-many-tries") return { code: `${kind}-too-many-tries`, message: "Too many tries. Wait 10 minutes, then try again." };
  if (reason === "expired") return { code: `${kind}-expired`, message: `This ${kind === "pairing" ? "pairing code" : "invite"} has expired. ${cap(again)}.` };
  return { code: kind === "pairing" ? "pairing-wrong-code" : "invite-wrong-invite", message: `This ${kind === "pairing" ? "pairing code" : "invite"} is not valid. ${cap(again)}.` };
}

const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);
