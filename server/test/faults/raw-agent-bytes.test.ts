/**
 * An agent's socket is outside input down to the HTTP framing (issue 31: Collie reads it with its
 * own client, agents/wire-http.ts). A process on the agent's socket that answers the events
 * long-poll with bytes no HTTP/1.1 reply has — `null`, a reply that is not JSON, a Content-Length
 * and chunked at once, interim replies without end, a body past the reply cap in 100 000 one-byte
 * chunks, a connection cut mid-body — leaves the daemon up and answering, the agent's row
 * `unreachable` with words that say why, and the agent `ready` again once it answers as it should.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { after, test } from "node:test";
import { closeAllDaemons, TestDaemon } from "../helpers/daemon.ts";
import { fakeHello, resetPage } from "../helpers/fake-agent.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

after(async () => {
  await closeAllDaemons();
  removeTempDirs();
});

const reply = (body: string, extra = "") => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

/** What the events long-poll gets, in turn; `write` sends bytes (and may end the connection). */
type Hostile = { what: string; problem: RegExp; write: (socket: Socket) => void };
const HOSTILE: Hostile[] = [
  { what: "null as a reply", problem: /status line/, write: (s) => s.write("null\r\n\r\n") },
  { what: "null, then the connection closed", problem: /closed before the reply was whole/, write: (s) => s.end("null") },
  { what: "a reply that is not JSON", problem: /not JSON/, write: (s) => s.write(reply("{nope")) },
  { what: "a JSON null page", problem: /malformed events page/, write: (s) => s.write(reply("null")) },
  { what: "Content-Length and chunked at once", problem: /both a Content-Length and chunked/, write: (s) => s.write("HTTP/1.1 200 OK\r\ncontent-length: 4\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n") },
  { what: "interim replies without end", problem: /interim replies/, write: (s) => s.write("HTTP/1.1 102 Processing\r\n\r\n".repeat(100_000)) },
  { what: "a cut body", problem: /closed before the reply was whole/, write: (s) => s.end("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{\"cursor\"") },
];

test("hostile bytes on an agent's socket: the daemon stays up, the row says why, the agent comes back", { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const path = join(dir, "raw.sock");
  let mode: Hostile | null = null;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buf = "";
    socket.on("data", (d) => {
      buf += d.toString("latin1");
      for (let end = buf.indexOf("\r\n\r\n"); end >= 0; end = buf.indexOf("\r\n\r\n")) {
        const head = buf.slice(0, end);
        buf = buf.slice(end + 4);
        const target = head.split(" ")[1] ?? "";
        if (target.startsWith("/durable/hello")) socket.write(reply(JSON.stringify(fakeHello({ instance: "raw00001" }))));
        else if (target.includes("/events") && mode) mode.write(socket);
        else if (target.includes("/events") && !target.includes("after=")) socket.write(reply(JSON.stringify(resetPage(["r1"], "raw00001.1"))));
        else if (target.includes("/events")) {
          // An idle agent: its long-poll's wait runs out with an empty page.
          setTimeout(() => socket.writable && socket.write(reply(JSON.stringify({ cursor: "raw00001.1", reset: false, views: [], events: [] }))), 100);
        } else socket.write("HTTP/1.1 404 Not Found\r\ncontent-length: 2\r\n\r\n{}");
      }
    });
  });
  server.listen(path);
  await once(server, "listening");
  after(() => server.close());
  const d = await TestDaemon.start({ sources: { fixed: [{ name: "raw", endpoint: { kind: "socket", path }, key: "raw" }] }, tuning: { retryDelaysMs: [20, 40] } });
  await d.waitState("raw", "ready");
  for (const hostile of HOSTILE) {
    mode = hostile;
    // Cut its connections: the next read of the events gets the hostile bytes.
    for (const socket of sockets) socket.destroy();
    const row = await d.waitAgent("raw", (a) => a.state === "unreachable" && hostile.problem.test(a.problem ?? ""), `unreachable: ${hostile.what}`);
    assert.match(row.problem ?? "", hostile.problem, hostile.what);
    assert.equal((await d.get("/api/health")).status, 200, `the daemon answers after ${hostile.what}`);
    mode = null;
    await d.waitState("raw", "ready");
  }
});
