/**
 * Hooks: the one named place for each action the phone sends (S-29), and the payloads they get.
 * A pane's own handler runs first (S-19). A handler accepts by returning (optionally a turn id),
 * refuses by throwing `Refusal` (409 refused, no receipt kept, so the same request id may try
 * again); any other throw is a 500 internal, also without a receipt.
 */
import type { Target } from "../wire/types.ts";
import type { Pane, Tab, Workspace } from "./layout.ts";

/** Thrown by a handler to refuse an action; `reason` reaches the phone. */
export class Refusal extends Error {
  readonly reason: string | undefined;
  constructor(reason?: string) {
    super(reason ?? "refused");
    this.name = "Refusal";
    this.reason = reason;
  }
}

/** What a send or steer handler may return. */
export type HandlerResult = void | { turnId?: string } | Promise<void | { turnId?: string }>;

export interface SendEvent { pane: Pane; text: string; requestId: string }
export interface SteerEvent { pane: Pane; text: string; turnId: string | null; requestId: string }
export interface StopEvent { pane: Pane; turnId: string | null; requestId: string }
export interface ActionEvent { pane: Pane; actionId: string; turnId: string | null; requestId: string }
/** The resolved target of a rename or close. */
export type TargetRef = { kind: "workspace"; workspace: Workspace } | { kind: "tab"; tab: Tab } | { kind: "pane"; pane: Pane };
export interface RenameEvent { target: Target; ref: TargetRef; title: string; requestId: string }
export interface CloseEvent { target: Target; ref: TargetRef; requestId: string }
/** A reopen names a target this process may no longer know (closed before a restart, S-30). */
export interface ReopenEvent { target: Target; requestId: string }
export interface StarterEvent { starterId: string; requestId: string }

/** Every hook (S-29). Rename and close are applied by the SDK after the hook accepts (S-30). */
export interface Hooks {
  onSend?: (event: SendEvent) => HandlerResult;
  onSteer?: (event: SteerEvent) => HandlerResult;
  onStop?: (event: StopEvent) => HandlerResult;
  onAction?: (event: ActionEvent) => HandlerResult;
  onRename?: (event: RenameEvent) => void | Promise<void>;
  onClose?: (event: CloseEvent) => void | Promise<void>;
  /**
   * Reopens a conversation: return the pane it now lives in, or null when there is nothing to
   * reopen (404). Without it, only panes this process closed come back.
   */
  onReopen?: (event: ReopenEvent) => Pane | null | Promise<Pane | null>;
  /** Opens a new conversation for a starter: return its pane, so the phone can go to it (P-25); null answers 404. */
  onStarter?: (event: StarterEvent) => Pane | null | Promise<Pane | null>;
}
