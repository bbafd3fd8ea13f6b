/**
 * Joining a crew (C-1) with the real command line against a real member daemon: `collie crew
 * invite` on the member, `collie crew join` on the lead; the credential is kept owner-only and
 * named in sources.json, reads the member's phone API, is listed as a crew lead, can be revoked;
 * a wrong or reused invite is refused and writes nothing.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { closeAllDaemons, TestDaemon } from "../helpers/daemon.ts";
import { collie } from "../helpers/cli.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";
import { loadConfig } from "../../src/sources/sources.ts";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { CREW_JOIN_PATH, CREW_PROTOCOL_VERSION } from "../../src/crew/protocol.ts";

after(async () => {
  await closeAllDaemons();
  removeTempDirs();
});

describe("collie crew invite and collie crew join (C-1)", () => {
  let member: TestDaemon;
  let memberState: string;
  let leadState: string;
  let sources: string;

  before(async () => {
    memberState = tempDir();
    leadState = tempDir();
    sources = join(tempDir(), "sources.json");
    member = await TestDaemon.start({ sources: { fixed: [] }, stateDir: memberState });
  });

  const invite = async () => {
    const r = await collie(["crew", "invite", "--state-dir", memberState, "--url", member.url, "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { url: string; invite: string };
    assert.equal(out.url, member.url);
    return out.invite;
  };

  test("a join keeps the credential in a 0600 file, names it in sources.json, and it reads the member", async () => {
    const code = await invite();
    const r = await collie(["crew", "join", "workshop", member.url, code, "--sources", sources, "--state-dir", leadState]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /added crew member workshop/);
    const config = loadConfig(sources);
    assert.equal(config.crew.length, 1);
    const entry = config.crew[0]!;
    assert.equal(entry.name, "workshop");
    assert.equal(entry.url.origin, member.url);
    const raw = JSON.parse(readFileSync(sources, "utf8")) as { crew: { token: string }[] };
    assert.match(raw.crew[0]!.token, /^file:/, "sources.json names the file, never the credential");
    const file = raw.crew[0]!.token.slice(5);
    assert.ok(file.startsWith(leadState));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(!r.stdout.includes(entry.token) && !r.stderr.includes(entry.token), "the credential is never printed");

    const hello = await fetch(`${member.url}/api/crew/hello`, { headers: { authorization: `Bearer ${entry.token}` } });
    assert.equal(hello.status, 200);
    assert.equal(((await hello.json()) as { crew: number }).crew, 1);
    const snap = await fetch(`${member.url}/api/snapshot`, { headers: { authorization: `Bearer ${entry.token}` } });
    assert.equal(snap.status, 200, "a crew credential reads like a paired phone");

    const listed = await collie(["devices", "--state-dir", memberState]);
    assert.equal(listed.code, 0, listed.stderr);
    const line = listed.stdout.split("\n").find((l) => l.includes("(crew lead)"));
    assert.ok(line, listed.stdout);

    const id = line!.split(/\s+/)[0]!;
    const revoked = await collie(["devices", "revoke", id, "--state-dir", memberState]);
    assert.equal(revoked.code, 0, revoked.stderr);
    const after = await fetch(`${member.url}/api/snapshot`, { headers: { authorization: `Bearer ${entry.token}` } });
    assert.equal(after.status, 401, "a revoked lead is refused at once");
  });

  test("a reused invite and a wrong invite are refused, and sources.json is left as it was", async () => {
    const code = await invite();
    const first = await collie(["crew", "join", "build", member.url, code, "--sources", sources, "--state-dir", leadState]);
    assert.equal(first.code, 0, first.stderr);
    const before = readFileSync(sources, "utf8");
    const again = await collie(["crew", "join", "other", member.url, code, "--sources", sources, "--state-dir", leadState]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /the member refused the invite: This invite is not valid/);
    const wrong = await collie(["crew", "join", "other", member.url, "ZZZZ-ZZZZ-ZZZZ", "--sources", sources, "--state-dir", leadState]);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /not valid/);
    assert.equal(readFileSync(sources, "utf8"), before);
    assert.ok(!existsSync(join(leadState, "crew", "other.token")));
  });

  test("a bad member name is refused before the invite is spent", async () => {
    const code = await invite();
    const bad = await collie(["crew", "join", "-bad name", member.url, code, "--sources", sources, "--state-dir", leadState]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /crew\[0\]\.name: must be/);
    const good = await collie(["crew", "join", "good", member.url, code, "--sources", sources, "--state-dir", leadState]);
    assert.equal(good.code, 0, good.stderr);
  });

  test("the crew credential cannot reach the admin routes that invite or pair", async () => {
    const entry = loadConfig(sources).crew.find((c) => c.name === "good")!;
    for (const path of ["/crew-invites", "/pair-codes"]) {
      const r = await fetch(`${member.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${entry.token}` } });
      assert.equal(r.status, 404, path);
    }
  });

  test("a member that answers with a redirect, or with a credential HTTP cannot carry, gets nothing stored and the invite goes nowhere else", async () => {
    let followed = 0;
    const elsewhere = createServer((_req, res) => {
      followed++;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ crew: CREW_PROTOCOL_VERSION, token: "stolen-credential-0123456789" }));
    });
    await new Promise<void>((r) => elsewhere.listen(0, "127.0.0.1", () => r()));
    const elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    const answers: [number, Record<string, string>, unknown][] = [
      [307, { location: `${elsewhereUrl}${CREW_JOIN_PATH}` }, {}],
      [200, {}, { crew: CREW_PROTOCOL_VERSION, token: "crew-credential-0123456789€" }],
    ];
    const fake = createServer((_req, res) => {
      const [status, headers, body] = answers.shift()!;
      res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
    });
    await new Promise<void>((r) => fake.listen(0, "127.0.0.1", () => r()));
    const fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    try {
      const before = readFileSync(sources, "utf8");
      const redirected = await collie(["crew", "join", "moved", fakeUrl, "AAAA-BBBB-CCCC", "--sources", sources, "--state-dir", leadState]);
      assert.equal(redirected.code, 1);
      assert.match(redirected.stderr, /answered with a redirect \(307\)/);
      assert.equal(followed, 0, "the invite was never posted to the redirect's address");
      const badToken = await collie(["crew", "join", "euro", fakeUrl, "AAAA-BBBB-CCCC", "--sources", sources, "--state-dir", leadState]);
      assert.equal(badToken.code, 1);
      assert.match(badToken.stderr, /credential must be printable ASCII/);
      assert.equal(readFileSync(sources, "utf8"), before);
      assert.ok(!existsSync(join(leadState, "crew", "moved.token")));
      assert.ok(!existsSync(join(leadState, "crew", "euro.token")));
    } finally {
      fake.close();
      elsewhere.close();
    }
  });
});
