/**
 * Every type on the wire and every hook payload (S-4), in one place.
 */
export type * from "../wire/types.ts";
export type {
  ActionEvent, CloseEvent, HandlerResult, Hooks, RenameEvent, ReopenEvent, SendEvent, StarterEvent,
  SteerEvent, StopEvent, TargetRef,
} from "./hooks.ts";
export type { AskAnswer, AskInput } from "./asks.ts";
export type { ItemInput } from "./items.ts";
export type { Approval, ApprovalOptions } from "./approval.ts";
export type { PaneHandlers, PaneOptions, PaneHost, PaneStateInput } from "./layout.ts";
export type { ReceiptLookup, ReceiptRecord, ReceiptStore } from "./receipts.ts";
export type { CommonOptions, CoreOptions, HistoryProvider } from "./core.ts";
export type { WireBody, WireEndpoint, WireReply, WireReplyBody, WireRequest } from "./request.ts";
export type { Clock } from "./clock.ts";
