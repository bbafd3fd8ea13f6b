/**
 * A member's crew routes (C-1): the invite exchange, public like `/api/pair` (the invite is the
 * credential), and the crew hello a lead reads on connect, for any paired device; and the other
 * half of the version check, for every request a lead makes.
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { guesserOf, refusal } from "../security/one-time-codes.ts";
import { DEVICE, PUBLIC } from "../security/access.ts";
import { COLLIE_VERSION } from "../version.ts";
import type { Invites } from "./invites.ts";
import { CREW_HEADER, CREW_HELLO_PATH, CREW_JOIN_PATH, CREW_PROTOCOL_VERSION, crewMismatch, crewVersions, type CrewHello, type CrewJoinReply } from "./protocol.ts";
import { apiError, sendError } from "../errors.ts";
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

/**
 * A member refuses a lead whose crew protocol it does not speak (C-1): every request of a crew
 * lead's credential, and an invite's redemption, that names versions in `Collie-Crew` none of which
 * is this Collie's answers `409 agent-version-mismatch` with the words and the version it speaks
 * (`speaks`), before anything else runs (a join spends no invite). Runs after the gate, which knows
 * the device.
 */
export function installCrewVersionCheck(app: FastifyInstance): void {
  // A callback hook (issue 31: no promise per request); a refusal does not call `done`.
  app.addHook("onRequest", (req, reply, done) => {
    if (req.device?.kind !== "crew-lead" && req.routeOptions.url !== CREW_JOIN_PATH) return done();
    const versions = crewVersions(req.headers[CREW_HEADER]);
    if (versions?.includes(CREW_PROTOCOL_VERSION)) return done();
    const e = apiError("agent-version-mismatch", `${crewMismatch(CREW_PROTOCOL_VERSION, versions?.join(", ") ?? "none this Collie can read")}; update the older Collie.`);
    reply.code(e.status).header("cache-control", "no-store").send({ ...e.body, speaks: [CREW_PROTOCOL_VERSION] });
  });
}
