/**
 * `collie durable attach` (D-6) run as a child process: it adds or updates one entry of
 * sources.json, written atomically and owner-only, keeps everything else in the file, refuses input
 * Collie would refuse to read (leaving the file as it was), and a running daemon picks the change
 * up without a restart (D-1).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { collie } from "../helpers/cli.ts";
import { closeAllDaemons, TestDaemon, writeSources } from "../helpers/daemon.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

after(async () => {
  await closeAllDaemons();
  await killAllAgents();
  removeTempDirs();
});

const read = (path: string) => JSON.parse(readFileSync(path, "utf8")) as { durable: Record<string, string>[] } & Record<string, unknown>;

describe("collie durable attach (D-6)", () => {
  test("adds to a new file, updates by name, keeps the rest; owner-only, no temp file left", async () => {
    const dir = tempDir();
    const sources = join(dir, "config", "collie", "sources.json");
    const state = join(dir, "state");
    const added = await collie(["durable", "attach", "desk", "--socket", "/run/desk.sock", "--sources", sources, "--state-dir", state]);
    assert.equal(added.code, 0, added.stderr);
    // It says what happens: no Collie runs with that state directory, so the file waits for its start.
    assert.deepEqual(added.stdout.trim().split("\n"), [
      `collie: added desk in ${sources}`,
      `collie: no Collie is running with the state directory ${state}; it reads ${sources} when it starts`,
    ]);
    assert.deepEqual(read(sources), { durable: [{ name: "desk", socket: "/run/desk.sock" }] });
    assert.equal((statSync(sources).mode & 0o777).toString(8), "600");
    assert.equal((statSync(join(dir, "config", "collie")).mode & 0o777).toString(8), "700");

    // Other entries and keys stay; the same name is replaced in place.
    writeFileSync(sources, JSON.stringify({ $schema: "./sources.schema.json", durable: [{ name: "desk", socket: "/run/desk.sock" }, { name: "other", socket: "/run/other.sock", comment: "keep me" }] }));
    const pem = join(dir, "desk.pem");
    writeFileSync(pem, "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n");
    const updated = await collie(["durable", "attach", "desk", "--url", "https://agent.example:8443", "--token", "env:DESK_TOKEN", "--ca", `file:${pem}`, "--sources", sources, "--state-dir", state], { DESK_TOKEN: "desk-token-0123456789abcdef" });
    assert.equal(updated.code, 0, updated.stderr);
    assert.equal(updated.stdout.trim().split("\n")[0], `collie: updated desk in ${sources}`);
    assert.deepEqual(read(sources), {
      $schema: "./sources.schema.json",
      durable: [
        { name: "desk", url: "https://agent.example:8443", token: "env:DESK_TOKEN", ca: `file:${pem}` },
        { name: "other", socket: "/run/other.sock", comment: "keep me" },
      ],
    });
    // The token reference is written, never the token; nothing else lies around.
    assert.ok(!readFileSync(sources, "utf8").includes("desk-token-0123456789abcdef"));
    assert.ok(!updated.stdout.includes("desk-token") && !updated.stderr.includes("desk-token"));
    assert.deepEqual(readdirSync(join(dir, "config", "collie")), ["sources.json"]);
  });

  test("refuses invalid input and leaves the file exactly as it was", async () => {
    const dir = tempDir();
    const sources = join(dir, "sources.json");
    const original = `${JSON.stringify({ durable: [{ name: "keep", socket: "/run/keep.sock" }] }, null, 2)}\n`;
    writeFileSync(sources, original, { mode: 0o600 });
    const cases: { args: string[]; code: number; says: RegExp; env?: NodeJS.ProcessEnv }[] = [
      { args: ["durable", "attach", "x", "--socket", "/s.sock", "--url", "https://a.example"], code: 2, says: /exactly one of --socket PATH or --url URL/ },
      { args: ["durable", "attach", "x"], code: 2, says: /exactly one of --socket PATH or --url URL \(or set COLLIE_DURABLE_SOCKET\)/, env: { COLLIE_DURABLE_SOCKET: "" } },
      { args: ["durable", "attach", "x", "--url", "https://a.example"], code: 2, says: /--url needs --token/ },
      { args: ["durable", "attach", "x", "--socket", "/s.sock", "--token", "0123456789abcdef"], code: 2, says: /--token is only for --url/ },
      { args: ["durable", "attach", "--socket", "/s.sock"], code: 2, says: /needs a name/ },
      { args: ["durable", "attach", "x", "--socket"], code: 2, says: /--socket needs a value/ },
      { args: ["durable", "attach", "x", "--url", "http://agent.example", "--token", "0123456789abcdef"], code: 1, says: /durable\[1\] \(x\)\.url: must be https/ },
      { args: ["durable", "attach", "x", "--url", "https://a.example", "--token", "env:COLLIE_TEST_NOT_SET"], code: 1, says: /durable\[1\] \(x\)\.token: names the environment variable COLLIE_TEST_NOT_SET, which is not set/ },
      { args: ["durable", "attach", "x", "--url", "https://a.example", "--token", "short"], code: 1, says: /durable\[1\] \(x\)\.token: is shorter than 16 characters/ },
      { args: ["durable", "attach", "bad name", "--socket", "/s.sock"], code: 1, says: /durable\[1\]\.name/ },
      { args: ["durable", "attach", "x", "--url", "https://a.example/path", "--token", "0123456789abcdef"], code: 1, says: /\.url: must be the agent's origin/ },
    ];
    // All at once (each is refused before it writes); the file is compared after each.
    const results = await Promise.all(cases.map((c) => collie([...c.args, "--sources", sources], c.env)));
    for (const [i, c] of cases.entries()) {
      const r = results[i]!;
      assert.equal(r.code, c.code, `${c.args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, c.says, c.args.join(" "));
      assert.equal(readFileSync(sources, "utf8"), original, `${c.args.join(" ")} changed the file`);
      assert.ok(!r.stderr.includes("0123456789abcdef") && !r.stdout.includes("0123456789abcdef"), "a token was printed");
    }
    assert.deepEqual(readdirSync(dir), ["sources.json"]);

    // A file Collie cannot read is not overwritten.
    writeFileSync(sources, "{ broken");
    const broken = await collie(["durable", "attach", "x", "--socket", "/s.sock", "--sources", sources]);
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /is not valid JSON/);
    assert.equal(readFileSync(sources, "utf8"), "{ broken");
  });

  test("without --socket or --url the socket is COLLIE_DURABLE_SOCKET's (S-5), and the output says so", async () => {
    const dir = tempDir();
    const sources = join(dir, "sources.json");
    const socket = join(dir, "agent", "durable.sock");
    const r = await collie(["durable", "attach", "desk", "--sources", sources, "--state-dir", join(dir, "state")], { COLLIE_DURABLE_SOCKET: socket });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split("\n").slice(0, 2), [`collie: added desk in ${sources}`, `collie: its socket is ${socket}, from COLLIE_DURABLE_SOCKET`]);
    assert.deepEqual(read(sources), { durable: [{ name: "desk", socket }] });
    // --socket still wins over the variable.
    const given = await collie(["durable", "attach", "desk", "--socket", "/run/given.sock", "--sources", sources], { COLLIE_DURABLE_SOCKET: socket });
    assert.equal(given.code, 0, given.stderr);
    assert.deepEqual(read(sources), { durable: [{ name: "desk", socket: "/run/given.sock" }] });
  });

  test("a running daemon picks up an attached agent without a restart", async () => {
    const dir = tempDir();
    const sources = join(dir, "sources.json");
    writeSources(sources, { durable: [] });
    const d = await TestDaemon.start({ sources: { path: sources } });
    await startAgent("desk-agent.ts", ["--socket", join(dir, "desk.sock")]);
    const r = await collie(["durable", "attach", "desk", "--socket", join(dir, "desk.sock"), "--sources", sources]);
    assert.equal(r.code, 0, r.stderr);
    const row = await d.waitState("desk", "ready");
    assert.equal(row.reach, "local");
    await until(() => d.daemon.sourcesProblem === null, "no sources problem");
    assert.ok(!d.logs.some((l) => l.includes("keeping the last good sources")), "the daemon never saw a half-written file");
  });
});
