/**
 * What the ask cards of one phone remember outside React: each card's state (card-state.ts) by
 * agent, pane and ask, so a card that moves in the chat (its tool item arrived, a window grew)
 * keeps its tap; and which chats opened `Show N more` (P-13). A card's state is dropped once its
 * ask is no longer open in a chat the phone has loaded (except while Collie holds its answer).
 * A card answered from a notification (issue 30) takes the state that answer came to.
 */
import type { Answer } from "@colliepwa/durable-sdk/wire";
import type { NotificationAnswer } from "../../app/notification-answers.ts";
import type { Phone } from "../../app/phone.ts";
import { paneKey } from "../../app/store.ts";
import { answeredElsewhere, IDLE, reduceCard, type CardEvent, type CardState } from "./card-state.ts";

export const askKey = (agent: string, pane: string, ask: string): string => `${paneKey(agent, pane)}\n${ask}`;

export class AsksStore {
  #cards = new Map<string, { agent: string; pane: string; ask: string; state: CardState }>();
  #opened = new Set<string>();
  /** The request ids of answers from notifications already taken in. */
  #adopted = new Set<string>();
  #version = 0;
  readonly #listeners = new Set<() => void>();

  card(agent: string, pane: string, ask: string): CardState | undefined {
    return this.#cards.get(askKey(agent, pane, ask))?.state;
  }

  /** Applies an event to a card; `base` is its state when none is kept yet. */
  dispatch(agent: string, pane: string, ask: string, event: CardEvent, base: CardState = IDLE): CardState {
    const key = askKey(agent, pane, ask);
    const before = this.#cards.get(key)?.state ?? base;
    const after = reduceCard(before, event);
    if (after !== before || !this.#cards.has(key)) {
      this.#cards.set(key, { agent, pane, ask, state: after });
      this.#notify();
    }
    return after;
  }

  /** Each answer given from a notification sets its card's state once: what its reply came to. */
  adoptAnswers(answers: ReadonlyMap<string, NotificationAnswer>): void {
    let changed = false;
    for (const [requestId, a] of answers) {
      if (this.#adopted.has(requestId)) continue;
      this.#adopted.add(requestId);
      const { revision, answer } = a.request.body as { revision?: unknown; answer?: unknown };
      const pane = a.request.pane;
      if (a.reply === null || pane === undefined || typeof revision !== "string" || typeof answer !== "object" || answer === null) continue;
      const state = answeredElsewhere({ requestId, revision, answer: answer as Answer }, a.reply, a.resent === true);
      this.#cards.set(askKey(a.request.agent, pane, a.askId), { agent: a.request.agent, pane, ask: a.askId, state });
      changed = true;
    }
    if (changed) this.#notify();
  }

  opened(agent: string, pane: string): boolean {
    return this.#opened.has(paneKey(agent, pane));
  }

  open(agent: string, pane: string): void {
    this.#opened.add(paneKey(agent, pane));
    this.#notify();
  }

  /** Forgets cards whose ask is no longer open in a loaded chat. */
  prune(isOpen: (agent: string, pane: string, ask: string) => boolean | undefined): void {
    let changed = false;
    for (const [key, c] of this.#cards) {
      if (c.state.phase === "held") continue;
      if (isOpen(c.agent, c.pane, c.ask) === false) {
        this.#cards.delete(key);
        changed = true;
      }
    }
    if (changed) this.#notify();
  }

  get version(): number {
    return this.#version;
  }

  subscribe = (fn: () => void): (() => void) => {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  };

  #notify(): void {
    this.#version++;
    for (const l of this.#listeners) l();
  }
}

const stores = new WeakMap<Phone, AsksStore>();

/** The phone's ask-card store, made on first use; it follows the phone's chats to prune. */
export function asksStoreFor(phone: Phone): AsksStore {
  let s = stores.get(phone);
  if (!s) {
    const store = new AsksStore();
    s = store;
    stores.set(phone, store);
    const prune = () =>
      store.prune((agent, pane, ask) => {
        const detail = phone.store.getState().details.get(paneKey(agent, pane));
        return detail ? detail.asks.some((a) => a.id === ask) : undefined;
      });
    const adopt = () => store.adoptAnswers(phone.store.getState().notificationAnswers);
    adopt();
    phone.store.subscribe(() => {
      adopt();
      prune();
    });
  }
  return s;
}
