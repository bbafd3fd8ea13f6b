/**
 * The fuzz and fault suites' seed (L-2, docs/reliability.md): each run picks a fresh one and
 * prints it, so every `npm test` explores new cases; `FUZZ_SEED` replays a run case for case.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { pickSeed } from "../helpers/fuzz.ts";

const KIT = new URL("../helpers/fuzz.ts", import.meta.url).href;

/** Loads the kit in a fresh process, as a suite does, and returns what it printed. */
function runKit(env: NodeJS.ProcessEnv): Promise<string> {
  const script = `const kit = await import(${JSON.stringify(KIT)}); const rng = new kit.Rng(kit.SEED); kit.report("probe", { first: rng.int(1e9), second: rng.int(1e9) });`;
  const childEnv = { ...process.env, ...env };
  if (env.FUZZ_SEED === undefined) delete childEnv.FUZZ_SEED;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--disable-warning=ExperimentalWarning", "--input-type=module", "-e", script], { env: childEnv }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

const printedSeed = (out: string) => Number(/^fuzz seed (\d+)/m.exec(out)?.[1]);
const probeLine = (out: string) => /^RELIABILITY probe .*$/m.exec(out)?.[0];

test("without FUZZ_SEED each run picks a fresh seed and prints it", async () => {
  const [a, b] = await Promise.all([runKit({}), runKit({})]);
  assert.match(a, /^fuzz seed \d+: FUZZ_SEED=\d+ replays this run$/m);
  assert.notEqual(printedSeed(a), printedSeed(b), "two runs drew the same seed");
  assert.notEqual(probeLine(a), probeLine(b), "two runs generated the same cases");
  assert.ok(probeLine(a)!.includes(`seed=${printedSeed(a)} `), probeLine(a));
});

test("FUZZ_SEED replays a run: the same seed, the same cases", async () => {
  const first = await runKit({});
  const seed = printedSeed(first);
  const replay = await runKit({ FUZZ_SEED: String(seed) });
  assert.equal(printedSeed(replay), seed);
  assert.match(replay, /\(from FUZZ_SEED\)/);
  assert.equal(probeLine(replay), probeLine(first));
});

test("pickSeed takes FUZZ_SEED as given, draws otherwise, and refuses what is not a 32-bit seed", () => {
  assert.equal(pickSeed({ FUZZ_SEED: "12587294" }, () => 7), 12587294);
  assert.equal(pickSeed({ FUZZ_SEED: "0xC0111E" }, () => 7), 12587294);
  assert.equal(pickSeed({ FUZZ_SEED: "0" }, () => 7), 0);
  assert.equal(pickSeed({}, () => 7), 7);
  assert.equal(pickSeed({ FUZZ_SEED: "" }, () => 4294967295), 4294967295);
  for (const bad of ["-1", "1.5", "4294967296", "abc"]) {
    assert.throws(() => pickSeed({ FUZZ_SEED: bad }), new RegExp(`FUZZ_SEED=${bad} is not a 32-bit seed`));
  }
});
