/**
 * The one reader of live messages (D-4, C-1, L-2): `@colliepwa/shared/live`, server only (the
 * phone's bundle carries no TypeBox). A lead Collie reads every frame of a crew member's socket
 * with `readLiveText`; the tests of the server, the phone and the crew link read the golden
 * fixtures (`shared/test/fixtures/live`) with it.
 *
 * A frame passes, in this order: its depth (counted on the text, before JSON.parse builds
 * anything), JSON, the message's schema (live-schemas.ts: the envelope, its names, ids, counts and
 * text limits), then the wire's own checkers for the wire's objects inside (pane summaries, items,
 * asks). What comes out is rebuilt from the keys the contract names: a key it does not name,
 * however deep, is not kept.
 *
 * `ReadOptions` are the wire's: strict by default (what a Collie sends must fit); `{cut: true,
 * mask}` is how a lead reads a member, as it reads its own agents (`agentReads`): every text is
 * cleaned (control and bidi characters out) and cut at its limit by the wire's checkers, a text a
 * list or a push shows masked whole before a cut.
 */
import { Compile } from "typebox/compile";
import {
  CAP_NAMES, LIMITS, MESSAGE_CHECKERS, WRITE_BODY_CHECKERS, parseWith, text, type Caps, type Checker, type Parsed, type ReadOptions, type TextRule,
} from "@colliepwa/durable-sdk/wire";
import {
  LIVE_LIMITS, LIVE_MESSAGE_SCHEMAS, type AgentSummary, type Conversation, type Decision, type LiveFrame, type LiveMessageType,
  type PaneDetail,
} from "./live-schemas.ts";

export * from "./live-schemas.ts";

/** The outcome of a read: the rebuilt value, or why it was refused. */
export type LiveRead<T> = Parsed<T>;

/** Thrown inside a read; turned into `{ok: false}` at its edge. */
class Refused extends Error {}
const refuse = (why: string): never => {
  throw new Refused(why);
};

const CHECKS = Object.fromEntries(Object.entries(LIVE_MESSAGE_SCHEMAS).map(([type, schema]) => [type, Compile(schema)])) as {
  [K in LiveMessageType]: ReturnType<typeof Compile<(typeof LIVE_MESSAGE_SCHEMAS)[K]>>;
};

/**
 * Whether JSON text nests deeper than `max` arrays and objects, counted on the text (brackets
 * outside strings), so a 10 000-deep array is refused before anything is built from it.
 */
export function jsonDeeperThan(text: string, max: number): boolean {
  // Text with at most `max` opening brackets in all cannot nest deeper, whatever is in a string:
  // a few native searches instead of reading every character (a tap's act, a phone's POST body).
  if (openingBracketsAtMost(text, max)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

function openingBracketsAtMost(text: string, max: number): boolean {
  let n = 0;
  for (const bracket of ["{", "["]) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) if (++n > max) return false;
  }
  return true;
}

/** One frame's text: depth, JSON, then `readLiveMessage`. */
export function readLiveText(frame: string, opts: ReadOptions = {}): LiveRead<LiveFrame> {
  if (jsonDeeperThan(frame, LIVE_LIMITS.depth)) return { ok: false, error: `nested deeper than ${LIVE_LIMITS.depth}` };
  let value: unknown;
  try {
    value = JSON.parse(frame);
  } catch {
    return { ok: false, error: "not JSON" };
  }
  return readLiveMessage(value, opts);
}

/** A parsed live message: its schema, then its wire objects; rebuilt from the keys it names. */
export function readLiveMessage(value: unknown, opts: ReadOptions = {}): LiveRead<LiveFrame> {
  return attempt(() => {
    const type = (value as { type?: unknown } | null)?.type;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return refuse("not a live message (an object with a type)");
    if (typeof type !== "string" || !Object.hasOwn(LIVE_MESSAGE_SCHEMAS, type)) return refuse(`type: not a live message type (${LIVE_MESSAGE_TYPES_TEXT})`);
    const t = type as LiveMessageType;
    schemaCheck(CHECKS[t], value, "");
    return rebuild(t, value as LiveFrame, opts);
  });
}

/** A conversation read alone (a page of `/conversations`): its schema, then the wire's pane checker. */
export function readConversation(value: unknown, opts: ReadOptions = {}): LiveRead<Conversation> {
  return attempt(() => {
    schemaCheck(CONVERSATION_CHECK, value, "");
    return conversation(value as Conversation, opts, "");
  });
}

/** A chat's content read alone (`GET /api/agents/:agent/panes/:pane`). */
export function readPaneDetail(value: unknown, opts: ReadOptions = {}): LiveRead<PaneDetail> {
  return attempt(() => {
    schemaCheck(PANE_DETAIL_CHECK, value, "");
    return paneDetail(value as PaneDetail, opts, "");
  });
}

/** An agent row read alone (`GET /api/agents`). */
export function readAgentSummary(value: unknown, opts: ReadOptions = {}): LiveRead<AgentSummary> {
  return attempt(() => {
    schemaCheck(AGENT_CHECK, value, "");
    return agentSummary(value as AgentSummary, opts, "");
  });
}

const LIVE_MESSAGE_TYPES_TEXT = Object.keys(LIVE_MESSAGE_SCHEMAS).join(", ");
const CONVERSATION_CHECK = Compile(LIVE_MESSAGE_SCHEMAS.conversation.properties.conversation);
const PANE_DETAIL_CHECK = Compile(LIVE_MESSAGE_SCHEMAS.view.properties.detail);
const AGENT_CHECK = Compile(LIVE_MESSAGE_SCHEMAS.agent.properties.agent);

function attempt<T>(read: () => T): LiveRead<T> {
  try {
    return { ok: true, value: read() };
  } catch (err) {
    if (err instanceof Refused) return { ok: false, error: err.message };
    throw err;
  }
}

function schemaCheck(check: { Check(v: unknown): boolean; Errors(v: unknown): Iterable<{ instancePath: string; message: string }> }, value: unknown, at: string): void {
  if (check.Check(value)) return;
  const first = [...check.Errors(value)][0];
  refuse(`${at}${pathOf(first?.instancePath ?? "")}: ${first?.message ?? "does not fit the live message schema"}`.replace(/^: /, "message: "));
}

/** `/snapshot/agents/3/name` → `snapshot.agents[3].name`. */
function pathOf(pointer: string): string {
  return pointer.split("/").slice(1).map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : `${i === 0 ? "" : "."}${part.replace(/~1/g, "/").replace(/~0/g, "~")}`)).join("");
}

/** A wire object, by the wire's own checker and in the read's mode. */
function wire<T>(checker: Checker<T>, value: unknown, opts: ReadOptions, at: string): T {
  const r = parseWith(checker, value, opts);
  return r.ok ? r.value : refuse(`${at}: ${r.error.replace(/^message: /, "")}`);
}

// The envelope's texts, by the wire's own text rule (check.ts `text`): strict within the limit;
// cleaned and cut by a cutting read, a shown one masked whole before a cut.
const line = (maxBytes: number, masked = false): TextRule => ({ maxBytes, line: true, masked });
const TEXT = {
  runtime: text(line(LIVE_LIMITS.runtimeChars)),
  selfName: text(line(LIMITS.titleBytes, true)),
  problem: text(line(LIVE_LIMITS.problemChars)),
  version: text(line(LIVE_LIMITS.versionChars)),
  workspaceTitle: text(line(LIMITS.titleBytes)),
  pendingQuestion: text(line(LIMITS.askTitleBytes, true)),
  askTitle: text(line(LIMITS.askTitleBytes, true)),
  toolName: text(line(LIMITS.toolNameBytes)),
  device: text(line(LIVE_LIMITS.deviceChars * 4)),
};
const str = (rule: Checker<string>, v: string, opts: ReadOptions, at: string): string => wire(rule, v, opts, at);

function agentSummary(a: AgentSummary, opts: ReadOptions, at: string): AgentSummary {
  const row: AgentSummary = {
    name: a.name,
    state: a.state,
    reach: a.reach,
    runtime: a.runtime === null ? null : str(TEXT.runtime, a.runtime, opts, `${at}.runtime`),
    selfName: a.selfName === null ? null : str(TEXT.selfName, a.selfName, opts, `${at}.selfName`),
    machine: a.machine,
    caps: a.caps === null ? null : caps(a.caps),
    wire: { agent: a.wire.agent, collie: a.wire.collie },
    counts: { open: a.counts.open, waiting: a.counts.waiting },
  };
  if (a.notShown !== undefined) row.notShown = a.notShown;
  if (a.problem !== undefined) row.problem = str(TEXT.problem, a.problem, opts, `${at}.problem`);
  if (a.machineOffline === true) row.machineOffline = true;
  return row;
}

/** Every cap the wire names, true only where declared true; `terminal` is always false (S-33). */
function caps(c: Caps): Caps {
  const out = Object.fromEntries(CAP_NAMES.map((name) => [name, (c as unknown as Record<string, unknown>)[name] === true])) as unknown as Caps;
  out.terminal = false;
  return out;
}

function conversation(c: Conversation, opts: ReadOptions, at: string): Conversation {
  const pane = wire(MESSAGE_CHECKERS.PaneSummary, c, opts, at || "conversation");
  const out: Conversation = { ...pane, agent: c.agent, workspaceTitle: str(TEXT.workspaceTitle, c.workspaceTitle, opts, `${at}.workspaceTitle`) };
  if (c.pendingQuestion !== undefined) out.pendingQuestion = str(TEXT.pendingQuestion, c.pendingQuestion, opts, `${at}.pendingQuestion`);
  return out;
}

function decision(d: Decision, opts: ReadOptions, at: string): Decision {
  const out: Decision = {
    askId: d.askId, paneId: d.paneId, itemId: d.itemId, kind: d.kind, title: str(TEXT.askTitle, d.title, opts, `${at}.title`),
    device: str(TEXT.device, d.device, opts, `${at}.device`), at: d.at,
  };
  if (d.tool !== undefined) out.tool = str(TEXT.toolName, d.tool, opts, `${at}.tool`);
  if (d.optionKind !== undefined) out.optionKind = d.optionKind;
  if (d.held === true) out.held = true;
  if (d.requestId !== undefined) out.requestId = d.requestId;
  // A held answer as a phone could have sent it: the wire's own checker of an answer's body.
  if (d.answer !== undefined) out.answer = wire(WRITE_BODY_CHECKERS.answer, { requestId: "r", revision: "0000000000000000", answer: d.answer }, opts, `${at}.answer`).answer;
  return out;
}

function paneDetail(d: PaneDetail, opts: ReadOptions, at: string): PaneDetail {
  const out: PaneDetail = {
    conversation: conversation(d.conversation, opts, `${at}.conversation`.replace(/^\./, "")),
    items: d.items.map((item, i) => wire(MESSAGE_CHECKERS.Item, item, opts, `${at}.items[${i}]`.replace(/^\./, ""))),
    itemsCut: d.itemsCut,
    asks: d.asks.map((ask, i) => wire(MESSAGE_CHECKERS.Ask, ask, opts, `${at}.asks[${i}]`.replace(/^\./, ""))),
  };
  if (d.decisions !== undefined) out.decisions = d.decisions.map((x, i) => decision(x, opts, `${at}.decisions[${i}]`.replace(/^\./, "")));
  return out;
}

function rebuild(type: LiveMessageType, m: LiveFrame, opts: ReadOptions): LiveFrame {
  switch (m.type) {
    case "snapshot":
      return {
        type: m.type, seq: m.seq,
        snapshot: {
          seq: m.snapshot.seq,
          collie: { version: str(TEXT.version, m.snapshot.collie.version, opts, "snapshot.collie.version"), wire: m.snapshot.collie.wire },
          agents: m.snapshot.agents.map((a, i) => agentSummary(a, opts, `snapshot.agents[${i}]`)),
          conversations: m.snapshot.conversations.map((c, i) => conversation(c, opts, `snapshot.conversations[${i}]`)),
        },
      };
    case "resumed":
      return { type: m.type, seq: m.seq };
    case "agent":
      return { type: m.type, seq: m.seq, agent: agentSummary(m.agent, opts, "agent") };
    case "agent-removed":
      return { type: m.type, seq: m.seq, name: m.name };
    case "conversation":
      return { type: m.type, seq: m.seq, conversation: conversation(m.conversation, opts, "conversation") };
    case "conversation-removed":
      return { type: m.type, seq: m.seq, agent: m.agent, id: m.id };
    case "item":
      return { type: m.type, seq: m.seq, agent: m.agent, paneId: m.paneId, item: wire(MESSAGE_CHECKERS.Item, m.item, opts, "item") };
    case "ask":
      return { type: m.type, seq: m.seq, agent: m.agent, paneId: m.paneId, ask: wire(MESSAGE_CHECKERS.Ask, m.ask, opts, "ask") };
    case "ask-closed":
      return { type: m.type, seq: m.seq, agent: m.agent, paneId: m.paneId, askId: m.askId, decidedBy: m.decidedBy, title: str(TEXT.askTitle, m.title, opts, "title") };
    case "view":
      return { type: m.type, seq: m.seq, agent: m.agent, paneId: m.paneId, detail: paneDetail(m.detail, opts, "detail") };
    case "held-outcome":
      // The action's reply as the agent gave it: the receiver maps it (a lead, to the catalog).
      return { type: m.type, seq: m.seq, agent: m.agent, requestId: m.requestId, status: m.status, body: { ...m.body } };
    case "decision":
      return { type: m.type, seq: m.seq, agent: m.agent, decision: decision(m.decision, opts, "decision") };
    case "act-reply":
      // A POST's reply as the route gave it: the phone reads it as it reads that reply.
      return { type: m.type, id: m.id, status: m.status, body: { ...m.body } };
  }
  return refuse(`type: ${type} has no reader`);
}
