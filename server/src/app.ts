/**
 * Builds the Fastify app from its parts; never listens (server.ts does). Tests build one per test
 * and close it.
 */
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import websocket from "@fastify/websocket";
import cookie from "@fastify/cookie";
import { actionHandlers, apiRoutes, type ApiDeps } from "./routes/api.ts";
import { liveRoute } from "./routes/live.ts";
import { staticRoutes } from "./routes/static.ts";
import { pushRoutes } from "./routes/push.ts";
import type { PushService } from "./push/push.ts";
import { installGate, type GateOptions } from "./security/gate.ts";
import { pairRoutes } from "./security/pair-route.ts";
import { requireAccess, type Access } from "./security/access.ts";
import { defaultLimits, endRefusedUpgrade, SERVER_TIMEOUTS, trackConnections, type ConnectionLimits, type Connections } from "./connections.ts";
import { crewRoutes, installCrewVersionCheck } from "./crew/routes.ts";
import type { Invites } from "./crew/invites.ts";
import { clientErrorAnswer, INTERNAL_ERROR_WORDS, sendError } from "./errors.ts";
import { HSTS, reachedOverHttps } from "./security/gate.ts";
import { BODY_LIMIT_BYTES, MAX_BODY_DEPTH, readBodyText } from "./routes/json-body.ts";
import { jsonDeeperThan } from "@colliepwa/shared/live";

/**
 * How deep a phone's JSON body may nest (json-body.ts), and the check, counted on the text: the
 * live contract's own (`jsonDeeperThan`).
 */
export { MAX_BODY_DEPTH };
export const nestedDeeperThan = jsonDeeperThan;

/** `push` is null when push is off (damaged VAPID keys): its routes then answer 404. */
declare module "fastify" {
  interface FastifyInstance {
    /** Every registered route (method and URL pattern). */
    collieRoutes: { method: string; url: string; access: Access }[];
    /** Every open connection of the server (shutdown destroys what is left). */
    collieConnections: Connections;
  }
}

export async function buildApp(deps: ApiDeps & { gate: Omit<GateOptions, "port">; push?: PushService | null; invites?: Invites; log?: (line: string) => void; webDist?: string }, opts: { logger?: boolean; connectionLimits?: ConnectionLimits } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    // A client that sends its headers slowly, or never, is answered 408 and let go (connections.ts).
    http: { headersTimeout: SERVER_TIMEOUTS.headersTimeout, requestTimeout: SERVER_TIMEOUTS.requestTimeout, connectionsCheckingInterval: SERVER_TIMEOUTS.connectionsCheckingInterval },
    requestTimeout: SERVER_TIMEOUTS.requestTimeout,
    // What Node's parser refuses (not HTTP, headers too large or too slow) answers in the catalog's shape.
    clientErrorHandler: (err, socket) => {
      if (socket.destroyed) return;
      const answer = clientErrorAnswer(err as { code?: string });
      if (answer !== null && socket.writable) socket.write(answer);
      socket.destroy();
    },
    // Path parameters are wire ids, up to 128 bytes (S-11), so up to 384 characters once
    // percent-encoded; Fastify's default (100) turned a valid long pane id into a 414.
    routerOptions: { maxParamLength: 512 },
    // A URL the router cannot read (broken percent-encoding, a parameter over that length) answers
    // in the API's own shape too, not Fastify's.
    frameworkErrors: (err, req, reply) => {
      // This answer runs no hooks, so an upgrade refused here ends its connection itself.
      if ((req.raw as { upgrade?: boolean }).upgrade === true) reply.raw.once("finish", () => endRefusedUpgrade(req.raw.socket));
      sendError(reply as unknown as FastifyReply, "bad-request", err.message);
    },
  });
  // Caps on connections at once, per address and per device's WebSockets (connections.ts).
  app.decorate("collieConnections", trackConnections(app.server, opts.connectionLimits ?? defaultLimits()));
  // An upgrade request answered over HTTP (refused by the gate, no such route, a bad URL …) ends
  // its connection: Node never closes an upgrade's socket by itself (connections.ts). A request
  // that did upgrade is hijacked and never gets here.
  // This and the app's other hooks take a callback: an async hook costs a promise and a tick on
  // every request (issue 31).
  app.addHook("onResponse", (req, _reply, done) => {
    // `upgrade` is set by Node's parser on a request it handed to the `upgrade` event.
    if ((req.raw as { upgrade?: boolean }).upgrade === true) endRefusedUpgrade(req.raw.socket);
    done();
  });
  const log = deps.log ?? ((line: string) => console.error(`collie: ${line}`));
  app.addHook("onSend", (req, reply, payload, done) => {
    // API answers are live state: never cached (X-2 asks for it; cheap to have from the start).
    if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
    reply.header("x-content-type-options", "nosniff");
    // Reached over https through the configured front door: browsers keep to https (issue 38, item 11).
    if (reachedOverHttps(req, deps.gate.extraHosts)) reply.header("strict-transport-security", HSTS);
    done(null, payload);
  });
  // A body nested deeper than any phone body is refused before anything walks it: a 10 000-deep
  // value under an unknown key overflowed the stack where the body was serialized (a 500).
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  // The body is read by routes/json-body.ts: at once when it came with the request's head.
  app.addContentTypeParser("application/json", (req, payload, done) => {
    readBodyText(payload, BODY_LIMIT_BYTES, (err, body) => {
      if (err) return done(err, undefined);
      if (nestedDeeperThan(body!, MAX_BODY_DEPTH)) {
        done(Object.assign(new Error(`The body is nested more than ${MAX_BODY_DEPTH} levels deep.`), { statusCode: 400 }), undefined);
        return;
      }
      parseJson(req, body!, done);
    });
  });
  // A request the phone got wrong answers in the API's own shape, `{error, message}`, with a code
  // of the catalog (shared/src/errors.ts API_ERRORS), not Fastify's default body.
  app.setErrorHandler((err: { statusCode?: number; validation?: unknown; message: string }, req, reply) => {
    if (err.validation !== undefined || err.statusCode === 400) return sendError(reply, "bad-request", err.message);
    // So is a body over the limit (413, the wire's own code for it) or one that is not JSON (L-2).
    if (err.statusCode === 413) return sendError(reply, "too-large", "The body is larger than 256 KiB.");
    if (err.statusCode === 415) return sendError(reply, "unsupported-type", "The body must be JSON (content-type: application/json).");
    // Any other request error Fastify raises is the phone's request that Collie cannot take.
    if (err.statusCode !== undefined && err.statusCode > 400 && err.statusCode < 500) return sendError(reply, "bad-request", err.message);
    // Anything else failed on Collie's side (a full disk, a bug): a code of the catalog for the
    // phone, and a line in the log for the owner, never Fastify's bare 500 (issue 38, item 11).
    log(`${req.method} ${req.routeOptions.url ?? "(no route)"} failed: ${(err as { name?: string }).name ?? "Error"}: ${err.message}`);
    return sendError(reply, "internal-error", INTERNAL_ERROR_WORDS);
  });
  app.setNotFoundHandler((_req, reply) => sendError(reply, "not-found", "No such route."));
  // Every route is recorded, so a test can prove that none skips the gate.
  const routes: { method: string; url: string; access: Access }[] = [];
  app.decorate("collieRoutes", routes);
  app.addHook("onRoute", (r) => {
    // A route that does not say who may call it does not start (X-1; security/access.ts).
    requireAccess(r);
    for (const method of [r.method].flat()) routes.push({ method: String(method), url: r.url, access: r.config!.access! });
  });
  let listeningPort: number | null = null;
  app.server.once("close", () => (listeningPort = null));
  // Cookies are parsed before the gate reads the device's (an onRequest hook registered first).
  await app.register(cookie);
  // Every request passes the front door's checks first: host, origin, paired device.
  installGate(app, {
    ...deps.gate,
    mayOpenWebSocket: (device) => app.collieConnections.mayOpenWebSocket(device),
    // Asked on every request: read from the server once it listens, then kept.
    port: () => {
      if (listeningPort !== null) return listeningPort;
      const address = app.server.address();
      listeningPort = address && typeof address === "object" ? address.port : null;
      return listeningPort;
    },
  });
  // A crew lead on another crew protocol is refused on every request (C-1), once the gate knows it.
  installCrewVersionCheck(app);
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(async (scope) => pairRoutes(scope, deps.gate.devices));
  const invites = deps.invites;
  if (invites) await app.register(async (scope) => crewRoutes(scope, invites));
  await app.register(async (scope) => {
    // One set of action handlers: the POST routes' and the live socket's acts (routes/act.ts).
    const handlers = actionHandlers(deps);
    await apiRoutes(scope, deps, handlers);
    await liveRoute(scope, deps, { handlers, checkDevice: (token) => deps.gate.devices.check(token) });
    if (deps.push) await pushRoutes(scope, deps.push);
  });
  await app.register(async (scope) => staticRoutes(scope, deps.webDist ? { distDir: deps.webDist } : {}));
  return app;
}
