/**
 * Reading a phone's request body (issue 31). Fastify's own reader waits for the stream's `end`,
 * which Node emits on a later tick after the last byte; a body with a Content-Length is whole as
 * soon as that many bytes came, so it is taken then: on a daemon idling between taps the wait for
 * `end` was ~40 µs of the ~360 from a tap's arrival to its forward (docs/performance.md). The
 * limit and the checks are Fastify's: over the limit is 413 as soon as it is known (before a byte
 * is read when the Content-Length says so), a body that ends short of its Content-Length is 400,
 * and a stream error is 400 unless it carries its own status.
 */
import type { IncomingMessage } from "node:http";

/** The largest body a phone may send (every phone body is far smaller; the agents' wire takes the same). */
export const BODY_LIMIT_BYTES = 256 * 1024;

/** How deep a phone's JSON body may nest (the deepest real one, a form answer, is 4). */
export const MAX_BODY_DEPTH = 32;

/** A body Collie does not read, with the HTTP status its error handler answers with. */
export class BodyRefused extends Error {
  override name = "BodyRefused";
  readonly statusCode: number;
  constructor(statusCode: 400 | 413, message: string) {
    super(message);
    this.statusCode = statusCode;
  }
}

const tooLarge = () => new BodyRefused(413, "Request body is too large");
const wrongLength = () => new BodyRefused(400, "Request body size did not match Content-Length");

/** Calls `done` once, with the body as UTF-8 text or with why it was refused. */
export function readBodyText(req: IncomingMessage, limit: number, done: (err: Error | null, text?: string) => void): void {
  const declared = Number(req.headers["content-length"]);
  if (declared > limit) return done(tooLarge());
  const chunks: Buffer[] = [];
  let length = 0;
  const stop = () => {
    req.removeListener("data", onData);
    req.removeListener("end", onEnd);
    req.removeListener("error", onError);
    req.removeListener("close", onClose);
  };
  const finish = () => {
    stop();
    if (!Number.isNaN(declared) && length !== declared) return done(wrongLength());
    done(null, chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks, length).toString("utf8"));
  };
  function onData(chunk: Buffer) {
    length += chunk.length;
    if (length > limit) {
      stop();
      return done(tooLarge());
    }
    chunks.push(chunk);
    // Node's parser never gives more than the Content-Length: all of it is here.
    if (length === declared) finish();
  }
  function onEnd() {
    finish();
  }
  function onError(err: Error & { statusCode?: number }) {
    stop();
    if (!(typeof err.statusCode === "number" && err.statusCode >= 400)) err.statusCode = 400;
    done(err);
  }
  // The request went away before its body was whole, without an error (Node emits `aborted` as
  // one today; this does not lean on it): refused, never left waiting.
  function onClose() {
    stop();
    done(new BodyRefused(400, "The request ended before its body was read."));
  }
  req.on("data", onData);
  req.on("end", onEnd);
  req.on("error", onError);
  req.on("close", onClose);
  // A body of no bytes has no `data`: its `end` answers.
  req.resume();
}
