/**
 * `@colliepwa/durable-sdk/wire`: every type, constant, error code and validator of the durable
 * wire v1 (docs/wire.md). Collie imports this entry; it has no Node-specific runtime.
 */
export type {
  Action, Answer, AnswerBody, Ask, AskKind, KnownAsk, UnknownAsk, Caps, CapName, ChoiceAsk, ChoiceOption, CloseBody, CodeItem,
  DecidedBy, EventsPage, FormAsk, FormField, Hello, HistoryItemsPage, HistoryPage, HistoryRow, IconName,
  Item, ItemKind, Layout, LinkItem, MarkdownItem, NoticeItem, PaneEvent, PaneEventType, PaneState,
  PaneSummary, PaneView, PaneViewPage, PermissionAsk, PermissionOption, PermissionOptionKind, Progress,
  RenameBody, ReopenBody, ReplyItem, SelectOption, SendBody, Starter, StarterBody, StartersPage, SteerBody,
  StopBody, ActionBody, TabSummary, Target, TextAsk, ThinkingItem, ToolItem, ToolStatus, UserItem,
  WireErrorBody, WireVersion, WorkspaceSummary, WriteBodies, WriteOk,
} from "./types.ts";
export {
  ALL_CAPS, ASK_KINDS, CAP_NAMES, COLLIE_WIRE_HEADER, DECIDED_BY, ICONS, ITEM_KINDS, LIMITS,
  PANE_STATES, PARTIAL_INTERVAL_MS, PARTIAL_KINDS, PERMISSION_OPTION_KINDS, RECEIPTS_PER_GROUP,
  TARGET_KINDS, TOOL_STATUSES, WIRE_ROOT, WIRE_VERSION, WIRE_VERSIONS, wirePrefix,
} from "./constants.ts";
export { ASK_OUTCOME_CODES, isWireErrorCode, statusOf, WIRE_ERRORS, type WireErrorCode } from "./errors.ts";
export {
  assertId, cleanChars, cleanText, type CleanResult, hasInvisible, idRuleViolation, isHttpsUrl,
  isIsoWithZone, isValidCursor, isValidId, isValidLang, truncateChars, truncateUtf8, utf8Bytes,
} from "./rules.ts";
export { type Checker, type Parsed, parseWith, type ReadOptions, text, type TextRule, WireShapeError } from "./check.ts";
export {
  MESSAGE_CHECKERS, WRITE_BODY_CHECKERS, type MessageType, isKnownAsk, parseAsk, parseErrorBody, parseEventsPage, parseHello,
  parseHistoryItemsPage, parseHistoryPage, parseItem, parseLayout, parseMessage, parsePaneView,
  parseStartersPage, parseWriteOk, type ParsedEventsPage,
  answerBodyChecker, sendBodyChecker, steerBodyChecker, stopBodyChecker, actionBodyChecker,
  renameBodyChecker, closeBodyChecker, reopenBodyChecker, starterBodyChecker,
} from "./messages.ts";
export {
  isWriteMatch, matchRoute, ROUTES, routePath, type ReadRouteName, type RouteMatch, type RouteName, type RouteParams,
  type RouteReplies, type RouteSpec, type WriteRouteName,
} from "./routes.ts";
