/**
 * A member's crew routes (C-1): the invite exchange, public like `/api/pair` (the invite is the
 * credential), and the crew hello a lead reads on connect, for any paired device.
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { guesserOf, refusal } from "../security/one-time-codes.ts";
import { DEVICE, PUBLIC } from "../security/access.ts";
import { COLLIE_VERSION } from "../version.ts";
import type { Invites } from "./invites.ts";
import { CREW_HELLO_PATH, CREW_JOIN_PATH, CREW_PROTOCOL_VERSION, type CrewHello, type CrewJoinReply } from "./protocol.ts";
import { sendError } from "../errors.ts";
import { phoneSchema } from "../routes/schemas.ts";

export async function crewRoutes(fastify: FastifyInstance, invites: Invites): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(CREW_JOIN_PATH, { ...PUBLIC, ...phoneSchema("crewJoin") }, async (req, reply) => {
    // Who is guessing: the peer, or the client its front door forwarded (one-time-codes.ts).
    const result = invites.redeem(req.body.invite, req.body.name, guesserOf(req.ip, req.headers["x-forwarded-for"]));
    if (!result.ok) {
      const r = refusal("invite", result.reason === "wrong-invite" ? "wrong" : result.reason);
      return sendError(reply, r.code, r.message);
    }
    const body: CrewJoinReply = { joined: true, crew: CREW_PROTOCOL_VERSION, device: { id: result.device.id, name: result.device.name }, token: result.token };
    return body;
  });
  app.get(CREW_HELLO_PATH, { ...DEVICE, ...phoneSchema("crewHello") }, async (): Promise<CrewHello> => ({ crew: CREW_PROTOCOL_VERSION, collie: COLLIE_VERSION }));
}
