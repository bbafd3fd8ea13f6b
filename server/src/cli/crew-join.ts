/**
 * `collie crew join <name> <member-url> <invite>` (C-1): run on the lead. Redeems the member's
 * one-time invite over the member's front door, keeps the long-lived crew credential in an
 * owner-only file in the lead's state directory, and adds or updates the member's `crew` entry in
 * sources.json with `token: "file:…"` (a running lead picks it up live, like a durable entry).
 * The credential is never printed.
 */
import { chmodSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { CREW_HEADER, CREW_JOIN_PATH, CREW_PROTOCOL_VERSION, crewMismatch } from "../crew/protocol.ts";
import { parseConfig, tokenProblem } from "../sources/sources.ts";
import { upsertEntry } from "./attach.ts";
import { openStateDb } from "../store/db.ts";
import { DB_FILE, dbFileState, usedBefore } from "../store/state-check.ts";
import { UsageError } from "./args.ts";

export interface JoinInput {
  /** The member's name on the lead's phone. */
  name: string;
  /** The member's front door, e.g. `https://workshop.example.ts.net`. */
  url: string;
  invite: string;
  sourcesPath: string;
  stateDir: string;
  /** The name the member lists the lead under (`collie devices` there); the host name by default. */
  leadName?: string;
  /** Entries a new sources.json starts with (the bundled example the running Collie shows). */
  keep?: readonly { name: string; socket: string }[];
}

const JOIN_TIMEOUT_MS = 15_000;

/** Returns "added" or "updated" and the credential file. Throws with a message for the user. */
export async function joinCrew(input: JoinInput, env: NodeJS.ProcessEnv = process.env): Promise<{ result: "added" | "updated"; tokenFile: string }> {
  let origin: string;
  try {
    origin = new URL(input.url).origin;
  } catch {
    throw new UsageError(`${input.url} is not a URL (the member's front door, e.g. https://workshop.example.ts.net)`);
  }
  // The entry is checked before the invite is spent: a bad name or url must not waste it.
  const probe = { crew: [{ name: input.name, url: input.url, token: "x".repeat(32) }] };
  parseConfig(probe, input.sourcesPath, env);
  let res: Response;
  try {
    res = await fetch(`${origin}${CREW_JOIN_PATH}`, {
      method: "POST",
      // The member refuses a lead on a crew protocol it does not speak, before spending the invite.
      headers: { "content-type": "application/json", [CREW_HEADER]: String(CREW_PROTOCOL_VERSION) },
      body: JSON.stringify({ invite: input.invite, name: input.leadName ?? hostname() }),
      signal: AbortSignal.timeout(JOIN_TIMEOUT_MS),
      // The invite goes to the member named, never on to wherever a redirect points (its answer
      // would become a stored credential for an address the user never typed).
      redirect: "manual",
    });
  } catch (err) {
    throw new Error(`cannot reach the member at ${origin} (${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message})`);
  }
  let body: Record<string, unknown> = {};
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    // an answer that is not JSON: not a Collie, or one from before crews
  }
  if (res.status >= 300 && res.status < 400) throw new Error(`the member at ${origin} answered with a redirect (${res.status}); give its front door's own address`);
  if (res.status === 404) throw new Error(`the member at ${origin} runs a Collie without crews; update it first`);
  if (res.status !== 200) throw new Error(`the member refused the invite: ${typeof body.message === "string" ? body.message : `status ${res.status}`}`);
  if (body.crew !== CREW_PROTOCOL_VERSION) throw new Error(`${crewMismatch(typeof body.crew === "number" ? body.crew : null, CREW_PROTOCOL_VERSION)}; update the older one`);
  if (typeof body.token !== "string") throw new Error("the member's answer carried no credential");
  const tokenWrong = tokenProblem(body.token);
  if (tokenWrong) throw new Error(`the member's credential ${tokenWrong}; nothing was written`);
  // A state directory never used gets its database first: the credential written below is a sign
  // of a used directory, so a database missing beside it later is refused, not started over.
  if (dbFileState(join(input.stateDir, DB_FILE)) === "missing" && usedBefore(input.stateDir).length === 0) openStateDb(input.stateDir).close();
  const dir = join(input.stateDir, "crew");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const tokenFile = join(dir, `${input.name}.token`);
  const tmp = `${tokenFile}.${process.pid}.tmp`;
  writeFileSync(tmp, `${body.token}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, tokenFile);
  const result = upsertEntry(input.sourcesPath, "crew", { name: input.name, url: origin, token: `file:${tokenFile}` }, env, input.keep ?? []);
  return { result, tokenFile };
}
