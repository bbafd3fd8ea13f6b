/**
 * The bundled example agent Collie starts (D-7, issue #32): while the sources in force name it, an
 * example that dies is started again after the retry table's delays, as a real process on its
 * socket; when it is no longer wanted it stops and stays stopped.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { join } from "node:path";
import { after, test } from "node:test";
import { ExampleAgent, exampleSocket } from "../../src/cli/example-agent.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const examples: ExampleAgent[] = [];
after(async () => {
  await Promise.all(examples.map((e) => e.stop()));
  removeTempDirs();
});

/** The agent's hello over its socket: the status, or 0 when nothing answers. */
function hello(socket: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ socketPath: socket, path: "/durable/hello", method: "GET" }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve(0));
    req.end();
  });
}

test("a dead example is started again on the retry table while it is wanted, and not once it is not", { timeout: 120_000 }, async () => {
  const state = tempDir();
  const lines: string[] = [];
  const example = new ExampleAgent(state, { retryDelaysMs: [100, 200], log: (l) => lines.push(l) });
  examples.push(example);
  assert.equal(example.source.key, `socket:${join(state, "example", "desk.sock")}`);
  assert.equal(exampleSocket(state), join(state, "example", "desk.sock"));
  await example.keep(true);
  assert.equal(await hello(exampleSocket(state)), 200);
  const first = example.child!.pid;

  example.child!.kill("SIGKILL");
  const second = await until(() => (example.child && example.child.pid !== first ? example.child.pid : undefined), "the example started again");
  assert.equal(await until(async () => ((await hello(exampleSocket(state))) === 200 ? 200 : undefined), "its socket answering again"), 200);
  assert.ok(lines.some((l) => /^the example agent exited \(SIGKILL\); starting it again$/.test(l)), lines.join("\n"));

  await example.keep(false);
  assert.equal(example.child, null);
  assert.equal(await hello(exampleSocket(state)), 0);
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(example.child, null, "not started again once it is not wanted");
  assert.notEqual(second, first);
});
