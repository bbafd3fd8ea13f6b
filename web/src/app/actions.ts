/**
 * The action layer (P-14, P-20, P-26): every phone action goes through `phone.actions`, one method
 * per action route of the shared table (`phone.actions.answer/send/steer/stop/action/rename/close/
 * reopen/starter`), each taking the route's path parameters and its typed body without the request
 * id. This is the one place that
 * - makes request ids: one per tap, known at once (`Tap.requestId`);
 * - builds the request from the route table and saves it in the outbox before it is sent;
 * - sends an action again: `retry(requestId)` sends the saved request unchanged, the same id and
 *   body, whether the outbox still holds it (no reply yet, or a 5xx) or let it go; the agent's
 *   receipts keep it to one run (S-28);
 * - answers what became of a request id (`result`, `sending`, `held`, `pending`).
 * Components never build a path or a body's request id, and never choose between submit and resend.
 */
import type { ActionReplyBody, PhoneActionName, PhoneBody, PhoneRouteParams } from "@colliepwa/shared";
import { phonePath } from "@colliepwa/shared/routes";
import type { Reply } from "./api.ts";
import type { Outbox, PendingAction, SendResult } from "./outbox.ts";

export type { PendingAction, SendResult } from "./outbox.ts";

/** A request as the action layer built it: what the outbox saves, and sends again unchanged. */
export type ActionRequest = Omit<PendingAction, "createdAt" | "attempts" | "held">;

/** One tap: its request id, known before anything is sent, the request, and what the send came to. */
export interface Tap {
  requestId: string;
  request: ActionRequest;
  result: Promise<SendResult>;
}

/** An action's body as a component gives it: the route's body without the request id. */
export type ActionBody<N extends PhoneActionName> = Omit<PhoneBody<N>, "requestId">;

/** A new request id: one per tap (P-14). */
export function newRequestId(): string {
  return crypto.randomUUID();
}

/** Whether a tap's outcome is unknown: no reply, or a 5xx (Collie or the agent could not say). */
export function unsure(result: SendResult): boolean {
  return result.kind === "no-reply" || result.reply.status >= 500;
}

/** The reply of a tap whose outcome is known (done or refused), or null when it is unsure (`unsure`). */
export function sureReply(result: SendResult): Reply<ActionReplyBody> | null {
  return result.kind === "reply" && result.reply.status < 500 ? result.reply : null;
}

export class PhoneActions {
  readonly #outbox: Outbox;

  constructor(outbox: Outbox) {
    this.#outbox = outbox;
  }

  /** Answers an ask (P-14, P-15). A held answer (202) is Collie's from then on (D-5). */
  answer(params: PhoneRouteParams<"answer">, body: ActionBody<"answer">): Tap {
    return this.#start("answer", params, body);
  }
  /** Sends text to a conversation (P-20). A held send (202) stays until its outcome is known. */
  send(params: PhoneRouteParams<"send">, body: ActionBody<"send">): Tap {
    return this.#start("send", params, body);
  }
  steer(params: PhoneRouteParams<"steer">, body: ActionBody<"steer">): Tap {
    return this.#start("steer", params, body);
  }
  stop(params: PhoneRouteParams<"stop">, body: ActionBody<"stop">): Tap {
    return this.#start("stop", params, body);
  }
  /** One of the agent's own belt buttons (P-22). */
  action(params: PhoneRouteParams<"action">, body: ActionBody<"action">): Tap {
    return this.#start("action", params, body);
  }
  rename(params: PhoneRouteParams<"rename">, body: ActionBody<"rename">): Tap {
    return this.#start("rename", params, body);
  }
  close(params: PhoneRouteParams<"close">, body: ActionBody<"close">): Tap {
    return this.#start("close", params, body);
  }
  reopen(params: PhoneRouteParams<"reopen">, body: ActionBody<"reopen">): Tap {
    return this.#start("reopen", params, body);
  }
  /** Opens a new conversation from one of the agent's starters (P-25). */
  starter(params: PhoneRouteParams<"starter">, body: ActionBody<"starter"> = {}): Tap {
    return this.#start("starter", params, body);
  }

  /** A new request id, its request built from the table, saved and sent. */
  #start<N extends PhoneActionName>(route: N, params: PhoneRouteParams<N>, body: ActionBody<N>): Tap {
    const requestId = newRequestId();
    const full = { ...body, requestId } as PhoneBody<N>;
    const p = params as Record<string, string | undefined>;
    const target = (body as { target?: { kind: string; id: string } }).target;
    const pane = p.pane ?? (target?.kind === "pane" ? target.id : undefined);
    const request: ActionRequest = {
      requestId,
      kind: route,
      agent: p.agent ?? "",
      ...(pane !== undefined ? { pane } : {}),
      path: phonePath(route, params),
      body: full as PendingAction["body"],
    };
    return { requestId, request, result: this.#submit(request) };
  }

  /** Saves and sends a request as it was built (a saved one may carry more: only the request goes). */
  #submit(r: ActionRequest): Promise<SendResult> {
    const { requestId, kind, agent, pane, path, body } = r;
    return this.#outbox.submit({ requestId, kind, agent, ...(pane !== undefined ? { pane } : {}), path, body });
  }

  /**
   * Sends the request saved under this id again, unchanged (the same request id and body): the
   * outbox still holds it when no reply came or a 5xx did; one it let go is saved again first.
   * The outbox remembers only its newest settled actions: a caller that kept the request it started
   * (`Tap.request`) passes it as `kept`, and it is sent from there when the outbox no longer has it.
   * An id this page never saw (and no request kept for it) gets no reply.
   */
  retry(requestId: string, kept?: ActionRequest): Promise<SendResult> {
    if (this.isPending(requestId)) return this.#outbox.send(requestId);
    const saved = this.#outbox.saved(requestId) ?? (kept?.requestId === requestId ? kept : undefined);
    if (!saved) return Promise.resolve({ kind: "no-reply" });
    return this.#submit(saved);
  }

  /**
   * Takes in a request the service worker sent (an answer from a notification, issue 30), so
   * `retry(requestId)` sends it again unchanged, as for a tap made here.
   */
  remember(request: ActionRequest): void {
    const { requestId, kind, agent, pane, path, body } = request;
    this.#outbox.remember({ requestId, kind, agent, ...(pane !== undefined ? { pane } : {}), path, body });
  }

  /** Lets an action go: a `Not sent` line whose text went back, a held send Collie delivered. */
  discard(requestId: string): Promise<void> {
    return this.#outbox.discard(requestId);
  }

  /** The pending actions of a route at these parameters (the answer to one ask, the sends of one pane). */
  pending<N extends PhoneActionName>(route: N, params: PhoneRouteParams<N>): PendingAction[] {
    const path = phonePath(route, params);
    return this.#outbox.pending.filter((p) => p.kind === route && p.path === path);
  }

  /** Whether this request id still waits for a reply that says what became of it. */
  isPending(requestId: string): boolean {
    return this.#outbox.pending.some((p) => p.requestId === requestId);
  }

  /** What the last send of this request id came to, if it was sent from this page. */
  result(requestId: string): SendResult | undefined {
    return this.#outbox.result(requestId);
  }

  /** Whether this request id is on its way now. */
  sending(requestId: string): boolean {
    return this.#outbox.sending(requestId);
  }

  /** Whether this request id's last attempt got a 5xx: kept for the user's next tap, not resent by itself. */
  unsure(requestId: string): boolean {
    return this.#outbox.unsure(requestId);
  }

  /** Whether this request id is a send Collie holds for an agent that is away (202). */
  held(requestId: string): boolean {
    return this.#outbox.held(requestId);
  }

  subscribe(fn: () => void): () => void {
    return this.#outbox.subscribe(fn);
  }

  /** Grows with every change of the outbox, so React can tell. */
  get version(): number {
    return this.#outbox.version;
  }
}

/**
 * A control whose next tap repeats a tap with an unknown outcome (P-14): `Close` or `Reopen` tapped
 * again after no answer (or a 5xx) sends the same request id again; once the outcome is known, the
 * next tap is a new request. A tap of something else (another title for `Rename`: another `key`)
 * is a new request too, never the unsure one sent again, so what the user typed last is what is sent.
 */
export class RepeatUntilSure {
  readonly #actions: PhoneActions;
  /** The unsure tap: what it sends (`key`) and its request, to send again even once the outbox let it go. */
  #kept: { key: string; request: ActionRequest } | null = null;

  constructor(actions: PhoneActions) {
    this.#actions = actions;
  }

  /**
   * Starts a new tap with `start`, or sends the unsure one again when it was a tap of the same
   * `key` (what the tap sends, e.g. the JSON of its body) and its outcome is still unknown.
   */
  tap(start: () => Tap): Promise<SendResult>;
  tap(key: string, start: () => Tap): Promise<SendResult>;
  async tap(a: string | (() => Tap), b?: () => Tap): Promise<SendResult> {
    const [key, start] = typeof a === "string" ? [a, b!] : ["", a];
    const kept = this.#kept;
    let result: SendResult;
    if (kept !== null && kept.key === key && this.#stillUnsure(kept.request.requestId)) {
      result = await this.#actions.retry(kept.request.requestId, kept.request);
    } else {
      // Another title replaces the unsure one: let the old request go, so the outbox does not send
      // it again after the new one and put the old title back.
      if (kept !== null && this.#actions.isPending(kept.request.requestId)) await this.#actions.discard(kept.request.requestId);
      const t = start();
      this.#kept = { key, request: t.request };
      result = await t.result;
    }
    if (!unsure(result)) this.#kept = null;
    return result;
  }

  /** Whether nothing since says what became of this request id (an outbox resend may have settled it). */
  #stillUnsure(requestId: string): boolean {
    if (this.#actions.isPending(requestId)) return true;
    const last = this.#actions.result(requestId);
    return last === undefined || unsure(last);
  }
}
