/**
 * sources.json (D-1): edited while the daemon runs, an edit applies without a restart (agents
 * added, removed, changed); a bad edit is refused with an error naming the file, the entry and the
 * field, and the last good agents stay connected. Tokens: inline, env:NAME, file:PATH.
 */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { closeAllDaemons, requestId, TestDaemon, writeSources } from "../helpers/daemon.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";
import { envSocketPath, loadSources, SourcesError, withEnvSocket, type AgentSource } from "../../src/sources/sources.ts";

after(async () => {
  await closeAllLive();
  await closeAllDaemons();
  await killAllAgents();
  removeTempDirs();
});

describe("sources.json edited live (D-1)", () => {
  let dir: string;
  let sources: string;
  let d: TestDaemon;
  let live: LiveClient;
  const sock = (n: string) => join(dir, `${n}.sock`);

  before(async () => {
    dir = tempDir();
    sources = join(dir, "sources.json");
    await Promise.all([
      startAgent("desk-agent.ts", ["--socket", sock("a"), "--name", "first"]),
      startAgent("desk-agent.ts", ["--socket", sock("b"), "--name", "second"]),
      startAgent("desk-agent.ts", ["--socket", sock("c"), "--name", "third"]),
    ]);
    writeSources(sources, { durable: [{ name: "a", socket: sock("a") }] });
    d = await TestDaemon.start({ sources: { path: sources } });
    await d.waitState("a", "ready");
    live = await LiveClient.connect(d.wsUrl);
  });

  test("an added agent connects, a changed one reconnects, a removed one goes, the rest stay untouched", async () => {
    const connA = d.daemon.agents.get("a");
    // Add b (a relative socket path resolves beside sources.json).
    writeSources(sources, { durable: [{ name: "a", socket: sock("a") }, { name: "b", socket: "b.sock" }] });
    const b = await d.waitState("b", "ready");
    assert.equal(b.selfName, "second");
    assert.equal(d.daemon.agents.get("a"), connA, "a was not restarted");

    // Change a: another socket, so another agent behind the same name.
    writeSources(sources, { durable: [{ name: "a", socket: sock("c") }, { name: "b", socket: "b.sock" }] });
    const a = await d.waitAgent("a", (x) => x.state === "ready" && x.selfName === "third", "a reconnected to the third agent");
    assert.equal(a.reach, "local");
    assert.notEqual(d.daemon.agents.get("a"), connA);

    // Remove b.
    const from = live.messages.length;
    writeSources(sources, { durable: [{ name: "a", socket: sock("c") }] });
    await live.waitFor((m) => m.type === "agent-removed" && m.name === "b", "agent-removed b", from);
    const snap = await d.snapshot();
    assert.deepEqual(snap.agents.map((x) => x.name), ["a"]);
    assert.ok(!snap.conversations.some((c) => c.agent === "b"));
    assert.equal(d.daemon.sourcesProblem, null);
  });

  test("a bad edit is refused naming file, entry and field, and the last good agents stay", async () => {
    const good = { durable: [{ name: "a", socket: sock("c") }] };
    writeSources(sources, good);
    await until(() => d.daemon.sourcesProblem === null && d.daemon.agents.names().join() === "a", "the good file in force");
    const conn = d.daemon.agents.get("a");
    delete process.env.COLLIE_TEST_UNSET_TOKEN;

    const cases: { content: unknown; expect: RegExp[] }[] = [
      { content: "{ \"durable\": [ {\"name\": \"a\", ", expect: [/is not valid JSON/] },
      { content: { durable: [{ name: "a", socket: sock("c") }, { name: "x", url: "https://agent.example:8443" }] }, expect: [/durable\[1\] \(x\)\.token/, /required/] },
      { content: { durable: [{ name: "a", socket: sock("c") }, { name: "web", url: "http://agent.example:8080", token: "0123456789abcdef" }] }, expect: [/durable\[1\] \(web\)\.url/, /https/] },
      { content: { durable: [{ name: "a", socket: sock("c") }, { name: "envy", url: "https://127.0.0.1:9", token: "env:COLLIE_TEST_UNSET_TOKEN" }] }, expect: [/durable\[1\] \(envy\)\.token/, /COLLIE_TEST_UNSET_TOKEN/, /not set/] },
      { content: { durable: [{ socket: sock("c") }] }, expect: [/durable\[0\]\.name/] },
      { content: { durable: [{ name: "a", socket: sock("c"), colour: "red" }] }, expect: [/durable\[0\]\.colour/] },
      { content: { durable: [{ name: "a", socket: sock("c") }, { name: "a", socket: sock("b") }] }, expect: [/durable\[1\] \(a\)\.name/, /earlier entry/] },
      { content: { durable: [{ name: "a", socket: sock("c"), url: "https://127.0.0.1:9" }] }, expect: [/durable\[0\] \(a\)/, /exactly one of "socket" or "url"/] },
    ];
    for (const c of cases) {
      writeSources(sources, c.content);
      const problem = await until(() => {
        const p = d.daemon.sourcesProblem;
        return p !== null && c.expect.every((re) => re.test(p)) ? p : undefined;
      }, () => `the problem for ${JSON.stringify(c.content)}; have ${d.daemon.sourcesProblem}`);
      assert.ok(problem.startsWith(`${sources}: `), `names the file: ${problem}`);
      assert.deepEqual(d.daemon.agents.names(), ["a"], "the last good agents stay");
      assert.equal(d.daemon.agents.get("a"), conn, "the agent in force was not restarted");
      assert.equal((await d.agent("a"))!.state, "ready");
      assert.ok(d.logs.some((l) => l.includes(problem) && l.includes("keeping the last good sources")));
      // Back to good between cases, so each case's message is the one awaited.
      writeSources(sources, good);
      await until(() => d.daemon.sourcesProblem === null, "the good file in force again");
    }

    // A deleted file is a bad file too.
    rmSync(sources);
    await until(() => /cannot be read \(ENOENT\)/.test(d.daemon.sourcesProblem ?? ""), "the missing-file problem");
    assert.deepEqual(d.daemon.agents.names(), ["a"]);

    // The agent in force still works end to end.
    const id = requestId();
    const sent = await d.post("/api/agents/a/panes/p2/send", { requestId: id, text: "after bad edits" });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    writeSources(sources, good);
    await until(() => d.daemon.sourcesProblem === null, "the good file in force again");
  });
});

describe("tokens in sources.json (D-1, X-3)", () => {
  test("inline, env:NAME and file:PATH tokens resolve; errors never print a token", () => {
    const dir = tempDir();
    const path = join(dir, "sources.json");
    writeFileSync(join(dir, "tok"), "  file-token-0123456789abcdef\n");
    writeFileSync(path, JSON.stringify({
      durable: [
        { name: "inline", url: "https://agent.example", token: "inline-token-0123456789" },
        { name: "env", url: "https://agent.example:8443", token: "env:COLLIE_TEST_ENV_TOKEN" },
        { name: "file", url: "https://agent.example:9443", token: "file:tok" },
        { name: "loop", url: "http://127.0.0.1:7000", token: `file:${join(dir, "tok")}` },
        { name: "lh", url: "http://localhost:7001", token: "inline-token-0123456789" },
      ],
    }));
    const list = loadSources(path, { COLLIE_TEST_ENV_TOKEN: "env-token-0123456789abcdef\n" });
    const tokens = Object.fromEntries(list.map((s) => [s.name, s.endpoint.kind === "url" ? s.endpoint.token : null]));
    assert.deepEqual(tokens, {
      inline: "inline-token-0123456789",
      env: "env-token-0123456789abcdef",
      file: "file-token-0123456789abcdef",
      loop: "file-token-0123456789abcdef",
      lh: "inline-token-0123456789",
    });
    for (const s of list) assert.ok(!s.key.includes("token-0123"), `the key of ${s.name} holds the token`);

    const short = "short-secret";
    writeFileSync(path, JSON.stringify({ durable: [{ name: "s", url: "https://agent.example", token: short }] }));
    assert.throws(() => loadSources(path, {}), (err: Error) => err instanceof SourcesError && /durable\[0\] \(s\)\.token/.test(err.message) && !err.message.includes(short));
    writeFileSync(path, JSON.stringify({ durable: [{ name: "m", url: "https://agent.example", token: "file:missing-token-file" }] }));
    assert.throws(() => loadSources(path, {}), /durable\[0\] \(m\)\.token: cannot read .*missing-token-file \(ENOENT\)/);
    writeFileSync(path, JSON.stringify({ durable: [{ name: "u", url: "https://user:pass-0123456789@agent.example", token: "inline-token-0123456789" }] }));
    assert.throws(() => loadSources(path, {}), (err: Error) => /\.url: must not carry credentials/.test(err.message) && !err.message.includes("pass-0123456789"));
  });
});

describe("COLLIE_DURABLE_SOCKET, the variable Collie reads too (S-5)", () => {
  const socketSource = (name: string, path: string): AgentSource => ({ name, endpoint: { kind: "socket", path }, key: `socket:${path}` });

  test("read as an absolute path; unset or empty is none", () => {
    assert.equal(envSocketPath({ COLLIE_DURABLE_SOCKET: "/run/user/1000/collie/durable.sock" }), "/run/user/1000/collie/durable.sock");
    assert.equal(envSocketPath({ COLLIE_DURABLE_SOCKET: "rel/durable.sock" }), join(process.cwd(), "rel/durable.sock"));
    assert.equal(envSocketPath({ COLLIE_DURABLE_SOCKET: "" }), null);
    assert.equal(envSocketPath({}), null);
  });

  test("its agent is added as durable unless an entry names that socket; a taken name gets -env", () => {
    const path = "/run/user/1000/collie/durable.sock";
    const added = withEnvSocket([socketSource("desk", "/run/desk.sock")], path);
    assert.deepEqual(added.added, socketSource("durable", path));
    assert.deepEqual(added.sources.map((s) => s.name), ["desk", "durable"]);
    const named = withEnvSocket([socketSource("mine", path)], path);
    assert.equal(named.added, null);
    assert.deepEqual(named.sources.map((s) => s.name), ["mine"]);
    assert.equal(withEnvSocket([socketSource("durable", "/run/other.sock")], path).added?.name, "durable-env");
    assert.equal(withEnvSocket([socketSource("durable", "/a"), socketSource("durable-env", "/b")], path).added?.name, "durable-env-2");
    assert.deepEqual(withEnvSocket([socketSource("desk", "/a")], null), { sources: [socketSource("desk", "/a")], added: null });
  });

  test("a daemon shows the agent on it beside sources.json's, and drops it once sources.json names that socket", async () => {
    const dir = tempDir();
    const socket = join(dir, "env.sock");
    await startAgent("desk-agent.ts", ["--socket", socket]);
    const sources = join(dir, "sources.json");
    writeSources(sources, { durable: [] });
    const d = await TestDaemon.start({ sources: { path: sources }, envSocket: socket });
    const row = await d.waitState("durable", "ready");
    assert.equal(row.reach, "local");
    assert.equal(d.daemon.envAgent, "durable");
    writeSources(sources, { durable: [{ name: "mine", socket }] });
    await d.waitState("mine", "ready");
    await until(async () => !(await d.snapshot()).agents.some((a) => a.name === "durable"), "the env agent gives way to the entry");
    assert.equal(d.daemon.envAgent, null);
  });
});
