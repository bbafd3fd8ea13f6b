#!/usr/bin/env -S node --conditions=collie-source --max-semi-space-size=1
/**
 * The `collie` bin (D-6): checks the Node version, then runs the command line (src/main.ts).
 *
 * Collie is TypeScript run by Node's type stripping and uses node:sqlite, so it needs Node 22.19
 * or newer (S-3). An older Node stops at the first `.ts` import with a stack trace
 * (ERR_UNKNOWN_FILE_EXTENSION), which tells a newcomer nothing. This file is plain JavaScript that
 * any Node can read, so it says instead, in one line, what is needed and how to get it. The
 * shebang carries only flags every Node since 14 knows: a flag an old Node does not know would stop
 * it before this check could speak.
 *
 * `--max-semi-space-size=1` sizes V8's young generation for a daemon (issue: memory): Collie's
 * allocations are many and small and die young, and the default semi-spaces (16 MB each on 64-bit)
 * hold about 20 MB of memory that an idle daemon never needs back (142 → 121 MB RSS idle with the
 * example agent, docs/performance.md).
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

await import("../src/main.ts");
