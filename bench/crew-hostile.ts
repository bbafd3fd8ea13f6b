/**
 * A hostile crew member against a real lead (C-1; the security issues 28.2 and 38.2), the figures
 * docs/security.md keeps. The lead is `collie serve` in its own process, with its bin's V8 flags
 * (its RSS read from /proc),
 * with one crew entry for a fake member on loopback that answers the crew hello and then sends,
 * on its live WebSocket:
 *
 *   flood   BENCH_CREW_FLOOD (200 000) `conversation` messages with distinct ids for one agent
 *   titles  14 `conversation` messages with 40 MB titles
 *   deep    conversations carrying a 10 000-deep array, with a phone connected
 *
 * Each part is a fresh lead. After each: is the lead up, its RSS, the size of `GET /api/snapshot`
 * and of a new phone's first WebSocket message, and what it keeps of the member.
 *
 *   scripts/node22.sh node --conditions=collie-source bench/crew-hostile.ts
 *   BENCH_CREW_ROOT=/path/to/another/checkout   the lead's code from there (its own node_modules)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket, { WebSocketServer } from "ws";
import { DAEMON_NODE_FLAGS } from "./cluster.ts";
import { envInt, ROOT, rssMb, sleep } from "./lib.ts";

const LEAD_ROOT = process.env.BENCH_CREW_ROOT || ROOT;
const FLOOD = envInt("BENCH_CREW_FLOOD", 200_000);
const AT = "2026-12-02T14:00:00.000Z";
const row = (name: string) => ({ name, state: "ready", reach: "local", runtime: "node 22", selfName: null, machine: null, caps: null, wire: { agent: 1, collie: 1 }, counts: { open: 1, waiting: 0 } });
const conversation = (id: string, title = id) => ({ id, tabId: "w:t", title, harness: "h", sessionId: null, state: "idle", actions: [], openAsks: 0, turnId: null, activeAt: AT, agent: "evil", workspaceTitle: "w" });
const snapshot = JSON.stringify({ type: "snapshot", seq: 1, snapshot: { seq: 1, collie: { version: "9.0.0", wire: 1 }, agents: [row("evil")], conversations: [conversation("c0")] } });

interface Part {
  name: string;
  /** What the member sends on its live socket after its snapshot; resolves when it has sent it all. */
  send: (socket: WebSocket) => Promise<void>;
  /** A phone connected before the member starts (the deep case needs one). */
  phoneFirst?: boolean;
}

/** Sends and waits until the socket's buffer drained (a flood as fast as the lead reads it). */
async function sendAll(socket: WebSocket, frames: Iterable<string>): Promise<void> {
  for (const f of frames) {
    if (socket.readyState !== WebSocket.OPEN) return;
    socket.send(f);
    while (socket.bufferedAmount > 8 * 1024 * 1024 && socket.readyState === WebSocket.OPEN) await sleep(5);
  }
  while (socket.bufferedAmount > 0 && socket.readyState === WebSocket.OPEN) await sleep(5);
}

function* flood(n: number): Iterable<string> {
  for (let i = 0; i < n; i++) yield JSON.stringify({ type: "conversation", seq: 2 + i, conversation: conversation(`flood-${i}`) });
}

const PARTS: Part[] = [
  { name: `flood: ${FLOOD} conversations`, send: (s) => sendAll(s, flood(FLOOD)) },
  {
    name: "titles: 14 × 40 MB",
    send: async (s) => {
      const title = "t".repeat(40 * 1024 * 1024);
      for (let i = 0; i < 14; i++) await sendAll(s, [JSON.stringify({ type: "conversation", seq: 2 + i, conversation: conversation(`big-${i}`, title) })]);
    },
  },
  {
    name: "deep: 10 000-deep arrays, a phone connected",
    phoneFirst: true,
    send: (s) => {
      const deep = `${"[".repeat(10_000)}0${"]".repeat(10_000)}`;
      return sendAll(s, Array.from({ length: 20 }, (_, i) => `{"type":"conversation","seq":${2 + i},"conversation":${JSON.stringify(conversation(`deep-${i}`)).replace(/}$/, `,"later":${deep}}`)}`));
    },
  },
];

class Member {
  readonly server: Server;
  readonly wss: WebSocketServer;
  /** Resolves with the lead's first live connection, once its snapshot is sent. */
  readonly connected: Promise<WebSocket>;
  constructor() {
    this.server = createServer((req, res) => {
      res.writeHead(req.url === "/api/crew/hello" ? 200 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify(req.url === "/api/crew/hello" ? { crew: 1, collie: "9.0.0" } : { error: "not-found", message: "No such route." }));
    });
    this.wss = new WebSocketServer({ server: this.server, maxPayload: 1024 * 1024 * 1024 });
    let connected!: (s: WebSocket) => void;
    this.connected = new Promise((r) => (connected = r));
    this.wss.on("connection", (socket) => {
      socket.on("error", () => {});
      socket.send(snapshot);
      connected(socket);
    });
  }
  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", () => r()));
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }
  async close(): Promise<void> {
    for (const c of this.wss.clients) c.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** The `collie` command from the lead's checkout, with the V8 flags its bin gives `collie serve` (a 512 MB heap). */
function collie(args: string[]): ChildProcess {
  const flags = DAEMON_NODE_FLAGS.split(/\s+/).filter(Boolean);
  return spawn(process.execPath, [...flags, "--conditions=collie-source", "--disable-warning=ExperimentalWarning", join(LEAD_ROOT, "server/src/main.ts"), ...args], { stdio: ["ignore", "pipe", "pipe"] });
}

async function output(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  let text = "";
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk;
      const m = pattern.exec(text);
      if (m) resolve(m);
    });
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${text}`)));
  });
}

async function runPart(part: Part): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "collie-bench-crew-"));
  const member = new Member();
  const memberUrl = await member.listen();
  const sources = join(dir, "sources.json");
  writeFileSync(sources, JSON.stringify({ crew: [{ name: "box", url: memberUrl, token: "crew-credential-0123456789" }] }));
  const state = join(dir, "state");
  const lead = collie(["serve", "--sources", sources, "--state-dir", state, "--port", "0"]);
  let exited: string | null = null;
  let stderr = "";
  lead.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  lead.once("exit", (code, signal) => (exited = `exited ${code ?? signal}`));
  const url = (await output(lead, /listening on (http:\/\/\S+)/))[1]!;
  const paired = collie(["pair", "--state-dir", state, "--json"]);
  const { code } = JSON.parse((await output(paired, /\{.*\}/))[0]) as { code: string };
  const pair = await fetch(`${url}/api/pair`, { method: "POST", headers: { "content-type": "application/json", origin: url }, body: JSON.stringify({ code, name: "bench" }) });
  const cookie = /collie_device=([^;]+)/.exec(pair.headers.get("set-cookie") ?? "")?.[1];
  const auth = { authorization: `Bearer ${cookie}` };
  const socket = await member.connected;
  await sleep(1000); // the member's snapshot applied
  const rssBefore = rssMb(lead.pid!);
  let phone: WebSocket | null = null;
  if (part.phoneFirst) {
    phone = new WebSocket(`${url.replace(/^http/, "ws")}/api/live`, { headers: auth, maxPayload: 1024 * 1024 * 1024 });
    phone.on("error", () => {});
    await new Promise((r) => phone!.once("message", r));
  }
  const started = Date.now();
  await part.send(socket);
  const sendSeconds = (Date.now() - started) / 1000;
  await sleep(3000); // let the lead read what is still in its socket
  const result: Record<string, unknown> = { part: part.name, sendSeconds: Math.round(sendSeconds * 10) / 10, rssBeforeMb: Math.round(rssBefore) };
  if (exited) {
    result.lead = `${exited} ${/RangeError[^\n]*|FATAL ERROR[^\n]*|Error[^\n]*/.exec(stderr)?.[0] ?? ""}`.trim();
  } else {
    result.lead = "up";
    result.rssAfterMb = Math.round(rssMb(lead.pid!));
    const snap = await fetch(`${url}/api/snapshot`, { headers: auth, signal: AbortSignal.timeout(60_000) }).catch((err: Error) => err);
    if (snap instanceof Error) result.snapshot = snap.message;
    else {
      const body = await snap.text();
      result.snapshot = `${snap.status}, ${(body.length / 1e6).toFixed(2)} MB`;
    }
    const first = await new Promise<string>((resolve) => {
      const ws = new WebSocket(`${url.replace(/^http/, "ws")}/api/live`, { headers: auth, maxPayload: 1024 * 1024 * 1024 });
      ws.on("error", (err) => resolve(`error ${err.message}`));
      ws.once("close", (c) => resolve(`closed ${c} before a message`));
      ws.once("message", (data) => {
        resolve(`${(String(data).length / 1e6).toFixed(2)} MB`);
        ws.terminate();
      });
    });
    result.firstMessage = first;
    result.phoneStillOpen = phone ? phone.readyState === WebSocket.OPEN : undefined;
  }
  phone?.terminate();
  lead.kill("SIGTERM");
  await new Promise((r) => (exited ? r(null) : lead.once("exit", r)));
  await member.close();
  rmSync(dir, { recursive: true, force: true });
  return result;
}

const results = [];
for (const part of PARTS) {
  const r = await runPart(part);
  console.log(JSON.stringify(r));
  results.push(r);
}
console.log(`\nthe lead's code: ${LEAD_ROOT}`);
