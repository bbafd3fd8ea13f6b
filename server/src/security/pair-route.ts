/**
 * The pairing exchange: `POST /api/pair {code, name}` trades a one-time code for a device
 * token, set as an HttpOnly, SameSite=Strict cookie. `GET /api/me` tells the page whether it is
 * paired.
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { Devices } from "./devices.ts";
import { guesserOf, refusal } from "./one-time-codes.ts";
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
    // Who is guessing: the peer, or the client its front door forwarded (one-time-codes.ts).
    const guesser = guesserOf(req.ip, req.headers["x-forwarded-for"]);
    const result = devices.pair(req.body.code, req.body.name ?? String(req.headers["user-agent"] ?? "Phone").slice(0, 64), guesser);
    if (!result.ok) {
      const r = refusal("pairing", result.reason === "wrong-code" ? "wrong" : result.reason);
      return sendError(reply, r.code, r.message);
    }
    const secure = req.protocol === "https" || req.headers["x-forwarded-proto"] === "https";
    reply.header("set-cookie", `${DEVICE_COOKIE}=${result.token}; Path=/; Max-Age=${COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`);
    return { paired: true as const, device: { id: result.device.id, name: result.device.name } };
  });
  app.get(PHONE_ROUTES.me.path, { ...DEVICE, ...phoneSchema("me") }, async (req) => ({ paired: true as const, device: req.device ? { id: req.device.id, name: req.device.name } : null }));
}
