/**
 * Every TCP connection the phone-facing server holds, so none outlives its use and no one holds
 * them all (the sockets issue; issue 38, item 7):
 *
 * - A WebSocket upgrade that Collie refuses (no device 401, a foreign Origin 403, a foreign Host
 *   421, no such route 404, a URL the router cannot read 400) gets its HTTP refusal, then its
 *   connection is ended. Node hands an upgrade request's socket to the `upgrade` listener and never
 *   closes it itself; left open, each refusal stayed in CLOSE-WAIT for good, and a few hundred of
 *   them exhausted the open-file limit until Collie stopped answering.
 * - At most `total` connections at once, well under the process's open-file limit, so the admin
 *   socket, the agents' sockets and the state database always have descriptors left. A connection
 *   past it pushes out the oldest one that is doing nothing: one still sending its first header (a
 *   slow or stalled client), or a keep-alive between requests. A request in progress and a live
 *   WebSocket are never pushed out, and `GET /api/health` from a new connection gets in at once.
 * - At most `perAddress` connections from one address that is not loopback (behind a front door
 *   every client is loopback: those share `total`).
 * - At most `perDevice` live WebSockets of one paired device: past it the gate refuses an upgrade
 *   (`429 too-many-connections`) before its handshake and snapshot, and the live route's heartbeat
 *   closes a socket whose phone went away without a word, so a phone that reconnects gets in
 *   within a minute. Refusing is cheap; closing the oldest for each new one let a device keep
 *   Collie busy with handshakes until health stopped answering.
 * - Shutdown can destroy whatever is still open (upgrades in progress, half-open sockets, live
 *   WebSockets), so `server.close()` never waits on a peer that will not hang up.
 *
 * A slow header is also timed out (`SERVER_TIMEOUTS`, given to Node's HTTP server by app.ts).
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { isLoopbackAddress } from "./net/loopback.ts";

/** How long a refused upgrade's answer may take to drain before its socket is destroyed anyway. */
const REFUSAL_DRAIN_MS = 2000;

/**
 * Node's HTTP server timeouts (app.ts): a request's headers must arrive within 10 s and the whole
 * request within 30 s (a 256 KiB body on a slow phone link), checked every second; Node answers
 * `408` and closes the connection. Node's own defaults are 60 s and 300 s, checked every 30 s.
 */
export const SERVER_TIMEOUTS = Object.freeze({ headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1_000 });

export interface ConnectionLimits {
  /** Connections at once, all addresses together. */
  total: number;
  /** Connections from one address that is not loopback. */
  perAddress: number;
  /** Live WebSockets of one paired device. */
  perDevice: number;
}

/**
 * The soft open-file limit of this process (`/proc/self/limits`), or 1024 where it cannot be read
 * (the usual default).
 */
export function openFileLimit(limitsText?: string): number {
  try {
    const text = limitsText ?? readFileSync("/proc/self/limits", "utf8");
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(text);
    if (m) return m[1] === "unlimited" ? 1 << 20 : Number(m[1]);
  } catch {
    // not Linux
  }
  return 1024;
}

/**
 * The limits for an open-file limit: half of it for phone connections (at least 64, at most 4096:
 * a Collie serves a handful of phones and crew leads), 256 per address, 8 WebSockets per device.
 */
export function defaultLimits(fileLimit = openFileLimit()): ConnectionLimits {
  return { total: Math.max(64, Math.min(4096, Math.floor(fileLimit / 2))), perAddress: 256, perDevice: 8 };
}

export interface Connections {
  /** Connections open now. */
  readonly size: number;
  /** Connections refused or pushed out by the limits since the start (tests, the attack bench). */
  readonly turnedAway: number;
  /** Whether `device` has fewer than `perDevice` live WebSockets (the gate asks before an upgrade). */
  mayOpenWebSocket(device: string): boolean;
  /**
   * Marks an upgraded connection as a live WebSocket of `device`: never pushed out for others, and
   * counted against the device's cap. One over the cap (two upgrades that passed the gate at
   * once) is closed: false then.
   */
  claimWebSocket(socket: Socket, device: string | null): boolean;
  /** Destroys every open connection (shutdown). */
  destroyAll(): void;
}

interface Held {
  address: string;
  /** Requests in progress on it. */
  busy: number;
  /** A live WebSocket, with its device. */
  webSocket: boolean;
  device: string | null;
}

export function trackConnections(server: Server, limits: ConnectionLimits = defaultLimits()): Connections {
  // Insertion order is age: the first entry that is doing nothing is the one pushed out.
  const open = new Map<Socket, Held>();
  const perAddress = new Map<string, number>();
  /** Live WebSockets per device. */
  const perDevice = new Map<string, number>();
  let turnedAway = 0;

  const forget = (socket: Socket) => {
    const held = open.get(socket);
    if (!held) return;
    open.delete(socket);
    const n = (perAddress.get(held.address) ?? 1) - 1;
    if (n > 0) perAddress.set(held.address, n);
    else perAddress.delete(held.address);
    if (held.webSocket && held.device !== null) {
      const w = (perDevice.get(held.device) ?? 1) - 1;
      if (w > 0) perDevice.set(held.device, w);
      else perDevice.delete(held.device);
    }
  };

  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "";
    const counted = !isLoopbackAddress(address);
    if (counted && (perAddress.get(address) ?? 0) >= limits.perAddress) {
      turnedAway++;
      socket.destroy();
      return;
    }
    if (open.size >= limits.total) {
      let idle: Socket | null = null;
      for (const [s, held] of open) {
        if (held.busy === 0 && !held.webSocket) {
          idle = s;
          break;
        }
      }
      turnedAway++;
      if (idle === null) {
        socket.destroy();
        return;
      }
      forget(idle);
      idle.destroy();
    }
    open.set(socket, { address: counted ? address : "", busy: 0, webSocket: false, device: null });
    if (counted) perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    socket.once("close", () => forget(socket));
  });

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const held = open.get(req.socket);
    if (!held) return;
    held.busy++;
    res.once("close", () => {
      held.busy = Math.max(0, held.busy - 1);
    });
  });

  return {
    get size() {
      return open.size;
    },
    get turnedAway() {
      return turnedAway;
    },
    mayOpenWebSocket(device: string) {
      return (perDevice.get(device) ?? 0) < limits.perDevice;
    },
    claimWebSocket(socket: Socket, device: string | null) {
      const held = open.get(socket);
      if (!held) return !socket.destroyed;
      if (held.webSocket) return true;
      if (device !== null && (perDevice.get(device) ?? 0) >= limits.perDevice) {
        turnedAway++;
        forget(socket);
        socket.destroy();
        return false;
      }
      held.webSocket = true;
      held.device = device;
      if (device !== null) perDevice.set(device, (perDevice.get(device) ?? 0) + 1);
      return true;
    },
    destroyAll() {
      for (const socket of open.keys()) socket.destroy();
      open.clear();
      perAddress.clear();
      perDevice.clear();
    },
  };
}

/**
 * Ends the connection of an upgrade request that was answered over HTTP instead of upgraded: its
 * answer is flushed first (`end`), then the socket is destroyed, also when the peer never reads.
 */
export function endRefusedUpgrade(socket: Socket | null | undefined): void {
  if (!socket || socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), REFUSAL_DRAIN_MS);
  timer.unref();
  socket.end(() => {
    clearTimeout(timer);
    socket.destroy();
  });
}
