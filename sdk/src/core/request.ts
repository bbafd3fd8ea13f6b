/**
 * The core's whole interface to a transport (S-6): one request in, one reply out. A transport
 * (the `node:http` adapter in transport/node-http.ts, the in-memory connection of `./testing`)
 * turns what it received into a `WireRequest` and writes the `WireReply` back; the core never
 * sees a socket.
 */
import { LIMITS } from "../wire/constants.ts";
import { statusOf, type WireErrorCode } from "../wire/errors.ts";
import type { WireErrorBody } from "../wire/types.ts";
import type { ReceiptRecord } from "./receipts.ts";

/** A request body: text or bytes (read as UTF-8). */
export type WireBody = string | Uint8Array;

/** One request of the durable wire, as a transport received it. */
export interface WireRequest {
  method: string;
  /** The request target as on the request line: the path and its query (`/durable/v1/events?after=…&wait=25000`). */
  path: string;
  /** Header names in lower case, as `node:http` gives them; `authorization` carries the bearer token (S-6). */
  headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
  /**
   * The body, already read; or a function that reads it, which the core calls only once it knows
   * the request is a write that passed every check before the body (token, route, cap). A
   * streaming transport passes a function, so that a request refused on its line and headers is
   * answered without reading its body, and reading stops at `LIMITS.bodyBytes` (it then throws
   * `BodyTooLarge`). A body over the limit given already read is refused all the same.
   */
  body?: WireBody | (() => Promise<WireBody>);
  /** Aborted when the caller goes away: a parked events read (W-3) then ends at once. */
  signal?: AbortSignal;
  /**
   * The transport's verdict on who calls (S-7): false when the caller is the agent's own process
   * or one it started. Asked only for a write, after its body passed the checks. A core whose
   * transport turned the descendant check on refuses a write that comes without a verdict.
   */
  callerAllowed?: () => boolean | Promise<boolean>;
}

/** Anything that answers wire requests: a `DurableCore`, or anything with its `request()`. */
export interface WireEndpoint {
  request(req: WireRequest): Promise<WireReply>;
}

/** The JSON body of a reply: a route's success reply or an error `{error, message, ...}` (W-5). */
export type WireReplyBody = object;

/** The reply: status, headers and a JSON body, which the transport serializes. */
export interface WireReply {
  status: number;
  headers: Record<string, string>;
  body: WireReplyBody;
}

/** Thrown by a body reader that stopped at `LIMITS.bodyBytes`; the core answers 413 too-large. */
export class BodyTooLarge extends Error {
  override name = "BodyTooLarge";
}

/** The message of a 500 internal: a handler, or the core itself, failed. */
export const INTERNAL_MESSAGE = "The durable agent failed while handling the request.";
/** The message of a 413 too-large, and of the `BodyTooLarge` a streaming reader throws. */
export const TOO_LARGE_MESSAGE = `The body is larger than ${LIMITS.bodyBytes} bytes.`;

/** The headers of every reply; a transport adds its own framing (content-length). */
export const REPLY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "application/json; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
});

/** An error outcome, in the shape of what a write answered (`ReceiptRecord`, S-28). */
export function errorOutcome(code: WireErrorCode, message: string, extra: Record<string, unknown> = {}): ReceiptRecord & { body: WireErrorBody } {
  return { status: statusOf(code), body: { error: code, message, ...extra } };
}

/** An error a handler answers with: thrown anywhere in a route, it becomes the reply. */
export class WireFailure extends Error {
  readonly outcome: ReceiptRecord;
  constructor(code: WireErrorCode, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = "WireFailure";
    this.outcome = errorOutcome(code, message, extra);
  }
}
