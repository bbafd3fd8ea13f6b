/**
 * A crew member's live WebSocket is outside input (C-1): whatever it sends, nothing may throw out
 * of the lead's socket handler. A fake member lists an agent, then sends `null`, a view without
 * its detail, a view whose detail is null, a binary frame, text that is not JSON and unknown
 * types; the lead stays up, keeps the member's good rows, and applies a good message sent after.
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

const row = (name: string) => ({ name, state: "ready", reach: "local", runtime: null, selfName: null, machine: null, caps: null, wire: { agent: 1, collie: 1 }, counts: { open: 1, waiting: 0 } });
const conversation = (agent: string, id: string) => ({ agent, id, title: id, workspaceTitle: "w", activeAt: "2026-01-01T00:00:00.000Z" });

test("a member that sends null, a view without detail and other malformed frames leaves the lead up, with the member's good rows", async () => {
  const dir = tempDir();
  const member = createServer((req, res) => {
    res.writeHead(req.url === CREW_HELLO_PATH ? 200 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify(req.url === CREW_HELLO_PATH ? { crew: CREW_PROTOCOL_VERSION, collie: "9.0.0" } : { error: "not-found", message: "No such route." }));
  });
  const wss = new WebSocketServer({ server: member });
  wss.on("connection", (socket) => {
    socket.send(JSON.stringify({ type: "snapshot", seq: 1, snapshot: { seq: 1, collie: { version: "9.0.0", wire: 1 }, agents: [row("evil")], conversations: [conversation("evil", "c0")] } }));
    for (const bad of [
      "null",
      "[]",
      "42",
      "\"snapshot\"",
      "{not json",
      JSON.stringify({ type: "view", agent: "evil", paneId: "c0" }),
      JSON.stringify({ type: "view", agent: "evil", paneId: "c0", detail: null }),
      JSON.stringify({ type: "view", agent: "evil", paneId: "c0", detail: { conversation: null } }),
      JSON.stringify({ type: "snapshot", seq: 2, snapshot: null }),
      JSON.stringify({ type: "conversation", conversation: null }),
      JSON.stringify({ type: "item", agent: "evil", paneId: "c0", item: null }),
      JSON.stringify({ type: "ask", agent: "evil", paneId: "c0", ask: null }),
      JSON.stringify({ type: "ask-closed", agent: "evil", paneId: "c0" }),
      JSON.stringify({ type: "held-outcome" }),
      JSON.stringify({ type: "decision", agent: "evil", decision: null }),
      JSON.stringify({ type: "decision", agent: "evil", decision: { askId: 1, paneId: [], at: {} } }),
      JSON.stringify({ type: "decision", agent: "evil" }),
      JSON.stringify({ type: "agent-removed" }),
      JSON.stringify({ type: "no-such-type" }),
      JSON.stringify({ type: null }),
    ]) socket.send(bad);
    socket.send(Buffer.from([0, 1, 2, 3]), { binary: true });
    socket.send(JSON.stringify({ type: "conversation", conversation: conversation("evil", "after") }));
  });
  await new Promise<void>((r) => member.listen(0, "127.0.0.1", () => r()));
  const port = (member.address() as { port: number }).port;
  try {
    const sources = join(dir, "sources.json");
    writeSources(sources, { crew: [{ name: "box", url: `http://127.0.0.1:${port}`, token: "crew-credential-0123456789" }] });
    const lead = await TestDaemon.start({ sources: { path: sources }, stateDir: join(dir, "lead") });
    const snap = await until(async () => {
      const r = await lead.get<{ agents: { name: string }[]; conversations: { agent: string; id: string }[] }>("/api/snapshot");
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.conversations.some((c) => c.id === "after") ? r.body : undefined;
    }, "the good message sent after the bad ones, on the lead");
    assert.deepEqual(snap.agents.map((a) => a.name), ["evil@box"]);
    assert.equal((await lead.get("/api/health")).status, 200);
    assert.ok(lead.logs.some((l) => /crew member box: dropped \d+ malformed message/.test(l)), lead.logs.join("\n"));
    await lead.close();
  } finally {
    for (const c of wss.clients) c.terminate();
    wss.close();
    member.closeAllConnections();
    await new Promise<void>((r) => member.close(() => r()));
  }
});
