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

/** Sends `apiError(code, message)` on a Fastify-like reply. */
export function sendError<R>(reply: { code(status: number): { send(body: unknown): R } }, code: ApiErrorCode, message: string): R {
  const e = apiError(code, message);
  return reply.code(e.status).send(e.body);
}
