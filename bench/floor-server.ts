/**
 * The floor's far end, in its own process: a keep-alive `node:http` server on a Unix socket (what
 * an agent's socket is, minus the durable core) and a `ws` echo server on loopback (what Collie's
 * WebSocket is, minus the live hub).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WebSocketServer } from "ws";
import { serveParent } from "./lib.ts";

const dir = mkdtempSync(join(tmpdir(), "collie-bench-floor-"));
const socket = join(dir, "floor.sock");
const body = JSON.stringify({ cursor: "0000000000000000.1", reset: false, views: [], events: [] });
const http = createServer({ keepAliveTimeout: 65_000 }, (_req, res) => {
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) });
  res.end(body);
});
await new Promise<void>((r) => http.listen({ path: socket }, r));
const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
await new Promise<void>((r) => wss.once("listening", r));
wss.on("connection", (ws) => ws.on("message", (data, binary) => ws.send(data, { binary })));

serveParent((m) => {
  if (m.type === "exit") {
    http.closeAllConnections();
    http.close();
    wss.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
process.send!({ type: "listening", socket, port: (wss.address() as { port: number }).port });
