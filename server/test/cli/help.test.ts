/**
 * The `collie` help (D-6): each command's help lists every flag it takes, `collie <command> --help`
 * and `collie help <command>` show one command, and `collie --help` shows them all.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { collie, MAIN } from "../helpers/cli.ts";

const FLAGS: Record<string, string[]> = {
  serve: ["--sources", "--port", "--host", "--state-dir", "--allow-host", "--fresh-state", "--help"],
  "durable attach": ["--socket", "--url", "--token", "--ca", "--sources", "--state-dir", "--help"],
  agents: ["--state-dir", "--help"],
  pair: ["--url", "--port", "--state-dir", "--json", "--help"],
  devices: ["--state-dir", "--help"],
  "devices revoke": ["--state-dir", "--help"],
  "crew invite": ["--url", "--state-dir", "--json", "--help"],
  "crew join": ["--sources", "--state-dir", "--help"],
};

/** The flags a help text lists in its flag rows (indented, then the flag). */
const listed = (text: string) => [...text.matchAll(/^ {4}(--[\w-]+)/gm)].map((m) => m[1]);

test("collie <command> --help lists every flag of that command, and only that command", async () => {
  for (const [command, flags] of Object.entries(FLAGS)) {
    const r = await collie([...command.split(" "), "--help"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^collie ${command} `), r.stdout);
    assert.deepEqual(listed(r.stdout), flags, `collie ${command} --help`);
  }
});

test("collie help <command> is collie <command> --help; a command's arguments do not change it", async () => {
  assert.equal((await collie(["help", "pair"])).stdout, (await collie(["pair", "--help"])).stdout);
  assert.equal((await collie(["devices", "revoke", "d1", "--help"])).stdout, (await collie(["help", "devices", "revoke"])).stdout);
  assert.equal((await collie(["pair", "--json", "--help"])).code, 0, "--help never runs the command (no daemon needed)");
});

test("collie --help shows every command with all its flags", async () => {
  const r = await collie(["--help"]);
  assert.equal(r.code, 0, r.stderr);
  for (const [command, flags] of Object.entries(FLAGS)) {
    const start = r.stdout.indexOf(`\ncollie ${command} `);
    assert.ok(start >= 0, `collie --help shows ${command}`);
    const section = r.stdout.slice(start + 1).split("\n\n")[0]!;
    assert.deepEqual(listed(section), flags, `${command} in collie --help`);
  }
});

test("every flag the command line reads is in collie --help", async () => {
  const source = readFileSync(MAIN, "utf8");
  const read = new Set([...source.matchAll(/flag\(args, "([\w-]+)"\)|flags\.has\("([\w-]+)"\)/g)].map((m) => `--${m[1] ?? m[2]}`));
  assert.ok(read.size >= 8, `found the flags main.ts reads: ${[...read].join(" ")}`);
  const help = listed((await collie(["--help"])).stdout);
  for (const f of read) assert.ok(help.includes(f), `${f} is read by main.ts but not in collie --help`);
});

test("an unknown command prints the usage of every command and how to get help", async () => {
  const r = await collie(["bogus"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^collie: unknown command "bogus"\nusage:\n/);
  for (const command of Object.keys(FLAGS)) assert.match(r.stderr, new RegExp(`^  collie ${command} `, "m"));
  assert.match(r.stderr, /collie <command> --help/);
});
