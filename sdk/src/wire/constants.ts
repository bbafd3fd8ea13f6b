/** Wire constants (docs/wire.md). */

/** The wire version this SDK speaks. */
export const WIRE_VERSION = 1;
/** Every wire version this SDK speaks, newest first (S-34). */
export const WIRE_VERSIONS: readonly number[] = Object.freeze([1]);
/** The unversioned root; `hello` lives here so a Collie of another version can still read it. */
export const WIRE_ROOT = "/durable";
/** Prefix of every versioned route. */
export const wirePrefix = (version: number): string => `${WIRE_ROOT}/v${version}`;
/** The request header in which Collie lists the wire versions it speaks, e.g. `2, 1`. */
export const COLLIE_WIRE_HEADER = "collie-wire";

/**
 * Every cap with the SDK's default (S-33). `terminal` is always false. `followUp` is off unless
 * the agent declares it: whether a send during a turn is taken is its handler's choice.
 */
export const ALL_CAPS = Object.freeze({
  asks: true,
  send: true,
  steer: true,
  stop: true,
  actions: true,
  rename: true,
  close: true,
  reopen: true,
  starters: true,
  history: true,
  followUp: false,
  terminal: false,
} as const);
export const CAP_NAMES = Object.freeze(Object.keys(ALL_CAPS)) as readonly (keyof typeof ALL_CAPS)[];
/** Caps a hello may leave out (they came later in v1); a missing one reads as false. */
export const LATER_CAPS: readonly (keyof typeof ALL_CAPS)[] = Object.freeze(["followUp"]);

/** The twelve icon names (S-18). */
export const ICONS = Object.freeze([
  "play", "pause", "check", "x", "refresh", "archive", "flag", "star", "send", "note", "search", "more",
] as const);

export const ITEM_KINDS = Object.freeze([
  "user", "reply", "thinking", "notice", "markdown", "code", "link", "tool",
] as const);
/** Kinds that may carry `partial: true` while their text grows (S-15). */
export const PARTIAL_KINDS = Object.freeze(["reply", "thinking", "notice", "markdown"] as const);
export const TOOL_STATUSES = Object.freeze(["running", "done", "failed", "denied"] as const);
export const PANE_STATES = Object.freeze(["idle", "working", "waiting"] as const);
export const ASK_KINDS = Object.freeze(["permission", "choice", "text", "form"] as const);
export const PERMISSION_OPTION_KINDS = Object.freeze(["allow", "allow-always", "deny", "cancel"] as const);
export const DECIDED_BY = Object.freeze(["phone", "program", "timeout"] as const);
export const TARGET_KINDS = Object.freeze(["workspace", "tab", "pane"] as const);

/** Receipts kept per pane and per group (S-28). */
export const RECEIPTS_PER_GROUP = 1000;

/** Limits of the wire. Bytes are UTF-8 bytes; characters are Unicode code points. */
export const LIMITS = Object.freeze({
  /** S-11 */
  idBytes: 128,
  /** S-10 */
  titleBytes: 256,
  harnessBytes: 64,
  subtitleBytes: 256,
  badgeChars: 16,
  /** S-18 */
  actions: 4,
  actionLabelChars: 16,
  /** S-22 */
  askTitleBytes: 256,
  askReasonBytes: 2048,
  pushTitleChars: 60,
  pushLineChars: 120,
  toolNameBytes: 128,
  toolCallBytes: 1024,
  /** S-21 */
  permissionOptions: 6,
  choiceOptions: 8,
  optionLabelBytes: 128,
  textDefaultLimit: 500,
  textMaxLimit: 2000,
  formFields: 6,
  selectOptions: 32,
  /** Text of items (S-16): the SDK cuts above these. */
  itemTextBytes: 64 * 1024,
  userTextBytes: 16 * 1024,
  toolOutputBytes: 16 * 1024,
  langBytes: 32,
  hrefBytes: 2048,
  linkLabelBytes: 256,
  /** S-31 */
  cursorBytes: 512,
  /** S-32 */
  tailLimit: 500,
  viewItems: 2000,
  /** Largest request body the core reads. */
  bodyBytes: 256 * 1024,
  /** Longest long-poll wait a reader may ask for, in ms (W-3). */
  maxWaitMs: 60_000,
  /** Rows per history page. */
  historyPage: 100,
  historyPageMax: 500,
} as const);

/** The coalescing window for partial item writes (S-15). */
export const PARTIAL_INTERVAL_MS = 250;
