#!/usr/bin/env -S node --conditions=collie-source --disable-warning=ExperimentalWarning
/**
 * `collie`: the daemon and its command line (D-6).
 *
 *   collie [serve] [--sources F] [--port N] [--host H] [--state-dir D] [--allow-host NAME] [--fresh-state]
 *   collie durable attach <name> (--socket PATH | --url URL --token T [--ca file:PEM]) [--sources F]
 *   collie agents [--state-dir D]
 *   collie pair [--url ORIGIN] [--port N] [--state-dir D] [--json]
 *   collie devices [--state-dir D]
 *   collie devices revoke <id> [--state-dir D]
 *   collie crew invite [--url ORIGIN] [--state-dir D] [--json]
 *   collie crew join <name> <member-url> <invite> [--sources F] [--state-dir D]
 */
import { Daemon } from "./daemon.ts";
import { ExampleAgent } from "./cli/example-agent.ts";
import { attach } from "./cli/attach.ts";
import { stopOnSignals } from "./cli/shutdown.ts";
import { buildWebIfMissing } from "./cli/build-web.ts";
import { flag, parseArgs, UsageError, type Args } from "./cli/args.ts";
import { lockStateDir } from "./cli/state-lock.ts";
import { helpFor, USAGE } from "./cli/help.ts";
import { phoneHint } from "./cli/pair-hint.ts";
import { isLoopbackHost } from "./net/loopback.ts";
import { DEFAULT_HOST, DEFAULT_PORT, sourcesPath, stateDir } from "./paths.ts";
import { envSocketPath, SOCKET_ENV, SourcesError } from "./sources/sources.ts";
import type { AgentSummary } from "@colliepwa/shared";
import { adminRequest } from "./security/admin.ts";
import { joinCrew } from "./cli/crew-join.ts";
import { entriesToKeep, runningSources, whatHappens } from "./cli/running-sources.ts";
import { resolve as resolvePath } from "node:path";

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const [command = "serve", ...rest] = args.positionals;
  if (args.flags.has("help") || command === "help") {
    console.log(helpFor(command === "help" ? rest : args.positionals));
    return 0;
  }
  if (command === "serve") return serve(args);
  if (command === "durable" && rest[0] === "attach") return attachCommand(args, rest.slice(1));
  if (command === "agents") return agents(args);
  if (command === "pair") return pair(args);
  if (command === "devices" && rest[0] === "revoke") return revoke(args, rest[1]);
  if (command === "devices" && rest.length === 0) return devices(args);
  if (command === "crew" && rest[0] === "invite" && rest.length === 1) return crewInvite(args);
  if (command === "crew" && rest[0] === "join") return crewJoin(args, rest.slice(1));
  throw new UsageError(`unknown command ${JSON.stringify(args.positionals.join(" "))}`);
}

function port(args: Args): number {
  const raw = flag(args, "port") ?? process.env.COLLIE_PORT;
  if (raw === undefined) return DEFAULT_PORT;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--port ${raw} is not a port number`);
  return n;
}

async function serve(args: Args): Promise<number> {
  const sources = sourcesPath(flag(args, "sources"));
  const state = stateDir(flag(args, "state-dir"));
  const host = flag(args, "host") ?? DEFAULT_HOST;
  // Before anything touches the state directory: a second Collie on it stops here (D-8).
  const lock = lockStateDir(state);
  process.once("exit", () => lock.release());
  // A missing, empty or damaged state database where Collie kept its state stops here with what to
  // do, unless the user starts over on purpose (store/state-check.ts).
  const stateOpts = { freshState: args.flags.has("fresh-state"), staleLock: lock.tookOverStale };
  const envSocket = envSocketPath(process.env);
  // The bundled example (D-7) runs while the sources in force name its socket: with no
  // sources.json yet (the fallback), or once the first file kept it (docs/sources.md). The file's
  // folder is watched from the start, so a sources.json written later applies live (D-1).
  const example = new ExampleAgent(state);
  const daemon = await Daemon.create({
    sources: { path: sources, fallback: [example.source], applied: (durable) => example.keep(durable.some((s) => s.key === example.source.key)) },
    stateDir: state, extraHosts: extraHosts(args), envSocket, ...stateOpts,
  });
  if (!daemon.fallbackInForce) {
    console.log(`collie: agents from ${sources} (edits apply without a restart)`);
  } else {
    console.log(`collie: no sources.json at ${sources}, so Collie shows the bundled example agent "desk".`);
    console.log(`collie: put your own agents there (see sources.example.json, or run: collie durable attach <name> --socket PATH); Collie picks the file up without a restart.`);
  }
  // S-5: the variable an agent's openCollie reads is one Collie reads too.
  if (daemon.envAgent !== null) {
    console.log(`collie: ${SOCKET_ENV} is set, so Collie also shows the agent on ${envSocket} as "${daemon.envAgent}" (no sources.json entry names that socket).`);
  } else if (envSocket !== null) {
    console.log(`collie: ${SOCKET_ENV} names ${envSocket}, which sources.json lists already.`);
  }
  if (!isLoopbackHost(host)) {
    console.warn(`collie: WARNING: listening on ${host}, not loopback. Collie answers "Allow" on real tool calls: reach it only through a front door with TLS (docs/deployment.md), never a bare port.`);
  }
  await buildWebIfMissing();
  const address = await daemon.app.listen({ host, port: port(args) });
  lock.setPort(Number(new URL(address).port));
  // Stopping closes every socket and stops the example agent, within a few seconds (cli/shutdown.ts).
  // Before the line that says Collie listens: whatever reads that line and sends SIGTERM at once
  // (a service manager, a test) must find the handler there, not the default that kills silently.
  stopOnSignals(() => [daemon.close(), example.stop()]);
  console.log(`collie: listening on ${address} (state in ${state})`);
  console.log(`collie: pair a phone with: collie pair${flag(args, "state-dir") ? ` --state-dir ${state}` : ""}`);
  return -1; // keeps running
}

async function attachCommand(args: Args, rest: string[]): Promise<number> {
  const name = rest[0];
  if (!name) throw new UsageError("collie durable attach needs a name");
  const path = sourcesPath(flag(args, "sources"));
  const input: Parameters<typeof attach>[1] = { name };
  for (const key of ["socket", "url", "token", "ca"] as const) {
    const v = flag(args, key);
    if (v !== undefined) input[key] = v;
  }
  // The first file under a Collie that shows the bundled example keeps it (docs/sources.md).
  const state = stateDir(flag(args, "state-dir"));
  const running = await runningSources(state);
  const keep = entriesToKeep(running, path, name);
  const result = attach(path, input, process.env, keep);
  console.log(`collie: ${result} ${name} in ${path}`);
  if (input.socket === undefined && input.url === undefined) console.log(`collie: its socket is ${envSocketPath(process.env)}, from ${SOCKET_ENV}`);
  console.log(`collie: ${whatHappens(running, path, keep, state)}`);
  return 0;
}

function extraHosts(args: Args): string[] {
  const list = [flag(args, "allow-host"), ...(process.env.COLLIE_ALLOWED_HOSTS ?? "").split(",")];
  return list.map((h) => (h ?? "").trim()).filter(Boolean);
}

/** Talks to the running daemon over its owner-only admin socket in the state directory. */
async function admin(args: Args, method: string, path: string): Promise<Record<string, unknown>> {
  const r = await adminRequest(stateDir(flag(args, "state-dir")), method, path);
  if (r.status !== 200) throw new Error(String(r.body.message ?? `the daemon answered ${r.status}`));
  return r.body;
}

async function agents(args: Args): Promise<number> {
  const list = (await admin(args, "GET", "/agents")).agents as AgentSummary[];
  if (list.length === 0) {
    console.log("no durable agents attached");
    return 0;
  }
  const rows = list.map((a) => [
    a.name,
    a.state,
    a.reach,
    a.state === "ready" ? `${a.counts.open} open, ${a.counts.waiting} waiting` : a.problem ?? "",
  ]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length), ["NAME", "STATE", "REACH"][i]!.length));
  const line = (r: string[]) => r.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c)).join("  ");
  console.log(line(["NAME", "STATE", "REACH", "CONVERSATIONS"]));
  for (const r of rows) console.log(line(r));
  return 0;
}

/** `collie pair`: a one-time link (and QR code) with a short-lived code (X-1). */
async function pair(args: Args): Promise<number> {
  const { code, expiresAt, origin: running } = (await admin(args, "POST", "/pair-codes")) as { code: string; expiresAt: number; origin?: string | null };
  // --url, else an explicit --port, else where the running daemon says it listens (a daemon on
  // another port gets a link to that port), else the default.
  const explicitPort = flag(args, "port") !== undefined;
  const origin = (flag(args, "url") ?? (explicitPort ? null : running) ?? `http://${DEFAULT_HOST}:${port(args)}`).replace(/\/+$/, "");
  const link = `${origin}/#/pair/${code}`;
  if (args.flags.has("json")) {
    console.log(JSON.stringify({ code, link, expiresAt: new Date(expiresAt).toISOString() }));
    return 0;
  }
  console.log(`Open this link on your phone (valid for 10 minutes, once):\n\n  ${link}\n`);
  // Loaded here, not at start: only `collie pair` draws a QR code (issue: memory).
  const { default: qrcode } = await import("qrcode-terminal");
  qrcode.generate(link, { small: true }, (qr: string) => console.log(qr));
  console.log(`Or type the code on the pairing page: ${code}`);
  const hint = phoneHint(origin);
  if (hint) console.log(hint);
  return 0;
}

async function devices(args: Args): Promise<number> {
  const list = (await admin(args, "GET", "/devices")).devices as { id: string; name: string; kind: string; createdAt: number; lastSeen: number }[];
  if (list.length === 0) {
    console.log("no paired devices");
    return 0;
  }
  for (const d of list) {
    const kind = d.kind === "crew-lead" ? "  (crew lead)" : "";
    console.log(`${d.id}  ${d.name}${kind}  paired ${new Date(d.createdAt).toISOString()}  last seen ${new Date(d.lastSeen).toISOString()}`);
  }
  return 0;
}

async function revoke(args: Args, id: string | undefined): Promise<number> {
  if (!id) throw new UsageError("collie devices revoke needs a device id (see: collie devices)");
  await admin(args, "DELETE", `/devices/${encodeURIComponent(id)}`);
  console.log(`collie: revoked ${id}`);
  return 0;
}

/** `collie crew invite`: a one-time invite a lead Collie redeems with `collie crew join` (C-1). */
async function crewInvite(args: Args): Promise<number> {
  const { invite, origin: running } = (await admin(args, "POST", "/crew-invites")) as { invite: string; expiresAt: number; origin?: string | null };
  // --url (the member's front door), else where the running member says it listens.
  const url = (flag(args, "url") ?? running ?? `http://${DEFAULT_HOST}:${DEFAULT_PORT}`).replace(/\/+$/, "");
  if (args.flags.has("json")) {
    console.log(JSON.stringify({ url, invite }));
    return 0;
  }
  console.log(`On the lead machine, run (valid for 10 minutes, once):\n\n  collie crew join <name-for-this-machine> ${url} ${invite}\n`);
  return 0;
}

/** `collie crew join`: redeems a member's invite and adds the member to sources.json (C-1). */
async function crewJoin(args: Args, rest: string[]): Promise<number> {
  const [name, url, invite] = rest;
  if (!name || !url || !invite || rest.length > 3) throw new UsageError("collie crew join needs <name> <member-url> <invite> (from collie crew invite on the member)");
  const sources = sourcesPath(flag(args, "sources"));
  const state = stateDir(flag(args, "state-dir"));
  // The first file under a lead that shows the bundled example keeps it (docs/sources.md).
  const running = await runningSources(state);
  const keep = entriesToKeep(running, sources, null);
  const { result } = await joinCrew({ name, url, invite, sourcesPath: sources, stateDir: state, keep });
  const shown = running?.path !== undefined && running.path !== null && resolvePath(running.path) === resolvePath(sources);
  console.log(`collie: ${result} crew member ${name} in ${sources}${shown ? "; its agents show on this Collie's phone" : ""}`);
  console.log(`collie: ${whatHappens(running, sources, keep, state)}`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`collie: ${err.message}\n${USAGE}`);
      process.exit(2);
    }
    if (err instanceof SourcesError) {
      console.error(`collie: ${err.message}`);
      process.exit(1);
    }
    console.error(`collie: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
