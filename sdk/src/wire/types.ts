/**
 * Every message of the durable wire v1 (docs/wire.md). Types only: this file has no runtime.
 * Times are ISO-8601 strings in UTC (`2026-12-02T14:00:00.000Z`). Ids follow the ID rule (S-11).
 */

/** A wire version number; v1 is the first. */
export type WireVersion = number;

/** What an agent can do; the phone draws a control only for a declared cap (S-33, P-1). */
export interface Caps {
  asks: boolean;
  send: boolean;
  steer: boolean;
  stop: boolean;
  actions: boolean;
  rename: boolean;
  close: boolean;
  reopen: boolean;
  starters: boolean;
  history: boolean;
  /**
   * A send while a turn runs is taken (queued as a follow-up, as Pi does), not refused. Off by
   * default: only the agent's handler knows. A hello without it (an SDK before it) reads as false.
   */
  followUp: boolean;
  /** Always false: a durable agent has no terminal (S-33, P-24). */
  terminal: false;
}

/** The names of the caps, in wire order. */
export type CapName = keyof Caps;

/** `GET /durable/hello` (W-1): who the agent is and what it speaks. */
export interface Hello {
  /** Wire versions this agent speaks, newest first. */
  wire: WireVersion[];
  sdk: { name: string; version: string };
  /** The runtime, e.g. `node 22.23.5`. */
  runtime: string;
  /** The name the agent gives itself (`hostName`), or null; the phone then shows `durable`. */
  name: string | null;
  caps: Caps;
  /** True where the core can tell who calls on the socket and refuses the agent's own tools (S-7). */
  descendantCheck: boolean;
  /** False over https by default: the token is the only gate (S-27). */
  allowAlways: boolean;
  /** Changes each time the agent process starts; a cursor from another instance resyncs. */
  instance: string;
  /** The per-pane raw tail and the view cap (S-32). */
  limits: { tailLimit: number; viewItems: number };
}

/** Pane state as the phone sees it; `waiting` whenever an ask is open (S-18). */
export type PaneState = "idle" | "working" | "waiting";

/** Progress is steps or a percentage with a label (S-18, P-21). */
export type Progress =
  | { kind: "steps"; current: number; total: number; label: string }
  | { kind: "percent"; value: number; label: string };

/** The twelve icons an agent button may name; another name draws no icon (S-18). */
export type IconName =
  | "play" | "pause" | "check" | "x" | "refresh" | "archive"
  | "flag" | "star" | "send" | "note" | "search" | "more";

/** One of the agent's own buttons on the belt (S-18, P-22). */
export interface Action {
  id: string;
  /** At most 16 characters. */
  label: string;
  /** One of the twelve icons, or another string that draws nothing. */
  icon?: string;
  busy?: boolean;
  disabled?: boolean;
}

/** A pane as listed in the layout and in `state` events (S-13, S-18). */
export interface PaneSummary {
  id: string;
  /** `<workspace>:<tab>` */
  tabId: string;
  title: string;
  harness: string;
  cwd?: string;
  /** Equal to the pane id once a history provider is set, unless the agent chose otherwise (S-31). */
  sessionId: string | null;
  state: PaneState;
  subtitle?: string;
  progress?: Progress;
  badge?: string;
  actions: Action[];
  openAsks: number;
  /** The running turn or the last one; null before the first turn. */
  turnId: string | null;
  /** The last time anything in the pane changed. */
  activeAt: string;
}

export interface WorkspaceSummary {
  id: string;
  title: string;
}

export interface TabSummary {
  /** `<workspace>:<tab>` (S-11) */
  id: string;
  workspaceId: string;
  title: string;
}

/** `GET /durable/v1/layout` (W-2). */
export interface Layout {
  /** False until the agent called `ready()`: Collie shows the agent as starting meanwhile. */
  ready: boolean;
  workspaces: WorkspaceSummary[];
  tabs: TabSummary[];
  panes: PaneSummary[];
}

interface ItemBase {
  id: string;
  /** When the item was written; a growing item (`partial`) shows no time (P-19). */
  ts?: string;
  /** True when the SDK had to cut or clean its text (S-16). */
  textShortened?: boolean;
}

/** A line the user sent; `requestId` echoes the phone's send so it can replace its own copy (P-20). */
/** Your own line; `steered: true` marks a line sent into a running turn (Steer, P-22). */
export interface UserItem extends ItemBase { kind: "user"; text: string; requestId?: string; steered?: boolean }
export interface ReplyItem extends ItemBase { kind: "reply"; text: string; partial?: boolean }
export interface ThinkingItem extends ItemBase { kind: "thinking"; text: string; partial?: boolean }
/** A short note; `stopped: true` marks the note a stopped turn leaves (P-19). */
export interface NoticeItem extends ItemBase { kind: "notice"; text: string; partial?: boolean; stopped?: boolean }
export interface MarkdownItem extends ItemBase { kind: "markdown"; text: string; partial?: boolean }
export interface CodeItem extends ItemBase { kind: "code"; text: string; lang?: string }
/** https only (S-14). */
export interface LinkItem extends ItemBase { kind: "link"; href: string; label?: string }
export type ToolStatus = "running" | "done" | "failed" | "denied";
export interface ToolItem extends ItemBase {
  kind: "tool";
  name: string;
  status: ToolStatus;
  /** The call on one line, e.g. `refund(order: "5521", amount: 40)`. */
  call?: string;
  output?: string;
}

/** Every item kind of S-14. */
export type Item =
  | UserItem | ReplyItem | ThinkingItem | NoticeItem | MarkdownItem | CodeItem | LinkItem | ToolItem;
export type ItemKind = Item["kind"];

/** Who closed an ask (S-24). */
export type DecidedBy = "phone" | "program" | "timeout";

export type PermissionOptionKind = "allow" | "allow-always" | "deny" | "cancel";
export interface PermissionOption { id: string; kind: PermissionOptionKind; label: string }
export interface ChoiceOption { id: string; label: string; description?: string }
export interface SelectOption { id: string; label: string }

export type FormField =
  | { id: string; type: "text"; label: string; required?: boolean; placeholder?: string; limit?: number }
  | { id: string; type: "select"; label: string; required?: boolean; options: SelectOption[] }
  | { id: string; type: "toggle"; label: string; required?: boolean };

interface AskBase {
  /** `askIdFor(paneId, toolCallId)` (S-23). */
  id: string;
  /**
   * A hash of the ask's content (16 hex chars). The same tool call raised again with the same
   * content, even by a restarted process, has the same revision; an answer names the revision it
   * was given for, so a changed ask is detected (W-4, P-15).
   */
  revision: string;
  paneId: string;
  toolCallId: string;
  /** The tool item the card sits under (P-9). */
  itemId: string;
  title: string;
  reason?: string;
  /** The tool the ask is about; without it the phone offers no `Always allow` (P-11). */
  tool?: { name: string; call?: string };
  push?: { title?: string; line?: string };
  expiresAt?: string;
  createdAt: string;
  /** True when the SDK cut or cleaned title, reason or tool text (P-12). */
  textShortened?: boolean;
}

export interface PermissionAsk extends AskBase { kind: "permission"; options: PermissionOption[] }
export interface ChoiceAsk extends AskBase { kind: "choice"; options: ChoiceOption[]; multiple?: boolean }
export interface TextAsk extends AskBase { kind: "text"; limit: number; placeholder?: string }
export interface FormAsk extends AskBase { kind: "form"; fields: FormField[] }

/**
 * An ask of a kind this wire version does not know: a newer agent's (P-13). A reader keeps its
 * common fields (title, reason, tool, expiry …) and drops the rest, so the phone can show the card
 * with `This ask cannot be answered from the phone.` and no buttons. The kind is a lowercase token.
 */
export interface UnknownAsk extends AskBase { kind: string }
/** The four kinds this SDK raises and answers (S-21). */
export type KnownAsk = PermissionAsk | ChoiceAsk | TextAsk | FormAsk;
/** An ask as it appears on the wire: one of the four kinds, or a newer one (P-13). */
export type Ask = KnownAsk | UnknownAsk;
export type AskKind = KnownAsk["kind"];

/** The answer body per kind (S-21). */
export type Answer =
  | { kind: "permission"; optionId: string }
  | { kind: "choice"; optionIds: string[] }
  | { kind: "text"; text: string }
  | { kind: "form"; values: Record<string, string | boolean> };

/** Events of a pane's tail (W-2, W-3). `seq` orders all events of one agent instance. */
export type PaneEvent =
  | { seq: number; type: "item"; pane: string; item: Item }
  | { seq: number; type: "ask"; pane: string; ask: Ask }
  | { seq: number; type: "ask-closed"; pane: string; askId: string; decidedBy: DecidedBy; title: string; decidedAt: string }
  | { seq: number; type: "state"; pane: string; summary: PaneSummary };
export type PaneEventType = PaneEvent["type"];

/** A pane's whole current view: what a reader gets when it fell behind the tail (S-32). */
export interface PaneView {
  pane: PaneSummary;
  /** The newest items, at most `limits.viewItems` (2000). */
  items: Item[];
  /** True when older items were left out. */
  itemsCut: boolean;
  asks: Ask[];
}

/** `GET /durable/v1/events?after=&wait=` (W-3). */
export interface EventsPage {
  /** Pass it as `after` next time. Opaque. */
  cursor: string;
  /** True when the cursor was from another instance or unreadable: drop what you knew. */
  reset: boolean;
  /** Present when the layout changed after the cursor (or on reset). */
  layout?: Layout;
  /** Whole views of panes whose tail no longer reaches the cursor (and every pane on reset). */
  views: PaneView[];
  /** Events after the cursor, by `seq`, from panes not in `views`. */
  events: PaneEvent[];
}

/** `GET /durable/v1/panes/:pane`. */
export interface PaneViewPage extends PaneView { cursor: string }

/** A row of the agent's own history (S-31). */
export interface HistoryRow {
  id: string;
  title: string;
  subtitle?: string;
  workspaceId?: string;
  tabId?: string;
  startedAt: string;
  endedAt?: string;
  state: "open" | "closed";
  /** How many items the conversation has. */
  items: number;
}

/** `GET /durable/v1/history?after=&limit=`; no `next` ends the list. */
export interface HistoryPage { rows: HistoryRow[]; next?: string }

/** `GET /durable/v1/history/:session/items?after=&limit=`. */
export interface HistoryItemsPage { items: Item[]; next?: string }

/** A starter opens a new conversation; it takes no folder and no text (P-25). */
export interface Starter { id: string; title: string; subtitle?: string; icon?: string }
export interface StartersPage { starters: Starter[] }

/** What rename, close and reopen act on. */
export type Target =
  | { kind: "workspace"; id: string }
  | { kind: "tab"; id: string }
  | { kind: "pane"; id: string };

/** Request bodies of the writes (W-4). Every write carries the phone's request id. */
export interface AnswerBody { requestId: string; revision: string; answer: Answer }
export interface SendBody { requestId: string; text: string }
export interface SteerBody { requestId: string; text: string; turnId: string | null }
export interface StopBody { requestId: string; turnId: string | null }
export interface ActionBody { requestId: string; turnId: string | null }
export interface RenameBody { requestId: string; target: Target; title: string }
export interface CloseBody { requestId: string; target: Target }
export interface ReopenBody { requestId: string; target: Target }
export interface StarterBody { requestId: string }

/** The body of each write route by name (routes.ts checks at compile time that these are its writes). */
export interface WriteBodies {
  answer: AnswerBody;
  send: SendBody;
  steer: SteerBody;
  stop: StopBody;
  action: ActionBody;
  rename: RenameBody;
  close: CloseBody;
  reopen: ReopenBody;
  starter: StarterBody;
}

/** Success of a write. `replayed` marks the stored first answer to a repeated request id (S-28). */
export interface WriteOk {
  ok: true;
  replayed?: true;
  /** The turn a send or steer went into, when the agent says. */
  turnId?: string;
  /** The pane a starter or reopen opened, so the phone can go to it (P-25). */
  paneId?: string;
  decidedAt?: string;
}

/** Every error body (W-5). */
export interface WireErrorBody {
  error: string;
  message: string;
  [extra: string]: unknown;
}
