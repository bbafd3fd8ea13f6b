/**
 * The sockets issue, against `collie serve` in a child process: every refused WebSocket upgrade
 * ends its connection (no CLOSE-WAIT left behind, so a few hundred refusals cannot exhaust the
 * open-file limit), and SIGTERM stops the daemon and its example agent within a few seconds
 * whatever its sockets hold: refused upgrades whose client stays, half-open requests, live
 * WebSockets. A second signal exits at once.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, test } from "node:test";
import type { ChildProcess } from "node:child_process";
import WebSocket from "ws";
import { collie, collieProcess } from "../helpers/cli.ts";
import { rawTarget } from "../helpers/odd-paths.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const serving: ChildProcess[] = [];
const clients: (Socket | WebSocket)[] = [];
after(async () => {
  for (const c of clients) c instanceof WebSocket ? c.terminate() : c.destroy();
  for (const p of serving) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  removeTempDirs();
});

const openFiles = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
const childrenOf = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);

/** `collie serve` on a free port with its own state directory; `example` starts the bundled agent. */
async function serve(opts: { example: boolean }): Promise<{ proc: ChildProcess; url: string; port: number; state: string; stderr: () => string }> {
  const dir = tempDir();
  const state = join(dir, "state");
  const sources = join(dir, "sources.json");
  if (!opts.example) {
    const { writeFileSync } = await import("node:fs");
    writeFileSync(sources, JSON.stringify({ durable: [] }));
  }
  const proc = collieProcess(["serve", "--sources", sources, "--state-dir", state, "--port", "0"]);
  serving.push(proc);
  const out: string[] = [];
  let stderr = "";
  proc.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  createInterface({ input: proc.stdout! }).on("line", (l) => out.push(l));
  const url = await until(() => out.map((l) => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(l)?.[1]).find(Boolean), () => `the listening line; stdout ${out.join("\n")}; stderr ${stderr}`);
  return { proc, url, port: Number(new URL(url).port), state, stderr: () => stderr };
}

async function pairedToken(state: string, url: string): Promise<string> {
  const paired = await collie(["pair", "--json", "--state-dir", state, "--url", url]);
  assert.equal(paired.code, 0, paired.stderr);
  const { code } = JSON.parse(paired.stdout) as { code: string };
  const traded = await fetch(`${url}/api/pair`, { method: "POST", headers: { "content-type": "application/json", origin: url }, body: JSON.stringify({ code, name: "test phone" }) });
  assert.equal(traded.status, 200);
  return traded.headers.get("set-cookie")!.split(";")[0]!.split("=")[1]!;
}

test("a few hundred refused upgrades of every kind leave Collie's open files where they were", async () => {
  const { proc, url, port, state } = await serve({ example: false });
  const pid = proc.pid!;
  const token = await pairedToken(state, url);
  const baseline = openFiles(pid);
  const kinds: { what: string; status: number; target: string; headers: Record<string, string> }[] = [
    { what: "no device", status: 401, target: "/api/live", headers: {} },
    { what: "a foreign Origin", status: 403, target: "/api/live", headers: { authorization: `Bearer ${token}`, origin: "https://evil.example" } },
    { what: "a foreign Host", status: 421, target: "/api/live", headers: { host: "evil.example" } },
    { what: "no such route", status: 404, target: "/api/nothing", headers: {} },
    { what: "a route that takes no upgrade", status: 404, target: "/api/snapshot", headers: { authorization: `Bearer ${token}` } },
    { what: "a URL the router cannot read", status: 400, target: "/api/%zz", headers: {} },
  ];
  const PER_KIND = 200;
  for (const kind of kinds) {
    for (let batch = 0; batch < PER_KIND / 50; batch++) {
      const replies = await Promise.all(Array.from({ length: 50 }, () => rawTarget(port, "GET", kind.target, { upgrade: true, headers: kind.headers })));
      for (const r of replies) {
        assert.equal(r.status, kind.status, kind.what);
        assert.ok(r.closed, `${kind.what}: Collie closed the connection after its refusal`);
      }
    }
  }
  // The server's side of every refused connection is gone; Collie still answers.
  await until(() => openFiles(pid) <= baseline, () => `open files ${openFiles(pid)}, baseline ${baseline}`);
  assert.equal((await fetch(`${url}/api/health`)).status, 200);
  proc.kill("SIGTERM");
  assert.equal((await once(proc, "exit"))[0], 0);
});

test("SIGTERM stops Collie and its example agent within seconds, whatever its sockets hold", async () => {
  const { proc, url, port, state, stderr } = await serve({ example: true });
  const pid = proc.pid!;
  const token = await pairedToken(state, url);
  const example = await until(() => childrenOf(pid).find((c) => readFileSync(`/proc/${c}/cmdline`, "utf8").includes("durable-member")), "the example agent's process");
  // A live WebSocket of a paired phone.
  const live = new WebSocket(`ws://127.0.0.1:${port}/api/live`, { headers: { cookie: `collie_device=${token}` } });
  clients.push(live);
  await once(live, "message");
  // Refused upgrades whose clients never hang up, and half-open requests that never finish.
  for (let i = 0; i < 30; i++) {
    const refused = connect({ host: "127.0.0.1", port });
    refused.on("error", () => {});
    refused.write(`GET /api/live HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
    const half = connect({ host: "127.0.0.1", port });
    half.on("error", () => {});
    half.write(`GET /api/live HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\n`);
    clients.push(refused, half);
  }
  await until(() => openFiles(pid) > 40, "the sockets open on Collie's side");
  proc.kill("SIGTERM");
  // No timing assertion: a daemon that does not exit fails this wait (the test's own deadline).
  const [code] = await once(proc, "exit");
  assert.equal(code, 0, stderr());
  await until(() => !alive(example), "the example agent stopped too");
});

test("a second SIGTERM exits at once", async () => {
  const { proc } = await serve({ example: false });
  let stderr = "";
  proc.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  proc.kill("SIGTERM");
  proc.kill("SIGTERM");
  // `close`, not `exit`: its stderr may still be on its way when the process has exited.
  await once(proc, "close");
  assert.match(stderr, /SIGTERM: stopping/);
});
