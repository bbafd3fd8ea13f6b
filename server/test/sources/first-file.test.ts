/**
 * With no sources.json at the start (the bundled-example mode, D-7), Collie shows its fallback and
 * watches the path's folder from the start (D-1, issue #34): a sources.json written later applies
 * live, the fallback's agent goes unless the file names it, and the file's agents connect. The
 * folder is made when it is missing, so there is something to watch. A file deleted later keeps
 * the last good sources, as a bad file does.
 */
import assert from "node:assert/strict";
import { existsSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import type { AgentSource } from "../../src/sources/sources.ts";
import { killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { closeAllDaemons, TestDaemon, writeSources } from "../helpers/daemon.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

after(async () => {
  await closeAllDaemons();
  await killAllAgents();
  removeTempDirs();
});

test("a sources.json written after the start replaces the fallback live; one that names the fallback's socket keeps it", async () => {
  const dir = tempDir();
  const sources = join(dir, "config", "collie", "sources.json");
  const example: AgentSource = { name: "desk", endpoint: { kind: "socket", path: join(dir, "example.sock") }, key: `socket:${join(dir, "example.sock")}` };
  await startAgent("desk-agent.ts", ["--socket", join(dir, "example.sock"), "--name", "example"]);
  await startAgent("desk-agent.ts", ["--socket", join(dir, "bee.sock"), "--name", "bee"]);
  const applied: string[][] = [];
  const d = await TestDaemon.start({
    sources: { path: sources, fallback: [example], applied: async (durable) => void applied.push(durable.map((s) => s.name)) },
  });
  await d.waitState("desk", "ready");
  assert.equal(d.daemon.fallbackInForce, true);
  assert.deepEqual(d.daemon.sourcesReport(), { path: sources, fallback: [{ name: "desk", socket: join(dir, "example.sock") }] });
  assert.deepEqual(applied, [["desk"]]);
  // The folder did not exist: Collie made it, owner-only, to watch it.
  assert.equal(statSync(join(dir, "config", "collie")).mode & 0o777, 0o700);

  // The first file, keeping the example (as `durable attach` writes it under a Collie showing it), with bee.
  writeSources(sources, { durable: [{ name: "desk", socket: join(dir, "example.sock") }, { name: "bee", socket: join(dir, "bee.sock") }] });
  await d.waitState("bee", "ready");
  assert.equal((await d.waitState("desk", "ready")).name, "desk");
  assert.equal(d.daemon.fallbackInForce, false);
  assert.deepEqual(d.daemon.sourcesReport().fallback, null);
  assert.deepEqual(applied.at(-1), ["desk", "bee"]);
  assert.ok(d.logs.some((l) => l === `${sources} appeared: showing its agents now`), d.logs.join("\n"));

  // A file that does not name the example: it goes, live.
  writeSources(sources, { durable: [{ name: "bee", socket: join(dir, "bee.sock") }] });
  await until(async () => !(await d.snapshot()).agents.some((a) => a.name === "desk"), "the example gone");
  assert.deepEqual(applied.at(-1), ["bee"]);

  // Deleted: the last good sources stay (D-1), the fallback does not come back behind the user's back.
  rmSync(sources);
  await until(() => d.logs.some((l) => /cannot be read \(ENOENT\) \(keeping the last good sources\)/.test(l)), "the deletion noticed");
  assert.deepEqual((await d.snapshot()).agents.map((a) => a.name), ["bee"]);
  assert.equal(existsSync(sources), false);
});
