/** Private temporary folders for tests (created 0700 by mkdtemp), removed in an `after` hook. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

/** A new private folder under the system's temp folder. Short names keep socket paths under 108 bytes. */
export function tempDir(prefix = "collie-t-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder `tempDir` made. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
