/**
 * Following the README (D-1, D-7, issue #34 and #37): `collie serve` with no sources.json shows the
 * bundled example; `collie durable attach bee` writes the first sources.json, keeping the example
 * in it as an entry for the example's socket, and says so; the running Collie shows bee at once and
 * still shows the example, with no restart; after a restart both are there, the example started by
 * Collie because the file names its socket. A later attach says the running Collie applies it; an
 * attach with no Collie running says when it will be read.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, test } from "node:test";
import type { ChildProcess } from "node:child_process";
import { killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { collie, collieProcess } from "../helpers/cli.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const serving: ChildProcess[] = [];
after(async () => {
  for (const p of serving) if (p.exitCode === null && p.signalCode === null) {
    p.kill("SIGTERM");
    await once(p, "exit");
  }
  await killAllAgents();
  removeTempDirs();
});

async function serve(sources: string, state: string): Promise<{ proc: ChildProcess; out: string[] }> {
  const proc = collieProcess(["serve", "--sources", sources, "--state-dir", state, "--port", "0"]);
  serving.push(proc);
  const out: string[] = [];
  let stderr = "";
  proc.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  createInterface({ input: proc.stdout! }).on("line", (l) => out.push(l));
  // The example agent starts first: on a loaded machine that takes a while.
  await until(() => out.some((l) => l.includes("listening on")), () => `the listening line; stdout ${out.join("\n")}; stderr ${stderr}`, 60_000);
  return { proc, out };
}

/** `collie agents` until every name reads ready. */
const allReady = (state: string, names: string[]) =>
  until(async () => {
    const r = await collie(["agents", "--state-dir", state]);
    return names.every((n) => new RegExp(`^${n}\\s+ready\\s`, "m").test(r.stdout)) ? r.stdout : undefined;
  }, `${names.join(", ")} ready`, 60_000);

test("the first sources.json written by durable attach under a Collie showing the example keeps the example, applies live and says so", { timeout: 240_000 }, async () => {
  const dir = tempDir();
  const state = join(dir, "state");
  const sources = join(dir, "config", "sources.json");
  const bee = join(dir, "bee.sock");
  await startAgent("desk-agent.ts", ["--socket", bee, "--name", "bee"]);
  const first = await serve(sources, state);
  assert.ok(first.out.some((l) => l.includes("bundled example agent") && l.includes(sources)), first.out.join("\n"));
  await allReady(state, ["desk"]);

  const attached = await collie(["durable", "attach", "bee", "--socket", bee, "--sources", sources, "--state-dir", state]);
  assert.equal(attached.code, 0, attached.stderr);
  const exampleSocket = join(state, "example", "desk.sock");
  assert.deepEqual(JSON.parse(readFileSync(sources, "utf8")), { durable: [{ name: "desk", socket: exampleSocket }, { name: "bee", socket: bee }] });
  assert.match(attached.stdout, new RegExp(`^collie: added bee in ${sources}$`, "m"));
  assert.ok(attached.stdout.includes(`collie: the running Collie applies it now, and keeps showing the bundled example "desk": it is now an entry of ${sources} (remove that entry to stop the example)`), attached.stdout);
  // Live: bee shows, the example stays, no restart.
  const listed = await allReady(state, ["desk", "bee"]);
  assert.match(listed, /^desk\s+ready\s+local/m);

  // A second attach: the file exists, nothing more is kept; the running Collie applies it.
  const again = await collie(["durable", "attach", "bee", "--socket", bee, "--sources", sources, "--state-dir", state]);
  assert.ok(again.stdout.includes("collie: the running Collie applies it now\n"), again.stdout);

  // After a restart, both: the example is started because the file names its socket.
  first.proc.kill("SIGTERM");
  await once(first.proc, "exit");
  const none = await collie(["durable", "attach", "bee", "--socket", bee, "--sources", sources, "--state-dir", state]);
  assert.ok(none.stdout.includes(`collie: no Collie is running with the state directory ${state}; it reads ${sources} when it starts`), none.stdout);
  const second = await serve(sources, state);
  assert.ok(second.out.some((l) => l === `collie: agents from ${sources} (edits apply without a restart)`), second.out.join("\n"));
  await allReady(state, ["desk", "bee"]);
});
