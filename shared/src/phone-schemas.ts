/**
 * The phone API's schemas, by the route's name in PHONE_ROUTES: its path parameters, query, body
 * and replies, as the server registers them (Fastify validates the request with them and
 * serializes the reply with them). Server only: this module is the `@colliepwa/shared/schemas`
 * entry, never re-exported from the package's index, so the phone's bundle carries no TypeBox;
 * the phone reads the same contract as types (phone-types.ts, checked against these schemas at
 * the bottom of this file).
 *
 * Rules:
 * - A reply's schema describes Collie's own envelope; a wire object inside it (a pane summary, an
 *   item, an ask, a history row, a starter, caps), which the SDK's checkers have already read, is
 *   let through whole (`wire<T>()`, the empty schema). Every object allows more properties
 *   (`additionalProperties: true`), so serialization never drops a property that is sent.
 * - A check whose words the phone sees keeps them: a route's `messages` names, per query
 *   property, the words a failed check answers with (server/src/routes/schemas.ts), exactly as the
 *   handler said them before the schema checked.
 * - Path parameters are text: the router caps them (512 characters); an id the agent does not have
 *   is its 404, as before. Queries read by the agent (history pages) are passed to it as they came:
 *   the wire's own checkers judge them.
 */
import { Type, type Static, type TSchema, type TUnsafe } from "typebox";
import type { Answer, Ask, Caps, HistoryRow, Item, Starter } from "@colliepwa/durable-sdk/wire";
import {
  AnswerRequest, PushSubscribeRequest, PushUnsubscribeRequest, RenameRequest, SendRequest, StarterRequest, SteerRequest,
  TargetRequest, TurnRequest, type AgentState, type Conversation,
} from "./api.ts";
import type { PhoneRouteName, PhoneRouteParams } from "./phone-routes.ts";
import type { PhoneActionName, PhoneBody, PhoneQuery, PhoneReply } from "./phone-types.ts";

/** A wire object the SDK's checkers have read: passed through whole, typed as the wire's. */
const wire = <T>(): TUnsafe<T> => Type.Unsafe<T>({});
/** An object of Collie's own that lets every further property through. */
const obj = <P extends Record<string, TSchema>>(properties: P) => Type.Object(properties, { additionalProperties: true });
const nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const text = Type.String();
const count = Type.Number();
/**
 * `true`, written as it is: a reply's `const` would be written whatever the value, a union of
 * literals refused when it matches none, so a reply's schema keeps to plain types (its static type
 * still says which values).
 */
const yes = Type.Unsafe<true>(Type.Boolean());
const oneOf = <T extends string>(..._values: T[]) => Type.Unsafe<T>(Type.String());

/** The largest page of `/conversations`, and the first page the snapshot carries per agent. */
export const CONVERSATIONS_PAGE_MAX = 500;
export const SNAPSHOT_CONVERSATIONS_PER_AGENT = 100;

// ---------------------------------------------------------------------------------------------
// Path parameters

const AgentParams = Type.Object({ agent: text });
const PaneParams = Type.Object({ agent: text, pane: text });

// ---------------------------------------------------------------------------------------------
// Queries. A query value is text; a key given twice arrives as a list of texts.

/** A page query the agent reads (history): passed on as it came, the agent's checkers judge it. */
const QueryText = Type.Union([Type.String(), Type.Array(Type.String())]);
const AgentPageQuery = Type.Object({ after: Type.Optional(QueryText), limit: Type.Optional(QueryText) });

/**
 * `/conversations`: Collie's own cursor (an offset) and page size, read as numbers. An empty
 * `after` is the first page. The checks are in the handler's order (after, then limit): the first
 * that fails answers with its words.
 */
const ConversationsQuery = Type.Object({
  after: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.Literal("")])),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: CONVERSATIONS_PAGE_MAX })),
});

/** The WebSocket's resume point: any other value (none, not a number) gets a snapshot. */
const LiveQuery = Type.Object({ since: Type.Optional(QueryText) });

// ---------------------------------------------------------------------------------------------
// Request bodies (the phone's actions are api.ts's, with the push opt-in's)

/** `POST /api/pair`. */
export const PairBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 32 }), name: Type.Optional(Type.String({ maxLength: 128 })) });
/** `POST /api/crew/join`. */
export const CrewJoinBody = Type.Object({ invite: Type.String({ minLength: 1, maxLength: 64 }), name: Type.String({ minLength: 1, maxLength: 128 }) });

// ---------------------------------------------------------------------------------------------
// Replies

/**
 * Every error body: Collie's own (`{error, message}`, errors.ts) or an agent's (the wire's
 * `WireErrorBody`, its extras such as `reason` kept).
 */
export const ErrorReply = obj({ error: text, message: text });
const Errors = { "4xx": ErrorReply, "5xx": ErrorReply } as const;

const Device = obj({ id: text, name: text });
const PairedReply = obj({ paired: yes, device: nullable(Device) });

const AgentSummary = obj({
  name: text,
  state: oneOf<AgentState>("starting", "ready", "unreachable", "version-mismatch"),
  reach: oneOf("local", "remote"),
  runtime: nullable(text),
  selfName: nullable(text),
  machine: nullable(text),
  caps: wire<Caps | null>(),
  wire: obj({ agent: nullable(count), collie: count }),
  counts: obj({ open: count, waiting: count }),
  notShown: Type.Optional(count),
  problem: Type.Optional(text),
  machineOffline: Type.Optional(yes),
});

const Snapshot = obj({
  seq: count,
  collie: obj({ version: text, wire: count }),
  agents: Type.Array(AgentSummary),
  conversations: Type.Array(wire<Conversation>()),
});

const Decision = obj({
  askId: text,
  paneId: text,
  itemId: text,
  kind: Type.Unsafe<Ask["kind"]>(Type.String()),
  title: text,
  tool: Type.Optional(text),
  optionKind: Type.Optional(text),
  device: text,
  at: text,
  held: Type.Optional(yes),
  requestId: Type.Optional(text),
  answer: Type.Optional(wire<Answer>()),
});

const PaneDetail = obj({
  conversation: wire<Conversation>(),
  items: Type.Array(wire<Item>()),
  itemsCut: Type.Boolean(),
  asks: Type.Array(wire<Ask>()),
  decisions: Type.Optional(Type.Array(Decision)),
});

const next = Type.Optional(text);

/**
 * A phone action's reply (P-14, P-15): the agent's `200 WriteOk` (every field it has kept), or
 * Collie's `202 {held: true}`; an error is the error shape with its extras.
 */
const WriteOkReply = obj({
  ok: yes,
  replayed: Type.Optional(yes),
  turnId: Type.Optional(text),
  paneId: Type.Optional(text),
  decidedAt: Type.Optional(text),
});
const HeldReply = obj({ held: yes });
const actionReplies = { 200: WriteOkReply, 202: HeldReply, ...Errors } as const;

const PushReplied = obj({ ok: yes, replaced: Type.Boolean() });

// ---------------------------------------------------------------------------------------------
// The table

export interface PhoneRouteSchema {
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  response: Record<string, TSchema>;
}

/** Words a failed check answers with, per part of the request and property (see the rules above). */
export type PhoneSchemaMessages = Partial<Record<"params" | "querystring" | "body", Record<string, string>>>;

const action = <B extends TSchema, P extends TSchema>(params: P, body: B) => ({ params, body, response: actionReplies });

export const PHONE_SCHEMAS = Object.freeze({
  health: { response: { 200: obj({ ok: yes }) } },
  me: { response: { 200: PairedReply, ...Errors } },
  pair: { body: PairBody, response: { 200: PairedReply, ...Errors } },
  snapshot: { response: { 200: Snapshot, ...Errors } },
  agents: { response: { 200: obj({ agents: Type.Array(AgentSummary) }), ...Errors } },
  live: { querystring: LiveQuery, response: { ...Errors } },
  conversations: { params: AgentParams, querystring: ConversationsQuery, response: { 200: obj({ conversations: Type.Array(wire<Conversation>()), next }), ...Errors } },
  pane: { params: PaneParams, response: { 200: PaneDetail, ...Errors } },
  alwaysAllowed: { params: AgentParams, response: { 200: obj({ tools: Type.Array(obj({ tool: text, device: text, at: text })) }), ...Errors } },
  history: { params: AgentParams, querystring: AgentPageQuery, response: { 200: obj({ rows: Type.Array(wire<HistoryRow>()), next }), ...Errors } },
  historyItems: { params: Type.Object({ agent: text, session: text }), querystring: AgentPageQuery, response: { 200: obj({ items: Type.Array(wire<Item>()), next }), ...Errors } },
  starters: { params: AgentParams, response: { 200: obj({ starters: Type.Array(wire<Starter>()) }), ...Errors } },
  answer: action(Type.Object({ agent: text, pane: text, ask: text }), AnswerRequest),
  send: action(PaneParams, SendRequest),
  steer: action(PaneParams, SteerRequest),
  stop: action(PaneParams, TurnRequest),
  action: action(Type.Object({ agent: text, pane: text, action: text }), TurnRequest),
  rename: action(AgentParams, RenameRequest),
  close: action(AgentParams, TargetRequest),
  reopen: action(AgentParams, TargetRequest),
  starter: action(Type.Object({ agent: text, starter: text }), StarterRequest),
  pushKey: { response: { 200: obj({ publicKey: text }), ...Errors } },
  pushSubscribe: { body: PushSubscribeRequest, response: { 200: PushReplied, 201: PushReplied, ...Errors } },
  pushUnsubscribe: { body: PushUnsubscribeRequest, response: { 200: obj({ removed: Type.Boolean() }), ...Errors } },
  crewHello: { response: { 200: obj({ crew: count, collie: text }), ...Errors } },
  crewJoin: { body: CrewJoinBody, response: { 200: obj({ joined: yes, crew: count, device: Device, token: text }), ...Errors } },
} as const satisfies Record<PhoneRouteName, PhoneRouteSchema>);

export type PhoneSchemas = typeof PHONE_SCHEMAS;

/** The words of the checks the handlers made before their schemas did (identical replies). */
export const PHONE_SCHEMA_MESSAGES: Partial<Record<PhoneRouteName, PhoneSchemaMessages>> = Object.freeze({
  conversations: {
    querystring: {
      after: "after must be a cursor from the previous page.",
      limit: `limit must be 1 to ${CONVERSATIONS_PAGE_MAX}.`,
    },
  },
});

// ---------------------------------------------------------------------------------------------
// The schemas and the phone's types (phone-types.ts) agree, route by route: the body, the 2xx
// reply, the path parameters (the table's, PHONE_ROUTES) and the query's names.

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Fits<A, B> = [A] extends [B] ? true : false;
type Holds<T extends true> = T;
type Part<N extends PhoneRouteName, K extends string> = PhoneSchemas[N] extends { [P in K]: infer S extends TSchema } ? Static<S> : never;
type Reply2xx<N extends PhoneRouteName> = {
  [C in keyof PhoneSchemas[N]["response"]]: C extends 200 | 201 | 202 ? PhoneSchemas[N]["response"][C] extends infer S extends TSchema ? Static<S> : never : never;
}[keyof PhoneSchemas[N]["response"]];
type Agrees<N extends PhoneRouteName> = [
  Same<Part<N, "body">, PhoneBody<N>>,
  // An action's reply type is looser on the phone (every field may be missing): what is sent fits it.
  N extends PhoneActionName ? Fits<Reply2xx<N>, PhoneReply<N>> : Same<Reply2xx<N>, PhoneReply<N>>,
  Same<PhoneSchemas[N] extends { params: TSchema } ? Part<N, "params"> : {}, PhoneRouteParams<N>>,
  Same<keyof Part<N, "querystring">, keyof PhoneQuery<N>>,
];
type AllTrue<T extends boolean[]> = T[number] extends true ? true : false;
export type PhoneSchemaChecks = Holds<{ [N in PhoneRouteName]: AllTrue<Agrees<N>> }[PhoneRouteName]>;
