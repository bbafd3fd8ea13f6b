/**
 * `npm test`: every check the project has, in one command, ending with the line
 * `N passed, N failed` that sums every runner.
 *
 * 1. typecheck (tsc, strict) of every workspace;
 * 2. node's test runner over `<workspace>/test/**\/*.test.ts` (unit and integration tests over
 *    real sockets);
 *    2b. the SDK's socket, asks, example and SQLite receipt tests again under Bun (S-3), with the
 *    Bun the sdk workspace installs from npm; skipped, with the reason printed, only where it
 *    could not be installed;
 * 3. vitest component tests of the PWA (jsdom);
 * 4. Playwright journeys in Chromium (`e2e/`) against the real daemon and the example agent.
 */
import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const started = Date.now();
let passed = 0;
let failed = 0;

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): number {
  // Workspace packages resolve to their TypeScript sources under this condition (package.json
  // "exports"); NODE_OPTIONS carries it into every process a test starts.
  const nodeOptions = [process.env.NODE_OPTIONS ?? "", "--conditions=collie-source"].join(" ").trim();
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, NODE_OPTIONS: nodeOptions, ...env } });
  return r.status ?? 1;
}

// One fuzz seed for the whole run, fresh each time so every run explores new cases; the suites
// read it from FUZZ_SEED, and the same FUZZ_SEED replays the run (docs/reliability.md).
const fuzzSeed = process.env.FUZZ_SEED || String(randomInt(2 ** 32));
process.env.FUZZ_SEED = fuzzSeed;
const seedLine = `fuzz seed ${fuzzSeed} (replay it: FUZZ_SEED=${fuzzSeed} scripts/node22.sh npm test)`;
console.log(`# ${seedLine}`);

// 1. Typecheck: a type error fails the run like a failed test.
for (const project of ["sdk", "shared", "server", "web", "e2e"]) {
  if (!existsSync(join(root, project, "tsconfig.json"))) continue;
  console.log(`\n# typecheck ${project}`);
  if (run("npx", ["tsc", "-p", project, "--noEmit"]) === 0) passed++;
  else failed++;
}

// 2. node --test, with a TAP copy for the counts.
const globs = ["sdk", "shared", "server"]
  .filter((w) => existsSync(join(root, w, "test")))
  .map((w) => `${w}/test/**/*.test.ts`);
if (globs.length > 0) {
  const tap = join(mkdtempSync(join(tmpdir(), "collie-test-")), "node.tap");
  console.log(`\n# node --test ${globs.join(" ")}`);
  // Two files at a time at least (node's default is one fewer than the cores: one, on two): most
  // of a file's time is spent waiting on child processes, sockets and timers (docs/reliability.md).
  const concurrency = Math.max(2, availableParallelism() - 1);
  const status = run(process.execPath, [
    "--disable-warning=ExperimentalWarning",
    "--test",
    `--test-concurrency=${concurrency}`,
    "--test-reporter=spec", "--test-reporter-destination=stdout",
    "--test-reporter=tap", `--test-reporter-destination=${tap}`,
    ...globs,
  ]);
  const text = existsSync(tap) ? readFileSync(tap, "utf8") : "";
  const count = (name: string) => Number(/^# (\w+) (\d+)$/m.exec(text.split("\n").filter((l) => l.startsWith(`# ${name} `)).at(-1) ?? "")?.[2] ?? 0);
  passed += count("pass");
  failed += count("fail") + count("cancelled");
  if (status !== 0 && count("fail") + count("cancelled") === 0) failed++; // the runner itself failed
}

// 2b. Bun (S-3: "Node 22.19 or newer, or Bun 1.4 or newer"): the same node:test files, run by
// `bun test`, which implements node:test. JUnit XML gives the counts.
const BUN_TESTS = [
  "test/transport/socket.test.ts",
  "test/transport/sqlite-receipts.test.ts",
  "test/asks",
  "test/core/asks.test.ts",
  "test/examples.test.ts",
  "test/examples/durable-member.test.ts",
];
const bun = join(root, "node_modules", ".bin", "bun");
const bunVersion = existsSync(bun) ? spawnSync(bun, ["--version"], { encoding: "utf8" }) : null;
if (bunVersion === null || bunVersion.status !== 0) {
  const why = bunVersion === null ? `${bun} is missing (the sdk workspace's devDependency "bun" did not install)` : `${bun} --version failed: ${(bunVersion.stderr || bunVersion.error?.message || "").trim()}`;
  console.log(`
# bun: skipped, ${why}`);
} else {
  const xml = join(mkdtempSync(join(tmpdir(), "collie-bun-")), "junit.xml");
  console.log(`
# bun ${bunVersion.stdout.trim()} test (sdk): ${BUN_TESTS.join(" ")}`);
  // Bun's default per-test timeout is 5 s, node:test has none: the example's journeys take longer.
  const status = spawnSync(bun, ["test", "--conditions=collie-source", "--timeout", "120000", "--reporter=junit", `--reporter-outfile=${xml}`, ...BUN_TESTS.map((t) => `./${t}`)], {
    cwd: join(root, "sdk"),
    stdio: "inherit",
    env: process.env,
  }).status ?? 1;
  const head = existsSync(xml) ? /<testsuites\b[^>]*>/.exec(readFileSync(xml, "utf8"))?.[0] ?? "" : "";
  const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(head)?.[1] ?? 0);
  const bunFailed = attr("failures");
  passed += attr("tests") - bunFailed - attr("skipped");
  failed += bunFailed;
  if (status !== 0 && bunFailed === 0) failed++; // an error outside a test, or the runner itself failed
}

// 3. vitest: the PWA's component tests in jsdom.
if (existsSync(join(root, "web", "test"))) {
  const out = join(mkdtempSync(join(tmpdir(), "collie-vitest-")), "results.json");
  console.log("\n# vitest (web)");
  const status = spawnSync("npx", ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile=${out}`], {
    cwd: join(root, "web"),
    stdio: "inherit",
    env: process.env,
  }).status ?? 1;
  const results = existsSync(out) ? JSON.parse(readFileSync(out, "utf8")) : {};
  passed += results.numPassedTests ?? 0;
  failed += results.numFailedTests ?? 0;
  if (status !== 0 && !results.numFailedTests) failed++;
}

// 4. Playwright, when browser journeys exist.
const e2e = join(root, "e2e");
const specs = existsSync(e2e) ? readdirSync(e2e, { recursive: true }).filter((f) => String(f).endsWith(".spec.ts")) : [];
if (specs.length > 0) {
  const out = join(mkdtempSync(join(tmpdir(), "collie-e2e-")), "results.json");
  console.log("\n# playwright");
  const status = run("npx", ["playwright", "test", "--reporter=list,json"], { PLAYWRIGHT_JSON_OUTPUT_NAME: out });
  const stats = existsSync(out) ? JSON.parse(readFileSync(out, "utf8")).stats ?? {} : {};
  passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
  failed += stats.unexpected ?? 0;
  if (status !== 0 && !stats.unexpected) failed++;
}

console.log(`\n${seedLine}`);
// The run's own figures (the README writes none down, so none goes stale): how long it took, then
// the counts, alone on the last line as CI reads them.
const seconds = Math.round((Date.now() - started) / 1000);
console.log(`took ${Math.floor(seconds / 60)} min ${seconds % 60} s`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
