/**
 * What a change to sources.json means for the running Collie (D-1, D-6, issue #34 and #37):
 * `collie durable attach` and `collie crew join` ask it (over the admin socket) which file it reads
 * and whether it shows the bundled example because no file exists yet. The first file they write
 * under such a Collie keeps the example, as an ordinary socket entry for the example's socket, so
 * the user's desk does not vanish (docs/sources.md); and the command says what happens.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { adminRequest } from "../security/admin.ts";

/** The sources in force of the Collie running with a state directory. */
export interface RunningSources {
  /** The sources.json it reads (null: fixed sources). */
  path: string | null;
  /** The bundled example's entries while no file exists yet, else null. */
  fallback: { name: string; socket: string }[] | null;
}

/** Asks the Collie running with `stateDir`; null when none runs there (or it is too old to say). */
export async function runningSources(stateDir: string): Promise<RunningSources | null> {
  try {
    const r = await adminRequest(stateDir, "GET", "/sources");
    if (r.status !== 200) return null;
    const { path, fallback } = r.body as { path?: unknown; fallback?: unknown };
    const entries = Array.isArray(fallback)
      ? fallback.filter((e): e is { name: string; socket: string } => typeof e?.name === "string" && typeof e?.socket === "string")
      : null;
    return { path: typeof path === "string" ? path : null, fallback: entries };
  } catch {
    return null;
  }
}

/** The example entry (or entries) to write first: only into a new file the running Collie reads while it shows the example. */
export function entriesToKeep(running: RunningSources | null, path: string, newName: string | null): { name: string; socket: string }[] {
  if (!running?.fallback || running.path === null || resolve(running.path) !== resolve(path) || existsSync(path)) return [];
  // Another entry of the same name is the user's: the example steps aside, as `desk-example`.
  return running.fallback.map((e) => (e.name === newName ? { ...e, name: `${e.name}-example` } : e));
}

/** The line the command prints about the running Collie, after the file was written. */
export function whatHappens(running: RunningSources | null, path: string, kept: readonly { name: string }[], stateDir: string): string {
  if (running === null) return `no Collie is running with the state directory ${stateDir}; it reads ${path} when it starts`;
  if (running.path === null || resolve(running.path) !== resolve(path)) {
    return `the running Collie reads ${running.path ?? "fixed sources"}, not this file; start it with --sources ${path} to use it`;
  }
  const example = kept.length > 0
    ? `, and keeps showing the bundled example "${kept[0]!.name}": it is now an entry of ${path} (remove that entry to stop the example)`
    : "";
  return `the running Collie applies it now${example}`;
}
