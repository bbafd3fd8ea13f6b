/**
 * `collie pair` on a loopback origin: the link opens only on this machine, so one line says
 * how to reach Collie from a phone (--url and docs/deployment.md); a front door's link has no such line.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import { isLoopbackOrigin, phoneHint } from "../../src/cli/pair-hint.ts";
import { collie } from "../helpers/cli.ts";
import { closeAllDaemons, TestDaemon } from "../helpers/daemon.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

after(async () => {
  await closeAllDaemons();
  removeTempDirs();
});

test("loopback origins are 127.0.0.0/8, localhost and ::1; anything else is not", () => {
  for (const o of ["http://127.0.0.1:7717", "http://127.1.2.3", "http://localhost:7717", "http://app.localhost", "http://[::1]:7717"]) {
    assert.equal(isLoopbackOrigin(o), true, o);
  }
  for (const o of ["https://collie-box.tail1234.ts.net", "http://192.168.1.20:7717", "http://127.0.0.1.example.org", "http://[::2]", "not a url"]) {
    assert.equal(isLoopbackOrigin(o), false, o);
  }
  assert.equal(phoneHint("https://collie.example.org"), null);
});

test("collie pair on the default origin says in one line how a phone reaches Collie", async () => {
  const state = join(tempDir(), "state");
  await TestDaemon.start({ stateDir: state, sources: { fixed: [] } });
  const local = await collie(["pair", "--state-dir", state, "--port", "7717"]);
  assert.equal(local.code, 0, local.stderr);
  assert.match(local.stdout, /http:\/\/127\.0\.0\.1:7717\/#\/pair\//);
  const hints = local.stdout.split("\n").filter((l) => l.includes("opens only on this machine"));
  assert.equal(hints.length, 1, local.stdout);
  assert.match(hints[0]!, /--url https:\/\/.*/);
  assert.match(hints[0]!, /docs\/deployment\.md/);

  const front = await collie(["pair", "--state-dir", state, "--url", "https://collie.example.org"]);
  assert.equal(front.code, 0, front.stderr);
  assert.match(front.stdout, /https:\/\/collie\.example\.org\/#\/pair\//);
  assert.doesNotMatch(front.stdout, /opens only on this machine/);
});
