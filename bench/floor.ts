/**
 * The physical floor (N-3), measured in the same run as everything else:
 * - a keep-alive HTTP GET over a Unix socket between two processes (the agent → Collie hop);
 * - a WebSocket echo over loopback between two processes (the Collie → phone hop).
 * Both are round trips of a small JSON message with no application work on either side.
 */
import { Agent, request } from "node:http";
import WebSocket from "ws";
import { Child, nowMs, sleep, summarize, type Summary } from "./lib.ts";

export interface FloorResult {
  http: Summary;
  ws: Summary;
  /** The same round trips with a few ms of quiet between them, as the timed asks have. */
  httpPaced: Summary;
  wsPaced: Summary;
}

/**
 * `samples` back-to-back round trips of each kind, then `paced` more with 1–3 ms of quiet between
 * them. Back to back keeps both processes on a hot CPU; with gaps, a sleeping process has to be
 * woken (on this VM that alone can double a round trip), which is what an ask sees.
 */
export async function measureFloor(samples: number, paced: number): Promise<FloorResult> {
  const server = new Child("floor-server.ts", { name: "floor-server" });
  try {
    const { socket, port } = await server.once<{ socket: string; port: number }>("listening");
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<void>((resolve, reject) => {
        const req = request({ socketPath: socket, path: "/durable/v1/events", agent, headers: { accept: "application/json" } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            JSON.parse(Buffer.concat(chunks).toString("utf8"));
            resolve();
          });
        });
        req.on("error", reject);
        req.end();
      });
    const http: number[] = [];
    for (let i = 0; i < samples + 200; i++) {
      const t0 = nowMs();
      await get();
      if (i >= 200) http.push(nowMs() - t0);
    }
    const httpPaced: number[] = [];
    for (let i = 0; i < paced; i++) {
      await sleep(1 + 2 * Math.random());
      const t0 = nowMs();
      await get();
      httpPaced.push(nowMs() - t0);
    }
    agent.destroy();

    const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    const message = JSON.stringify({ type: "ask", seq: 1, agent: "bench", paneId: "p", ask: { id: "x".repeat(32), title: "Run the migration?" } });
    const roundTrip = async () => {
      const t0 = nowMs();
      await new Promise<void>((resolve) => {
        ws.once("message", (data) => {
          JSON.parse(String(data));
          resolve();
        });
        ws.send(message);
      });
      return nowMs() - t0;
    };
    const echo: number[] = [];
    for (let i = 0; i < samples + 200; i++) {
      const ms = await roundTrip();
      if (i >= 200) echo.push(ms);
    }
    const echoPaced: number[] = [];
    for (let i = 0; i < paced; i++) {
      await sleep(1 + 2 * Math.random());
      echoPaced.push(await roundTrip());
    }
    ws.close();
    return { http: summarize(http), ws: summarize(echo), httpPaced: summarize(httpPaced), wsPaced: summarize(echoPaced) };
  } finally {
    await server.stop();
  }
}
