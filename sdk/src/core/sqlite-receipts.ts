/**
 * A durable ReceiptStore on `node:sqlite` (S-28, "going further"): receipts survive a restart of
 * the agent, so a phone's retry after the agent came back still executes nothing. Pass it to
 * `createCore({receipts})`. It needs a runtime with `node:sqlite`: Node 22.19 or newer, or Bun 1.4
 * (which provides `node:sqlite`; the SDK's tests run it there). Elsewhere the constructor throws an
 * Error that says so, rather than failing somewhere inside.
 */
import { RECEIPTS_PER_GROUP } from "../wire/constants.ts";
import type { ReceiptLookup, ReceiptRecord, ReceiptStore } from "./receipts.ts";

type DatabaseSync = import("node:sqlite").DatabaseSync;
type Statement = ReturnType<DatabaseSync["prepare"]>;

export class SqliteReceiptStore implements ReceiptStore {
  readonly perGroup: number;
  readonly #db: DatabaseSync;
  readonly #get: Statement;
  readonly #isDropped: Statement;
  readonly #insert: Statement;
  readonly #overflow: Statement;
  readonly #markDropped: Statement;
  readonly #delete: Statement;

  /** Opens (or creates) the store at `path`; `":memory:"` works for tests. */
  constructor(path: string, opts: { perGroup?: number } = {}) {
    this.perGroup = opts.perGroup ?? RECEIPTS_PER_GROUP;
    // Loaded here, not at import: agents that never use this store never load node:sqlite.
    const DatabaseSync = loadDatabaseSync();
    this.#db = new DatabaseSync(path);
    this.#db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      CREATE TABLE IF NOT EXISTS receipts (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        request_id TEXT NOT NULL UNIQUE,
        grp TEXT NOT NULL,
        status INTEGER NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS receipts_grp ON receipts (grp, seq);
      CREATE TABLE IF NOT EXISTS dropped (request_id TEXT PRIMARY KEY);
    `);
    this.#get = this.#db.prepare("SELECT status, body FROM receipts WHERE request_id = ?");
    this.#isDropped = this.#db.prepare("SELECT 1 FROM dropped WHERE request_id = ?");
    this.#insert = this.#db.prepare("INSERT OR IGNORE INTO receipts (request_id, grp, status, body) VALUES (?, ?, ?, ?)");
    this.#overflow = this.#db.prepare("SELECT seq, request_id FROM receipts WHERE grp = ? ORDER BY seq DESC LIMIT -1 OFFSET ?");
    this.#markDropped = this.#db.prepare("INSERT OR IGNORE INTO dropped (request_id) VALUES (?)");
    this.#delete = this.#db.prepare("DELETE FROM receipts WHERE seq = ?");
  }

  get(requestId: string): ReceiptLookup {
    const row = this.#get.get(requestId) as { status: number; body: string } | undefined;
    if (row) return { status: row.status, body: JSON.parse(row.body) as Record<string, unknown> };
    return this.#isDropped.get(requestId) ? "dropped" : undefined;
  }

  put(requestId: string, record: ReceiptRecord, group: string): void {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      this.#insert.run(requestId, group, record.status, JSON.stringify(record.body));
      for (const row of this.#overflow.all(group, this.perGroup) as { seq: number; request_id: string }[]) {
        this.#markDropped.run(row.request_id);
        this.#delete.run(row.seq);
      }
      this.#db.exec("COMMIT");
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  close(): void {
    this.#db.close();
  }
}

/**
 * `node:sqlite`'s `DatabaseSync`, or an Error naming what is missing (S-3). `getBuiltin` is the
 * runtime's `process.getBuiltinModule`; a test passes one that has no `node:sqlite`.
 */
export function loadDatabaseSync(getBuiltin: ((id: string) => unknown) | undefined = process.getBuiltinModule): typeof import("node:sqlite").DatabaseSync {
  let mod: Partial<typeof import("node:sqlite")> | undefined;
  try {
    mod = getBuiltin?.("node:sqlite") as Partial<typeof import("node:sqlite")> | undefined;
  } catch {
    mod = undefined;
  }
  if (typeof mod?.DatabaseSync !== "function") {
    const bun = (process.versions as Record<string, string | undefined>).bun;
    const runtime = bun ? `Bun ${bun}` : `Node ${process.versions.node}`;
    throw new Error(
      `SqliteReceiptStore needs node:sqlite (Node 22.19 or newer, or Bun 1.4 or newer), and ${runtime} does not provide it. ` +
        "Use MemoryReceiptStore, or pass a ReceiptStore of your own to createCore({receipts}).",
    );
  }
  return mod.DatabaseSync;
}
