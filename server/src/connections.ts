/**
 * Every TCP connection the phone-facing server holds, so none outlives its use (the sockets issue):
 *
 * - A WebSocket upgrade that Collie refuses (no device 401, a foreign Origin 403, a foreign Host
 *   421, no such route 404, a URL the router cannot read 400) gets its HTTP refusal, then its
 *   connection is ended. Node hands an upgrade request's socket to the `upgrade` listener and never
 *   closes it itself; left open, each refusal stayed in CLOSE-WAIT for good, and a few hundred of
 *   them exhausted the open-file limit until Collie stopped answering.
 * - Shutdown can destroy whatever is still open (upgrades in progress, half-open sockets, live
 *   WebSockets), so `server.close()` never waits on a peer that will not hang up.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";

/** How long a refused upgrade's answer may take to drain before its socket is destroyed anyway. */
const REFUSAL_DRAIN_MS = 2000;

export interface Connections {
  /** Connections open now. */
  readonly size: number;
  /** Destroys every open connection (shutdown). */
  destroyAll(): void;
}

export function trackConnections(server: Server): Connections {
  const open = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  });
  return {
    get size() {
      return open.size;
    },
    destroyAll() {
      for (const socket of open) socket.destroy();
      open.clear();
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
