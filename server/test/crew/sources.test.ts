/** sources.json's `crew` entries (C-1): checked field by field, the token resolved and never shown. */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { parseConfig, SourcesError } from "../../src/sources/sources.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

after(() => removeTempDirs());

const TOKEN = "crew-credential-0123456789abcdef";
const parse = (json: unknown, env: NodeJS.ProcessEnv = {}) => parseConfig(json, "/x/sources.json", env);
const refused = (json: unknown, match: RegExp) =>
  assert.throws(() => parse(json), (err: unknown) => err instanceof SourcesError && match.test(err.message) && !err.message.includes(TOKEN), String(match));

describe("sources.json crew entries (C-1)", () => {
  test("a member with an inline, env: or file: token parses beside durable agents", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "w.token"), `${TOKEN}\n`);
    const c = parseConfig({
      durable: [],
      crew: [
        { name: "workshop", url: "https://workshop.example.ts.net", token: `file:${join(dir, "w.token")}` },
        { name: "build", url: "http://127.0.0.1:9000", token: "env:BUILD_CREW" },
        { name: "nas", url: "https://nas.example.ts.net/", token: TOKEN },
      ],
    }, join(dir, "sources.json"), { BUILD_CREW: TOKEN });
    assert.deepEqual(c.crew.map((m) => [m.name, m.url.origin, m.token]), [
      ["workshop", "https://workshop.example.ts.net", TOKEN],
      ["build", "http://127.0.0.1:9000", TOKEN],
      ["nas", "https://nas.example.ts.net", TOKEN],
    ]);
    assert.ok(c.crew.every((m) => !m.key.includes(TOKEN)), "the key carries only the token's hash");
  });

  test("each bad field gets its own clear error that never quotes the token", () => {
    refused({ crew: {} }, /crew: must be an array/);
    refused({ crew: [{ name: "w", url: "https://w.example", token: TOKEN, socket: "/x" }] }, /crew\[0\]\.socket: is not a field of a crew member/);
    refused({ crew: [{ name: "", url: "https://w.example", token: TOKEN }] }, /crew\[0\]\.name: must be 1 to 64/);
    refused({ crew: [{ name: "w", url: "https://w.example", token: TOKEN }, { name: "w", url: "https://v.example", token: TOKEN }] }, /crew\[1\] \(w\)\.name: is used by an earlier entry/);
    refused({ crew: [{ name: "w", url: "http://w.example", token: TOKEN }] }, /crew\[0\] \(w\)\.url: must be https/);
    refused({ crew: [{ name: "w", url: "https://w.example/collie", token: TOKEN }] }, /url: must be the member's origin/);
    refused({ crew: [{ name: "w", url: `https://u:${TOKEN}@w.example`, token: TOKEN }] }, /url: must not carry credentials/);
    refused({ crew: [{ name: "w", url: "https://w.example" }] }, /crew\[0\] \(w\)\.token: is required/);
    refused({ crew: [{ name: "w", url: "https://w.example", token: "env:NOPE" }] }, /token: names the environment variable NOPE/);
    refused({ crew: [{ name: "w", url: "https://w.example", token: "short" }] }, /token: is shorter than 16/);
    refused({ crew: [{ name: "w", url: "https://w.example", token: "crew-credential-0123456789€" }] }, /crew\[0\] \(w\)\.token: must be printable ASCII/);
    refused({ crew: [{ name: "w", url: "https://w.example", token: "crew credential 0123456789" }] }, /token: must be printable ASCII/);
    refused({ durable: [{ name: "d", url: "https://d.example", token: "agent-token-0123456789\u0000" }] }, /durable\[0\] \(d\)\.token: must be printable ASCII/);
    refused({ crews: [] }, /crews: is not a field of sources.json \(expected "durable" or "crew"\)/);
  });
});
