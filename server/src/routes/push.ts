/**
 * The push opt-in (P-27, U-4; docs/push.md): the VAPID public key the phone subscribes with, and
 * its subscription registered or removed. The request schemas are the shared contract's.
 *
 * Test seam: `pushManager.subscribe()` needs a real push service, so tests (and the e2e journey)
 * register a subscription straight through `POST /api/push/subscriptions` with the endpoint of a
 * local push service they run themselves and keys they made.
 */
import type { FastifyInstance } from "fastify";
import {
  PushSubscribeRequest, PushUnsubscribeRequest,
  type PushKeyReply, type PushSubscribeReply, type PushUnsubscribeReply,
} from "@colliepwa/shared";
import type { PushService } from "../push/push.ts";
import { SubscriptionError } from "../push/subscriptions.ts";
import { DEVICE } from "../security/access.ts";
import { sendError } from "../errors.ts";
import { PHONE_ROUTES } from "@colliepwa/shared";

export async function pushRoutes(app: FastifyInstance, push: PushService): Promise<void> {
  app.get(PHONE_ROUTES.pushKey.path, DEVICE, async (): Promise<PushKeyReply> => ({ publicKey: push.publicKey }));

  app.post<{ Body: PushSubscribeRequest }>(PHONE_ROUTES.pushSubscribe.path, { ...DEVICE, schema: { body: PushSubscribeRequest } }, async (req, reply) => {
    try {
      // The gate let only a paired device through (DEVICE): the subscription is that device's.
      const r = push.register(req.body.subscription, { device: req.device!.id, replaces: req.body.replaces });
      const body: PushSubscribeReply = { ok: true, replaced: r.replaced };
      return reply.code(r.created ? 201 : 200).send(body);
    } catch (err) {
      if (err instanceof SubscriptionError) return sendError(reply, "bad-request", err.message);
      throw err;
    }
  });

  app.delete<{ Body: PushUnsubscribeRequest }>(PHONE_ROUTES.pushUnsubscribe.path, { ...DEVICE, schema: { body: PushUnsubscribeRequest } }, async (req) => {
    const body: PushUnsubscribeReply = { removed: push.unregister(req.body.endpoint) };
    return body;
  });
}
