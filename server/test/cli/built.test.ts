/**
 * `collie serve` runs the daemon's built JavaScript (issue 18): the bin builds server/dist (and
 * shared/dist, sdk/dist) when the sources changed, then runs it without Node's type stripper,
 * which would cost the daemon 15–20 MB of RSS. The rest of `npm test` runs the sources (the
 * `collie-source` condition); this file runs the daemon as a user does.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { buildState, inputs, PACKAGES, STAMP } from "../../bin/build.js";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const BIN = join(ROOT, "server", "bin", "collie.js");
/** The node flags of the bin's shebang: the ones `collie serve` runs with. */
const SHEBANG_FLAGS = /^#!\/usr\/bin\/env -S node (.*)$/m.exec(readFileSync(BIN, "utf8"))![1]!.trim().split(/\s+/);

const running: ChildProcess[] = [];
after(async () => {
  for (const p of running) if (p.exitCode === null && p.signalCode === null) {
    p.kill("SIGKILL");
    await once(p, "exit");
  }
  removeTempDirs();
});

test("collie serve builds the daemon when its sources changed, runs it without the type stripper, and answers /api/health", { timeout: 240_000 }, async () => {
  const dir = tempDir();
  const sources = join(dir, "sources.json");
  writeFileSync(sources, JSON.stringify({ durable: [] }));
  // `npm test` maps the workspace packages to their TypeScript (NODE_OPTIONS); a user's shell does not.
  const nodeOptions = (process.env.NODE_OPTIONS ?? "").split(/\s+/).filter((o) => o && !o.includes("collie-source")).join(" ");
  // With type stripping off, any TypeScript the daemon loaded would stop it (ERR_UNKNOWN_FILE_EXTENSION).
  const child = spawn(process.execPath, [...SHEBANG_FLAGS, "--no-experimental-strip-types", BIN, "serve", "--port", "0", "--state-dir", join(dir, "state"), "--sources", sources], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (output += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (output += c));
  const url = await until(() => /collie: listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1] ?? (child.exitCode !== null ? `exited` : undefined), () => `collie serve listening; output:\n${output}`, 200_000);
  assert.notEqual(url, "exited", output);
  assert.equal(buildState(), "current", "the build is current once collie serve runs it");
  const r = await fetch(`${url}/api/health`);
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { ok: true });
  assert.doesNotMatch(output, /running it from its TypeScript sources|ERR_UNKNOWN_FILE_EXTENSION/, output);
  child.kill("SIGTERM");
  const [code] = await once(child, "exit");
  assert.equal(code, 0, output);
});

test("two builds at once take turns: both succeed, and the build they leave is current and whole", { timeout: 240_000 }, async () => {
  const run = () => new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, "server", "bin", "build.js"), "--force"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    running.push(child);
    let output = "";
    child.stdout!.setEncoding("utf8").on("data", (c: string) => (output += c));
    child.stderr!.setEncoding("utf8").on("data", (c: string) => (output += c));
    child.once("exit", (code) => resolve({ code, output }));
  });
  const results = await Promise.all([run(), run()]);
  for (const r of results) assert.equal(r.code, 0, r.output);
  assert.equal(buildState(), "current");
  for (const pkg of ["sdk", "shared", "server"]) {
    assert.deepEqual(readdirSync(join(ROOT, pkg)).filter((e) => /^\.dist-(new|old)-/.test(e)), [], `no build directory left in ${pkg}/`);
  }
  assert.ok(!readdirSync(join(ROOT, "server")).includes(".dist-lock"), "the lock is released");
});

test("npm start gives the daemon the same node flags as the bin's shebang", () => {
  const start = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.start!;
  assert.equal(start, `exec node ${SHEBANG_FLAGS.join(" ")} server/bin/collie.js`);
  assert.ok(SHEBANG_FLAGS.some((f) => f.startsWith("--max-old-space-size=")), "the bin sizes the old generation for a daemon");
});

test("the build is current only while its inputs are as they were built: an edit, a new file or a missing output makes it not", () => {
  // A checkout in miniature: the three packages, their configs and sources, and each one's outputs.
  const root = tempDir();
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write("tsconfig.base.json", "{}");
  // Each package's outputs are the bin's own list: an entry added there is part of the miniature.
  for (const { dir: pkg, entries: files } of PACKAGES) {
    write(`${pkg}/package.json`, "{}");
    write(`${pkg}/tsconfig.build.json`, "{}");
    write(`${pkg}/src/index.ts`, "export {};\n");
    for (const f of files) write(`${pkg}/dist/${f}`, "export {};\n");
  }
  assert.equal(buildState(root), "missing", "never built: no record of the inputs");
  write(STAMP, JSON.stringify(inputs(root)));
  assert.equal(buildState(root), "current");

  write("server/src/index.ts", "export const changed = 1;\n");
  assert.equal(buildState(root), "stale", "a source edited");
  write(STAMP, JSON.stringify(inputs(root)));
  assert.equal(buildState(root), "current");

  // Same size, an older mtime (a checkout of another commit can do that): still a different input.
  utimesSync(join(root, "shared/src/index.ts"), new Date(2020, 0, 1), new Date(2020, 0, 1));
  assert.equal(buildState(root), "stale", "a source with another mtime");
  write(STAMP, JSON.stringify(inputs(root)));

  write("sdk/src/extra.ts", "export {};\n");
  assert.equal(buildState(root), "stale", "a source added");
  rmSync(join(root, "sdk/src/extra.ts"));
  assert.equal(buildState(root), "current", "and removed again");

  rmSync(join(root, "shared/dist/strings.js"));
  assert.equal(buildState(root), "missing", "an output gone");
});
