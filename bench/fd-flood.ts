/**
 * The file-descriptor attack of issue 38, item 7, run against the real `collie serve`:
 *
 *   slow   ATTACKERS processes, each holding CONNS connections that send half a request header
 *          and nothing more, with no credentials; each reopens a connection Collie closes;
 *   ws     one paired device opening WS WebSockets to /api/live, reopening each one Collie closes.
 *
 * While an attack holds, a probe asks `GET /api/health` and the admin socket (`GET /devices`, what
 * `collie devices` asks) every 250 ms, each with a 2 s deadline, and counts the answers. Prints one
 * JSON line per attack: the daemon's open files, probes answered and their latency.
 *
 *   node --conditions=collie-source --disable-warning=ExperimentalWarning bench/fd-flood.ts
 *   FLOOD_ONLY=slow|ws  FLOOD_ATTACKERS=2 FLOOD_CONNS=10200 FLOOD_WS=19970 FLOOD_SECONDS=30
 *   FLOOD_ROOT=<a checkout>  the Collie to attack (default: this one)
 *
 * Not part of `npm test` nor of `npm run bench`: it takes two cores and ~20 000 sockets for a minute.
 * docs/security.md has the figures.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { envInt, NODE_FLAGS, ROOT, sleep, summarize } from "./lib.ts";

const SECONDS = envInt("FLOOD_SECONDS", 30);
const ATTACKERS = envInt("FLOOD_ATTACKERS", 2);
const CONNS = envInt("FLOOD_CONNS", 10_200);
const WS = envInt("FLOOD_WS", 19_970);
const only = process.env.FLOOD_ONLY;
const root = process.env.FLOOD_ROOT ?? ROOT;

/** One attacker process: `slow <port> <n>` or `ws <port> <n> <token>`, keeping n open. */
const ATTACKER = String.raw`
const net = require("node:net");
const [mode, port, n, token] = process.argv.slice(1);
let open = 0, opened = 0, closedByServer = 0, failed = 0;
const WebSocket = mode === "ws" ? require(process.env.WS_MODULE) : null;
function one() {
  if (mode === "slow") {
    const s = net.connect(Number(port), "127.0.0.1");
    s.on("connect", () => { open++; opened++; s.write("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Slow: "); });
    s.on("error", () => { failed++; });
    s.on("close", () => { open = Math.max(0, open - 1); closedByServer++; setTimeout(one, 50); });
  } else {
    const ws = new WebSocket("ws://127.0.0.1:" + port + "/api/live", { headers: { authorization: "Bearer " + token } });
    ws.on("open", () => { open++; opened++; });
    ws.on("message", () => {});
    ws.on("error", () => { failed++; });
    ws.on("close", () => { open = Math.max(0, open - 1); closedByServer++; setTimeout(one, 50); });
  }
}
let started = 0;
const ramp = setInterval(() => { for (let i = 0; i < 500 && started < Number(n); i++, started++) one(); if (started >= Number(n)) clearInterval(ramp); }, 20);
setInterval(() => process.send && process.send({ open, opened, closedByServer, failed }), 1000);
`;

interface Probe { ok: number; failed: number; ms: number[]; why: Record<string, number> }

/** One request; its time in ms, or why it failed (`no connection in 2 s`, `no answer in 2 s`, an error code, a status). */
function probeHttp(port: number, path: string, socketPath?: string): Promise<number | string> {
  return new Promise((resolve) => {
    const started = performance.now();
    let connected = false;
    const req = request({ ...(socketPath ? { socketPath } : { host: "127.0.0.1", port }), path, method: "GET", agent: false, headers: { host: `127.0.0.1:${port}` } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode === 200 ? performance.now() - started : `status ${res.statusCode}`));
    });
    req.on("socket", (s) => s.once("connect", () => (connected = true)));
    req.setTimeout(2000, () => req.destroy(Object.assign(new Error("deadline"), { code: connected ? "no answer in 2 s" : "no connection in 2 s" })));
    req.on("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

const openFiles = (pid: number) => {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return -1;
  }
};

async function startCollie(state: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [...NODE_FLAGS, join(root, "server/src/main.ts"), "serve", "--port", "0", "--state-dir", state, "--sources", join(state, "none.json")], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (out += c));
  for (let i = 0; i < 1800 && !/listening on http:\/\/127\.0\.0\.1:(\d+)/.test(out); i++) await sleep(100);
  const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
  if (!m) throw new Error(`collie serve did not start: ${out}`);
  return { child, port: Number(m[1]) };
}

async function attack(mode: "slow" | "ws", port: number, state: string, pid: number, token: string): Promise<Record<string, unknown>> {
  const procs = mode === "slow" ? ATTACKERS : 1;
  const per = mode === "slow" ? CONNS : WS;
  const stats = new Map<number, { open: number; opened: number; closedByServer: number; failed: number }>();
  const kids = Array.from({ length: procs }, (_, i) => {
    const k = spawn(process.execPath, ["-e", ATTACKER, mode, String(port), String(per), token], { stdio: ["ignore", "ignore", "inherit", "ipc"], env: { ...process.env, WS_MODULE: join(ROOT, "node_modules/ws") } });
    k.on("message", (m) => stats.set(i, m as never));
    return k;
  });
  const health: Probe = { ok: 0, failed: 0, ms: [], why: {} };
  const admin: Probe = { ok: 0, failed: 0, ms: [], why: {} };
  let maxFiles = 0;
  const until = Date.now() + SECONDS * 1000;
  // The first seconds are the ramp; the probe counts from then on.
  await sleep(Math.min(10_000, SECONDS * 300));
  while (Date.now() < until) {
    const [h, a] = await Promise.all([probeHttp(port, "/api/health"), probeHttp(port, "/devices", join(state, "admin.sock"))]);
    for (const [p, r] of [[health, h], [admin, a]] as const) {
      if (typeof r === "string") {
        p.failed++;
        p.why[r] = (p.why[r] ?? 0) + 1;
      } else {
        p.ok++;
        p.ms.push(r);
      }
    }
    maxFiles = Math.max(maxFiles, openFiles(pid));
    await sleep(250);
  }
  const held = [...stats.values()].reduce((s, v) => ({ open: s.open + v.open, opened: s.opened + v.opened, closedByServer: s.closedByServer + v.closedByServer, failed: s.failed + v.failed }), { open: 0, opened: 0, closedByServer: 0, failed: 0 });
  for (const k of kids) k.kill("SIGKILL");
  await sleep(3000);
  const lat = (p: Probe) => (p.ms.length ? summarize(p.ms) : null);
  return {
    attack: mode, attackers: procs, perAttacker: per, seconds: SECONDS, attackerSockets: held,
    daemonOpenFilesMax: maxFiles, daemonOpenFilesAfter: openFiles(pid),
    health: { answered: health.ok, failed: health.failed, why: health.why, p50ms: lat(health)?.p50, p99ms: lat(health)?.p99 },
    admin: { answered: admin.ok, failed: admin.failed, why: admin.why, p50ms: lat(admin)?.p50, p99ms: lat(admin)?.p99 },
    loadAverage: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
  };
}

const dir = mkdtempSync(join(tmpdir(), "collie-fd-flood-"));
const state = join(dir, "state");
const { child, port } = await startCollie(state);
try {
  const pair = await new Promise<{ code: string }>((resolve, reject) => {
    const req = request({ socketPath: join(state, "admin.sock"), path: "/pair-codes", method: "POST" }, (res) => {
      let t = "";
      res.setEncoding("utf8").on("data", (c: string) => (t += c)).on("end", () => resolve(JSON.parse(t)));
    });
    req.on("error", reject);
    req.end();
  });
  const token = await new Promise<string>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/api/pair", method: "POST", headers: { "content-type": "application/json", host: `127.0.0.1:${port}` } }, (res) => {
      const cookie = String(res.headers["set-cookie"] ?? "");
      res.resume();
      res.on("end", () => resolve(/collie_device=([^;]+)/.exec(cookie)?.[1] ?? ""));
    });
    req.on("error", reject);
    req.end(JSON.stringify({ code: pair.code, name: "flood" }));
  });
  for (const mode of ["slow", "ws"] as const) {
    if (only && only !== mode) continue;
    console.log(JSON.stringify(await attack(mode, port, state, child.pid!, token)));
  }
  // Still standing after both?
  console.log(JSON.stringify({ after: { health: await probeHttp(port, "/api/health"), alive: child.exitCode === null } }));
} finally {
  child.kill("SIGTERM");
  await sleep(1000);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
