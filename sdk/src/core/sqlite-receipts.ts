/**
 * A durable ReceiptStore on `node:sqlite` (S-28, "going further"): receipts survive a restart of
 * the agent, so a phone's retry after the agent came back still executes nothing. Pass it to
 * `createCore({receipts})`.
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
    const { DatabaseSync } = process.getBuiltinModule("node:sqlite") as typeof import("node:sqlite");
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
