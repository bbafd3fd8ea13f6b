/**
 * Collie's own state (D-8) in an embedded `node:sqlite` database in the state directory: held
 * answers, paired devices, push keys, subscriptions and limits, crew invites and held crew
 * actions. The directory and the files are owner-only. The schema is versioned and owned here:
 * every table's migration is in the list below, and each runs once, in order, in a transaction.
 */
import { chmodSync, existsSync, mkdirSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { routePath } from "@colliepwa/durable-sdk/wire";
import { conversationOf, HOLD_MS } from "./held.ts";
import { DB_FILE, dbFileState, damagedMessage, FRESH_STATE_FLAG, isDamage, lostMessage, markUsed, moveAside, StateDbRefused, usedBefore } from "./state-check.ts";

/** A migration: SQL, or a function for one that must build values SQLite cannot (paths). */
type Migration = string | ((db: DatabaseSync) => void);

const MIGRATIONS: readonly Migration[] = [
  // 1: held answers (D-5)
  `CREATE TABLE held_answers (
     request_id TEXT PRIMARY KEY,
     agent TEXT NOT NULL,
     pane_id TEXT NOT NULL,
     ask_id TEXT NOT NULL,
     revision TEXT NOT NULL,
     answer TEXT NOT NULL,
     held_at INTEGER NOT NULL
   );
   CREATE INDEX held_answers_agent ON held_answers (agent, ask_id);`,
  // 2: paired devices and pairing codes
  `
  CREATE TABLE pairing_codes (
    code_hash TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE TABLE devices (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    last_seen INTEGER NOT NULL
  );
  CREATE TABLE pairing_failures (
    at INTEGER NOT NULL,
    source TEXT NOT NULL
  );`,
  // 3: web push (U-1…U-4, docs/push.md): the VAPID key pair (one row, made once, never replaced
  // silently), the phones' subscriptions, the asks already seen (dedupe, U-3) and the limits'
  // windows and silences (U-1), so a restart resets none of them.
  `CREATE TABLE push_vapid (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     public_key TEXT NOT NULL,
     private_key TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE push_subscriptions (
     endpoint TEXT PRIMARY KEY,
     p256dh TEXT NOT NULL,
     auth TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     failures INTEGER NOT NULL DEFAULT 0,
     last_error TEXT
   );
   CREATE TABLE push_asks (
     machine TEXT NOT NULL,
     agent TEXT NOT NULL,
     ask_id TEXT NOT NULL,
     seen_at INTEGER NOT NULL,
     pushed INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (machine, agent, ask_id)
   );
   CREATE INDEX push_asks_seen ON push_asks (seen_at);
   CREATE TABLE push_log (
     machine TEXT NOT NULL,
     agent TEXT NOT NULL,
     pane TEXT NOT NULL,
     at INTEGER NOT NULL
   );
   CREATE INDEX push_log_agent ON push_log (machine, agent, at);
   CREATE INDEX push_log_at ON push_log (at);
   CREATE TABLE push_quiet (
     machine TEXT NOT NULL,
     agent TEXT NOT NULL,
     until INTEGER NOT NULL,
     PRIMARY KEY (machine, agent)
   );`,
  // 4: a push subscription belongs to the paired device that made it (X-1, U-4): revoking the
  // device removes its subscriptions (the cascade), and a push goes only to a paired device's.
  // Subscriptions from before had no device and cannot be tied to one: they go, and the phone's
  // next "Notifications" switch (or its app start, which registers again) brings them back.
  `ALTER TABLE push_subscriptions ADD COLUMN device_id TEXT REFERENCES devices (id) ON DELETE CASCADE;
   DELETE FROM push_subscriptions WHERE device_id IS NULL;
   CREATE INDEX push_subscriptions_device ON push_subscriptions (device_id);`,
  // 5: crew (C-1): a device is a phone or a crew lead; a member's one-time invites and their
  // wrong guesses; and on a lead, the actions held for a member that could not be reached.
  `
  ALTER TABLE devices ADD COLUMN kind TEXT NOT NULL DEFAULT 'phone';
  CREATE TABLE crew_invites (
    code_hash TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE TABLE crew_invite_failures (
    at INTEGER NOT NULL,
    source TEXT NOT NULL
  );
  CREATE TABLE crew_held (
    request_id TEXT NOT NULL,
    machine TEXT NOT NULL,
    agent TEXT NOT NULL,
    action TEXT NOT NULL,
    path TEXT NOT NULL,
    body TEXT NOT NULL,
    held_at INTEGER NOT NULL,
    PRIMARY KEY (machine, request_id)
  );`,
  // 6: held sends (D-5, docs/decisions.md): a message sent while its agent was unreachable, kept
  // with the phone's request id and delivered once when the agent is back.
  `CREATE TABLE held_sends (
     request_id TEXT PRIMARY KEY,
     agent TEXT NOT NULL,
     pane_id TEXT NOT NULL,
     text TEXT NOT NULL,
     held_at INTEGER NOT NULL
   );
   CREATE INDEX held_sends_agent ON held_sends (agent, held_at);`,
  // 7: answers given from a phone (issue 21): the chat's quiet "Allowed: refund" lines and the
  // agent home's list of tools always allowed.
  `CREATE TABLE decisions (
     agent TEXT NOT NULL,
     pane_id TEXT NOT NULL,
     ask_id TEXT NOT NULL,
     decision TEXT NOT NULL,
     option_kind TEXT,
     tool TEXT,
     at INTEGER NOT NULL,
     PRIMARY KEY (agent, pane_id, ask_id)
   );
   CREATE INDEX decisions_pane ON decisions (agent, pane_id, at);
   CREATE INDEX decisions_always ON decisions (agent, option_kind, at);`,
  // 8: the decision a held answer will leave once delivered, on the held answer's own row, so a
  // restart between holding and delivering keeps the chat's quiet line, and the held answer's
  // release or expiry takes its draft with it (store/decisions.ts).
  `ALTER TABLE held_answers ADD COLUMN draft TEXT;`,
  // 9: one store of held writes (issue 33, item 2; issues 35 and 28): held answers, held sends
  // and a lead's held crew actions become rows of one table, in the order they were held.
  heldWritesMigration,
  // 10: the name of the phone a held write came from, for a lead's crew action: delivered later,
  // it still tells the member which phone answered (issue #37), not only which lead held it.
  `ALTER TABLE held_writes ADD COLUMN phone TEXT;`,
];

export interface StateDb {
  db: DatabaseSync;
  path: string;
  close(): void;
}

export interface OpenOptions {
  /**
   * `collie serve --fresh-state`: a database that is missing, empty or damaged in a state directory
   * used before is started over on purpose (a damaged one is kept aside, never deleted).
   */
  fresh?: boolean;
  /** The directory's lock was left by a Collie that did not stop cleanly: a sign it was used (cli/state-lock.ts). */
  staleLock?: boolean;
  /** Where a start over on purpose is said (the daemon's log). */
  log?: (line: string) => void;
}

/**
 * Opens (creating if needed) the state database in `dir`; `:memory:` for tests. A database that is
 * missing, empty or damaged where Collie kept its state before is refused with StateDbRefused,
 * whose message names the file and what to do (store/state-check.ts), unless `fresh`.
 */
export function openStateDb(dir: string | ":memory:", opts: OpenOptions = {}): StateDb {
  if (dir === ":memory:") return openDb(":memory:", false);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const path = join(dir, DB_FILE);
  const file = dbFileState(path);
  const refuseLost = (how: "missing" | "empty") => {
    const traces = usedBefore(dir, opts);
    if (traces.length === 0) return false;
    if (!opts.fresh) throw new StateDbRefused(lostMessage(path, how, dir, traces));
    opts.log?.(`${FRESH_STATE_FLAG}: starting a new state database in ${path} (the one there was ${how})`);
    return true;
  };
  // WAL files left beside a database that is gone belong to it, not to the new one: kept aside.
  if (file !== "present" && refuseLost(file)) moveAside(path);
  let state: StateDb;
  try {
    state = openDb(path, file === "present", () => void refuseLost("empty"));
  } catch (err) {
    if (!isDamage(err)) throw err;
    const why = err instanceof Error ? err.message : String(err);
    if (!opts.fresh) throw new StateDbRefused(damagedMessage(path, why));
    const aside = moveAside(path);
    opts.log?.(`${FRESH_STATE_FLAG}: ${path} was damaged (${why}); it is kept as ${aside}, and a new state database starts`);
    state = openDb(path, false, () => {});
  }
  if (file === "present" && opts.fresh) opts.log?.(`${FRESH_STATE_FLAG}: the state database ${path} is sound, so nothing was started over`);
  markUsed(dir);
  return state;
}

/**
 * Opens the database file and brings its schema up to date. `check`: the file was there, so it is
 * checked first (a damaged one throws SQLite's SQLITE_CORRUPT or SQLITE_NOTADB), and one that holds
 * no Collie tables at all calls `noSchema` (an emptied database).
 */
function openDb(path: string, check: boolean, noSchema: () => void = () => {}): StateDb {
  const { DatabaseSync } = process.getBuiltinModule("node:sqlite") as typeof import("node:sqlite");
  if (path !== ":memory:") {
    const created = !existsSync(path);
    const db0 = new DatabaseSync(path);
    db0.close();
    if (created) chmodSync(path, 0o600);
  }
  // The WAL files that were there before: a refused start removes the ones its reads made, so it changed nothing.
  const before = new Set([`${path}-wal`, `${path}-shm`].filter((f) => existsSync(f)));
  const db = preparedOnce(new DatabaseSync(path));
  try {
    // Checked before anything is written (the pragmas below may write a database's header).
    if (check) {
      // SQLite's lines, on one line (the refusal is one message): "*** in database main ***" is noise.
      const problems = (db.prepare("PRAGMA quick_check").all() as { quick_check: string }[])
        .flatMap((r) => r.quick_check.split("\n")).map((l) => l.trim()).filter((l) => l && !/^\*\*\* in database/.test(l));
      if (problems.join() !== "ok") throw Object.assign(new Error(`database disk image is malformed: ${problems.slice(0, 3).join("; ")}`), { errcode: 11 });
      if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get()) noSchema();
    }
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;");
    migrate(db, path);
  } catch (err) {
    db.close();
    if (err instanceof StateDbRefused || isDamage(err)) {
      for (const f of [`${path}-wal`, `${path}-shm`]) if (!before.has(f) && existsSync(f) && (f.endsWith("-shm") || statSync(f).size === 0)) unlinkSync(f);
    }
    throw err;
  }
  if (path !== ":memory:") for (const f of [`${path}-wal`, `${path}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
  return { db, path, close: () => db.close() };
}

/** Runs each migration not run yet, once, in order, each in a transaction. */
function migrate(db: DatabaseSync, path: string): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  const row = db.prepare("SELECT version FROM schema_version").get() as { version: number } | undefined;
  let version = row?.version ?? 0;
  if (!row) db.exec("INSERT INTO schema_version (version) VALUES (0)");
  if (version > MIGRATIONS.length) throw new Error(`${path} was written by a newer Collie (schema ${version}); update Collie`);
  for (; version < MIGRATIONS.length; version++) {
    db.exec("BEGIN IMMEDIATE");
    try {
      const step = MIGRATIONS[version]!;
      if (typeof step === "string") db.exec(step);
      else step(db);
      db.prepare("UPDATE schema_version SET version = ?").run(version + 1);
      db.exec("COMMIT");
    } catch (err) {
      db.exec("ROLLBACK");
      throw err;
    }
  }
}

/** More distinct statement texts than Collie has: past this, a statement is prepared for each use. */
const MAX_KEPT_STATEMENTS = 256;

/**
 * The database with `prepare` remembering each statement by its text. Every statement Collie runs is
 * a fixed text with `?` parameters, prepared where it is used; compiling it again on every call was
 * most of the cost of a small statement, and an answer from a phone runs a dozen of them on the
 * daemon's loop (the device check, the decision, push; issue 31). `run`, `get` and `all` reset a
 * statement before they execute it, so a kept one is as good as a fresh one.
 */
function preparedOnce(db: DatabaseSync): DatabaseSync {
  const prepare = db.prepare.bind(db);
  const kept = new Map<string, StatementSync>();
  db.prepare = (sql: string): StatementSync => {
    let statement = kept.get(sql);
    if (!statement) {
      statement = prepare(sql);
      if (kept.size < MAX_KEPT_STATEMENTS) kept.set(sql, statement);
    }
    return statement;
  };
  return db;
}

/** The schema version this Collie writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Migration 9: the held writes' table (store/held.ts), filled from the three tables it replaces,
 * oldest first: a held answer waits for its ask (`ask_id`) and keeps its decision's draft; a held
 * send and a lead's held crew action join their target's queue. A row that cannot be read (its
 * JSON broken) could never have been delivered, and is left out.
 */
function heldWritesMigration(db: DatabaseSync): void {
  // The body last: a row's small columns are read without walking a large body's overflow pages.
  db.exec(`CREATE TABLE held_writes (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     target TEXT NOT NULL,
     request_id TEXT NOT NULL,
     action TEXT NOT NULL,
     conversation TEXT NOT NULL,
     ask_id TEXT,
     bytes INTEGER NOT NULL,
     held_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     draft TEXT,
     path TEXT NOT NULL,
     body TEXT NOT NULL,
     UNIQUE (target, request_id)
   );
   CREATE INDEX held_writes_queue ON held_writes (target, seq) WHERE ask_id IS NULL;
   -- Finds an ask's answers, and covers the tallies read at start (no row's body is read for them).
   CREATE INDEX held_writes_tally ON held_writes (target, conversation, ask_id, bytes);
   CREATE INDEX held_writes_expiry ON held_writes (expires_at);`);
  type Moved = { heldAt: number; order: number; values: [string, string, string, string, string, string, string | null, string | null] };
  const moved: Moved[] = [];
  const parse = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };
  const answers = db.prepare("SELECT request_id, agent, pane_id, ask_id, revision, answer, held_at, draft FROM held_answers ORDER BY held_at, rowid").all() as
    { request_id: string; agent: string; pane_id: string; ask_id: string; revision: string; answer: string; held_at: number; draft: string | null }[];
  for (const r of answers) {
    const answer = parse(r.answer);
    if (answer === undefined) continue;
    const body = JSON.stringify({ requestId: r.request_id, revision: r.revision, answer });
    moved.push({ heldAt: r.held_at, order: moved.length, values: [r.agent, r.request_id, "answer", r.pane_id, routePath("answer", { pane: r.pane_id, ask: r.ask_id }), body, r.ask_id, r.draft] });
  }
  const sends = db.prepare("SELECT request_id, agent, pane_id, text, held_at FROM held_sends ORDER BY held_at, rowid").all() as { request_id: string; agent: string; pane_id: string; text: string; held_at: number }[];
  for (const r of sends) {
    const body = JSON.stringify({ requestId: r.request_id, text: r.text });
    moved.push({ heldAt: r.held_at, order: moved.length, values: [r.agent, r.request_id, "send", r.pane_id, routePath("send", { pane: r.pane_id }), body, null, null] });
  }
  const crew = db.prepare("SELECT machine, request_id, agent, action, path, body, held_at FROM crew_held ORDER BY held_at, rowid").all() as { machine: string; request_id: string; agent: string; action: string; path: string; body: string; held_at: number }[];
  for (const r of crew) {
    const body = parse(r.body);
    if (typeof body !== "object" || body === null) continue;
    const conversation = conversationOf(r.path, body as Record<string, unknown>);
    moved.push({ heldAt: r.held_at, order: moved.length, values: [`${r.agent}@${r.machine}`, r.request_id, r.action, conversation, r.path, r.body, null, null] });
  }
  moved.sort((a, b) => a.heldAt - b.heldAt || a.order - b.order);
  const insert = db.prepare(`INSERT OR IGNORE INTO held_writes (target, request_id, action, conversation, path, body, bytes, ask_id, held_at, expires_at, draft)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  for (const m of moved) {
    const [target, requestId, action, conversation, path, body, ask, draft] = m.values;
    insert.run(target, requestId, action, conversation, path, body, Buffer.byteLength(body), ask, m.heldAt, m.heldAt + HOLD_MS, draft);
  }
  db.exec("DROP TABLE held_answers; DROP TABLE held_sends; DROP TABLE crew_held;");
}
