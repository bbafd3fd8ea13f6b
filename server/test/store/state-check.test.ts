/**
 * A lost or damaged state database is never a silent fresh start (issue 35, items 3 and 4): in a
 * state directory that was used before (Collie's marker, the audit log, crew credentials, WAL
 * files, a stale lock), a missing, emptied or table-less collie.db stops Collie with a message
 * naming the file and what to do, and nothing is written (no new push keys); a damaged one too,
 * and it is never overwritten. `--fresh-state` starts over on purpose, keeping a damaged file
 * aside. A directory never used starts as before.
 */
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, describe, test } from "node:test";
import { Daemon } from "../../src/daemon.ts";
import { openStateDb } from "../../src/store/db.ts";
import { STATE_MARKER, StateDbRefused } from "../../src/store/state-check.ts";
import { collie } from "../helpers/cli.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

after(() => removeTempDirs());

const quiet = () => {};

/** A state directory a Collie ran in: a paired phone and its push keys in the database. */
async function usedStateDir(): Promise<{ dir: string; db: string; publicKey: string }> {
  const dir = join(tempDir(), "state");
  const d = await Daemon.create({ sources: { fixed: [] }, stateDir: dir, log: quiet });
  const paired = d.devices.pair(d.devices.createCode().code, "phone", "test");
  assert.ok(paired.ok);
  const publicKey = d.push!.publicKey;
  await d.close();
  return { dir, db: join(dir, "collie.db"), publicKey };
}

const refusal = async (dir: string, opts: { staleLock?: boolean } = {}): Promise<string> => {
  try {
    const d = await Daemon.create({ sources: { fixed: [] }, stateDir: dir, log: quiet, ...opts });
    await d.close();
  } catch (err) {
    assert.ok(err instanceof StateDbRefused, String(err));
    return err.message;
  }
  assert.fail("Collie started");
};

describe("a state database that is gone (issue 35, item 3)", () => {
  test("a directory never used starts, and is marked as used (owner-only)", async () => {
    const dir = join(tempDir(), "state");
    openStateDb(dir).close();
    const marker = join(dir, STATE_MARKER);
    assert.ok(existsSync(marker));
    assert.equal(statSync(marker).mode & 0o777, 0o600);
    assert.equal(JSON.parse(readFileSync(marker, "utf8")).database, "collie.db");
  });

  test("collie.db emptied to 0 bytes: Collie refuses, names the file and what to do, and writes nothing (no new push keys)", async () => {
    const { dir, db } = await usedStateDir();
    truncateSync(db, 0);
    const message = await refusal(dir);
    assert.match(message, new RegExp(`the state database ${db.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} is empty, but .* was used before \\(${STATE_MARKER}`));
    assert.match(message, /Restore collie\.db from a backup .* or start fresh on purpose: collie serve --fresh-state/);
    assert.equal(statSync(db).size, 0, "the file was not written");
    assert.ok(!existsSync(`${db}-wal`));
  });

  test("collie.db deleted, or holding no Collie table: refused alike", async () => {
    const gone = await usedStateDir();
    for (const f of ["", "-wal", "-shm"]) if (existsSync(`${gone.db}${f}`)) truncateSync(`${gone.db}${f}`, 0);
    const { rmSync } = await import("node:fs");
    rmSync(gone.db);
    assert.match(await refusal(gone.dir), /is missing, but .* was used before/);
    assert.ok(!existsSync(gone.db), "no new database made");

    const blank = await usedStateDir();
    rmSync(blank.db);
    const raw = new DatabaseSync(blank.db);
    raw.exec("CREATE TABLE unrelated (x)");
    raw.close();
    assert.match(await refusal(blank.dir), /is empty, but .* was used before/);
  });

  test("each trace alone says the directory was used: the audit log, crew credentials, the database's WAL files, a stale lock", async () => {
    for (const trace of ["audit.log", "crew", "collie.db-wal", "lock"]) {
      const dir = join(tempDir(), "state");
      mkdirSync(dir, { recursive: true });
      if (trace === "crew") mkdirSync(join(dir, "crew"));
      else if (trace !== "lock") writeFileSync(join(dir, trace), "");
      const message = await refusal(dir, trace === "lock" ? { staleLock: true } : {});
      assert.match(message, trace === "lock" ? /collie\.lock \(left by a Collie that did not stop cleanly\)/ : new RegExp(trace.replace(".", "\\.")), trace);
    }
  });

  test("--fresh-state starts over on purpose: a new database, new push keys, the old WAL kept aside; said in the log", async () => {
    const { dir, db, publicKey } = await usedStateDir();
    truncateSync(db, 0);
    writeFileSync(`${db}-wal`, "left over");
    const logs: string[] = [];
    const d = await Daemon.create({ sources: { fixed: [] }, stateDir: dir, log: (l) => logs.push(l), freshState: true });
    assert.notEqual(d.push!.publicKey, publicKey);
    assert.equal(d.devices.list().length, 0);
    await d.close();
    assert.ok(logs.some((l) => /--fresh-state: starting a new state database in .*collie\.db \(the one there was empty\)/.test(l)), logs.join("\n"));
    assert.ok(readdirSync(dir).some((f) => /^collie\.db\.damaged-.*-wal$/.test(f) && readFileSync(join(dir, f), "utf8") === "left over"), readdirSync(dir).join(" "));
  });

  test("collie serve on an emptied database exits 1 with the message; --help lists --fresh-state", async () => {
    const { dir, db } = await usedStateDir();
    truncateSync(db, 0);
    const r = await collie(["serve", "--state-dir", dir, "--sources", join(dir, "none.json"), "--port", "0"]);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /^collie: the state database .*collie\.db is empty, but .* collie serve --fresh-state/m);
    assert.equal(statSync(db).size, 0);
    assert.ok(!existsSync(join(dir, "collie.lock")), "the lock is released");
  });
});

describe("a damaged state database (issue 35, item 4)", () => {
  test("refused with the file and what to do; the file is left exactly as it was", async () => {
    const { dir, db } = await usedStateDir();
    const bytes = readFileSync(db);
    // Damage the middle of the file, past the header: SQLite opens it and finds the damage.
    const damaged = Buffer.from(bytes);
    damaged.fill(0xa5, 4096 + 100, Math.min(damaged.length, 4096 * 4));
    writeFileSync(db, damaged);
    const message = await refusal(dir);
    assert.doesNotMatch(message, /\n/, "one line");
    assert.match(message, new RegExp(`the state database .*collie\\.db is damaged \\(.*malformed.*\\)`));
    assert.match(message, /Restore collie\.db from a backup .* or start fresh on purpose: collie serve --fresh-state \(it keeps the damaged file beside it as collie\.db\.damaged-<time>/);
    assert.deepEqual(readFileSync(db), damaged, "not a byte changed");
    assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith("collie.db")), ["collie.db"], "no file made beside it");

    writeFileSync(db, "not a database at all, just text ".repeat(200));
    assert.match(await refusal(dir), /is damaged \(file is not a database\)/);
  });

  test("--fresh-state keeps the damaged file aside and starts a new one; a sound database it leaves alone", async () => {
    const { dir, db } = await usedStateDir();
    writeFileSync(db, "not a database at all, just text ".repeat(200));
    const logs: string[] = [];
    const d = await Daemon.create({ sources: { fixed: [] }, stateDir: dir, log: (l) => logs.push(l), freshState: true });
    await d.close();
    const aside = readdirSync(dir).find((f) => /^collie\.db\.damaged-[0-9T-]+Z$/.test(f));
    assert.ok(aside, readdirSync(dir).join(" "));
    assert.match(readFileSync(join(dir, aside), "utf8"), /^not a database/);
    assert.ok(logs.some((l) => /--fresh-state: .*collie\.db was damaged \(file is not a database\); it is kept as/.test(l)), logs.join("\n"));

    const sound = await usedStateDir();
    const copy = join(sound.dir, "copy.db");
    copyFileSync(sound.db, copy);
    const again: string[] = [];
    const d2 = await Daemon.create({ sources: { fixed: [] }, stateDir: sound.dir, log: (l) => again.push(l), freshState: true });
    assert.equal(d2.push!.publicKey, sound.publicKey, "the same push keys");
    assert.equal(d2.devices.list().length, 1, "the same paired phone");
    await d2.close();
    assert.ok(again.some((l) => /is sound, so nothing was started over/.test(l)));
  });
});
