/**
 * Validators for every message of the durable wire v1, used by both ends: the SDK checks what
 * Collie writes, Collie checks what an agent answers (W-1..W-5, L-2). Each `parseX(value)` returns
 * `{ok: true, value}` with a fresh object holding only known keys, or `{ok: false, error}` naming
 * the path and the rule.
 */
import {
  arr, bool, type Checker, cursor, id, int, isoTime, isPlainObject, literal, marksShortened, num, nullable, obj, parseWith,
  type Parsed, type ReadOptions, record, str, text, trueOnly, union, WireShapeError,
} from "./check.ts";
import {
  ASK_KINDS, CAP_NAMES, DECIDED_BY, LATER_CAPS, LIMITS, PANE_STATES, PERMISSION_OPTION_KINDS, TOOL_STATUSES,
} from "./constants.ts";
import { isHttpsUrl, isValidLang } from "./rules.ts";
import type {
  Action, AnswerBody, Answer, Ask, KnownAsk, UnknownAsk, Caps, CloseBody, EventsPage, FormField, Hello, HistoryItemsPage,
  HistoryPage, HistoryRow, Item, Layout, PaneEvent, PaneSummary, PaneView, PaneViewPage, Progress,
  RenameBody, ReopenBody, SendBody, StarterBody, StartersPage, SteerBody, StopBody, ActionBody,
  Target, WireErrorBody, WriteBodies, WriteOk,
} from "./types.ts";

// Text fields are declared with `text()`: strict for the SDK, cut at the limit in a cutting read
// (Collie reading an agent, check.ts `ReadOptions`). `masked` marks what a list or a push shows.
const title = text({ maxBytes: LIMITS.titleBytes, line: true });
/** A title a list shows: a conversation's, its progress label, a history row's. */
const shownTitle = text({ maxBytes: LIMITS.titleBytes, line: true, masked: true });
/** A pane's working folder: an absolute path; a cutting read cleans and cuts it like any text, then checks the rule. */
const cwdText = text({ maxBytes: 4096, line: true });
const cwd: Checker<string> = (v, path) => {
  const s = cwdText(v, path);
  if (!s.startsWith("/")) throw new WireShapeError(path, "has the wrong format");
  return s;
};
const tabId: Checker<string> = (v, path) => {
  const s = id(v, path);
  const parts = s.split(":");
  if (parts.length !== 2 || !parts[0] || !parts[1]) throw new WireShapeError(path, "must be <workspace>:<tab>");
  return s;
};

const capsChecker: Checker<Caps> = (v, path) => {
  // Every cap is required but those added later in v1 (LATER_CAPS): an older agent's hello still
  // reads, and a cap it cannot know of is off.
  const required = Object.fromEntries(CAP_NAMES.filter((name) => !LATER_CAPS.includes(name)).map((name) => [name, bool]));
  const later = Object.fromEntries(LATER_CAPS.map((name) => [name, bool]));
  const caps = obj(required, later)(v, path) as Record<string, boolean | undefined>;
  if (caps.terminal !== false) throw new WireShapeError(`${path}.terminal`, "must be false");
  const out: Record<string, boolean> = {};
  for (const name of CAP_NAMES) out[name] = caps[name] === true;
  return out as unknown as Caps;
};

export const helloChecker: Checker<Hello> = obj({
  wire: arr(int({ min: 1 }), { min: 1, max: 16 }),
  sdk: obj({ name: text({ maxBytes: 128, min: 1, line: true }), version: text({ maxBytes: 64, min: 1, line: true }) }),
  runtime: text({ maxBytes: 64, min: 1, line: true }),
  name: nullable(shownTitle),
  caps: capsChecker,
  descendantCheck: bool,
  allowAlways: bool,
  instance: id,
  limits: obj({ tailLimit: int({ min: 1 }), viewItems: int({ min: 1 }) }),
});

const progressChecker: Checker<Progress> = union<Progress>("kind", {
  steps: (v, path) => {
    const p = obj({ kind: literal("steps"), current: int({ min: 1 }), total: int({ min: 1, max: 1000 }), label: shownTitle })(v, path);
    if (p.current > p.total) throw new WireShapeError(`${path}.current`, "must not exceed total");
    return p;
  },
  percent: obj({ kind: literal("percent"), value: num({ min: 0, max: 100 }), label: shownTitle }),
});

const actionChecker: Checker<Action> = obj(
  { id, label: text({ maxChars: LIMITS.actionLabelChars, line: true }) },
  { icon: str({ maxBytes: 32 }), busy: bool, disabled: bool },
);

export const paneSummaryChecker: Checker<PaneSummary> = obj(
  {
    id,
    tabId,
    title: shownTitle,
    harness: text({ maxBytes: LIMITS.harnessBytes, line: true }),
    sessionId: nullable(id),
    state: literal(...PANE_STATES),
    actions: arr(actionChecker, { max: LIMITS.actions }),
    openAsks: int({ min: 0 }),
    turnId: nullable(id),
    activeAt: isoTime,
  },
  {
    cwd,
    subtitle: text({ maxBytes: LIMITS.subtitleBytes, line: true, masked: true }),
    progress: progressChecker,
    badge: text({ maxChars: LIMITS.badgeChars, line: true }),
  },
);

export const layoutChecker: Checker<Layout> = obj({
  ready: bool,
  workspaces: arr(obj({ id, title })),
  tabs: arr(obj({ id: tabId, workspaceId: id, title })),
  panes: arr(paneSummaryChecker),
});

const itemOpt = { ts: isoTime, textShortened: bool };
const itemText = text({ maxBytes: LIMITS.itemTextBytes });
const toolName = text({ maxBytes: LIMITS.toolNameBytes, min: 1, line: true });
const toolCall = text({ maxBytes: LIMITS.toolCallBytes, line: true });
const growing = (kind: "reply" | "thinking" | "markdown") =>
  obj({ kind: literal(kind), id, text: itemText }, { ...itemOpt, partial: trueOnly });
const https: Checker<string> = (v, path) => (isHttpsUrl(v) ? v : (() => { throw new WireShapeError(path, "must be an https URL"); })());
const lang: Checker<string> = (v, path) => (isValidLang(v) ? v : (() => { throw new WireShapeError(path, "must be a language token like ts or python"); })());

export const itemChecker: Checker<Item> = marksShortened(union<Item>("kind", {
  user: obj({ kind: literal("user"), id, text: text({ maxBytes: LIMITS.userTextBytes }) }, { ...itemOpt, requestId: id, steered: trueOnly }),
  reply: growing("reply"),
  thinking: growing("thinking"),
  markdown: growing("markdown"),
  notice: obj({ kind: literal("notice"), id, text: itemText }, { ...itemOpt, partial: trueOnly, stopped: trueOnly }),
  code: obj({ kind: literal("code"), id, text: itemText }, { ...itemOpt, lang }),
  link: obj({ kind: literal("link"), id, href: https }, { ...itemOpt, label: text({ maxBytes: LIMITS.linkLabelBytes, line: true }) }),
  tool: obj(
    { kind: literal("tool"), id, name: toolName, status: literal(...TOOL_STATUSES) },
    { ...itemOpt, call: toolCall, output: text({ maxBytes: LIMITS.toolOutputBytes }) },
  ),
}));

const uniqueIds = <T extends { id: string }>(list: T[], path: string): T[] => {
  const seen = new Set<string>();
  list.forEach((entry, i) => {
    if (seen.has(entry.id)) throw new WireShapeError(`${path}[${i}].id`, "must be unique");
    seen.add(entry.id);
  });
  return list;
};

const askCommon = {
  id: str({ pattern: /^[0-9a-f]{32}$/ }),
  revision: str({ pattern: /^[0-9a-f]{16}$/ }),
  paneId: id,
  toolCallId: id,
  itemId: id,
  // The pending question a list shows.
  title: text({ maxBytes: LIMITS.askTitleBytes, min: 1, line: true, masked: true }),
  createdAt: isoTime,
};
const askReason = text({ maxBytes: LIMITS.askReasonBytes });
const askOptional = {
  reason: askReason,
  tool: obj({ name: toolName }, { call: toolCall }),
  // The lock screen's words: masked before a cut, and their cut is not the card's (no `textShortened`).
  push: obj({}, {
    title: text({ maxChars: LIMITS.pushTitleChars, line: true, masked: true, unmarked: true }),
    line: text({ maxChars: LIMITS.pushLineChars, line: true, masked: true, unmarked: true }),
  }),
  expiresAt: isoTime,
  textShortened: bool,
};
const optionLabel = text({ maxBytes: LIMITS.optionLabelBytes, min: 1, line: true });

const formFieldChecker: Checker<FormField> = union<FormField>("type", {
  text: obj({ id, type: literal("text"), label: optionLabel }, { required: bool, placeholder: optionLabel, limit: int({ min: 1, max: LIMITS.textMaxLimit }) }),
  select: (v, path) => {
    const f = obj({ id, type: literal("select"), label: optionLabel, options: arr(obj({ id, label: optionLabel }), { min: 1, max: LIMITS.selectOptions }) }, { required: bool })(v, path);
    uniqueIds(f.options, `${path}.options`);
    return f;
  },
  toggle: obj({ id, type: literal("toggle"), label: optionLabel }, { required: bool }),
});

/** A kind name a newer wire may add: a lowercase token (P-13). */
const NEWER_ASK_KIND = /^[a-z][a-z0-9-]{0,31}$/;
/**
 * An ask of a kind this wire does not know (P-13): a newer agent's. Its common fields are checked
 * and kept, everything else is dropped, so the phone can show its title and text with `This ask
 * cannot be answered from the phone.` instead of losing the card.
 */
const unknownAskChecker: Checker<UnknownAsk> = (v, path) =>
  obj({ ...askCommon, kind: str({ pattern: NEWER_ASK_KIND }) }, askOptional)(v, path) as UnknownAsk;

const knownAskChecker: Checker<KnownAsk> = union<KnownAsk>("kind", {
  permission: (v, path) => {
    const a = obj({ ...askCommon, kind: literal("permission"), options: arr(obj({ id, kind: literal(...PERMISSION_OPTION_KINDS), label: optionLabel }), { min: 1, max: LIMITS.permissionOptions }) }, askOptional)(v, path);
    uniqueIds(a.options, `${path ? path + "." : ""}options`);
    return a;
  },
  choice: (v, path) => {
    const a = obj({ ...askCommon, kind: literal("choice"), options: arr(obj({ id, label: optionLabel }, { description: askReason }), { min: 1, max: LIMITS.choiceOptions }) }, { ...askOptional, multiple: bool })(v, path);
    uniqueIds(a.options, `${path ? path + "." : ""}options`);
    return a;
  },
  text: obj({ ...askCommon, kind: literal("text"), limit: int({ min: 1, max: LIMITS.textMaxLimit }) }, { ...askOptional, placeholder: optionLabel }),
  form: (v, path) => {
    const a = obj({ ...askCommon, kind: literal("form"), fields: arr(formFieldChecker, { min: 1, max: LIMITS.formFields }) }, askOptional)(v, path);
    uniqueIds(a.fields, `${path ? path + "." : ""}fields`);
    return a;
  },
});

/** One of the four kinds (S-21), checked in full; any other lowercase kind kept as an UnknownAsk. */
export const askChecker: Checker<Ask> = marksShortened((v, path) => {
  const kind = isPlainObject(v) ? v.kind : undefined;
  if (typeof kind === "string" && !(ASK_KINDS as readonly string[]).includes(kind) && NEWER_ASK_KIND.test(kind)) return unknownAskChecker(v, path);
  return knownAskChecker(v, path);
});

/** Whether an ask read off the wire is one of the four kinds, which narrows it for a reader (P-13). */
export function isKnownAsk(ask: Ask): ask is KnownAsk {
  return (ASK_KINDS as readonly string[]).includes(ask.kind);
}

export const paneEventChecker: Checker<PaneEvent> = union<PaneEvent>("type", {
  item: obj({ seq: int({ min: 1 }), type: literal("item"), pane: id, item: itemChecker }),
  ask: obj({ seq: int({ min: 1 }), type: literal("ask"), pane: id, ask: askChecker }),
  "ask-closed": obj({
    seq: int({ min: 1 }), type: literal("ask-closed"), pane: id, askId: str({ pattern: /^[0-9a-f]{32}$/ }),
    // The closed ask's title, which a list or a push may show as the ask's own: masked too.
    decidedBy: literal(...DECIDED_BY), title: text({ maxBytes: LIMITS.askTitleBytes, line: true, masked: true }), decidedAt: isoTime,
  }),
  state: obj({ seq: int({ min: 1 }), type: literal("state"), pane: id, summary: paneSummaryChecker }),
});

export const paneViewChecker: Checker<PaneView> = obj({
  pane: paneSummaryChecker,
  items: arr(itemChecker, { max: LIMITS.viewItems }),
  itemsCut: bool,
  asks: arr(askChecker),
});

export const paneViewPageChecker: Checker<PaneViewPage> = (v, path) => ({
  ...paneViewChecker(v, path),
  cursor: obj({ cursor: str({ min: 1, maxBytes: 128 }) })(v, path).cursor,
});

/**
 * An events page. A single event of an unknown type or a bad shape must not poison the page
 * (L-2): `parseEventsPage` drops it and reports it in `dropped`.
 */
const eventsPageFrame = obj(
  { cursor: str({ min: 1, maxBytes: 128 }), reset: bool, views: arr(paneViewChecker), events: arr((v) => v) },
  { layout: layoutChecker },
);

export interface ParsedEventsPage { ok: true; value: EventsPage; dropped: string[] }

export function parseEventsPage(value: unknown, opts: ReadOptions = {}): ParsedEventsPage | { ok: false; error: string } {
  const frame = parseWith(eventsPageFrame, value, opts);
  if (!frame.ok) return frame;
  const events: PaneEvent[] = [];
  const dropped: string[] = [];
  frame.value.events.forEach((raw, i) => {
    const parsed = parseWith(paneEventChecker, raw, opts);
    if (parsed.ok) events.push(parsed.value);
    else dropped.push(`events[${i}] ${parsed.error}`);
  });
  const page: EventsPage = { cursor: frame.value.cursor, reset: frame.value.reset, views: frame.value.views, events };
  if (frame.value.layout) page.layout = frame.value.layout;
  return { ok: true, value: page, dropped };
}

const historyRowChecker: Checker<HistoryRow> = obj(
  { id, title: shownTitle, startedAt: isoTime, state: literal("open", "closed"), items: int({ min: 0 }) },
  { subtitle: text({ maxBytes: LIMITS.subtitleBytes, line: true, masked: true }), workspaceId: id, tabId, endedAt: isoTime },
);
export const historyPageChecker: Checker<HistoryPage> = obj({ rows: arr(historyRowChecker, { max: LIMITS.historyPageMax }) }, { next: cursor });
export const historyItemsPageChecker: Checker<HistoryItemsPage> = obj({ items: arr(itemChecker, { max: LIMITS.viewItems }) }, { next: cursor });
export const startersPageChecker: Checker<StartersPage> = obj({
  starters: arr(obj({ id, title }, { subtitle: text({ maxBytes: LIMITS.subtitleBytes, line: true }), icon: str({ maxBytes: 32 }) }), { max: 64 }),
});

export const answerValueChecker: Checker<Answer> = union<Answer>("kind", {
  permission: obj({ kind: literal("permission"), optionId: id }),
  // Empty for a multiple choice with nothing picked; a single choice's one id is checked against its ask.
  choice: obj({ kind: literal("choice"), optionIds: arr(id, { max: LIMITS.choiceOptions }) }),
  text: obj({ kind: literal("text"), text: str({ maxBytes: LIMITS.textMaxLimit * 4 }) }),
  form: obj({ kind: literal("form"), values: record<string | boolean>((v, path) => (typeof v === "boolean" ? v : str({ maxBytes: LIMITS.textMaxLimit * 4 })(v, path)), { max: LIMITS.formFields }) }),
});

const targetChecker: Checker<Target> = union<Target>("kind", {
  workspace: obj({ kind: literal("workspace"), id }),
  tab: obj({ kind: literal("tab"), id: tabId }),
  pane: obj({ kind: literal("pane"), id }),
});

const requestId = id;
export const answerBodyChecker: Checker<AnswerBody> = obj({ requestId, revision: str({ pattern: /^[0-9a-f]{16}$/ }), answer: answerValueChecker });
export const sendBodyChecker: Checker<SendBody> = obj({ requestId, text: str({ min: 1, maxBytes: LIMITS.userTextBytes }) });
export const steerBodyChecker: Checker<SteerBody> = obj({ requestId, text: str({ min: 1, maxBytes: LIMITS.userTextBytes }), turnId: nullable(id) });
export const stopBodyChecker: Checker<StopBody> = obj({ requestId, turnId: nullable(id) });
export const actionBodyChecker: Checker<ActionBody> = obj({ requestId, turnId: nullable(id) });
export const renameBodyChecker: Checker<RenameBody> = obj({ requestId, target: targetChecker, title: str({ min: 1, maxBytes: LIMITS.titleBytes }) });
export const closeBodyChecker: Checker<CloseBody> = obj({ requestId, target: targetChecker });
export const reopenBodyChecker: Checker<ReopenBody> = obj({ requestId, target: targetChecker });
export const starterBodyChecker: Checker<StarterBody> = obj({ requestId });

export const writeOkChecker: Checker<WriteOk> = obj(
  { ok: trueOnly },
  { replayed: trueOnly, turnId: id, paneId: id, decidedAt: isoTime },
);

export const errorBodyChecker: Checker<WireErrorBody> = (v, path) => {
  const base = obj({ error: str({ min: 1, maxBytes: 64, pattern: /^[a-z][a-z-]*$/ }), message: str({ maxBytes: 4096 }) })(v, path);
  return { ...(v as object), ...base } as WireErrorBody;
};

/** Every message type by name: the golden fixtures (sdk/test/fixtures/wire/<Type>/) use these names. */
/**
 * The body checker of every write route: the agent's core refuses a body that fails it, and Collie
 * checks the phone's body with the same checker before forwarding it, so a text the agent would
 * refuse (a send of 9 000 Cyrillic characters is 18 KB, over the 16 KiB limit) is refused by Collie
 * with the agent's own words: one rule, stated once.
 */
export const WRITE_BODY_CHECKERS: { readonly [K in keyof WriteBodies]: Checker<WriteBodies[K]> } = Object.freeze({
  answer: answerBodyChecker,
  send: sendBodyChecker,
  steer: steerBodyChecker,
  stop: stopBodyChecker,
  action: actionBodyChecker,
  rename: renameBodyChecker,
  close: closeBodyChecker,
  reopen: reopenBodyChecker,
  starter: starterBodyChecker,
});

export const MESSAGE_CHECKERS = Object.freeze({
  Hello: helloChecker,
  Layout: layoutChecker,
  PaneSummary: paneSummaryChecker,
  Item: itemChecker,
  Ask: askChecker,
  PaneEvent: paneEventChecker,
  PaneView: paneViewChecker,
  PaneViewPage: paneViewPageChecker,
  HistoryPage: historyPageChecker,
  HistoryItemsPage: historyItemsPageChecker,
  StartersPage: startersPageChecker,
  AnswerBody: answerBodyChecker,
  SendBody: sendBodyChecker,
  SteerBody: steerBodyChecker,
  StopBody: stopBodyChecker,
  ActionBody: actionBodyChecker,
  RenameBody: renameBodyChecker,
  CloseBody: closeBodyChecker,
  ReopenBody: reopenBodyChecker,
  StarterBody: starterBodyChecker,
  WriteOk: writeOkChecker,
  ErrorBody: errorBodyChecker,
} satisfies Record<string, Checker<unknown>>);

export type MessageType = keyof typeof MESSAGE_CHECKERS | "EventsPage";

/** Parses a message of the named type (strict unless `opts` say otherwise, check.ts `ReadOptions`). */
export function parseMessage(type: MessageType, value: unknown, opts: ReadOptions = {}): Parsed<unknown> {
  if (type === "EventsPage") {
    const r = parseEventsPage(value, opts);
    return r.ok ? { ok: true, value: r.value } : r;
  }
  return parseWith(MESSAGE_CHECKERS[type] as Checker<unknown>, value, opts);
}

// Each reader takes `ReadOptions`: the SDK reads strictly; Collie reads an agent with `{cut: true}`.
export const parseHello = (v: unknown, opts?: ReadOptions): Parsed<Hello> => parseWith(helloChecker, v, opts);
export const parseLayout = (v: unknown, opts?: ReadOptions): Parsed<Layout> => parseWith(layoutChecker, v, opts);
export const parseItem = (v: unknown, opts?: ReadOptions): Parsed<Item> => parseWith(itemChecker, v, opts);
export const parseAsk = (v: unknown, opts?: ReadOptions): Parsed<Ask> => parseWith(askChecker, v, opts);
export const parsePaneView = (v: unknown, opts?: ReadOptions): Parsed<PaneViewPage> => parseWith(paneViewPageChecker, v, opts);
export const parseHistoryPage = (v: unknown, opts?: ReadOptions): Parsed<HistoryPage> => parseWith(historyPageChecker, v, opts);
export const parseHistoryItemsPage = (v: unknown, opts?: ReadOptions): Parsed<HistoryItemsPage> => parseWith(historyItemsPageChecker, v, opts);
export const parseStartersPage = (v: unknown, opts?: ReadOptions): Parsed<StartersPage> => parseWith(startersPageChecker, v, opts);
export const parseWriteOk = (v: unknown, opts?: ReadOptions): Parsed<WriteOk> => parseWith(writeOkChecker, v, opts);
export const parseErrorBody = (v: unknown, opts?: ReadOptions): Parsed<WireErrorBody> => parseWith(errorBodyChecker, v, opts);

export { ASK_KINDS };
