/**
 * The admin socket: how the `collie` command on the same machine talks to the running daemon
 * (pair, devices, revoke, agents, crew invite, the sources in force). A Unix socket in the owner-only state directory, mode 0600:
 * only the user who runs Collie reaches it, so it needs no token.
 */
import { chmodSync, existsSync, lstatSync, unlinkSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { AgentSummary } from "@colliepwa/shared";
import type { Devices } from "./devices.ts";
import type { Invites } from "../crew/invites.ts";
import { http } from "../net/http.ts";

const { createServer, request } = http;

export const ADMIN_SOCKET = "admin.sock";

export interface AdminDeps {
  devices: Devices;
  invites: Invites;
  agents: () => AgentSummary[];
  /** The daemon's own origin (`http://127.0.0.1:7717`), null before it listens: `collie pair` links to it. */
  origin?: () => string | null;
  /**
   * The sources in force: which sources.json it reads, and the bundled example while no file
   * exists (`durable attach` and `crew join` keep it in the first file they write, docs/sources.md).
   */
  sources?: () => { path: string | null; fallback: { name: string; socket: string }[] | null };
}

/**
 * The origin a phone on this machine reaches the daemon at, from the address it listens on. A
 * wildcard address names loopback (a phone elsewhere comes through the front door, `--url`).
 */
export function listeningOrigin(address: AddressInfo | string | null): string | null {
  if (!address || typeof address === "string") return null;
  const wildcard = address.address === "0.0.0.0" || address.address === "::";
  const host = wildcard ? "127.0.0.1" : address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

export async function startAdminSocket(stateDir: string, deps: AdminDeps): Promise<Server> {
  const path = join(stateDir, ADMIN_SOCKET);
  if (existsSync(path) && lstatSync(path).isSocket()) unlinkSync(path); // a stale socket of a dead daemon
  const server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const url = req.url ?? "/";
    if (req.method === "POST" && url === "/pair-codes") return send(200, { ...deps.devices.createCode(), origin: deps.origin?.() ?? null });
    if (req.method === "POST" && url === "/crew-invites") return send(200, { ...deps.invites.create(), origin: deps.origin?.() ?? null });
    if (req.method === "GET" && url === "/devices") return send(200, { devices: deps.devices.list() });
    const m = /^\/devices\/([0-9a-f-]{36})$/.exec(url);
    if (req.method === "DELETE" && m) return deps.devices.revoke(m[1]!) ? send(200, { revoked: true }) : send(404, { error: "not-found", message: "No such device." });
    if (req.method === "GET" && url === "/agents") return send(200, { agents: deps.agents() });
    if (req.method === "GET" && url === "/sources") return send(200, deps.sources?.() ?? { path: null, fallback: null });
    send(404, { error: "not-found", message: "No such admin route." });
  });
  const previous = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ path }, () => resolve());
    });
  } finally {
    process.umask(previous);
  }
  chmodSync(path, 0o600);
  return server;
}

/** The CLI's side: one request to the admin socket. */
export function adminRequest(stateDir: string, method: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: join(stateDir, ADMIN_SOCKET), method, path }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c: string) => (text += c)).on("end", () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
        } catch {
          reject(new Error("the daemon's admin socket answered something that is not JSON"));
        }
      });
    });
    req.on("error", () => reject(new Error(`no Collie is running with the state directory ${stateDir} (start it with: collie serve)`)));
    req.end();
  });
}
