/**
 * A real full disk under held writes (issue 38, item 11): a tiny tmpfs, mounted in a mount
 * namespace of its own (`unshare -m`, so nothing outside sees it and it goes with the process).
 * Every hold the disk cannot take answers 507 storage-failed with a log line, and what Collie says
 * it holds is what the database holds after a restart: the failure comes when the commit writes
 * the WAL, which a statement that returned its row already could hide. Skipped where the machine
 * allows no mount namespace (the test names why).
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { after, test } from "node:test";
import { NODE_FLAGS } from "../helpers/child-agent.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

after(() => removeTempDirs());

const FIXTURE = fileURLToPath(new URL("../fixtures/hold-until-full.ts", import.meta.url));

function canMount(dir: string): string | null {
  try {
    execFileSync("unshare", ["-m", "sh", "-c", `mount -t tmpfs -o size=64k tmpfs '${dir}'`], { stdio: "pipe" });
    return null;
  } catch (err) {
    return `no private tmpfs here (unshare -m and mount): ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
  }
}

test("a full disk: each hold it cannot take is 507 with a log line, and nothing is counted that is not on disk", (t) => {
  const mountPoint = tempDir("collie-full-");
  const why = canMount(mountPoint);
  if (why) return t.skip(why);
  const node = [process.execPath, ...NODE_FLAGS, FIXTURE, join(mountPoint, "state")].map((a) => `'${a}'`).join(" ");
  const r = spawnSync("unshare", ["-m", "sh", "-c", `mount -t tmpfs -o size=2m tmpfs '${mountPoint}' && exec ${node}`], { encoding: "utf8", env: process.env });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { statuses: Record<string, number>; tally: number; rows: number; reread: number; firstLog: string | null; logs: number };
  assert.ok((out.statuses["507"] ?? 0) > 0, `the disk filled: ${JSON.stringify(out)}`);
  assert.ok((out.statuses["202"] ?? 0) > 0, JSON.stringify(out));
  assert.equal(out.logs, out.statuses["507"], "one log line per refusal");
  assert.match(out.firstLog ?? "", /could not hold send r-\d+ for desk: the state database .*collie\.db could not be written: database or disk is full/);
  assert.equal(out.rows, out.statuses["202"], "every 202 is on disk, and nothing else");
  assert.equal(out.tally, out.rows, "the count Collie kept is what the database holds");
  assert.equal(out.reread, out.rows);
});
