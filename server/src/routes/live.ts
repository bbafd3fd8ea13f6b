/**
 * The one WebSocket (D-4): a snapshot first, then numbered deltas. A phone that reconnects with
 * `?since=<seq>` gets what it missed, if Collie still has it, instead of a new snapshot. `watch`
 * names the chat the phone shows: its items flow, and it gets the chat's current content at once.
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { WebSocket } from "ws";
import type {} from "@fastify/websocket"; // the `websocket: true` route option
import { ACT_LIMITS, ClientMessage, type LiveMessage } from "@colliepwa/shared";
import { Compile } from "typebox/compile";
import type { LiveClient } from "../agents/live.ts";
import { snapshot, type ApiDeps } from "./api.ts";
import { actRunner, type ActDeps } from "./act.ts";
import { MAX_BODY_DEPTH } from "./json-body.ts";
import { jsonDeeperThan } from "@colliepwa/shared/live";
import { deviceToken } from "../security/gate.ts";
import { DEVICE_UPGRADE } from "../security/access.ts";
import { sendError } from "../errors.ts";
import { PHONE_ROUTES } from "@colliepwa/shared";
import { phoneSchema } from "./schemas.ts";

const checkClientMessage = Compile(ClientMessage);
const MAX_WATCHED = 64;
/**
 * A live socket is pinged this often; one that has not answered the previous ping is closed, so a
 * phone that went away without a word (its network gone) frees its place under the device's cap
 * (connections.ts) within two beats. Browsers answer pings by themselves.
 */
export const HEARTBEAT_MS = 30_000;

/**
 * The frames one turn of the event loop sends a phone leave in one write, not one write each: an
 * events page becomes two to four live messages (the conversation, the agent's row, the ask or the
 * item), and on a small machine each write to a socket costs as much as the daemon's own work on
 * the message (issue 31). `hold` corks the socket until the turn's work is done; `release` sends
 * what is held at once. The socket is the one under `ws`'s WebSocket (its `_socket`, there since
 * ws 1); without one, frames go as before.
 */
export function frameBatch(socket: WebSocket): { hold(): void; release(): void } {
  const raw = (socket as unknown as { _socket?: { cork?: () => void; uncork?: () => void } })._socket;
  let held = false;
  const release = () => {
    if (!held) return;
    held = false;
    raw!.uncork!();
  };
  return {
    hold() {
      if (held || typeof raw?.cork !== "function" || typeof raw.uncork !== "function") return;
      held = true;
      raw.cork();
      process.nextTick(release);
    },
    release,
  };
}

/** Pings `socket` every `everyMs` and closes it when a ping went unanswered; returns the stop. */
export function heartbeat(socket: WebSocket, everyMs = HEARTBEAT_MS): () => void {
  let answered = true;
  const timer = setInterval(() => {
    if (!answered) return socket.terminate();
    answered = false;
    socket.ping();
  }, everyMs);
  timer.unref();
  socket.on("pong", () => (answered = true));
  return () => clearInterval(timer);
}

/** What the live route needs beyond the API's deps, for acts: the action routes' handlers and the gate's device check. */
export type LiveActDeps = Pick<ActDeps, "handlers" | "checkDevice">;

export async function liveRoute(fastify: FastifyInstance, deps: ApiDeps, acts: LiveActDeps): Promise<void> {
  fastify.withTypeProvider<TypeBoxTypeProvider>().route({
    method: "GET",
    url: PHONE_ROUTES.live.path,
    ...DEVICE_UPGRADE,
    ...phoneSchema("live"),
    // A plain GET (no upgrade) answers in the API's own shape, not with an empty 404.
    handler: (_req, reply) => {
      sendError(reply, "not-found", "This is Collie's WebSocket; connect with an upgrade.");
    },
    wsHandler: (socket: WebSocket, req) => {
    // A live WebSocket of this device, counted against its cap (connections.ts); the gate refused
    // one over it, and one that raced past the gate is closed here.
    if (!fastify.collieConnections.claimWebSocket(req.socket, req.device?.id ?? null)) return;
    const stopBeating = heartbeat(socket);
    const frames = frameBatch(socket);
    const client: LiveClient = {
      deviceId: req.device?.id ?? null,
      close: (code, reason) => socket.close(code, reason),
      watching: new Set(),
      send(message: LiveMessage, text?: string) {
        if (socket.readyState !== socket.OPEN) return;
        frames.hold();
        socket.send(text ?? JSON.stringify(message));
        // An ask goes out at once, with what this turn sent before it: its push and the rest of
        // its page do not hold the card back (N-1).
        if (message.type === "ask") frames.release();
      },
    };
    // Any value that is not a sequence number (none, text, a key given twice) gets a snapshot.
    const since = Number(req.query.since);
    const missed = Number.isSafeInteger(since) && since >= 0 ? deps.live.since(since) : null;
    if (missed) {
      client.send({ type: "resumed", seq: deps.live.seq });
      for (const m of missed) client.send(m);
    } else {
      client.send({ type: "snapshot", seq: deps.live.seq, snapshot: snapshot(deps) });
    }
    deps.live.add(client);
    socket.on("message", (data) => {
      const text = String(data);
      // An act's body may nest as deep as a POST's (json-body.ts); a frame deeper than that is no
      // message of the contract, refused before anything is built from it.
      if (jsonDeeperThan(text, MAX_BODY_DEPTH + 1)) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return;
      }
      if (!checkClientMessage.Check(parsed)) return;
      const msg = parsed as ClientMessage;
      if (msg.type === "act") return act(msg);
      const key = `${msg.agent}\n${msg.pane}`;
      if (msg.type === "unwatch") {
        client.watching.delete(key);
        return;
      }
      if (client.watching.size >= MAX_WATCHED) client.watching.delete(client.watching.values().next().value as string);
      client.watching.add(key);
      // The chat's whole view: read from the agent when Collie holds only its tail (memory stays
      // small); a crew member sends it, and then its items, as deltas (C-1).
      const upstream = deps.upstreams.find(msg.agent);
      upstream?.watch(msg.agent, msg.pane).then((detail) => {
        if (detail && client.watching.has(key)) client.send({ type: "view", seq: deps.live.seq, agent: msg.agent, paneId: msg.pane, detail });
      }, (err: unknown) => deps.log?.(`live: reading a view of ${msg.agent}: ${(err as Error).message}`));
    });
    // Actions on this socket (act.ts): each is the POST it stands for, through that route's own
    // checks and handler, with this socket's device checked again every time.
    const runAct = actRunner(fastify, { ...acts, ...(deps.log ? { log: deps.log } : {}) }, { token: deviceToken(req), headers: req.headers });
    let acting = 0;
    const act = (msg: Extract<ClientMessage, { type: "act" }>) => {
      // No phone has more waiting (web/src/app/live.ts): a socket that does is not a phone's.
      if (acting >= ACT_LIMITS.inFlight) return socket.close(1008, "too many actions at once");
      acting++;
      void runAct(msg.path, msg.body).then((r) => {
        acting--;
        if (socket.readyState !== socket.OPEN) return;
        // Nothing thrown here may leave the socket's handler (a reply the socket cannot take).
        try {
          frames.hold();
          socket.send(JSON.stringify({ type: "act-reply", id: msg.id, status: r.status, body: r.body }));
          frames.release();
        } catch (err) {
          deps.log?.(`live: an act's reply could not be sent: ${(err as Error).message}`);
        }
      });
    };
    socket.on("close", () => {
      stopBeating();
      deps.live.remove(client);
    });
    },
  });
}
