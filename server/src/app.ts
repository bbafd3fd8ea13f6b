/**
 * Builds the Fastify app from its parts; never listens (server.ts does). Tests build one per test
 * and close it.
 */
import Fastify, { type FastifyInstance } from "fastify";
import websocket from "@fastify/websocket";
import { apiRoutes, type ApiDeps } from "./routes/api.ts";
import { liveRoute } from "./routes/live.ts";
import { staticRoutes } from "./routes/static.ts";

export async function buildApp(deps: ApiDeps, opts: { logger?: boolean } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: 256 * 1024,
  });
  app.addHook("onSend", async (_req, reply, payload) => {
    // API answers are live state: never cached (X-2 asks for it; cheap to have from the start).
    if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
    reply.header("x-content-type-options", "nosniff");
    return payload;
  });
  // A request the phone got wrong answers in the API's own shape, `{error: "bad-request", message}`
  // (shared/api.ts COLLIE_ERRORS), not Fastify's default body.
  app.setErrorHandler((err: { statusCode?: number; validation?: unknown; message: string }, _req, reply) => {
    if (err.validation !== undefined || err.statusCode === 400) return reply.code(400).send({ error: "bad-request", message: err.message });
    throw err;
  });
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(async (scope) => {
    await apiRoutes(scope, deps);
    await liveRoute(scope, deps);
  });
  await app.register(async (scope) => staticRoutes(scope));
  return app;
}
