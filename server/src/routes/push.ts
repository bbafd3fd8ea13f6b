/**
 * The push opt-in (P-27, U-4; docs/push.md): the VAPID public key the phone subscribes with, and
 * its subscription registered or removed. The schemas are the table's (`@colliepwa/shared/schemas`).
 *
 * Test seam: `pushManager.subscribe()` needs a real push service, so tests (and the e2e journey)
 * register a subscription straight through `POST /api/push/subscriptions` with the endpoint of a
 * local push service they run themselves and keys they made (an https origin named in
 * COLLIE_PUSH_ALLOW_ORIGINS; the daemon's tests use `allowLocalEndpoints`), since endpoints.ts
 * takes only public https names on port 443.
 *
 * A crew lead's credential (a device of kind `crew-lead`, C-1) reads and acts for the lead's
 * phones; it does not own this machine's push subscriptions: the lead pushes its members' asks to
 * its own phones itself (docs/decisions.md). Both routes refuse it with `403 not-for-crew`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { PushKeyReply, PushSubscribeReply, PushUnsubscribeReply } from "@colliepwa/shared";
import type { PushService } from "../push/push.ts";
import { SubscriptionError } from "../push/subscriptions.ts";
import { DEVICE } from "../security/access.ts";
import { sendError } from "../errors.ts";
import { PHONE_ROUTES } from "@colliepwa/shared";
import { phoneSchema } from "./schemas.ts";

/** Refuses a crew lead's credential (see above); true when it did. */
function refusedForCrew(req: FastifyRequest, reply: FastifyReply): boolean {
  if (req.device?.kind !== "crew-lead") return false;
  sendError(reply, "not-for-crew", "A crew lead's credential cannot register or remove push subscriptions on a member: the lead pushes to its own phones.");
  return true;
}

export async function pushRoutes(fastify: FastifyInstance, push: PushService): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(PHONE_ROUTES.pushKey.path, { ...DEVICE, ...phoneSchema("pushKey") }, async (): Promise<PushKeyReply> => ({ publicKey: push.publicKey }));

  app.post(PHONE_ROUTES.pushSubscribe.path, { ...DEVICE, ...phoneSchema("pushSubscribe") }, async (req, reply) => {
    if (refusedForCrew(req, reply)) return reply;
    try {
      // The gate let only a paired device through (DEVICE): the subscription is that device's.
      const r = await push.register(req.body.subscription, { device: req.device!.id, replaces: req.body.replaces });
      const body: PushSubscribeReply = { ok: true, replaced: r.replaced };
      return reply.code(r.created ? 201 : 200).send(body);
    } catch (err) {
      if (err instanceof SubscriptionError) return sendError(reply, "bad-request", err.message);
      throw err;
    }
  });

  app.delete(PHONE_ROUTES.pushUnsubscribe.path, { ...DEVICE, ...phoneSchema("pushUnsubscribe") }, async (req, reply) => {
    if (refusedForCrew(req, reply)) return reply;
    // Only the device's own subscription: another device's endpoint is left alone (`removed: false`).
    const body: PushUnsubscribeReply = { removed: push.unregister(req.body.endpoint, req.device!.id) };
    return body;
  });
}
