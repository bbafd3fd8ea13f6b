/**
 * The audit log's bound (issue: security): one older file is kept and the log rotates before a
 * line would take it past AUDIT_MAX_BYTES, counting what it appended itself (its size is read
 * from disk once, issue 31); the file stays owner-only.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { AUDIT_MAX_BYTES, AuditLog, type AuditEntry } from "../../src/security/audit.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

after(() => removeTempDirs());

const entry = (n: number): AuditEntry => ({ action: "send", agent: "desk", pane: "p1", requestId: `req-${n}`, device: "Pixel", status: 200, outcome: "ok" });

test("a line that would pass the bound rotates the log first, counting the lines this log appended since it read the size", () => {
  const dir = tempDir();
  const path = join(dir, "audit.log");
  writeFileSync(path, "", { mode: 0o600 });
  // Room for about one line of ~150 bytes: the second must rotate, though no stat saw the first.
  truncateSync(path, AUDIT_MAX_BYTES - 250);
  const log = new AuditLog(dir, () => Date.parse("2026-12-07T10:00:00.000Z"));
  log.write(entry(1));
  assert.equal(existsSync(`${path}.1`), false);
  const afterFirst = statSync(path).size;
  assert.ok(afterFirst > AUDIT_MAX_BYTES - 250 && afterFirst <= AUDIT_MAX_BYTES);
  log.write(entry(2));
  assert.equal(statSync(`${path}.1`).size, afterFirst, "the full log was kept as the older file");
  const lines = readFileSync(path, "utf8").trim().split("\n");
  assert.deepEqual(lines.map((l) => (JSON.parse(l) as AuditEntry).requestId), ["req-2"]);
  assert.equal(statSync(path).mode & 0o777, 0o600);
});

test("a log file removed while Collie runs is written again, owner-only", () => {
  const dir = tempDir();
  const path = join(dir, "audit.log");
  const log = new AuditLog(dir);
  log.write(entry(1));
  assert.equal(statSync(path).mode & 0o777, 0o600);
  rmSync(path);
  log.write(entry(2));
  assert.deepEqual(readFileSync(path, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as AuditEntry).requestId), ["req-2"]);
  assert.equal(statSync(path).mode & 0o777, 0o600);
});
