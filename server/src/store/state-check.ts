/**
 * A state database that is missing, emptied or damaged is never a silent fresh start (issue 35,
 * items 3 and 4). Collie's state (D-8) is its paired phones, its push keys (every phone's
 * subscription is bound to them), its held writes: starting on a new database in a state directory
 * that was used before would lock every phone out (401), kill every push subscription and forget
 * every held message, with one log line to say so. So Collie refuses, names the file and says what
 * to do: restore it, or start fresh on purpose with `collie serve --fresh-state`. A damaged file is
 * never overwritten: a fresh start moves it aside first.
 */
import { chmodSync, existsSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The database's file in the state directory. */
export const DB_FILE = "collie.db";

/**
 * Written beside the database when Collie makes it: a directory holding it was used, whatever
 * else it holds, so a database missing later is noticed even where nothing else was written.
 */
export const STATE_MARKER = "collie.state.json";

/** The flag that starts over on purpose (cli/help.ts lists it). */
export const FRESH_STATE_FLAG = "--fresh-state";

/** The state database cannot be used as it is; the message names the file and what to do. */
export class StateDbRefused extends Error {
  override name = "StateDbRefused";
}

/**
 * What in the state directory shows that a Collie used it before: its marker, the audit log, crew
 * credentials, the database's own WAL files, a lock left by a Collie that did not stop cleanly
 * (`staleLock`, found by cli/state-lock.ts). Not the bundled example agent's files: `collie serve`
 * starts that agent before it opens the database, on the very first start too. `collie crew join`
 * on a directory never used makes its database first (cli/crew-join.ts), so its credential is a trace.
 */
export function usedBefore(dir: string, opts: { staleLock?: boolean } = {}): string[] {
  let names: Set<string>;
  try {
    names = new Set(readdirSync(dir));
  } catch {
    return [];
  }
  const found = [STATE_MARKER, "audit.log", "audit.log.1", `${DB_FILE}-wal`, `${DB_FILE}-shm`].filter((n) => names.has(n));
  if (names.has("crew")) found.push("crew/ (crew credentials)");
  if (opts.staleLock) found.push("collie.lock (left by a Collie that did not stop cleanly)");
  return found;
}

/** Whether the database file is missing or has no bytes (before SQLite opens it). */
export function dbFileState(path: string): "missing" | "empty" | "present" {
  if (!existsSync(path)) return "missing";
  return statSync(path).size === 0 ? "empty" : "present";
}

/** The words a refused start says about a database that is missing or holds no Collie state. */
export function lostMessage(path: string, how: "missing" | "empty", dir: string, traces: string[]): string {
  return [
    `the state database ${path} is ${how === "missing" ? "missing" : "empty"}, but ${dir} was used before (${traces.join(", ")}).`,
    "Starting on a new one would forget every paired phone, held message and push subscription, and make new push keys.",
    `Collie changed nothing. Restore ${DB_FILE} from a backup into ${dir} (with Collie stopped), or start fresh on purpose: collie serve ${FRESH_STATE_FLAG}`,
  ].join(" ");
}

/** The words a refused start says about a damaged database. */
export function damagedMessage(path: string, why: string): string {
  return [
    `the state database ${path} is damaged (${why}).`,
    `Collie changed nothing. Restore ${DB_FILE} from a backup (with Collie stopped), or start fresh on purpose: collie serve ${FRESH_STATE_FLAG}`,
    `(it keeps the damaged file beside it as ${DB_FILE}.damaged-<time>; paired phones, held messages and push subscriptions are lost).`,
  ].join(" ");
}

/** SQLite's codes for a file that is not a sound database: SQLITE_CORRUPT, SQLITE_NOTADB. */
export function isDamage(err: unknown): boolean {
  const code = (err as { errcode?: unknown } | null)?.errcode;
  return typeof code === "number" && ((code & 0xff) === 11 || (code & 0xff) === 26);
}

/** Moves a damaged database (and its WAL files) aside, never deleting one that holds a byte; returns where it went. */
export function moveAside(path: string, now: Date = new Date()): string {
  const aside = `${path}.damaged-${now.toISOString().replace(/[:.]/g, "-")}`;
  // An empty file holds nothing to keep.
  if (existsSync(path) && statSync(path).size === 0) unlinkSync(path);
  for (const suffix of ["", "-wal", "-shm"]) if (existsSync(`${path}${suffix}`)) renameSync(`${path}${suffix}`, `${aside}${suffix}`);
  return aside;
}

/** Marks the directory as holding a Collie's state (owner-only, like everything in it). */
export function markUsed(dir: string, now: Date = new Date()): void {
  const marker = join(dir, STATE_MARKER);
  if (existsSync(marker)) return;
  writeFileSync(marker, `${JSON.stringify({ database: DB_FILE, since: now.toISOString(), note: "Collie's state directory: a missing or empty collie.db here stops Collie instead of starting over (docs/reliability.md)." })}\n`, { mode: 0o600 });
  chmodSync(marker, 0o600);
}
