/**
 * Test rigs: a real `openCollie` on a Unix socket in a fresh owner-only directory with a FakePhone
 * on it, or a `createCore` handler mounted on a `node:http` server listening on a Unix socket.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DurableCore } from "../../src/core/core.ts";
import { openCollie, type Collie, type OpenCollieOptions } from "../../src/transport/unix-socket.ts";
import { connectPhone, type FakePhone } from "../../src/testing/index.ts";

export interface Rig {
  collie: Collie;
  phone: FakePhone;
  close(): Promise<void>;
}

/** A fresh private directory (0700) for a socket. */
export function privateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "collie-core-"));
  chmodSync(dir, 0o700);
  return dir;
}

/** Opens a Collie on a socket in a fresh directory and connects a phone to it. */
export async function openRig(opts: Omit<OpenCollieOptions, "socket" | "descendantCheck"> = {}): Promise<Rig> {
  const dir = privateDir();
  const collie = await openCollie({ ...opts, socket: join(dir, "durable.sock"), descendantCheck: false });
  const phone = connectPhone(collie.socketPath);
  return {
    collie,
    phone,
    async close() {
      phone.disconnect();
      await collie.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface CoreRig {
  core: DurableCore;
  server: Server;
  socketPath: string;
  phone: FakePhone;
  /** Requests the server has received so far (by method and path). */
  requests: string[];
  close(): Promise<void>;
}

/** The token the tests' `createCore` cores are made with (S-6: a core needs one). */
export const CORE_TOKEN = "core-test-token-0123456789";

/**
 * Mounts `core.handler` on a `node:http` server listening on a Unix socket; connects a phone that
 * carries `token` (the core's, by default `CORE_TOKEN`).
 */
export async function serveCore(core: DurableCore, token: string = CORE_TOKEN): Promise<CoreRig> {
  const dir = privateDir();
  const socketPath = join(dir, "core.sock");
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    requests.push(`${req.method} ${req.url}`);
    core.handler(req, res);
  });
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen({ path: socketPath }, () => done());
  });
  const phone = connectPhone({ socket: socketPath, token });
  return {
    core,
    server,
    socketPath,
    phone,
    requests,
    async close() {
      phone.disconnect();
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits, turn by turn of the event loop, until `check()` holds; fails after `limitMs` (a safety net, not an assertion on speed). */
export async function until(check: () => boolean, what: string, limitMs = 5000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}
