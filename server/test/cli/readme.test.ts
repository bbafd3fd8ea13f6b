/**
 * The README answers a newcomer's questions and its commands work on a fresh machine: every
 * command is given under scripts/node22.sh (which provisions Node 22), and its Layout names every
 * doc and every npm script.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const layout = README.slice(README.indexOf("## Layout"));

test("every npm and npx command in the README runs under scripts/node22.sh", () => {
  const blocks = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split("\n"));
  // Inline code with flags, variables, `npm run` or `npx` is a command to copy; a bare `npm start` names one.
  const inline = [...README.matchAll(/`([^`\n]*\b(?:npm|npx) [^`\n]*)`/g)].map((m) => m[1]!).filter((c) => /--|=|npm run |npx /.test(c));
  const commands = [...blocks, ...inline].map((l) => l.replace(/#.*$/, "").trim()).filter((l) => /^(\w+=\S+ )*(scripts\/node22\.sh )?(npm|npx) /.test(l));
  assert.ok(commands.length >= 10, `found the README's commands: ${commands.join(" | ")}`);
  const bare = commands.filter((c) => !/^(\w+=\S+ )*scripts\/node22\.sh /.test(c) && !c.startsWith("npm ci && npm test"));
  assert.deepEqual(bare, [], "commands that fail under the machine's own older Node");
});

test("the README says where Collie keeps its state and sources, and how to stop it", () => {
  assert.match(README, /~\/\.local\/state\/collie/);
  assert.match(README, /~\/\.config\/collie\/sources\.json/);
  assert.match(README, /\*\*Stopping Collie\.\*\*/);
});

// Issue 32, item 14: "about 1 200 tests … 6–7 minutes" had gone stale (1 900 tests, 8 minutes). A
// figure of the run is printed by the run (scripts/test-all.ts), not written into the README.
test("the README writes down no test count or run time to go stale; the test run prints both", () => {
  const stale = [...README.matchAll(/\b(?:about|~|some|over|nearly)?\s*[\d][\d \u202f,.]*\s*(?:tests\b|(?:–\d+\s*)?minutes?\b)/gi)].map((m) => m[0].trim());
  assert.deepEqual(stale, [], "figures in the README");
  const runner = readFileSync(join(ROOT, "scripts/test-all.ts"), "utf8");
  assert.match(runner, /console\.log\(`\$\{passed\} passed, \$\{failed\} failed`\)/);
  assert.match(runner, /took \$\{/);
});

test("the README's Layout names every doc and every npm script", () => {
  for (const doc of readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md"))) {
    assert.match(layout, new RegExp(`^\\s+${doc.replace(".", "\\.")}\\s`, "m"), `docs/${doc} in the Layout`);
  }
  const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts);
  for (const script of scripts) assert.ok(layout.includes(`${script} (`), `npm script ${script} in the Layout`);
  for (const dir of ["sdk", "shared", "server", "web", "e2e", "bench", "scripts"]) assert.match(layout, new RegExp(`^${dir}/`, "m"), `${dir}/ in the Layout`);
});
