/**
 * A member's agent rows reach the lead as the member's WebSocket sent them, unchecked by any
 * schema on the way in; the lead's own snapshot and agent list are serialized with the agent row's
 * schema. A member sending odd rows (a field missing, a count that is text, no name) must not
 * make the lead's snapshot fail: each row is rebuilt on arrival, a row without a name dropped.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, test } from "node:test";
import { WebSocketServer } from "ws";
import { closeAllDaemons, TestDaemon, writeSources } from "../helpers/daemon.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";
import { CREW_HELLO_PATH, CREW_PROTOCOL_VERSION } from "../../src/crew/protocol.ts";

after(async () => {
  await closeAllDaemons();
  removeTempDirs();
});

const good = { name: "good", state: "ready", reach: "local", runtime: "node 22", selfName: "Good", machine: null, caps: null, wire: { agent: 1, collie: 1 }, counts: { open: 1, waiting: 0 } };

test("a member's malformed agent rows and conversations: the lead's snapshot and agent list still answer 200 with its good rows", async () => {
  const dir = tempDir();
  const member = createServer((req, res) => {
    res.writeHead(req.url === CREW_HELLO_PATH ? 200 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify(req.url === CREW_HELLO_PATH ? { crew: CREW_PROTOCOL_VERSION, collie: "9.0.0" } : { error: "not-found", message: "No such route." }));
  });
  const wss = new WebSocketServer({ server: member });
  wss.on("connection", (socket) => {
    socket.send(JSON.stringify({
      type: "snapshot",
      seq: 1,
      snapshot: {
        seq: 1,
        collie: { version: "9.0.0", wire: 1 },
        agents: [
          good,
          { name: "bare", machine: null },
          { name: "odd", state: "dancing", reach: 7, runtime: 3, selfName: {}, machine: null, caps: "all", wire: "x", counts: { open: "x", waiting: -1 }, notShown: "2", problem: 5 },
          { state: "ready", machine: null },
          "not a row",
          null,
        ],
        conversations: [
          { agent: "good", id: "p1", title: "Refunds", workspaceTitle: "w", activeAt: "2026-01-01T00:00:00.000Z" },
          { agent: "good" },
          null,
        ],
      },
    }));
    socket.send(JSON.stringify({ type: "agent", agent: { name: "late", machine: null, counts: { open: "many" } } }));
  });
  await new Promise<void>((r) => member.listen(0, "127.0.0.1", () => r()));
  const port = (member.address() as { port: number }).port;
  try {
    const sources = join(dir, "sources.json");
    writeSources(sources, { crew: [{ name: "box", url: `http://127.0.0.1:${port}`, token: "crew-credential-0123456789" }] });
    const lead = await TestDaemon.start({ sources: { path: sources }, stateDir: join(dir, "lead") });
    const snap = await until(async () => {
      const r = await lead.get<{ agents: { name: string }[] }>("/api/snapshot");
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.agents.some((a) => a.name === "late@box") ? r.body : undefined;
    }, "the member's rows on the lead");
    const rows = Object.fromEntries((snap as unknown as { agents: Record<string, unknown>[] }).agents.map((a) => [a.name, a]));
    assert.deepEqual(Object.keys(rows).sort(), ["bare@box", "good@box", "late@box", "odd@box"]);
    assert.deepEqual(rows["good@box"], { ...good, name: "good@box", machine: "box" });
    assert.deepEqual(rows["bare@box"], { name: "bare@box", state: "unreachable", reach: "local", runtime: null, selfName: null, machine: "box", caps: null, wire: { agent: null, collie: 0 }, counts: { open: 0, waiting: 0 } });
    assert.deepEqual(rows["odd@box"], { name: "odd@box", state: "unreachable", reach: "local", runtime: null, selfName: null, machine: "box", caps: null, wire: { agent: null, collie: 0 }, counts: { open: 0, waiting: 0 } });
    assert.deepEqual(rows["late@box"]!.counts, { open: 0, waiting: 0 });
    const conversations = (snap as unknown as { conversations: { agent: string; id: string }[] }).conversations;
    assert.deepEqual(conversations.map((c) => [c.agent, c.id]), [["good@box", "p1"]]);
    const agents = await lead.get<{ agents: { name: string }[] }>("/api/agents");
    assert.equal(agents.status, 200);
    assert.deepEqual(agents.body.agents.map((a) => a.name).sort(), ["bare@box", "good@box", "late@box", "odd@box"]);
    await lead.close();
  } finally {
    for (const c of wss.clients) c.terminate();
    wss.close();
    member.closeAllConnections();
    await new Promise((r) => member.close(r));
  }
});
