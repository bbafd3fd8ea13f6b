/**
 * `@colliepwa/durable-sdk/core`: the transport-free core (S-6) for an agent that serves the wire
 * from its own `node:https` server behind a bearer token (`core.handler`), or from any other
 * transport through `core.request()` (request → reply).
 */
export { createCore, DurableCore } from "./core.ts";
export { AskClosed, Pane, Tab, Workspace } from "./layout.ts";
export { Refusal } from "./hooks.ts";
export { BodyTooLarge } from "./request.ts";
export { MemoryReceiptStore } from "./receipts.ts";
export { SqliteReceiptStore } from "./sqlite-receipts.ts";
export { askIdFor } from "./ids.ts";
export { argumentsView, callSummary, requireApproval } from "./approval.ts";
export { systemClock } from "./clock.ts";
export { SDK_NAME, SDK_VERSION } from "./version.ts";
export type * from "./types.ts";
