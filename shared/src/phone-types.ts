/**
 * What each phone route takes and answers, by the route's name in PHONE_ROUTES: its query, its
 * body and the body of its 2xx reply. Types only (every import is `import type`), so a module that
 * imports them carries no TypeBox and no schema into the phone's bundle. The request bodies are the
 * schemas the server validates with (api.ts), read as types; the phone's typed client
 * (web/src/app/api.ts `Api.call`) and action layer (web/src/app/actions.ts) are built from this
 * table, so a body of the wrong shape does not compile. The server's schemas for every route
 * (phone-schemas.ts, `PHONE_SCHEMAS`) are checked against these types at compile time.
 *
 * A reply with another status carries an error body: Collie's own (`ApiErrorBody`, errors.ts) or,
 * for an action, the agent's (the wire's `WireErrorBody`), passed through unchanged.
 */
import type { HistoryItemsPage, HistoryPage, StartersPage, WriteOk } from "@colliepwa/durable-sdk/wire";
import type {
  AgentSummary, AlwaysAllowedPage, AnswerRequest, ConversationsPage, PaneDetail, PushKeyReply, PushSubscribeReply,
  PushSubscribeRequest, PushUnsubscribeReply, PushUnsubscribeRequest, RenameRequest, SendRequest, Snapshot,
  StarterRequest, SteerRequest, TargetRequest, TurnRequest,
} from "./api.ts";
import type { PHONE_ROUTES, PhoneRouteName } from "./phone-routes.ts";

/** A page's query: the cursor from the previous page, and how many. */
export interface PageQuery {
  after?: string;
  limit?: number;
}

/** `POST /api/pair`: a one-time pairing code and the name this device goes by. */
export interface PairRequest {
  code: string;
  name?: string;
}

/** The reply to pairing, or to `GET /api/me` (401 `unpaired` when this device is not paired). */
export interface PairedReply {
  paired: true;
  device: { id: string; name: string } | null;
}

/** `GET /api/crew/hello`: the member's crew protocol version and Collie version (C-1). */
export interface CrewHelloReply {
  crew: number;
  collie: string;
}

/** `POST /api/crew/join`: a lead trades an invite for a crew credential. */
export interface CrewJoinRequest {
  invite: string;
  name: string;
}
export interface CrewJoinReply {
  joined: true;
  crew: number;
  device: { id: string; name: string };
  token: string;
}

/**
 * The reply to a phone action (P-14, P-15): the agent's own status and JSON passed through
 * unchanged (`WriteOk`, or a wire error code with its `message` and extras such as `reason`), or
 * Collie's own (`202 {held: true}`, an error of the catalog). Every field may be missing: read
 * them with a check.
 */
export type ActionReplyBody = Partial<WriteOk> & {
  held?: boolean;
  error?: string;
  message?: string;
  reason?: string;
  [extra: string]: unknown;
};

/** Each route's query, body and 2xx reply. `body` is present exactly for the routes that take one. */
export interface PhoneContract {
  health: { reply: { ok: true } };
  me: { reply: PairedReply };
  pair: { body: PairRequest; reply: PairedReply };
  snapshot: { reply: Snapshot };
  agents: { reply: { agents: AgentSummary[] } };
  /** The WebSocket (live.ts); its messages are `LiveMessage` and `ClientMessage`. */
  live: { query: { since?: number }; reply: never };
  conversations: { query: PageQuery; reply: ConversationsPage };
  pane: { reply: PaneDetail };
  alwaysAllowed: { reply: AlwaysAllowedPage };
  history: { query: PageQuery; reply: HistoryPage };
  historyItems: { query: PageQuery; reply: HistoryItemsPage };
  starters: { reply: StartersPage };
  answer: { body: AnswerRequest; reply: ActionReplyBody };
  send: { body: SendRequest; reply: ActionReplyBody };
  steer: { body: SteerRequest; reply: ActionReplyBody };
  stop: { body: TurnRequest; reply: ActionReplyBody };
  action: { body: TurnRequest; reply: ActionReplyBody };
  rename: { body: RenameRequest; reply: ActionReplyBody };
  close: { body: TargetRequest; reply: ActionReplyBody };
  reopen: { body: TargetRequest; reply: ActionReplyBody };
  starter: { body: StarterRequest; reply: ActionReplyBody };
  pushKey: { reply: PushKeyReply };
  pushSubscribe: { body: PushSubscribeRequest; reply: PushSubscribeReply };
  pushUnsubscribe: { body: PushUnsubscribeRequest; reply: PushUnsubscribeReply };
  crewHello: { reply: CrewHelloReply };
  crewJoin: { body: CrewJoinRequest; reply: CrewJoinReply };
}

/** The body a route takes (`never` for one that takes none). */
export type PhoneBody<N extends PhoneRouteName> = PhoneContract[N] extends { body: infer B } ? B : never;
/** The query a route reads (`never` for one that reads none). */
export type PhoneQuery<N extends PhoneRouteName> = PhoneContract[N] extends { query: infer Q } ? Q : never;
/** The body of a route's 2xx reply. */
export type PhoneReply<N extends PhoneRouteName> = PhoneContract[N]["reply"];

/** The phone's actions: the routes whose body carries the phone's request id (P-14, D-5). */
export type PhoneActionName = { [N in PhoneRouteName]: PhoneBody<N> extends { requestId: string } ? N : never }[PhoneRouteName];

// The table covers exactly PHONE_ROUTES, and a route takes a body exactly when its method is not GET.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
type BodyRoutes = { [N in PhoneRouteName]: (typeof PHONE_ROUTES)[N]["method"] extends "GET" ? never : N }[PhoneRouteName];
export type PhoneContractChecks = [
  Holds<Same<keyof PhoneContract, PhoneRouteName>>,
  Holds<Same<{ [N in PhoneRouteName]: PhoneContract[N] extends { body: unknown } ? N : never }[PhoneRouteName], BodyRoutes>>,
];
