/**
 * Builds the Fastify app from its parts; never listens (server.ts does). Tests build one per test
 * and close it.
 */
import Fastify, { type FastifyInstance } from "fastify";
import websocket from "@fastify/websocket";
import { apiRoutes, type ApiDeps } from "./routes/api.ts";
import { liveRoute } from "./routes/live.ts";

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
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(async (scope) => {
    await apiRoutes(scope, deps);
    await liveRoute(scope, deps);
  });
  return app;
}
