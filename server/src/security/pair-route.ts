/**
 * The pairing exchange: `POST /api/pair {code, name}` trades a one-time code for a device
 * token, set as an HttpOnly, SameSite=Strict cookie. `GET /api/me` tells the page whether it is
 * paired.
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { isLoopbackAddress, type Devices } from "./devices.ts";
import { DEVICE_COOKIE } from "./gate.ts";
import { DEVICE, PUBLIC } from "./access.ts";
import { sendError } from "../errors.ts";
import { PHONE_ROUTES } from "@colliepwa/shared";
import { phoneSchema } from "../routes/schemas.ts";

/** Ten years: a device stays paired until it is revoked. */
const COOKIE_MAX_AGE_S = 10 * 365 * 24 * 3600;

export async function pairRoutes(fastify: FastifyInstance, devices: Devices): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(PHONE_ROUTES.pair.path, { ...PUBLIC, ...phoneSchema("pair") }, async (req, reply) => {
    // A loopback peer may be any client of a front door: only the global limit counts for it.
    const source = isLoopbackAddress(req.ip) ? null : req.ip;
    const result = devices.pair(req.body.code, req.body.name ?? String(req.headers["user-agent"] ?? "Phone").slice(0, 64), source);
    if (!result.ok) {
      const message = result.reason === "expired"
        ? "This pairing code has expired. Run `collie pair` again."
        : result.reason === "too-many-tries"
          ? "Too many wrong codes. Wait a few minutes, then run `collie pair` again."
          : "This pairing code is not valid. Run `collie pair` again.";
      return sendError(reply, `pairing-${result.reason}` as const, message);
    }
    const secure = req.protocol === "https" || req.headers["x-forwarded-proto"] === "https";
    reply.header("set-cookie", `${DEVICE_COOKIE}=${result.token}; Path=/; Max-Age=${COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`);
    return { paired: true as const, device: { id: result.device.id, name: result.device.name } };
  });
  app.get(PHONE_ROUTES.me.path, { ...DEVICE, ...phoneSchema("me") }, async (req) => ({ paired: true as const, device: req.device ? { id: req.device.id, name: req.device.name } : null }));
}
