/**
 * The one way Collie answers an error of its own on the phone API: a code from the shared catalog
 * (`API_ERRORS`), whose status goes with it, and a message for the phone. The compiler refuses a
 * code the catalog does not have; a test refuses an error literal written anywhere else.
 */
import { API_ERRORS, type ApiErrorBody, type ApiErrorCode } from "@colliepwa/shared";

export interface ApiError {
  status: number;
  body: ApiErrorBody;
}

export function apiError(code: ApiErrorCode, message: string): ApiError {
  return { status: API_ERRORS[code].status, body: { error: code, message } };
}

/** What a failure on Collie's own side is told (app.ts's error handler, an act's runner); the log says why. */
export const INTERNAL_ERROR_WORDS = "Collie could not answer this request; its log says why.";

/** Sends `apiError(code, message)` on a Fastify-like reply. */
export function sendError<R>(reply: { code(status: number): { send(body: unknown): R } }, code: ApiErrorCode, message: string): R {
  const e = apiError(code, message);
  return reply.code(e.status).send(e.body);
}

/**
 * What Node's HTTP parser refuses before any route runs (a request that is not HTTP, headers too
 * large or too slow): the raw answer on the socket, in the catalog's shape too, never Fastify's
 * `{"error":"Bad Request","message":"Client Error"}` (issue 38, item 11). Null when there is no
 * one to answer (the peer reset the connection).
 */
export function clientErrorAnswer(err: { code?: string }): string | null {
  if (err.code === "ECONNRESET") return null;
  const e = err.code === "ERR_HTTP_REQUEST_TIMEOUT"
    ? apiError("request-timeout", "The request did not arrive in time.")
    : err.code === "HPE_HEADER_OVERFLOW"
      ? apiError("headers-too-large", "The request's headers are larger than 16 KiB.")
      : apiError("bad-request", "The request is not well-formed HTTP.");
  const body = JSON.stringify(e.body);
  return `HTTP/1.1 ${e.status} ${STATUS_TEXT[e.status] ?? "Error"}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`;
}

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" };
