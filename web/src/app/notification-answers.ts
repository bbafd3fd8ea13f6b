/**
 * Answers given from a notification (issue 30; docs/push.md). The service worker sends each one
 * through the action layer and the outbox the app uses (actions.ts, outbox.ts): the same route,
 * the same request id rule, the same storage. What it cannot leave in the outbox is what came
 * back, since the outbox forgets an action once a reply came; that is kept here, so the app opened
 * later draws the card as if the tap had been its own (`This ask changed…`, a held answer …).
 *
 * Also the device's switch for answering from notifications, which the service worker reads when
 * it shows a notification and again when a button is pressed: it lives in IndexedDB because
 * localStorage is out of a service worker's reach.
 *
 * No React and no DOM beyond IndexedDB (idb-keyval): imported by the app and by the service worker.
 */
import { createStore, del, entries, get, set, type UseStore } from "idb-keyval";
import type { TapReply } from "@colliepwa/shared";
import type { ActionRequest } from "./actions.ts";

/** What the notification that tells an answer's outcome says, kept so it can be told again later. */
export interface AnswerNotice {
  /** The agent's notification tag (`collie:<agent>`). */
  tag: string;
  /** The ask's notification title (`Permission needed in Maria Lopez`). */
  title: string;
  /** The card's address. */
  url: string;
  /** The button pressed, in its words (`Allow`, a choice's label). */
  word: string;
  /** What the quiet notification after it names (`refund`). */
  what: string;
  optionKind?: "allow" | "deny";
}

/** One answer given from a notification. */
export interface NotificationAnswer {
  /** The request as the action layer built it (its request id, route, address and body). */
  request: ActionRequest;
  askId: string;
  /** Collie's reply; null while none came (the outbox holds the request and sends it again). */
  reply: TapReply;
  /** The reply answers a second send of the request (after none came): a closed ask may mean it landed (P-15). */
  resent?: boolean;
  /** When it was answered (ms). */
  at: number;
  notice: AnswerNotice;
}

export interface NotificationAnswerStorage {
  put(a: NotificationAnswer): Promise<void>;
  delete(requestId: string): Promise<void>;
  all(): Promise<NotificationAnswer[]>;
}

/** How long an answer is kept for the app to take in: as long as Collie holds an answer (7 days). */
export const ANSWER_KEPT_MS = 7 * 24 * 60 * 60 * 1000;
/** At most this many are kept, the newest (each ask's notification answers once). */
export const ANSWERS_KEPT = 100;

/** Reads what storage holds, dropping anything that is not an answer this code wrote. */
function readAnswer(v: unknown): NotificationAnswer | null {
  if (!v || typeof v !== "object") return null;
  const a = v as Partial<NotificationAnswer>;
  const r = a.request as Partial<ActionRequest> | undefined;
  if (!r || typeof r.requestId !== "string" || r.kind !== "answer" || typeof r.path !== "string" || !r.body || typeof r.agent !== "string" || typeof r.pane !== "string") return null;
  if (typeof a.askId !== "string" || typeof a.at !== "number" || !a.notice || typeof a.notice !== "object") return null;
  if (a.reply !== null && (typeof a.reply !== "object" || typeof a.reply.status !== "number" || !a.reply.body || typeof a.reply.body !== "object")) return null;
  return a as NotificationAnswer;
}

/** The newest answers within their age, and the request ids of the ones to let go. */
export function keptAnswers(all: readonly NotificationAnswer[], now: number): { kept: NotificationAnswer[]; dropped: string[] } {
  const fresh = [...all].filter((a) => now - a.at <= ANSWER_KEPT_MS).sort((x, y) => y.at - x.at);
  const kept = fresh.slice(0, ANSWERS_KEPT);
  const keep = new Set(kept.map((a) => a.request.requestId));
  return { kept, dropped: all.filter((a) => !keep.has(a.request.requestId)).map((a) => a.request.requestId) };
}

export function idbNotificationAnswers(store: UseStore = createStore("collie-answers", "answers"), now: () => number = Date.now): NotificationAnswerStorage {
  const all = async () => (await entries<string, unknown>(store)).map(([, v]) => readAnswer(v)).filter((a): a is NotificationAnswer => a !== null);
  return {
    async put(a) {
      await set(a.request.requestId, a, store);
      const { dropped } = keptAnswers(await all(), now());
      for (const id of dropped) await del(id, store);
    },
    delete: (id) => del(id, store),
    all,
  };
}

export function memoryNotificationAnswers(now: () => number = Date.now): NotificationAnswerStorage {
  const map = new Map<string, NotificationAnswer>();
  return {
    async put(a) {
      map.set(a.request.requestId, structuredClone(a));
      for (const id of keptAnswers([...map.values()], now()).dropped) map.delete(id);
    },
    delete: async (id) => void map.delete(id),
    all: async () => [...map.values()].map((a) => structuredClone(a)),
  };
}

// ---- The switch (issue 30): on unless this device turned it off -----------------------------

const ANSWERING = "answerFromNotifications";

/** Where device settings live that the service worker reads too. */
export interface SettingStorage {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
}

export function idbSettings(store: UseStore = createStore("collie-settings", "settings")): SettingStorage {
  return { get: (k) => get(k, store), set: (k, v) => set(k, v, store) };
}

export function memorySettings(): SettingStorage {
  const map = new Map<string, unknown>();
  return { get: async (k) => map.get(k), set: async (k, v) => void map.set(k, v) };
}

/** Whether notifications may answer (Allow and Deny on the notification); on by default. */
export async function answeringOn(settings: SettingStorage): Promise<boolean> {
  try {
    return (await settings.get(ANSWERING)) !== false;
  } catch {
    return false; // storage unreadable: the switch may be off, so no buttons
  }
}

export async function setAnswering(settings: SettingStorage, on: boolean): Promise<void> {
  await settings.set(ANSWERING, on);
}
