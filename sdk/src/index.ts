/**
 * `@colliepwa/durable-sdk`: show a durable agent on your phone through Collie.
 *
 *   const collie = await openCollie({ hostName: "desk" });
 *   const pane = collie.workspace("support", { title: "Support" })
 *     .tab("main", { title: "Tickets" })
 *     .pane("ticket-1", { title: "Maria Lopez", harness: "desk" });
 *   collie.ready();
 *
 * The root also exports the building blocks `openCollie` is made of and the rules it applies (S-4).
 */
export { openCollie, Collie, defaultSocketPath, SOCKET_ENV, type OpenCollieOptions } from "./transport/unix-socket.ts";
export { createCore, DurableCore } from "./core/core.ts";
export { AskClosed, Pane, Tab, Workspace } from "./core/layout.ts";
export { Refusal } from "./core/hooks.ts";
export { BodyTooLarge } from "./core/request.ts";
export { MemoryReceiptStore } from "./core/receipts.ts";
export { SqliteReceiptStore } from "./core/sqlite-receipts.ts";
export { askIdFor } from "./core/ids.ts";
export { buildAsk, checkAnswer, expiryOf } from "./core/asks.ts";
export { argumentsView, callSummary, requireApproval, type Approval, type ApprovalOptions } from "./core/approval.ts";
export { normalizeActions, normalizeItem, normalizeProgress } from "./core/items.ts";
export { systemClock } from "./core/clock.ts";
export { SDK_NAME, SDK_VERSION } from "./core/version.ts";
export { EventLog } from "./core/event-log.ts";
export {
  ALL_CAPS, ICONS, LIMITS, RECEIPTS_PER_GROUP, WIRE_VERSION, WIRE_VERSIONS, PARTIAL_INTERVAL_MS,
} from "./wire/constants.ts";
export { WIRE_ERRORS } from "./wire/errors.ts";
export { assertId, cleanText, idRuleViolation, isValidId, truncateUtf8 } from "./wire/rules.ts";
export type * from "./core/types.ts";
