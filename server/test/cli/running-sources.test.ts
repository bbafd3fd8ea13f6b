/**
 * What `durable attach` and `crew join` make of the running Collie (D-1, issue #34, #37): the
 * example is kept only in a new file the running Collie reads while it shows the example; the
 * line they print says what happens; an admin socket that answers junk, or none, is no Collie.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { entriesToKeep, runningSources, whatHappens } from "../../src/cli/running-sources.ts";
import { ADMIN_SOCKET } from "../../src/security/admin.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

after(removeTempDirs);

const EXAMPLE = [{ name: "desk", socket: "/state/example/desk.sock" }];

describe("the first sources.json and the bundled example", () => {
  test("kept only in a new file the running Collie reads while it shows the example; a `desk` of yours keeps its name", () => {
    const dir = tempDir();
    const path = join(dir, "sources.json");
    assert.deepEqual(entriesToKeep({ path, fallback: EXAMPLE }, path, "bee"), EXAMPLE);
    assert.deepEqual(entriesToKeep({ path, fallback: EXAMPLE }, path, "desk"), [{ name: "desk-example", socket: "/state/example/desk.sock" }]);
    assert.deepEqual(entriesToKeep({ path, fallback: null }, path, "bee"), [], "the Collie shows a file already");
    assert.deepEqual(entriesToKeep({ path: join(dir, "other.json"), fallback: EXAMPLE }, path, "bee"), [], "it reads another file");
    assert.deepEqual(entriesToKeep(null, path, "bee"), [], "no Collie running");
    writeFileSync(path, "{}");
    assert.deepEqual(entriesToKeep({ path, fallback: EXAMPLE }, path, "bee"), [], "the file exists: not the first");
  });

  test("the line says what the running Collie does", () => {
    assert.equal(whatHappens(null, "/c/s.json", [], "/st"), "no Collie is running with the state directory /st; it reads /c/s.json when it starts");
    assert.equal(whatHappens({ path: "/c/other.json", fallback: null }, "/c/s.json", [], "/st"), "the running Collie reads /c/other.json, not this file; start it with --sources /c/s.json to use it");
    assert.equal(whatHappens({ path: "/c/s.json", fallback: null }, "/c/s.json", [], "/st"), "the running Collie applies it now");
    assert.equal(whatHappens({ path: "/c/s.json", fallback: EXAMPLE }, "/c/s.json", EXAMPLE, "/st"),
      'the running Collie applies it now, and keeps showing the bundled example "desk": it is now an entry of /c/s.json (remove that entry to stop the example)');
  });

  test("an admin socket that answers junk, an error or nothing reads as no Collie or no example", async () => {
    for (const [status, body, expected] of [
      [200, "not json", null],
      [404, JSON.stringify({ error: "not-found" }), null],
      [200, JSON.stringify({ path: 42, fallback: [{ name: 1 }, null, { name: "desk", socket: "/s" }] }), { path: null, fallback: [{ name: "desk", socket: "/s" }] }],
      [200, JSON.stringify({ path: "/c/s.json", fallback: "desk" }), { path: "/c/s.json", fallback: null }],
    ] as const) {
      const state = tempDir();
      const server = createServer((_req, res) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(body);
      });
      await new Promise<void>((r) => server.listen(join(state, ADMIN_SOCKET), () => r()));
      try {
        assert.deepEqual(await runningSources(state), expected, body);
      } finally {
        await new Promise<void>((r) => server.close(() => r()));
      }
    }
    assert.equal(await runningSources(tempDir()), null);
  });
});
