/**
 * The Collie-to-phone contract (D-4): the phone API's request bodies and replies, and the
 * WebSocket's messages. Request schemas are Fastify's validation on the server and the types on
 * both ends. Wire types (items, asks, pane summaries) are the SDK's (`@colliepwa/durable-sdk/wire`):
 * they are referenced here, never re-declared, and Collie has validated them before they get here.
 */
import { Type, type Static } from "typebox";
import type { Answer, Ask, DecidedBy, Item, Starter, HistoryRow } from "@colliepwa/durable-sdk/wire";

/**
 * The rows, conversations, chat contents and live messages: the live contract's schemas
 * (live-schemas.ts) are their one definition, and these are their types (`Static<>`), exported as
 * types only, so the phone's bundle carries no schema.
 */
export type { ActReply, AgentState, AgentSummary, Conversation, Decision, LiveFrame, LiveMessage, PaneDetail, Snapshot } from "./live-schemas.ts";
import type { Conversation } from "./live-schemas.ts";
import { ACT_LIMITS, ACT_PATH } from "./act.ts";

/**
 * `GET /api/agents/:agent/conversations?after=&limit=`: one page of an agent's open conversations
 * in the home's order (waiting first, then newest). The snapshot carries each agent's first page;
 * `counts.open` says how many there are. `next` continues; none ends the list.
 */
export interface ConversationsPage {
  conversations: Conversation[];
  next?: string;
}

/** `GET /api/agents/:agent/always-allowed`: the tools a phone answered `Always allow` for, newest first. */
export interface AlwaysAllowedPage {
  tools: { tool: string; device: string; at: string }[];
}

export type { Answer, Ask, HistoryRow, Item, Starter, DecidedBy };

/**
 * Messages the phone sends on the WebSocket: which chats it shows, so items flow only for those;
 * and an action (`act`, docs/phone-api.md "Actions on the live socket"): the very request the phone
 * would POST — an action route's address under `/api/agents/` and its JSON body — which Collie
 * runs through that route, every check and word of it included, and answers with an `act-reply`
 * naming the act's `id` (a number of the phone's own). The same request id lands once whichever
 * way it went (D-5): a phone whose socket dropped before the reply sends it again over HTTP.
 */
export const ClientMessage = Type.Union([
  Type.Object({ type: Type.Literal("watch"), agent: Type.String({ maxLength: 256 }), pane: Type.String({ maxLength: 512 }) }),
  Type.Object({ type: Type.Literal("unwatch"), agent: Type.String({ maxLength: 256 }), pane: Type.String({ maxLength: 512 }) }),
  Type.Object({
    type: Type.Literal("act"),
    id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    path: Type.String({ maxLength: ACT_LIMITS.pathChars, pattern: ACT_PATH }),
    body: Type.Record(Type.String(), Type.Unknown()),
  }),
]);
export type ClientMessage = Static<typeof ClientMessage>;

/** The phone's request id (P-14, D-5): what every action carries, and a held action's outcome names. */
export const RequestId = Type.String({ minLength: 1, maxLength: 128, pattern: "^[^\\s/?#\\x00-\\x1f\\x7f]+$" });
const Id = Type.String({ minLength: 1, maxLength: 512 });

/** Every phone action carries the phone's request id (P-14, D-5). */
export const AnswerRequest = Type.Object({
  requestId: RequestId,
  revision: Type.String({ pattern: "^[0-9a-f]{16}$" }),
  answer: Type.Unsafe<Answer>(Type.Object({ kind: Type.String() })),
});
export type AnswerRequest = Static<typeof AnswerRequest>;

export const SendRequest = Type.Object({ requestId: RequestId, text: Type.String({ minLength: 1, maxLength: 16_384 }) });
export type SendRequest = Static<typeof SendRequest>;

export const SteerRequest = Type.Object({ requestId: RequestId, text: Type.String({ minLength: 1, maxLength: 16_384 }), turnId: Type.Union([Id, Type.Null()]) });
export type SteerRequest = Static<typeof SteerRequest>;

export const TurnRequest = Type.Object({ requestId: RequestId, turnId: Type.Union([Id, Type.Null()]) });
export type TurnRequest = Static<typeof TurnRequest>;

const Target = Type.Object({ kind: Type.Union([Type.Literal("workspace"), Type.Literal("tab"), Type.Literal("pane")]), id: Id });

export const RenameRequest = Type.Object({ requestId: RequestId, target: Target, title: Type.String({ minLength: 1, maxLength: 1024 }) });
export type RenameRequest = Static<typeof RenameRequest>;

export const TargetRequest = Type.Object({ requestId: RequestId, target: Target });
export type TargetRequest = Static<typeof TargetRequest>;

export const StarterRequest = Type.Object({ requestId: RequestId });
export type StarterRequest = Static<typeof StarterRequest>;

/** Collie's own error codes: the catalog is errors.ts (`API_ERRORS`; `COLLIE_ERRORS` for a tap). */
export { API_ERRORS, COLLIE_ERRORS, type ApiErrorBody, type ApiErrorCode } from "./errors.ts";

// ---------------------------------------------------------------------------------------------
// Web Push (U-1…U-4, P-27; docs/push.md). The phone subscribes with Collie's VAPID public key and
// registers the subscription; the daemon sends the payloads below, encrypted (aes128gcm). The
// service worker reads them with `import type` only, so it stays one self-contained file.

/** base64url without padding (RFC 4648 §5), as `PushSubscription.toJSON()` writes keys. */
const B64URL = "^[A-Za-z0-9_-]+={0,2}$";

/** A browser's push subscription, as `PushSubscription.toJSON()` gives it. */
export const PushSubscriptionJson = Type.Object({
  endpoint: Type.String({ minLength: 8, maxLength: 2048 }),
  expirationTime: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  keys: Type.Object({
    /** The browser's P-256 public key (65 bytes uncompressed). */
    p256dh: Type.String({ minLength: 80, maxLength: 100, pattern: B64URL }),
    /** The 16-byte auth secret. */
    auth: Type.String({ minLength: 16, maxLength: 32, pattern: B64URL }),
  }),
});
export type PushSubscriptionJson = Static<typeof PushSubscriptionJson>;

/**
 * `POST /api/push/subscriptions`: register this device's subscription. A device that subscribed
 * again (a new key, a browser that rotated its endpoint) names the endpoint it replaces, so the
 * old one is dropped at once instead of waiting for a 404/410 (U-4).
 */
export const PushSubscribeRequest = Type.Object({
  subscription: PushSubscriptionJson,
  replaces: Type.Optional(Type.String({ minLength: 8, maxLength: 2048 })),
});
export type PushSubscribeRequest = Static<typeof PushSubscribeRequest>;

/** `DELETE /api/push/subscriptions`: this device opted out. */
export const PushUnsubscribeRequest = Type.Object({
  endpoint: Type.String({ minLength: 8, maxLength: 2048 }),
});
export type PushUnsubscribeRequest = Static<typeof PushUnsubscribeRequest>;

/** `GET /api/push/key`: the VAPID public key (base64url, 65 bytes) for `pushManager.subscribe`. */
export interface PushKeyReply {
  publicKey: string;
}

/** The reply to `POST /api/push/subscriptions` (201 new, 200 known). */
export interface PushSubscribeReply {
  ok: true;
  /** True when `replaces` named a subscription Collie had and dropped. */
  replaced: boolean;
}

/** The reply to `DELETE /api/push/subscriptions`. */
export interface PushUnsubscribeReply {
  removed: boolean;
}

/** The version of the push payload; the service worker shows a plain notice for any other. */
export const PUSH_PAYLOAD_VERSION = 1;

interface PushPayloadBase {
  v: typeof PUSH_PAYLOAD_VERSION;
  /** The notification tag: one per durable agent, so a burst collapses into one notification. */
  tag: string;
  agent: string;
  /** The crew member's name; null for this machine's own agents (C-1). */
  machine: string | null;
}

/** An ask needs you (U-2): `Permission needed in <pane>`, the agent's own title added after it, and its line. */
export interface PushAskPayload extends PushPayloadBase {
  type: "ask";
  title: string;
  body: string;
  paneId: string;
  askId: string;
  /** Where a tap goes: the conversation with the card (`askUrl`). Same-origin, relative. */
  url: string;
  /**
   * The buttons that answer the ask from the notification (issue 30; docs/push.md), only for an
   * ask that may be answered there: a permission with Allow and Deny, or a choice of at most two
   * options taken one at a time. The answer goes through the phone API's answer route, like a tap
   * in the app.
   */
  answers?: PushAnswers;
}

/** What answering from a notification needs: ids and the revision, plus the words it shows. */
export interface PushAnswers {
  kind: "permission" | "choice";
  /** The ask's revision (W-4): an ask that changed since the push is told apart. */
  revision: string;
  /** What the quiet notification after an answer names (`Allowed: refund`): the tool, else the ask's title; masked, cut. */
  what: string;
  /** One or two buttons, in the order shown. */
  options: PushAnswerOption[];
}

export interface PushAnswerOption {
  /** The agent's option id: the answer sends it (a permission's `optionId`, a choice's one `optionIds` entry). */
  id: string;
  /** The button: `Allow` or `Deny` (P-10), or a choice's label (masked, cut). */
  title: string;
  /** A permission option's kind: what the quiet notification says (`Allowed`, `Denied`). */
  optionKind?: "allow" | "deny";
}

/** The one push of an agent over 30 asks an hour (U-1): `A durable agent on {host} is raising many asks`. */
export interface PushManyAsksPayload extends PushPayloadBase {
  type: "many-asks";
  title: string;
  body: string;
  /** The agent's home (`agentUrl`). */
  url: string;
}

/** The ask was answered, expired or decided: withdraw its notification (no notification shown). */
export interface PushClearPayload extends PushPayloadBase {
  type: "clear";
  paneId: string;
  askId: string;
}

/** Everything Collie pushes; encrypted JSON within one Web Push record (server/src/push/payload.ts, `PAYLOAD_MAX_BYTES`). */
export type PushPayload = PushAskPayload | PushManyAsksPayload | PushClearPayload;

/** The PWA's addresses: the one table of hash routes (hash-routes.ts). */
export { agentUrl, askUrl, hashOf, parseHashRoute, type PhoneRoute } from "./hash-routes.ts";
