/**
 * The daemon's built JavaScript (issue 18, docs/performance.md): `collie serve` runs
 * `server/dist/main.js`, compiled by tsc from the TypeScript of server/, shared/ and sdk/, instead
 * of type stripping the sources as it starts. Node's type stripping loads swc as WebAssembly, which
 * costs a daemon 15–20 MB of RSS it never gives back.
 *
 * - Each package builds into its own `dist/` (ignored by git), where its package.json "exports"
 *   point when the `collie-source` condition is off: `sdk/dist` (the SDK's publish build, the same
 *   tsconfig.build.json), `shared/dist`, `server/dist`.
 * - The build is *current* when `server/dist/.collie-build.json` records the inputs as they are
 *   now: every file under the three `src/` directories and their tsconfig and package.json files,
 *   by path, size and mtime, and the TypeScript version. Checking takes a few milliseconds.
 * - Building runs tsc (`--noCheck`: `npm test` typechecks; the daemon only needs the JavaScript)
 *   into fresh directories beside each `dist/` and then swaps them in, under a lock, so two Collies
 *   starting at once build once and neither reads a half-written tree.
 *
 * Plain JavaScript: the bin loads it before anything in TypeScript, so a built start never loads
 * the type stripper. Also a script: `node server/bin/build.js` builds when not current
 * (`--force`: always), which is `npm run build:daemon`.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The packages the daemon runs, in the order they depend on one another, and the entries each build must hold. */
export const PACKAGES = [
  { dir: "sdk", entries: ["index.js", "core/index.js", "wire/index.js", "testing/index.js"] },
  { dir: "shared", entries: ["index.js", "strings.js", "phone-routes.js", "phone-schemas.js"] },
  { dir: "server", entries: ["main.js", "daemon.js"] },
];

/** What a build records about its inputs, in server/dist. */
export const STAMP = join("server", "dist", ".collie-build.json");
const LOCK = join("server", ".dist-lock");
/** A lock older than this with its owner still alive is taken as abandoned anyway. */
const LOCK_STALE_MS = 10 * 60_000;

function listFiles(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, e.name);
    if (e.isDirectory()) listFiles(path, out);
    else out.push(path);
  }
}

/** The build's inputs as they are now: [path, size, mtime] of each, and the TypeScript version. */
export function inputs(root = ROOT) {
  const files = [join(root, "tsconfig.base.json")];
  for (const p of PACKAGES) {
    files.push(join(root, p.dir, "package.json"), join(root, p.dir, "tsconfig.build.json"));
    listFiles(join(root, p.dir, "src"), files);
  }
  const list = files.map((f) => {
    try {
      const s = statSync(f);
      return [relative(root, f), s.size, Math.round(s.mtimeMs)];
    } catch {
      return [relative(root, f), -1, 0];
    }
  });
  return { typescript: typescriptVersion(root), files: list };
}

function typescriptVersion(root) {
  try {
    return JSON.parse(readFileSync(join(root, "node_modules", "typescript", "package.json"), "utf8")).version ?? null;
  } catch {
    return null;
  }
}

/**
 * "current" (run server/dist), "stale" (built from other sources) or "missing" (never built, or a
 * part of it is gone).
 */
export function buildState(root = ROOT) {
  for (const p of PACKAGES) for (const e of p.entries) if (!existsSync(join(root, p.dir, "dist", e))) return "missing";
  let stamp;
  try {
    stamp = readFileSync(join(root, STAMP), "utf8");
  } catch {
    return "missing";
  }
  return stamp === JSON.stringify(inputs(root)) ? "current" : "stale";
}

/** The built entry point, as a file URL for import(). */
export const BUILT_MAIN = new URL("../dist/main.js", import.meta.url).href;

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

/** Takes the build lock, waiting while another live process holds it; false after `waitMs`. */
async function lock(root, waitMs) {
  const dir = join(root, LOCK);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, "pid"), String(process.pid));
      return true;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
    }
    let owner = NaN;
    let age = 0;
    try {
      owner = Number(readFileSync(join(dir, "pid"), "utf8"));
      age = Date.now() - statSync(dir).mtimeMs;
    } catch {
      // being created or removed: look again
    }
    if ((Number.isInteger(owner) && owner > 0 && !alive(owner)) || age > LOCK_STALE_MS) rmSync(dir, { recursive: true, force: true });
    else if (Date.now() > deadline) return false;
    else await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Moves `fresh` to `dist`, the old `dist` aside first. Something else may write `dist` meanwhile
 * (`npm run build` of the SDK, or its test, writes sdk/dist in place from the same sources): when
 * `dist` is back before the rename, it goes aside again, a few times.
 */
function swapIn(fresh, dist, old) {
  for (let attempt = 0; ; attempt++) {
    rmSync(old, { recursive: true, force: true });
    if (existsSync(dist)) renameSync(dist, old);
    try {
      renameSync(fresh, dist);
      break;
    } catch (err) {
      if ((err.code !== "ENOTEMPTY" && err.code !== "EEXIST") || attempt >= 5) throw err;
    }
  }
  rmSync(old, { recursive: true, force: true });
}

function tsc(root, config, outDir) {
  const bin = join(root, "node_modules", "typescript", "bin", "tsc");
  if (!existsSync(bin)) return Promise.resolve({ code: 1, output: "TypeScript is not installed (node_modules/typescript): run npm install" });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, "-p", config, "--noCheck", "--outDir", outDir, "--pretty", "false"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    child.on("error", (err) => resolve({ code: 1, output: String(err) }));
    child.on("exit", (code) => resolve({ code: code ?? 1, output: output.trim() }));
  });
}

/**
 * Builds the three packages when the build is not current (or always, with `force`). Resolves to
 * `{ ok: true, built }` (built: whether it compiled anything) or `{ ok: false, reason }`.
 */
export async function build({ root = ROOT, force = false, log = () => {}, waitMs = 5 * 60_000 } = {}) {
  if (!force && buildState(root) === "current") return { ok: true, built: false };
  let locked;
  try {
    locked = await lock(root, waitMs);
  } catch (err) {
    return { ok: false, reason: `cannot take ${LOCK}: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!locked) return { ok: false, reason: `another build holds ${LOCK} for over ${Math.round(waitMs / 1000)} s` };
  try {
    // Another Collie may have built it while this one waited for the lock.
    if (!force && buildState(root) === "current") return { ok: true, built: false };
    const t0 = performance.now();
    log("building the daemon's JavaScript (server/dist, shared/dist, sdk/dist) with tsc …");
    const recorded = inputs(root);
    const tmp = (p) => join(root, p.dir, `.dist-new-${process.pid}`);
    // What a build cut short (Ctrl-C, a crash) left: only the lock's holder builds, so none is in use.
    for (const p of PACKAGES) {
      for (const e of readdirSync(join(root, p.dir))) if (/^\.dist-(new|old)-\d+$/.test(e)) rmSync(join(root, p.dir, e), { recursive: true, force: true });
    }
    const results = await Promise.all(PACKAGES.map((p) => tsc(root, join(p.dir, "tsconfig.build.json"), tmp(p))));
    const failed = results.findIndex((r) => r.code !== 0);
    if (failed >= 0) {
      for (const p of PACKAGES) rmSync(tmp(p), { recursive: true, force: true });
      return { ok: false, reason: `tsc failed for ${PACKAGES[failed].dir}: ${results[failed].output.split("\n").slice(0, 5).join(" | ")}` };
    }
    // Swap each fresh tree in. The record goes last: a build cut short is never taken as current.
    rmSync(join(root, STAMP), { force: true });
    for (const p of PACKAGES) swapIn(tmp(p), join(root, p.dir, "dist"), join(root, p.dir, `.dist-old-${process.pid}`));
    writeFileSync(join(root, STAMP), JSON.stringify(recorded));
    log(`built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return { ok: true, built: true };
  } catch (err) {
    // A checkout Collie cannot write (installed read-only), a disk full …: the caller falls back.
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  } finally {
    rmSync(join(root, LOCK), { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = await build({ force: process.argv.includes("--force"), log: (l) => console.log(`collie: ${l}`) });
  if (!r.ok) {
    console.error(`collie: ${r.reason}`);
    process.exit(1);
  }
  if (!r.built) console.log("collie: the daemon's JavaScript is current (server/dist)");
}
