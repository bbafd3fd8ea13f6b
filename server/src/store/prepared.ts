/**
 * Prepared statements, made once per database and SQL text. The state database's statements run
 * on the daemon's loop for every ask and every answer (a push's dedupe row, a decision, a held
 * write); preparing one again each time took 4–8 µs beside the 30 µs its write takes on the bench
 * machine (issue 31): a few percent of the daemon's work per ask, for nothing.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

const byDatabase = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

/** `db.prepare(sql)`, the first time; the same statement after. */
export function prepared(db: DatabaseSync, sql: string): StatementSync {
  let statements = byDatabase.get(db);
  if (!statements) byDatabase.set(db, (statements = new Map()));
  let statement = statements.get(sql);
  if (!statement) statements.set(sql, (statement = db.prepare(sql)));
  return statement;
}
