/**
 * The `node:http` adapter (S-6): serves the core on a `node:http` or `node:https` server, under
 * Node and under Bun's `node:http`. The transport's concerns live here and only here: reading the
 * body (only when the core asks for it, and never past `LIMITS.bodyBytes`), telling the core when
 * the caller goes away (a parked long-poll then ends), and writing the reply with its framing.
 * Everything the wire decides — token, routes, caps, bodies, receipts — is `core.request()`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { LIMITS } from "../wire/constants.ts";
import {
  BodyTooLarge, errorOutcome, INTERNAL_MESSAGE, REPLY_HEADERS, TOO_LARGE_MESSAGE, type WireEndpoint, type WireReply, type WireRequest,
} from "../core/request.ts";

export interface NodeAdapterOptions {
  /**
   * Who calls (S-7): false when the caller of this request is the agent's own process or one it
   * started. `openCollie` passes its peer lookup on the Unix socket; the core asks it for writes only.
   */
  callerAllowed?: (req: IncomingMessage) => boolean | Promise<boolean>;
}

/** Serves one `node:http` request with the core. */
export function serveNode(core: WireEndpoint, req: IncomingMessage, res: ServerResponse, opts: NodeAdapterOptions = {}): void {
  // The caller's going away is watched only for a request that asks (`signal`: a read that parks,
  // W-3). A write never does, and the controller and three listeners were part of every write's
  // time on an agent idling between taps (issue 31).
  let gone: AbortSignal | undefined;
  const { callerAllowed } = opts;
  const request: WireRequest = {
    method: req.method ?? "GET",
    path: req.url ?? "/",
    headers: req.headers,
    // A body over the limit is not read to its end: the 413 closes the connection after it.
    body: () => readBody(req, () => res.setHeader("connection", "close")),
    get signal() {
      return (gone ??= watchGone(req, res));
    },
    ...(callerAllowed ? { callerAllowed: () => callerAllowed(req) } : {}),
  };
  core.request(request).then(
    (reply) => send(res, reply),
    () => send(res, { status: 500, headers: { ...REPLY_HEADERS }, body: errorOutcome("internal", INTERNAL_MESSAGE).body }),
  );
}

/**
 * A signal aborted when the caller goes away before its reply was written. `close` on the
 * response: it ended, or its connection went away first (Node and Bun alike). A pipelined request
 * whose reply queues behind another's gets no `close` of its own when the connection drops, so
 * the socket's `close` ends it too; that listener goes with the reply, so a keep-alive socket
 * serving many requests does not collect them. A reply that was written has nobody left to tell:
 * aborting would still build the signal's AbortError, a DOMException with a stack trace, for
 * every request a keep-alive connection serves (issue 31: 3 % of the agent's time on the ask loop).
 */
function watchGone(req: IncomingMessage, res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  const socket = req.socket as IncomingMessage["socket"] | null;
  const abort = () => {
    if (!res.writableFinished) gone.abort();
  };
  const release = () => socket?.removeListener("close", abort);
  socket?.once("close", abort);
  res.once("close", () => {
    release();
    abort();
  });
  res.once("finish", release);
  return gone.signal;
}

/**
 * Reads the whole body, rejecting with BodyTooLarge once it passes `LIMITS.bodyBytes`: nothing
 * past the limit is kept (`drainThenRefuse`), and `overLimit` closes the connection after the
 * 413. Read from the stream's events rather than `for await`: an async iterator's generator and
 * its promise per chunk were a measurable part of the agent's time on every write (issue 31). A
 * body with a Content-Length is whole once that many bytes came, without waiting a tick for `end`.
 */
function readBody(req: IncomingMessage, overLimit: () => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"]);
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.removeListener("data", onData);
      req.removeListener("end", onEnd);
      req.removeListener("error", onError);
      req.removeListener("close", onClose);
    };
    const finish = () => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    function onData(chunk: Buffer) {
      size += chunk.length;
      if (size > LIMITS.bodyBytes) {
        stop();
        overLimit();
        return drainThenRefuse(req, size, () => reject(new BodyTooLarge(TOO_LARGE_MESSAGE)));
      }
      chunks.push(chunk);
      if (size === declared) finish();
    }
    function onEnd() {
      finish();
    }
    function onError(err: Error) {
      stop();
      reject(err);
    }
    // The caller went away before the body was whole.
    function onClose() {
      stop();
      reject(Object.assign(new Error("The request ended before its body was read."), { code: "ERR_STREAM_PREMATURE_CLOSE" }));
    }
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

/** How much of a body over the limit is read and dropped, so its caller can read the 413. */
const DRAIN_BYTES = 4 * LIMITS.bodyBytes;
/** How long the rest is waited for: a caller that stops sending gets its 413 then. */
const DRAIN_MS = 1000;

/**
 * The rest of a body over the limit is read and dropped before the 413 goes out, up to
 * `DRAIN_BYTES` more: a caller still writing its body when the connection closes gets a broken
 * pipe instead of the reply (Bun's client does). Past that, after `DRAIN_MS`, or when the caller
 * goes away, the 413 goes at once; its `Connection: close` ends the connection either way, so
 * nothing of the body is ever taken for the next request.
 */
function drainThenRefuse(req: IncomingMessage, read: number, refuse: () => void): void {
  let dropped = read;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    req.removeListener("data", onDrop);
    req.removeListener("end", finish);
    req.removeListener("error", finish);
    req.removeListener("close", finish);
    refuse();
  };
  function onDrop(chunk: Buffer) {
    dropped += chunk.length;
    if (dropped > LIMITS.bodyBytes + DRAIN_BYTES) {
      req.pause();
      finish();
    }
  }
  // A caller that declared more than it sends is not waited for until the server's own timeout.
  const timer = setTimeout(() => {
    req.pause();
    finish();
  }, DRAIN_MS);
  req.on("data", onDrop);
  req.on("end", finish);
  req.on("error", finish);
  req.on("close", finish);
}

function send(res: ServerResponse, reply: WireReply): void {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify(reply.body);
  const length = Buffer.byteLength(body);
  // The core's headers in its order, with the length after the content type.
  const headers: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(reply.headers)) {
    headers[name] = value;
    if (name === "content-type") headers["content-length"] = length;
  }
  if (!("content-length" in headers)) headers["content-length"] = length;
  res.writeHead(reply.status, headers);
  res.end(body);
}
