/**
 * `openCollie` (S-5, S-8): the durable core served on a private Unix socket. The socket and its
 * directory are owner-only; a stale socket file from a dead process is replaced, a live one is an
 * error; on Linux writes from the agent's own process tree are refused (S-7).
 */
import { chmodSync, lstatSync, mkdirSync, unlinkSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { DurableCore, type CommonOptions } from "../core/core.ts";
import { serveNode } from "./node-http.ts";
import { canIdentifyPeers, isSelfOrDescendant, peerPids } from "./peer.ts";

// Required, not imported: an ESM import of node:http reads its lazy `WebSocket` getters, which on
// Node 22 load undici (Node's fetch), about 10 MB of RSS an agent never uses.
const { createServer } = createRequire(import.meta.url)("node:http") as typeof import("node:http");

/** The variable both the agent and Collie read for the socket's path (S-5). */
export const SOCKET_ENV = "COLLIE_DURABLE_SOCKET";

export interface OpenCollieOptions extends CommonOptions {
  /** The socket's path; default `$COLLIE_DURABLE_SOCKET`, else `defaultSocketPath()`. */
  socket?: string;
  /**
   * Refuse writes from this process and its descendants (S-7); default true where the system can
   * tell who calls. Turn it off only to drive the agent from its own process in tests (the fake
   * phone of `./testing`); `hello` then reports `descendantCheck: false`.
   */
  descendantCheck?: boolean;
}

/** `$XDG_RUNTIME_DIR/collie/durable.sock`, else `<tmpdir>/collie-<uid>/durable.sock`. */
export function defaultSocketPath(): string {
  const runtime = process.env.XDG_RUNTIME_DIR;
  const uid = process.getuid?.() ?? 0;
  return runtime && isAbsolute(runtime) ? join(runtime, "collie", "durable.sock") : join(tmpdir(), `collie-${uid}`, "durable.sock");
}

/** The handle `openCollie` returns: the layout handle plus the socket it serves on. */
export class Collie extends DurableCore {
  readonly socketPath: string;
  readonly #server: Server;
  readonly #callerAllowed: ((req: IncomingMessage) => boolean | Promise<boolean>) | undefined;
  #closed = false;

  /** @internal use openCollie() */
  constructor(
    opts: ConstructorParameters<typeof DurableCore>[0],
    socketPath: string,
    server: Server,
    callerAllowed?: (req: IncomingMessage) => boolean | Promise<boolean>,
  ) {
    super({ ...opts, callerCheck: callerAllowed !== undefined });
    this.socketPath = socketPath;
    this.#server = server;
    this.#callerAllowed = callerAllowed;
  }

  /** The `node:http` adapter with the socket's descendant check (S-7) as each request's caller verdict. */
  override handler(req: IncomingMessage, res: ServerResponse): void {
    serveNode(this, req, res, this.#callerAllowed ? { callerAllowed: this.#callerAllowed } : {});
  }

  /**
   * Stops serving and removes the socket file. Open asks deliberately stay open: a shutdown is not
   * an answer (S-8); the agent decides what happens to the work waiting on them.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await new Promise<void>((done) => {
      this.#server.close(() => done());
      this.#server.closeAllConnections();
    });
    try {
      unlinkSync(this.socketPath);
    } catch {
      // already gone
    }
  }
}

/** Opens the private socket and returns the handle that lays out what the phone shows (S-5). */
export async function openCollie(options: OpenCollieOptions = {}): Promise<Collie> {
  if (process.platform === "win32" || typeof process.getuid !== "function") {
    throw new Error(
      "openCollie needs a system with file owners to keep its socket private; on Windows serve " +
        "createCore() from @colliepwa/durable-sdk/core behind TLS with a token instead.",
    );
  }
  refuseCoreOnlyOptions(options);
  const { socket, descendantCheck, ...common } = options;
  const raw = socket ?? process.env[SOCKET_ENV] ?? defaultSocketPath();
  if (typeof raw !== "string" || raw.length === 0) throw new TypeError("socket must be a path");
  const path = resolve(raw);
  preparePrivateDir(dirname(path));
  await clearStaleSocket(path);

  const check = descendantCheck !== false && (await canIdentifyPeers());
  const pids = new WeakMap<Socket, Promise<number[] | null>>();
  // The verdict, once per connection (at its first write): its peer does not change, and a process
  // that is not this one or one it started never becomes one (one it started stays refused on that
  // connection even if it is orphaned later). The walk up /proc reads a file per ancestor, a few
  // hundred µs for a daemon started from a shell, so it does not run again on every write.
  const verdicts = new WeakMap<Socket, Promise<boolean>>();
  // The descendant check lives here, where the socket is (S-7): the peer of a connection is a
  // transport fact. The core owns when it applies: to writes only, after their body checks, and it
  // refuses a write without a verdict while the check is on.
  const callerAllowed = (req: IncomingMessage): Promise<boolean> => {
    let verdict = verdicts.get(req.socket);
    if (!verdict) {
      let lookup = pids.get(req.socket);
      if (!lookup) pids.set(req.socket, (lookup = peerPids(req.socket)));
      // Fail closed: when the check is on but this caller cannot be identified, a write is refused.
      // Only a caller that was identified keeps its verdict for the connection: a lookup that failed
      // (`ss` slow or briefly unable to run on a loaded machine) refuses this write and is tried
      // again at the next one, instead of refusing every write on a keep-alive connection for good.
      const socket = req.socket;
      verdict = lookup.then((found) => {
        if (found === null) {
          pids.delete(socket);
          verdicts.delete(socket);
          return false;
        }
        return !found.some((pid) => isSelfOrDescendant(pid));
      });
      verdicts.set(socket, verdict);
    }
    return verdict;
  };

  const server = createServer({ keepAliveTimeout: 65_000 });
  const collie = new Collie({ ...common, allowAlways: true }, path, server, check ? callerAllowed : undefined);
  server.on("request", collie.handler);
  server.on("clientError", answerClientError);
  server.on("connection", (s: Socket) => {
    if (check) pids.set(s, peerPids(s));
  });
  const previous = process.umask(0o177); // the socket is created owner-only, not chmod'ed after the fact
  try {
    await new Promise<void>((done, fail) => {
      server.once("error", fail);
      server.listen({ path }, () => {
        server.off("error", fail);
        done();
      });
    });
  } finally {
    process.umask(previous);
  }
  chmodSync(path, 0o600);
  return collie;
}

/**
 * Options that exist only on `createCore` (S-6, S-28): `openCollie` always keeps receipts in memory,
 * always offers allow-always (its socket is owner-only) and has no token (the socket is the gate).
 * A JavaScript caller, or a TypeScript one spreading a `createCore` options object, would otherwise
 * see them silently ignored or half-applied.
 */
const CORE_ONLY_OPTIONS: Readonly<Record<string, string>> = {
  receipts: "openCollie always keeps receipts in memory; a ReceiptStore is for createCore({receipts}) from @colliepwa/durable-sdk/core (S-28)",
  allowAlways: "openCollie always offers allow-always on its owner-only socket; allowAlways is for createCore({allowAlways}) (S-6, S-27)",
  token: "openCollie's socket is owner-only and takes no token; a bearer token is for createCore({token}) behind TLS (S-6)",
  callerCheck: "openCollie sets the descendant check itself; use descendantCheck (S-7)",
};

function refuseCoreOnlyOptions(options: unknown): void {
  if (typeof options !== "object" || options === null) return;
  for (const key of Object.keys(options)) {
    const why = CORE_ONLY_OPTIONS[key];
    if (why !== undefined && (options as Record<string, unknown>)[key] !== undefined) throw new TypeError(`openCollie does not take ${key}: ${why}`);
  }
}

/**
 * A request node:http cannot parse (bad framing, bad header characters, headers too large) still
 * gets the wire's JSON error body (W-5: every error is `{error, message}`), not node's bare 400.
 * Like node's own handler, it answers only while no reply is under way on that connection.
 */
function answerClientError(_err: Error, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify({ error: "bad-request", message: "The request is not valid HTTP/1.1." });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
      () => socket.destroy(),
    );
    return;
  }
  socket.destroy();
}

/** Makes sure the socket's directory exists, is ours and is reachable by nobody else (S-5, X-3). */
function preparePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
  if (st.uid !== process.getuid!()) throw new Error(`the socket directory ${dir} belongs to another user; choose a directory of your own`);
  if ((st.mode & 0o077) !== 0) {
    throw new Error(
      `the socket directory ${dir} is reachable by other users (mode ${(st.mode & 0o777).toString(8)}); ` +
        "use a directory only you can open (chmod 700), e.g. $XDG_RUNTIME_DIR/collie",
    );
  }
}

/** Removes a socket file left by a dead process; a live socket or another kind of file is an error. */
async function clearStaleSocket(path: string): Promise<void> {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  if (!st.isSocket()) throw new Error(`${path} exists and is not a socket; refusing to replace it`);
  const live = await new Promise<boolean>((done) => {
    const probe = connect({ path });
    probe.once("connect", () => {
      probe.destroy();
      done(true);
    });
    probe.once("error", () => done(false));
  });
  if (live) throw new Error(`${path} is in use by a running process; stop it or choose another socket path`);
  unlinkSync(path);
}
