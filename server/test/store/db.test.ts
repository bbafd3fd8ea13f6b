/**
 * Collie's state database (D-8, X-3): the state directory is owner-only (0700) and the database
 * files in it are owner-only (0600), also once the database has been written to and for a
 * directory that existed with wider permissions.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { closeAllDaemons, TestDaemon } from "../helpers/daemon.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";
import { heldAnswer } from "../helpers/held.ts";

after(async () => {
  await closeAllDaemons();
  removeTempDirs();
});

const mode = (path: string) => statSync(path).mode & 0o777;

function assertOwnerOnly(stateDir: string): void {
  assert.equal(mode(stateDir).toString(8), "700", `${stateDir}`);
  const files = readdirSync(stateDir);
  assert.ok(files.includes("collie.db"), files.join(", "));
  for (const f of files) assert.equal(mode(join(stateDir, f)).toString(8), "600", f);
}

test("a new state directory and its database are owner-only, before and after a write", async () => {
  const stateDir = join(tempDir(), "nested", "collie");
  const d = await TestDaemon.start({ sources: { fixed: [] }, stateDir });
  assertOwnerOnly(stateDir);
  d.daemon.held.hold(heldAnswer({ requestId: "r-1" }));
  assertOwnerOnly(stateDir);
  await d.close();
  assertOwnerOnly(stateDir);
});

test("an existing state directory with wider permissions is made owner-only", async () => {
  const stateDir = join(tempDir(), "state");
  mkdirSync(stateDir, { mode: 0o755 });
  const d = await TestDaemon.start({ sources: { fixed: [] }, stateDir });
  assertOwnerOnly(stateDir);
  await d.close();
  const again = await TestDaemon.start({ sources: { fixed: [] }, stateDir });
  assertOwnerOnly(stateDir);
  await again.close();
});
