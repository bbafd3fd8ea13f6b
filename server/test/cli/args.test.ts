/** The command line read with node:util's parseArgs, flags taken from the help (cli/args.ts). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseArgs, UsageError } from "../../src/cli/args.ts";

test("values, booleans, `--name=value` and positionals", () => {
  const a = parseArgs(["pair", "--port", "8080", "--json", "--url=https://collie.example.org"]);
  assert.deepEqual(a.positionals, ["pair"]);
  assert.deepEqual([...a.flags], [["port", "8080"], ["json", true], ["url", "https://collie.example.org"]]);
});

test("an argument with a single dash is a positional; a value may start with one", () => {
  const a = parseArgs(["crew", "join", "-bad name", "http://127.0.0.1:1", "CODE", "--sources", "-odd.json"]);
  assert.deepEqual(a.positionals, ["crew", "join", "-bad name", "http://127.0.0.1:1", "CODE"]);
  assert.equal(a.flags.get("sources"), "-odd.json");
});

test("an unknown flag, or a flag without its value, is a UsageError that names it", () => {
  assert.throws(() => parseArgs(["--bogus"]), (e: unknown) => e instanceof UsageError && /--bogus/.test(e.message));
  assert.throws(() => parseArgs(["durable", "attach", "x", "--socket"]), (e: unknown) => e instanceof UsageError && e.message === "--socket needs a value");
});
