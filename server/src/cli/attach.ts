/**
 * `collie durable attach <name> (--socket PATH | --url URL --token T)` (D-6): adds or updates one
 * entry of sources.json. Without either, the socket is `$COLLIE_DURABLE_SOCKET` (S-5). The result is checked like any sources.json before it is written, and
 * written atomically (temp file + rename) so a running Collie never reads half a file.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync, chmodSync } from "node:fs";
import { dirname } from "node:path";
import { envSocketPath, parseConfig, SOCKET_ENV, SourcesError } from "../sources/sources.ts";
import { UsageError } from "./args.ts";

export interface AttachInput {
  name: string;
  socket?: string;
  url?: string;
  token?: string;
  ca?: string;
}

/**
 * Returns "added" or "updated". Throws UsageError or SourcesError with a clear message. `keep`:
 * entries written before it into a new file (the bundled example the running Collie shows,
 * running-sources.ts).
 */
export function attach(path: string, given: AttachInput, env: NodeJS.ProcessEnv = process.env, keep: readonly { name: string; socket: string }[] = []): "added" | "updated" {
  // Neither --socket nor --url: the socket an agent's openCollie serves on by default (S-5).
  const fromEnv = given.socket === undefined && given.url === undefined ? envSocketPath(env) : null;
  const input = fromEnv === null ? given : { ...given, socket: fromEnv };
  if ((input.socket === undefined) === (input.url === undefined)) throw new UsageError(`give exactly one of --socket PATH or --url URL (or set ${SOCKET_ENV})`);
  if (input.url !== undefined && input.token === undefined) throw new UsageError("--url needs --token (a value, env:NAME or file:PATH)");
  if (input.socket !== undefined && input.token !== undefined) throw new UsageError("--token is only for --url: a socket is private to its owner");
  const entry: Record<string, string> & { name: string } = { name: input.name };
  if (input.socket !== undefined) entry.socket = input.socket;
  if (input.url !== undefined) entry.url = input.url;
  if (input.token !== undefined) entry.token = input.token;
  if (input.ca !== undefined) entry.ca = input.ca;
  return upsertEntry(path, "durable", entry, env, keep);
}

/**
 * Adds or replaces (by name) one entry of the `durable` or `crew` list of sources.json, keeping
 * everything else of the file; a new file starts with the `keep` entries. The result is checked like any sources.json before it is written,
 * and written atomically so a running Collie never reads half a file.
 */
export function upsertEntry(
  path: string, list: "durable" | "crew", entry: Record<string, string> & { name: string }, env: NodeJS.ProcessEnv = process.env,
  keep: readonly { name: string; socket: string }[] = [],
): "added" | "updated" {
  let doc: Record<string, unknown> = { durable: keep.map((k) => ({ name: k.name, socket: k.socket })) };
  let text: string | null = null;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    // a new file
  }
  if (text !== null) {
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw new SourcesError(`${path}: is not valid JSON (${(err as Error).message}); fix it before changing it`);
    }
    if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw new SourcesError(`${path}: top level: must be an object`);
  }
  const entries = Array.isArray(doc[list]) ? [...(doc[list] as unknown[])] : [];
  const at = entries.findIndex((e) => typeof e === "object" && e !== null && (e as { name?: unknown }).name === entry.name);
  const result = at >= 0 ? "updated" : "added";
  if (at >= 0) entries[at] = entry;
  else entries.push(entry);
  const next = { ...doc, [list]: entries };
  parseConfig(next, path, env); // refuse to write a file Collie would refuse to read
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
  return result;
}
