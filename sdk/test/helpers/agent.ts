/**
 * Test rigs. Protocol tests run in memory: a core with a FakePhone that calls `core.request()`
 * directly (`openRig`, `memoryCore`), since what they test is what the core answers, not how it is
 * reached. Transport tests run on real sockets: a real `openCollie` on a Unix socket in a fresh
 * owner-only directory (`openSocketRig`), or `core.handler` mounted on a `node:http` server
 * listening on a Unix socket (`serveCore`).
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DurableCore, type CommonOptions } from "../../src/core/core.ts";
import type { WireRequest } from "../../src/core/request.ts";
import { openCollie, type Collie, type OpenCollieOptions } from "../../src/transport/unix-socket.ts";
import { connectPhone, type FakePhone } from "../../src/testing/index.ts";

export interface Rig {
  collie: DurableCore;
  phone: FakePhone;
  close(): Promise<void>;
}

export interface SocketRig extends Rig {
  collie: Collie;
}

/** A fresh private directory (0700) for a socket. */
export function privateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "collie-core-"));
  chmodSync(dir, 0o700);
  return dir;
}

/**
 * A core as `openCollie` makes it (allow-always offered, no token, no descendant check) with a
 * phone connected in memory.
 */
export async function openRig(opts: CommonOptions = {}): Promise<Rig> {
  const collie = new DurableCore({ ...opts, allowAlways: true });
  const phone = connectPhone({ core: collie });
  return {
    collie,
    phone,
    async close() {
      phone.disconnect();
    },
  };
}

/** Opens a Collie on a socket in a fresh directory and connects a phone to it. */
export async function openSocketRig(opts: Omit<OpenCollieOptions, "socket" | "descendantCheck"> = {}): Promise<SocketRig> {
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
  phone: FakePhone;
  /** Requests the core has received so far (by method and path). */
  requests: string[];
  close(): Promise<void>;
}

export interface SocketCoreRig extends CoreRig {
  server: Server;
  socketPath: string;
}

/** The token the tests' `createCore` cores are made with (S-6: a core needs one). */
export const CORE_TOKEN = "core-test-token-0123456789";

/** Connects a phone in memory to `core`, carrying `token` (the core's, by default `CORE_TOKEN`). */
export async function memoryCore(core: DurableCore, token: string = CORE_TOKEN): Promise<CoreRig> {
  const requests: string[] = [];
  const phone = connectPhone({
    core: {
      request(req: WireRequest) {
        requests.push(`${req.method} ${req.path}`);
        return core.request(req);
      },
    },
    token,
  });
  return {
    core,
    phone,
    requests,
    async close() {
      phone.disconnect();
    },
  };
}

/**
 * Mounts `core.handler` on a `node:http` server listening on a Unix socket; connects a phone that
 * carries `token` (the core's, by default `CORE_TOKEN`).
 */
export async function serveCore(core: DurableCore, token: string = CORE_TOKEN): Promise<SocketCoreRig> {
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
