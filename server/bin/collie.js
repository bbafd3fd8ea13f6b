#!/usr/bin/env -S node --max-semi-space-size=1 --max-old-space-size=512 --optimize-for-size --v8-pool-size=1 --no-opt
/**
 * The `collie` bin (D-6): checks the Node version, then runs the command line: the daemon's built
 * JavaScript (server/dist/main.js, see below and build.js) or its TypeScript (src/main.ts).
 *
 * Collie uses node:sqlite and its sources are TypeScript, so it needs Node 22.19 or newer (S-3).
 * An older Node stops at the first `.ts` import with a stack trace (ERR_UNKNOWN_FILE_EXTENSION),
 * which tells a newcomer nothing. This file is plain JavaScript that any Node can read, so it says
 * instead, in one line, what is needed and how to get it. The shebang carries only flags every
 * Node since 14 knows: a flag an old Node does not know would stop it before this check could speak.
 *
 * The flags size V8 for a daemon (issue 18, docs/performance.md "Where the memory goes"); `npm
 * start` gives the same ones (a test keeps the two the same):
 * - `--max-semi-space-size=1`: Collie's allocations are many and small and die young; the default
 *   semi-spaces (16 MB each on 64-bit) hold about 20 MB an idle daemon never needs back.
 * - `--optimize-for-size`: every full GC is one that reduces memory: it runs when the old
 *   generation has grown a little past what is live (about 57 MB for 47 MB live), not 3–4 times
 *   it, and gives the freed pages back instead of pooling them (100+ MB pooled without it). Under
 *   streaming load at 1000 full panes that is 121–127 MB of RSS instead of 250–290 MB, for about
 *   10 % more CPU per events page.
 * - `--max-old-space-size=512`: a ceiling ten times the live heap at 1000 full panes (47 MB), with
 *   room for agents whose items are far larger than the bench's; V8's default here is 4 GB.
 * - `--v8-pool-size=1`: one V8 worker thread instead of four; each held its own malloc arena
 *   (about 5 MB of an idle daemon's RSS). A daemon's heap is small enough for one.
 * - `--no-opt`: no optimizing compiler (TurboFan); functions run in the interpreter and its
 *   baseline compiler (issue 31). An idle daemon then has 82 MB of RSS instead of 93 (6 MB of node's
 *   own compiler code never paged in, 5 MB of optimized code and compile memory), and 115–130 MB at
 *   1000 full panes instead of 129–144; the compile jobs no longer take a core from the agents on a
 *   small machine. The price is CPU under heavy streaming: about 40 % more per events page at
 *   4000 updates a second (a daemon at 82 % of a core instead of 63 %), about 5 % per ask idle;
 *   the latency goals are still met (docs/performance.md, "Without the optimizing compiler").
 */
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

const NEEDED = [22, 19];

function tooOld(version) {
  const [major, minor] = version.split(".").map(Number);
  return major < NEEDED[0] || (major === NEEDED[0] && minor < NEEDED[1]);
}

/** An argument as a shell reads it back: quoted when it holds anything but plain characters. */
function shellWord(arg) {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}

/** The same command under scripts/node22.sh, which provisions Node 22 (README, "Node ≥ 22.19"). */
function sameCommandUnderNode22(argv, lifecycleEvent) {
  const script = fileURLToPath(new URL("../../scripts/node22.sh", import.meta.url));
  // Short from the checkout's root, where the README runs everything; the full path elsewhere.
  const wrapper = relative(process.cwd(), script) === "scripts/node22.sh" ? "scripts/node22.sh" : script;
  // Under `npm start` the user typed npm's command, not the bin's.
  const command = lifecycleEvent === "start" ? ["npm", "start", ...(argv.length > 0 ? ["--", ...argv] : [])] : ["npx", "collie", ...argv];
  return [wrapper, ...command].map(shellWord).join(" ");
}

if (tooOld(process.versions.node)) {
  const argv = process.argv.slice(2);
  console.error(`collie: needs Node ${NEEDED.join(".")} or newer (this is Node ${process.versions.node}); run: ${sameCommandUnderNode22(argv, process.env.npm_lifecycle_event)}`);
  process.exit(1);
}

// node:sqlite announces itself as experimental on every start (an ExperimentalWarning); that notice
// is noise to a user of the CLI. Every other warning is printed as Node prints it.
const quietAlready = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((a) => a === "--no-warnings" || a.startsWith("--disable-warning"));
if (!quietAlready) {
  process.removeAllListeners("warning");
  process.on("warning", (warning) => {
    if (warning.name !== "ExperimentalWarning") process.stderr.write(`(node:${process.pid}) ${warning.name}: ${warning.message}\n`);
  });
}

// Stopping the command a user started stops everything it started. `npm exec` (npx) runs this bin
// through `sh -c`: npm passes a SIGTERM on to that shell, which dies of it without passing it on,
// and Collie would be left running with its example agent. So when npm started us and our parent
// goes away, that was npm being stopped: stop as if signalled, once (a second signal means "now").
if (process.env.npm_command !== undefined) {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, "SIGTERM");
  }, 250);
  watch.unref();
}

// What runs (issue 18): the built JavaScript in server/dist, so the daemon never loads Node's type
// stripper (swc as WebAssembly: 15–20 MB of RSS a daemon never gives back). build.js says when the
// build is current. Under the `collie-source` condition (`npm test`, the e2e journeys, the bench's
// source runs) the workspace packages resolve to their TypeScript, and so does the command line.
// Otherwise `serve` builds first when the sources changed since the last build (a fresh clone, a
// pull, an edit), a few seconds once; the short commands (pair, agents …) do not wait for a build
// and run from the sources while it is not current. A build that fails falls back to the sources.
let fromSources;
try {
  fromSources = import.meta.resolve("@colliepwa/shared").endsWith(".ts");
} catch {
  fromSources = false;
}
if (fromSources) {
  await import("../src/main.ts");
} else {
  const { BUILT_MAIN, build, buildState } = await import("./build.js");
  let built = buildState() === "current";
  if (!built && commandOf(process.argv.slice(2)) === "serve") {
    const r = await build({ log: (line) => console.log(`collie: ${line}`) });
    if (!r.ok) console.warn(`collie: could not build the daemon (${r.reason}); running it from its TypeScript sources instead`);
    built = r.ok;
  }
  if (built) {
    await import(BUILT_MAIN);
  } else {
    // The sources' own imports of @colliepwa/* need the condition that maps them to TypeScript.
    const { registerHooks } = await import("node:module");
    registerHooks({
      resolve: (specifier, context, next) => next(specifier, { ...context, conditions: [...context.conditions, "collie-source"] }),
    });
    await import("../src/main.ts");
  }
}

/** The command, as the command line reads it (src/cli/args.ts): the first positional; serve when none. */
function commandOf(argv) {
  if (argv.includes("--help")) return "help";
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--json" || (a.startsWith("--") && a.includes("="))) continue;
    if (a.startsWith("--")) {
      i++; // every other flag takes a value
      continue;
    }
    return a;
  }
  return "serve";
}
