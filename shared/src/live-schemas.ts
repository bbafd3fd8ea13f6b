/**
 * The live messages' contract (D-4, C-1): one schema for every message a Collie sends on its
 * WebSocket (`GET /api/live`) and for the rows, conversations and chat contents inside them. A
 * lead Collie reads its crew members' sockets with it (`readLiveText`, live-read.ts); the phone
 * reads the same contract as types only (`import type`, through api.ts), so its bundle carries no
 * TypeBox. Every type here is the schema's own (`Static<>`), never written beside it.
 *
 * The wire's objects inside a message (a pane summary, an item, an ask) are the durable wire's:
 * here they are objects of the wire's type, and the reader checks them with the wire's own
 * checkers (`@colliepwa/durable-sdk/wire`), which also clean and cut their text for a lead.
 *
 * Limits are what a Collie sends: names by the sources.json rule (a crew key `<agent>@<member>`
 * on a lead), ids by the wire's ID rule, texts at the wire's limits. Counts are bounded where one
 * message carries a list (docs/phone-api.md).
 */
import { Type, type Static, type TSchema } from "typebox";
import { RequestId } from "./api.ts";
import { CAP_NAMES, DECIDED_BY, isIsoWithZone, isValidId, LIMITS, type Ask, type Caps, type DecidedBy, type Item, type Answer, type PaneSummary } from "@colliepwa/durable-sdk/wire";

/** The limits of the live messages (beyond the wire's own, `LIMITS`). */
export const LIVE_LIMITS = Object.freeze({
  /** An agent's name (sources.json: 1 to 64) or a crew key `<agent>@<member>`. */
  nameChars: 129,
  /** `runtime` from the agent's hello (the wire's 64 bytes). */
  runtimeChars: 64,
  /** Why an agent cannot be reached, in words. */
  problemChars: 1024,
  /** Collie's version text. */
  versionChars: 64,
  /** A paired device's name (devices.ts keeps 64 characters). */
  deviceChars: 64,
  /** Agents in one snapshot. */
  agents: 10_000,
  /** Conversations in one snapshot (at most 100 per agent, SNAPSHOT_CONVERSATIONS_PER_AGENT). */
  conversations: 1_000_000,
  /** Open asks in one chat's content. */
  asks: 1000,
  /** Decisions in one chat's content (store/decisions.ts keeps 200). */
  decisions: 1000,
  /** How deep a live message nests (arrays and objects); a chat's form ask is about 8 deep. */
  depth: 32,
});

/** An agent's name (sources.json) or, on a lead, a member's agent's crew key `<agent>@<member>` (C-1). */
export const AGENT_NAME = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}(@[A-Za-z0-9][A-Za-z0-9._-]{0,63})?$";

const Name = Type.String({ maxLength: LIVE_LIMITS.nameChars, pattern: AGENT_NAME });
/** A crew member's name: the sources.json rule. */
const Machine = Type.String({ maxLength: 64, pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$" });
/** A wire id (S-11), as the wire's rule says. */
const WireId = Type.Refine(Type.String({ minLength: 1, maxLength: LIMITS.idBytes }), (v) => isValidId(v), () => "breaks the ID rule");
const AskId = Type.String({ pattern: "^[0-9a-f]{32}$" });
const IsoTime = Type.Refine(Type.String({ maxLength: 64 }), (v) => isIsoWithZone(v), () => "must be an ISO-8601 date-time with a time zone");
const Count = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
/** A text within its limit (the reader cleans it for a lead, live-read.ts). */
const Text = (maxLength: number) => Type.String({ maxLength });

/**
 * A wire object: an object here, typed as the wire's; its shape is the wire's checkers' to judge
 * (the reader runs them).
 */
const wireObject = <T>() => Type.Unsafe<T>(Type.Object({}));

/** A durable agent's connection state (D-2). */
export const AgentStateSchema = Type.Union([Type.Literal("starting"), Type.Literal("ready"), Type.Literal("unreachable"), Type.Literal("version-mismatch")]);
export type AgentState = Static<typeof AgentStateSchema>;

/** Declared caps (P-1): each the wire's boolean; one a Collie does not know is dropped, one it lacks is false. */
const CapsSchema = Type.Unsafe<Caps>(Type.Object(Object.fromEntries(CAP_NAMES.map((name) => [name, Type.Optional(Type.Boolean())])) as Record<string, TSchema>));

/** One row of the dashboard's Durable agents section (P-2, D-3). */
export const AgentSummarySchema = Type.Object({
  /** The name from sources.json (a crew key on a lead). */
  name: Name,
  state: AgentStateSchema,
  /** `local` for a socket or http://127.0.0.1|localhost, `remote` otherwise (D-3). */
  reach: Type.Union([Type.Literal("local"), Type.Literal("remote")]),
  /** From hello: runtime (`node 22.23.5`) and the name the agent gives itself. */
  runtime: Type.Union([Text(LIVE_LIMITS.runtimeChars), Type.Null()]),
  selfName: Type.Union([Text(LIMITS.titleBytes), Type.Null()]),
  /** The crew member's name; null for this machine's own agents (C-1). */
  machine: Type.Union([Machine, Type.Null()]),
  /** Declared caps; the phone draws a control only for a declared cap (P-1). Null until hello. */
  caps: Type.Union([CapsSchema, Type.Null()]),
  /**
   * Wire versions: the agent's newest (from hello) and Collie's, for P-17's warning. The agent's is
   * any version its hello may name (the wire's rule: a safe integer from 1), so a row is never
   * refused for a number the wire took.
   */
  wire: Type.Object({ agent: Type.Union([Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()]), collie: Type.Integer({ minimum: 0, maximum: 1_000_000 }) }),
  /** Open conversations and those waiting on you (P-2). */
  counts: Type.Object({ open: Count, waiting: Count }),
  /**
   * Open conversations the agent has beyond Collie's limit per agent, which Collie does not show
   * (docs/phone-api.md, `MAX_PANES_PER_AGENT`); absent when none.
   */
  notShown: Type.Optional(Count),
  /** Why the agent is unreachable, in words without secrets. */
  problem: Type.Optional(Text(LIVE_LIMITS.problemChars)),
  /**
   * On a crew lead: the member machine itself cannot be reached (C-1), which is why this agent
   * reads `unreachable`; the phone says `<machine> is offline` on the machine's section.
   */
  machineOffline: Type.Optional(Type.Literal(true)),
});
export type AgentSummary = Static<typeof AgentSummarySchema>;

/** What a conversation adds to the pane's summary (the wire's `PaneSummary`). */
export const ConversationFieldsSchema = Type.Object({
  agent: Name,
  /** The workspace's title, the header's last fallback (P-21). */
  workspaceTitle: Text(LIMITS.titleBytes),
  /** The first open question's title (P-5). */
  pendingQuestion: Type.Optional(Text(LIMITS.askTitleBytes)),
});

/** A conversation as the agent's home lists it (P-5): the pane's summary plus what the list shows. */
export const ConversationSchema = Type.Intersect([wireObject<PaneSummary>(), ConversationFieldsSchema]);
export type Conversation = Static<typeof ConversationSchema>;

/**
 * An answer a phone gave: taken by the agent, or (`held`) kept by Collie until the agent is back.
 * A taken one leaves no chat line (P-16: the tap had its own card); it is the record of the agent
 * home's `Always allowed`. A held one is the record the card cannot give while its ask is not
 * open on the phone: the chat shows `Allowed: refund · Pixel · 14:05` under the tool call, and
 * that it waits in Collie, until it is delivered (issue #34).
 */
export const DecisionSchema = Type.Object({
  askId: AskId,
  paneId: WireId,
  /** The tool item the card sat under. */
  itemId: WireId,
  kind: Type.Unsafe<Ask["kind"]>(Type.String({ minLength: 1, maxLength: 32, pattern: "^[a-z][a-z0-9-]*$" })),
  title: Text(LIMITS.askTitleBytes),
  /** The tool the ask was about, when it named one. */
  tool: Type.Optional(Text(LIMITS.toolNameBytes)),
  /** A permission's option kind: `allow`, `allow-always`, `deny`, `cancel`. */
  optionKind: Type.Optional(Type.String({ maxLength: 32 })),
  /** The paired device that answered (on a crew lead, the phone, never the lead machine). */
  device: Text(LIVE_LIMITS.deviceChars),
  /** When the agent took it, or when Collie began to hold it (ISO time). */
  at: IsoTime,
  /** Collie holds it for an agent that is away (D-5); it goes once delivered (`held-outcome`). */
  held: Type.Optional(Type.Literal(true)),
  /** A held answer's request id (its `held-outcome` names it). */
  requestId: Type.Optional(RequestId),
  /** A held answer as it was sent, so its card shows which answer waits after a reload (the wire's checker judges it). */
  answer: Type.Optional(wireObject<Answer>()),
});
export type Decision = Static<typeof DecisionSchema>;

/** `GET /api/agents/:agent/panes/:pane` and the `view` message: the chat's content. */
export const PaneDetailSchema = Type.Object({
  conversation: ConversationSchema,
  items: Type.Array(wireObject<Item>(), { maxItems: LIMITS.viewItems }),
  itemsCut: Type.Boolean(),
  asks: Type.Array(wireObject<Ask>(), { maxItems: LIVE_LIMITS.asks }),
  /** Answers given from a phone in this conversation, oldest first (only on the HTTP read). */
  decisions: Type.Optional(Type.Array(DecisionSchema, { maxItems: LIVE_LIMITS.decisions })),
});
export type PaneDetail = Static<typeof PaneDetailSchema>;

/** `GET /api/snapshot` and the WebSocket's first message. */
export const SnapshotSchema = Type.Object({
  /** The delta sequence this snapshot is at; resume the WebSocket after it. */
  seq: Count,
  collie: Type.Object({ version: Text(LIVE_LIMITS.versionChars), wire: Type.Integer({ minimum: 1, maximum: 1_000_000 }) }),
  agents: Type.Array(AgentSummarySchema, { maxItems: LIVE_LIMITS.agents }),
  conversations: Type.Array(ConversationSchema, { maxItems: LIVE_LIMITS.conversations }),
});
export type Snapshot = Static<typeof SnapshotSchema>;

const Seq = Count;

/**
 * Each message the server sends on the WebSocket, by its `type`. `seq` grows by one per message;
 * an `act-reply`, one phone's own, carries none.
 */
export const LIVE_MESSAGE_SCHEMAS = {
  snapshot: Type.Object({ type: Type.Literal("snapshot"), seq: Seq, snapshot: SnapshotSchema }),
  resumed: Type.Object({ type: Type.Literal("resumed"), seq: Seq }),
  agent: Type.Object({ type: Type.Literal("agent"), seq: Seq, agent: AgentSummarySchema }),
  "agent-removed": Type.Object({ type: Type.Literal("agent-removed"), seq: Seq, name: Name }),
  conversation: Type.Object({ type: Type.Literal("conversation"), seq: Seq, conversation: ConversationSchema }),
  "conversation-removed": Type.Object({ type: Type.Literal("conversation-removed"), seq: Seq, agent: Name, id: WireId }),
  item: Type.Object({ type: Type.Literal("item"), seq: Seq, agent: Name, paneId: WireId, item: wireObject<Item>() }),
  ask: Type.Object({ type: Type.Literal("ask"), seq: Seq, agent: Name, paneId: WireId, ask: wireObject<Ask>() }),
  "ask-closed": Type.Object({
    type: Type.Literal("ask-closed"), seq: Seq, agent: Name, paneId: WireId, askId: AskId,
    decidedBy: Type.Unsafe<DecidedBy>(Type.Union(DECIDED_BY.map((d) => Type.Literal(d)))),
    title: Text(LIMITS.askTitleBytes),
  }),
  view: Type.Object({ type: Type.Literal("view"), seq: Seq, agent: Name, paneId: WireId, detail: PaneDetailSchema }),
  /** The outcome of a held action Collie delivered later (D-5): the agent's status and body, as the action's reply. */
  "held-outcome": Type.Object({
    type: Type.Literal("held-outcome"), seq: Seq, agent: Name, requestId: RequestId,
    status: Type.Integer({ minimum: 200, maximum: 599 }),
    body: Type.Record(Type.String(), Type.Unknown()),
  }),
  decision: Type.Object({ type: Type.Literal("decision"), seq: Seq, agent: Name, decision: DecisionSchema }),
  /**
   * The reply to one phone's `act` (api.ts `ClientMessage`): the action route's status and JSON
   * body, as a POST would have had them. Sent to that phone alone and not numbered: it is no
   * change of Collie's state (the changes it made come as their own messages), and a phone resumes
   * by `seq` without it.
   */
  "act-reply": Type.Object({
    type: Type.Literal("act-reply"), id: Count,
    status: Type.Integer({ minimum: 200, maximum: 599 }),
    body: Type.Record(Type.String(), Type.Unknown()),
  }),
} as const;

export type LiveMessageType = keyof typeof LIVE_MESSAGE_SCHEMAS;
export const LIVE_MESSAGE_TYPES = Object.freeze(Object.keys(LIVE_MESSAGE_SCHEMAS)) as readonly LiveMessageType[];

/** Every frame the server sends on the WebSocket. */
export const LiveMessageSchema = Type.Union(Object.values(LIVE_MESSAGE_SCHEMAS));
export type LiveFrame = { [K in LiveMessageType]: Static<(typeof LIVE_MESSAGE_SCHEMAS)[K]> }[LiveMessageType];
/** The numbered messages: every frame but a phone's own `act-reply`; what the hub publishes and a phone applies. */
export type LiveMessage = Exclude<LiveFrame, { type: "act-reply" }>;
export type ActReply = Extract<LiveFrame, { type: "act-reply" }>;
