/**
 * The `collie` bin under a Node older than 22.19 (S-3): one line saying what is needed and the
 * same command under scripts/node22.sh, for every command, never a stack trace. Runs the machine's
 * own older Node where one is installed (Debian ships Node 18 or 20); skipped where there is none.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const BIN = join(ROOT, "server", "bin", "collie.js");

function versionOf(node: string): string | undefined {
  try {
    return execFileSync(node, ["-p", "process.versions.node"], { encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
}

const tooOld = (v: string) => {
  const [major, minor] = v.split(".").map(Number) as [number, number];
  return major < 22 || (major === 22 && minor < 19);
};

/** The first older Node installed on the machine, outside this run's own. */
const older = ["/usr/bin/node", "/usr/local/bin/node", "/bin/node", "/usr/bin/nodejs"]
  .filter((p) => existsSync(p))
  .map((p) => realpathSync(p))
  .map((node) => ({ node, version: versionOf(node) }))
  .find((n): n is { node: string; version: string } => n.version !== undefined && tooOld(n.version));

/** Runs `file args` with the older Node first on PATH, as on a machine that has only it. */
function runUnderOlderNode(file: string, args: string[], cwd = ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(older!.node)}${delimiter}/usr/bin${delimiter}/bin` };
  for (const key of Object.keys(env)) if (key.startsWith("npm_")) delete env[key];
  delete env.NODE_OPTIONS;
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const skip = older ? false : "no Node older than 22.19 on this machine";

test("npx collie under an older Node says in one line what is needed and how, for every command", { skip }, async () => {
  const commands: [string[], string][] = [
    [[], "scripts/node22.sh npx collie"],
    [["--help"], "scripts/node22.sh npx collie --help"],
    [["serve", "--port", "8080"], "scripts/node22.sh npx collie serve --port 8080"],
    [["pair", "--port", "8080"], "scripts/node22.sh npx collie pair --port 8080"],
    [["agents"], "scripts/node22.sh npx collie agents"],
    [["devices", "revoke", "d1"], "scripts/node22.sh npx collie devices revoke d1"],
    [["durable", "attach", "my agent", "--socket", "/tmp/a.sock"], "scripts/node22.sh npx collie durable attach 'my agent' --socket /tmp/a.sock"],
  ];
  for (const [args, rerun] of commands) {
    const r = await runUnderOlderNode("npx", ["collie", ...args]);
    assert.equal(r.code, 1, `collie ${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.equal(r.stderr, `collie: needs Node 22.19 or newer (this is Node ${older!.version}); run: ${rerun}\n`);
  }
});

test("the bin run from another directory names node22.sh by its full path", { skip }, async () => {
  const r = await runUnderOlderNode(BIN, ["agents"], "/");
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `collie: needs Node 22.19 or newer (this is Node ${older!.version}); run: ${join(ROOT, "scripts", "node22.sh")} npx collie agents\n`);
});

test("npm start under an older Node says the same, with the npm command to rerun", { skip }, async () => {
  const r = await runUnderOlderNode("npm", ["start", "--silent", "--", "--port", "8080"]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, `collie: needs Node 22.19 or newer (this is Node ${older!.version}); run: scripts/node22.sh npm start -- --port 8080\n`);
});

test("under Node 22.19+ the bin runs the command line", async () => {
  const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ["--conditions=collie-source", BIN, "--help"], (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }));
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /collie pair/);
  assert.equal(r.stderr, "");
});
