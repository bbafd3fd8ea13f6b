/**
 * The front door's checks, for every request: a request that matches no route is a 404
 * before anything else; the Host header must name this Collie (DNS rebinding); a write or a
 * WebSocket upgrade from a browser must come from this Collie's own origin; and a route that
 * declares `device` access (`access.ts`) needs a paired device. The decision is made on the route
 * the router matched, never on the URL text: the router decodes `%61pi` to `api`, a string test
 * on the raw URL does not. The device token travels in an HttpOnly, SameSite=Strict cookie (so
 * page scripts never see it) or, for other clients, as a bearer token.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type {} from "@fastify/cookie"; // `req.cookies`
import type { Device, Devices } from "./devices.ts";
import "./access.ts"; // the `access` route config the gate reads
import { isLoopbackHostName } from "../net/loopback.ts";
import { apiError } from "../errors.ts";
import type { ApiErrorCode } from "@colliepwa/shared";

export const DEVICE_COOKIE = "collie_device";

/** What a request without a paired device's token is told (an act on the live socket too, routes/act.ts). */
export const UNPAIRED_WORDS = "This device is not paired with Collie. Run `collie pair` on the machine and open the link.";

export interface GateOptions {
  devices: Devices;
  /** Extra host names (front doors, e.g. `collie.example.ts.net`), with or without a port. */
  extraHosts: readonly string[];
  /** The port Collie listens on, once known (loopback hosts must name it). */
  port: () => number | null;
  /** Whether a device may open one more live WebSocket (connections.ts); every upgrade may when absent. */
  mayOpenWebSocket?: (device: string) => boolean;
}

declare module "fastify" {
  interface FastifyRequest {
    /** The paired device making the request (set by the gate on /api routes). */
    device?: Device;
  }
}


/** True when a Host header names this Collie. */
export function hostAllowed(host: string | undefined, opts: Pick<GateOptions, "extraHosts" | "port">): boolean {
  if (!host) return false;
  const h = host.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(h);
  if (!m) return false;
  const [, name, port] = m as unknown as [string, string, string | undefined];
  if (isLoopbackHostName(name)) return port !== undefined && Number(port) === opts.port();
  return opts.extraHosts.some((extra) => {
    const e = extra.toLowerCase();
    return e === h || (!e.includes(":") && e === name);
  });
}

/** True when an Origin header is this Collie's own (same scheme-less host as an allowed Host). */
export function originAllowed(origin: string, host: string | undefined, opts: Pick<GateOptions, "extraHosts" | "port">): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  // The page's own origin: its host must be the request's Host, and an allowed one.
  return url.host.toLowerCase() === (host ?? "").toLowerCase() && hostAllowed(url.host, opts);
}

/** The Strict-Transport-Security a Collie reached over https sends: a year, this name only. */
export const HSTS = "max-age=31536000";

/**
 * True when the request reached Collie over https: through the configured front door (its Host is
 * one of `--allow-host`'s names, docs/deployment.md) saying so with `X-Forwarded-Proto: https`, as
 * Caddy and `tailscale serve` do. A loopback name is never https: HSTS is for the front door's name.
 */
export function reachedOverHttps(req: Pick<FastifyRequest, "headers" | "protocol">, extraHosts: readonly string[]): boolean {
  if (req.protocol === "https") return true;
  const proto = req.headers["x-forwarded-proto"];
  if ((Array.isArray(proto) ? proto.at(-1) : proto)?.split(",").at(-1)?.trim().toLowerCase() !== "https") return false;
  const host = req.headers.host?.trim().toLowerCase() ?? "";
  return extraHosts.some((extra) => {
    const e = extra.toLowerCase();
    return e === host || (!e.includes(":") && host.replace(/:\d+$/, "") === e);
  });
}

/** Reads the device token from an Authorization bearer header or the cookie (parsed by @fastify/cookie). */
export function deviceToken(req: FastifyRequest): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth === "string" && /^Bearer\s+/i.test(auth)) return auth.replace(/^Bearer\s+/i, "").trim();
  return req.cookies?.[DEVICE_COOKIE];
}

const refuse = (reply: FastifyReply, code: ApiErrorCode, message: string) => {
  const e = apiError(code, message);
  return reply.code(e.status).header("cache-control", "no-store").send(e.body);
};

export function installGate(app: FastifyInstance, opts: GateOptions): void {
  // A callback hook, not an async one: no promise and no extra tick on every request (issue 31).
  // A refusal sends its answer and does not call `done`, which ends the request's hooks there.
  app.addHook("onRequest", (req, reply, done) => {
    const isUpgrade = (req.headers.upgrade ?? "").toLowerCase() === "websocket";
    // No route, or an upgrade to a route that takes none (the app's catch-all would otherwise
    // answer 101 and close): nothing else runs.
    if (req.is404 || (isUpgrade && req.routeOptions.config.upgrade !== true)) return refuse(reply, "not-found", "No such route.");
    if (!hostAllowed(req.headers.host, opts)) {
      return refuse(reply, "bad-host", "This Collie does not answer to that host name.");
    }
    const isWrite = req.method !== "GET" && req.method !== "HEAD" && req.method !== "OPTIONS";
    const origin = req.headers.origin;
    if ((isWrite || isUpgrade) && origin !== undefined && !originAllowed(origin, req.headers.host, opts)) {
      return refuse(reply, "bad-origin", "Writes are only taken from Collie's own page.");
    }
    // Fails closed: only a route that declared itself public skips the device check.
    if (req.routeOptions.config.access === "public") return done();
    const device = opts.devices.check(deviceToken(req));
    if (!device) return refuse(reply, "unpaired", UNPAIRED_WORDS);
    // A device at its cap of live WebSockets is refused here, before the handshake and the
    // snapshot: a flood of them costs an answer each, not a socket (issue 38, item 7).
    if (isUpgrade && opts.mayOpenWebSocket && !opts.mayOpenWebSocket(device.id)) {
      return refuse(reply, "too-many-connections", "This device has too many live connections to Collie open. Close one, or wait a minute.");
    }
    req.device = device;
    done();
  });
}
