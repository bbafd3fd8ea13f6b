/**
 * The phone's outbox (P-14, P-20, P-26): every action is saved with its request id (idb-keyval)
 * before it is sent, and stays until a reply says what happened. After a reload or a reconnect the
 * same request id is sent again, so Collie and the agent's receipts make it land exactly once.
 * Components do not use it directly: the action layer (actions.ts) builds each request from the
 * route table and owns when a request id is new and when it is sent again.
 */
import { createStore, del, entries, set, type UseStore } from "idb-keyval";
import type { ActionReplyBody, PhoneActionName } from "@colliepwa/shared";
import { NetworkError, type Api, type Reply } from "./api.ts";

/** An action's kind is the name of its route in the table (`PHONE_ROUTES`). */
export type ActionKind = PhoneActionName;

export interface PendingAction {
  requestId: string;
  kind: ActionKind;
  agent: string;
  pane?: string;
  /** The route's address, built from the table when the action was made; sent again unchanged. */
  path: string;
  /** As saved (an earlier version of the page may have saved it): sent again unchanged. */
  body: { requestId: string } & Record<string, unknown>;
  createdAt: number;
  /** How many times it was sent. */
  attempts: number;
  /**
   * A send Collie holds for an agent that is away (`202 {held: true}`): kept here too, so the line
   * and its state survive a reload until the agent's outcome is known (docs/decisions.md).
   */
  held?: boolean;
  /**
   * Its last attempt got a 5xx: not sure it arrived. Kept, so `Sending, not confirmed` (or the
   * card's `Not sure the answer arrived`) and its request id survive a reload (issue 37), but not
   * sent again by itself: the user's tap sends it again.
   */
  unsure?: boolean;
}

/** How long an action whose outcome is unsure (a 5xx) is kept for the user's next tap. */
export const UNSURE_KEPT_MS = 24 * 60 * 60_000;

/** What a send came to: a reply, or no reply (the network failed: retry with the same id). */
export type SendResult = { kind: "reply"; reply: Reply<ActionReplyBody> } | { kind: "no-reply" };

/** How many actions of this page the outbox remembers after they settled, to send one again as it was. */
const SAVED_KEPT = 200;

/** Where pending actions live; idb-keyval in the browser, a Map in tests. */
export interface OutboxStorage {
  put(a: PendingAction): Promise<void>;
  delete(requestId: string): Promise<void>;
  all(): Promise<PendingAction[]>;
}

export function idbOutboxStorage(store: UseStore = createStore("collie", "outbox")): OutboxStorage {
  return {
    put: (a) => set(a.requestId, a, store),
    delete: (id) => del(id, store),
    all: async () => (await entries<string, PendingAction>(store)).map(([, v]) => v),
  };
}

export function memoryOutboxStorage(): OutboxStorage {
  const map = new Map<string, PendingAction>();
  return {
    put: async (a) => void map.set(a.requestId, structuredClone(a)),
    delete: async (id) => void map.delete(id),
    all: async () => [...map.values()],
  };
}

export class Outbox {
  readonly #api: Api;
  readonly #storage: OutboxStorage;
  readonly #now: () => number;
  readonly #inFlight = new Map<string, Promise<SendResult>>();
  readonly #listeners = new Set<() => void>();
  #pending: PendingAction[] = [];
  /** The last result of each request id sent from this page (replies and no-replies). */
  #results = new Map<string, SendResult>();
  /** The actions saved or loaded on this page (the newest SAVED_KEPT), settled or not, so each can be sent again as it was. */
  #saved = new Map<string, PendingAction>();
  #version = 0;

  constructor(api: Api, storage: OutboxStorage, now: () => number = Date.now) {
    this.#api = api;
    this.#storage = storage;
    this.#now = now;
  }

  /**
   * Loads what an earlier page left unsent. An action that was sent and got no reply, or a 5xx,
   * reads as not sure until it is sent again (`Sending, not confirmed` after a reload, issue 37),
   * not as on its way; an unsure one older than a day is let go.
   */
  async load(): Promise<PendingAction[]> {
    const all = (await this.#storage.all()).sort((a, b) => a.createdAt - b.createdAt);
    const now = this.#now();
    const stale = all.filter((a) => a.unsure === true && now - a.createdAt > UNSURE_KEPT_MS);
    for (const a of stale) void this.#storage.delete(a.requestId).catch(() => undefined);
    this.#pending = all.filter((a) => !stale.includes(a));
    for (const a of this.#pending) {
      this.#keep(a);
      if (a.attempts > 0 && a.held !== true && !this.#results.has(a.requestId)) this.#results.set(a.requestId, { kind: "no-reply" });
    }
    this.#notify();
    return this.#pending;
  }

  /**
   * Takes in actions saved to the same storage by another part of this phone since the load: the
   * service worker's answers from notifications (issue 30) share this outbox. Returns how many
   * were new; they are sent with the next flush, with their request ids.
   */
  async adopt(): Promise<number> {
    let stored: PendingAction[];
    try {
      stored = await this.#storage.all();
    } catch {
      return 0;
    }
    const known = new Set(this.#pending.map((p) => p.requestId));
    const added = stored.filter((a) => !known.has(a.requestId) && !this.#results.has(a.requestId)).sort((a, b) => a.createdAt - b.createdAt);
    if (added.length === 0) return 0;
    for (const a of added) this.#keep(a);
    this.#pending = [...this.#pending, ...added];
    this.#notify();
    return added.length;
  }

  /**
   * Remembers a request sent from elsewhere on this phone (the service worker) that needs no
   * sending now, so a Retry sends it again unchanged, with its request id.
   */
  remember(a: Omit<PendingAction, "createdAt" | "attempts">): void {
    if (this.saved(a.requestId)) return;
    this.#keep({ ...a, createdAt: this.#now(), attempts: 1 });
  }

  get pending(): readonly PendingAction[] {
    return this.#pending;
  }

  /** What the last attempt of this request id came to, if it was sent from this page. */
  result(requestId: string): SendResult | undefined {
    return this.#results.get(requestId);
  }

  /** Whether this request id is being sent right now. */
  sending(requestId: string): boolean {
    return this.#inFlight.has(requestId);
  }

  /**
   * Sends every pending action again, oldest first and one at a time (after a reload or a
   * reconnect, P-26); not one whose last attempt got a 5xx (`unsure`): the user's tap does that.
   */
  async flush(): Promise<void> {
    for (const a of [...this.#pending]) if (a.unsure !== true) await this.send(a.requestId);
  }

  subscribe(fn: () => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** The action saved under this request id on this page (or loaded from an earlier one), pending or settled. */
  saved(requestId: string): PendingAction | undefined {
    return this.#pending.find((p) => p.requestId === requestId) ?? this.#saved.get(requestId);
  }

  /**
   * Saves, then sends an action. It is kept in memory at once (so a retry finds it), and shows in
   * `pending` once the save is done (so a caller can note its request id first). When the save
   * fails (private mode, a full disk) it is still sent, and kept in memory to be sent again: only a
   * reload loses it then, never the tap itself.
   */
  async submit(a: Omit<PendingAction, "createdAt" | "attempts">): Promise<SendResult> {
    const action: PendingAction = { ...a, createdAt: this.#now(), attempts: 0 };
    this.#keep(action);
    await this.#save(action);
    this.#pending = [...this.#pending.filter((p) => p.requestId !== action.requestId), action];
    this.#notify();
    return this.send(action.requestId);
  }

  /** Writes an action to storage; a failed write leaves it in memory only (it is still sent and resent). */
  async #save(action: PendingAction): Promise<void> {
    try {
      await this.#storage.put(action);
    } catch {
      // Storage refused (private mode, quota): the action lives on in memory for this page.
    }
  }

  #keep(action: PendingAction): void {
    this.#saved.delete(action.requestId);
    this.#saved.set(action.requestId, action);
    for (const id of this.#saved.keys()) {
      if (this.#saved.size <= SAVED_KEPT) break;
      this.#saved.delete(id);
    }
  }

  /** Sends (again) the pending action with this request id, unchanged. */
  send(requestId: string): Promise<SendResult> {
    const running = this.#inFlight.get(requestId);
    if (running) return running;
    const action = this.#pending.find((p) => p.requestId === requestId);
    if (!action) return Promise.resolve({ kind: "no-reply" });
    const run = (async (): Promise<SendResult> => {
      action.attempts++;
      try {
        const reply = await this.#api.send<ActionReplyBody>({ method: "POST", path: action.path, body: action.body });
        this.#results.set(requestId, { kind: "reply", reply });
        if (reply.status >= 500) {
          // Not sure it arrived: kept (a reload still shows it so, and the next tap sends the same
          // request id), but never sent again by the outbox itself (docs/decisions.md).
          action.unsure = true;
          await this.#save(action);
          return { kind: "reply", reply };
        }
        delete action.unsure;
        if (action.kind === "send" && isHeld(reply)) {
          // Collie holds the message for an agent that is away (D-5). The phone keeps its line until
          // Collie says what the agent made of it (`held-outcome`, or a replay on a later resend).
          action.held = true;
          await this.#save(action);
          return { kind: "reply", reply };
        }
        // 202 {held: true} for an answer: Collie holds it until the ask is open again; it is Collie's now.
        await this.#forget(requestId);
        return { kind: "reply", reply };
      } catch (err) {
        if (err instanceof NetworkError) {
          await this.#save(action);
          this.#results.set(requestId, { kind: "no-reply" });
          return { kind: "no-reply" };
        }
        throw err;
      } finally {
        this.#inFlight.delete(requestId);
        this.#notify();
      }
    })();
    this.#inFlight.set(requestId, run);
    this.#notify();
    return run;
  }

  /** Whether this pending action's last attempt got a 5xx (not sure it arrived; not resent by itself). */
  unsure(requestId: string): boolean {
    return this.#pending.some((p) => p.requestId === requestId && p.unsure === true);
  }

  /** Whether this pending action is a send Collie said it holds. */
  held(requestId: string): boolean {
    return this.#pending.some((p) => p.requestId === requestId && p.held === true);
  }

  /** Drops an action that is settled or given up (a `Not sent` line taken back, a held send delivered). */
  async discard(requestId: string): Promise<void> {
    await this.#forget(requestId);
  }

  async #forget(requestId: string): Promise<void> {
    this.#pending = this.#pending.filter((p) => p.requestId !== requestId);
    try {
      await this.#storage.delete(requestId);
    } catch {
      // Left in storage: a later page sends it again, and its request id keeps it to one run.
    }
    this.#notify();
  }

  /** Grows with every change, so React can tell the outbox changed. */
  get version(): number {
    return this.#version;
  }

  #notify(): void {
    this.#version++;
    for (const l of this.#listeners) l();
  }
}

/** Collie's `202 {held: true}`: it keeps the action for an agent that is away (D-5). */
export function isHeld(reply: Reply<ActionReplyBody>): boolean {
  return reply.status === 202 && reply.body.held === true;
}
