/**
 * Collie's own state (D-8) in an embedded `node:sqlite` database in the state directory: held
 * answers, paired devices, push keys, subscriptions and limits, crew invites and held crew
 * actions. The directory and the files are owner-only. The schema is versioned and owned here:
 * every table's migration is in the list below, and each runs once, in order, in a transaction.
 */
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { DatabaseSync, StatementSync } from "node:sqlite";

const MIGRATIONS: readonly string[] = [
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
];

export interface StateDb {
  db: DatabaseSync;
  path: string;
  close(): void;
}

/** Opens (creating if needed) the state database in `dir`; `:memory:` for tests. */
export function openStateDb(dir: string | ":memory:"): StateDb {
  const { DatabaseSync } = process.getBuiltinModule("node:sqlite") as typeof import("node:sqlite");
  let path = ":memory:";
  if (dir !== ":memory:") {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    path = join(dir, "collie.db");
    const fresh = !existsSync(path);
    const db0 = new DatabaseSync(path);
    db0.close();
    if (fresh) chmodSync(path, 0o600);
  }
  const db = preparedOnce(new DatabaseSync(path));
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;");
  db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  const row = db.prepare("SELECT version FROM schema_version").get() as { version: number } | undefined;
  let version = row?.version ?? 0;
  if (!row) db.exec("INSERT INTO schema_version (version) VALUES (0)");
  if (version > MIGRATIONS.length) throw new Error(`${path} was written by a newer Collie (schema ${version}); update Collie`);
  for (; version < MIGRATIONS.length; version++) {
    db.exec("BEGIN IMMEDIATE");
    try {
      db.exec(MIGRATIONS[version]!);
      db.prepare("UPDATE schema_version SET version = ?").run(version + 1);
      db.exec("COMMIT");
    } catch (err) {
      db.exec("ROLLBACK");
      throw err;
    }
  }
  if (path !== ":memory:") for (const f of [`${path}-wal`, `${path}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
  return { db, path, close: () => db.close() };
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
