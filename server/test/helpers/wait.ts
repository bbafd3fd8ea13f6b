/**
 * Waiting without timed assertions: `until` polls a condition until it holds, with one generous
 * overall deadline that only turns a hang into a readable failure. No test asserts on elapsed time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The overall deadline of a wait; generous, so a slow machine never fails a test. */
export const DEADLINE_MS = 20_000;

/**
 * Calls `fn` until it returns a value other than undefined, null or false, and returns that value.
 * `describe` is called on failure and says what was awaited (and what was seen instead).
 */
export async function until<T>(fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, describe: string | (() => string), ms: number = DEADLINE_MS): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== null && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) {
      const what = typeof describe === "string" ? describe : describe();
      throw new Error(`gave up waiting for: ${what}${last ? ` (last error: ${String(last)})` : ""}`);
    }
    await new Promise((r) => setTimeout(r, 15));
  }
}

const dirs: string[] = [];

/** A fresh private temp directory, removed by `removeTempDirs`. Short, so socket paths fit. */
export function tempDir(prefix = "collie-t-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
