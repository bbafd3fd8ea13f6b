/**
 * What the service worker does with a push and a tap (P-27, U-2; docs/push.md), as pure functions
 * so the tests run them without a browser. The payload types come from the shared contract with
 * `import type`, nothing else.
 *
 * - An ask's push shows `title`/`body` under its agent's tag: a burst from one agent collapses into
 *   one notification that remembers every ask in it (newest first).
 * - The newest ask's buttons (issue 30): `Allow` and `Deny`, or a short choice's options, when the
 *   push carries them and this device lets notifications answer; each button names its ask, so a
 *   press answers the ask it was shown for even if a newer push replaced the notification since.
 * - A clear push removes its ask from that notification; the last one gone closes it.
 * - A push that cannot be read still shows something sensible (FALLBACK).
 * - A tap opens the conversation at the newest ask's card (a button is answer.ts).
 */
import type { PushAnswerOption, PushAnswers, PushPayload } from "@colliepwa/shared";

/** Shown for a push this worker cannot read (another version, a damaged payload). */
export const FALLBACK = Object.freeze({
  title: "Collie",
  body: "A durable agent may need you. Open Collie to see.",
  tag: "collie",
  url: "/",
});

/** How many asks one agent's notification remembers. */
const MAX_ASKS = 20;
const ICON = "/icons/icon-192.png";

/** One ask inside a notification. */
export interface NotifiedAsk {
  askId: string;
  paneId: string;
  url: string;
  title: string;
  body: string;
  /** Its buttons, when the push carried them (issue 30). */
  answers?: PushAnswers;
}

/** `notification.data`: what a tap opens and what a clear removes. */
export interface NotificationData {
  collie: 1;
  /** `answer`: what an answer given from a notification came to (answer.ts). */
  kind: "ask" | "many-asks" | "notice" | "answer";
  agent: string | null;
  /** Newest first. */
  asks: NotifiedAsk[];
  /** Where a tap goes when no ask is left (the agent's home, or the dashboard). */
  url: string;
  /** Of an `answer` notification: its request id, and whether it goes once its ask ends elsewhere. */
  answer?: { requestId: string; endsWithAsk: boolean };
}

/** A notification's button (`NotificationOptions.actions`, which TypeScript's DOM types leave out). */
export interface NotificationButton {
  action: string;
  title: string;
}

export interface ShowPlan {
  title: string;
  options: Omit<NotificationOptions, "data" | "tag"> & { data: NotificationData; tag: string; timestamp?: number; actions?: NotificationButton[] };
}

const str = (v: unknown, max: number): v is string => typeof v === "string" && v.length <= max;
const isPath = (v: unknown): v is string => str(v, 4096) && v.startsWith("/") && !v.startsWith("//");
const words = (v: unknown, max: number): v is string => str(v, max) && v.trim() !== "";

/**
 * An ask's buttons, checked field by field; undefined when they are not ones this worker can send
 * (the notification then opens the card, as without them). A permission's are exactly Allow and
 * Deny; a choice's one or two of its options.
 */
export function readAnswers(v: unknown): PushAnswers | undefined {
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const a = v as Record<string, unknown>;
  if ((a.kind !== "permission" && a.kind !== "choice") || !words(a.revision, 128) || !str(a.what, 512) || !Array.isArray(a.options)) return undefined;
  if (a.options.length < 1 || a.options.length > 2) return undefined;
  const options: PushAnswerOption[] = [];
  for (const o of a.options as unknown[]) {
    if (!o || typeof o !== "object") return undefined;
    const { id, title, optionKind } = o as Record<string, unknown>;
    if (!words(id, 1024) || !words(title, 256)) return undefined;
    if (a.kind === "permission" ? optionKind !== "allow" && optionKind !== "deny" : optionKind !== undefined) return undefined;
    options.push(optionKind === "allow" || optionKind === "deny" ? { id, title, optionKind } : { id, title });
  }
  if (a.kind === "permission" && (options.length !== 2 || options[0]!.optionKind === options[1]!.optionKind)) return undefined;
  return { kind: a.kind, revision: a.revision, what: a.what, options };
}

const ACTION = "answer:";

/** A button's action: which option of which ask (the ask's id, so a press answers what it was shown for). */
export function actionId(index: number, askId: string): string {
  return `${ACTION}${index}:${askId}`;
}

/** The option index and ask id a button's action names; null for anything else. */
export function readAction(action: string): { index: number; askId: string } | null {
  const m = /^answer:([01]):(.+)$/s.exec(action);
  return m ? { index: Number(m[1]), askId: m[2]! } : null;
}

/**
 * The buttons of an ask's notification: none unless its push carried them and the browser shows
 * at least as many (`maxActions`, 0 when this device turned answering off or shows no buttons, as
 * an iPhone does: then a tap opens the card, as before).
 */
export function answerButtons(ask: NotifiedAsk | undefined, maxActions: number): NotificationButton[] {
  if (!ask?.answers || ask.answers.options.length > maxActions) return [];
  return ask.answers.options.map((o, i) => ({ action: actionId(i, ask.askId), title: o.title }));
}

const withButtons = (buttons: NotificationButton[]) => (buttons.length > 0 ? { actions: buttons } : {});

/** The payload, checked field by field; null when it is not one this worker understands. */
export function parsePush(text: string | null | undefined): PushPayload | null {
  if (!text) return null;
  let p: Record<string, unknown>;
  try {
    const v: unknown = JSON.parse(text);
    if (!v || typeof v !== "object" || Array.isArray(v)) return null;
    p = v as Record<string, unknown>;
  } catch {
    return null;
  }
  if (p.v !== 1 || !str(p.tag, 1024) || !str(p.agent, 1024) || !(p.machine === null || str(p.machine, 1024))) return null;
  const base = { v: 1 as const, tag: p.tag, agent: p.agent, machine: p.machine };
  switch (p.type) {
    case "ask": {
      if (!str(p.title, 512) || !str(p.body, 1024) || !str(p.paneId, 1024) || !str(p.askId, 1024) || !isPath(p.url)) return null;
      const answers = readAnswers(p.answers);
      return { ...base, type: "ask", title: p.title, body: p.body, paneId: p.paneId, askId: p.askId, url: p.url, ...(answers ? { answers } : {}) };
    }
    case "many-asks":
      if (!str(p.title, 512) || !str(p.body, 1024) || !isPath(p.url)) return null;
      return { ...base, type: "many-asks", title: p.title, body: p.body, url: p.url };
    case "clear":
      if (!str(p.paneId, 1024) || !str(p.askId, 1024)) return null;
      return { ...base, type: "clear", paneId: p.paneId, askId: p.askId };
    default:
      return null;
  }
}

/** Reads data this worker wrote on a notification (anything else counts as none). */
export function readData(data: unknown): NotificationData | null {
  if (!data || typeof data !== "object") return null;
  const d = data as Partial<NotificationData>;
  if (d.collie !== 1 || !Array.isArray(d.asks) || !isPath(d.url)) return null;
  return d as NotificationData;
}

const more = (body: string, others: number) => (others > 0 ? `${body} (+${others} more)` : body);

/**
 * The notification for a push that is not a clear. `existing` is the data of the notifications
 * already showing under the same tag: a burst collapses into one notification that keeps them.
 * `maxActions`: how many buttons it may show (0: none, see `answerButtons`).
 */
export function showPlan(payload: PushPayload | null, existing: readonly unknown[] = [], maxActions = 0): ShowPlan {
  const base = { icon: ICON, badge: ICON, timestamp: Date.now() };
  if (!payload || payload.type === "clear") {
    return { title: FALLBACK.title, options: { ...base, body: FALLBACK.body, tag: FALLBACK.tag, data: { collie: 1, kind: "notice", agent: null, asks: [], url: FALLBACK.url } } };
  }
  const earlier = existing.map(readData).filter((d): d is NotificationData => d !== null).flatMap((d) => d.asks);
  if (payload.type === "many-asks") {
    return {
      title: payload.title,
      options: { ...base, body: payload.body, tag: payload.tag, data: { collie: 1, kind: "many-asks", agent: payload.agent, asks: earlier.slice(0, MAX_ASKS), url: payload.url } },
    };
  }
  const ask: NotifiedAsk = { askId: payload.askId, paneId: payload.paneId, url: payload.url, title: payload.title, body: payload.body, ...(payload.answers ? { answers: payload.answers } : {}) };
  const asks = [ask, ...earlier.filter((a) => a.askId !== ask.askId)].slice(0, MAX_ASKS);
  return {
    title: payload.title,
    options: {
      ...base,
      body: more(payload.body, asks.length - 1),
      tag: payload.tag,
      ...withButtons(answerButtons(ask, maxActions)),
      data: { collie: 1, kind: "ask", agent: payload.agent, asks, url: payload.url.replace(/\/pane\/.*$/, "") || "/" },
    },
  };
}

/**
 * What a clear does to a notification showing under its tag: `close` it (its last ask is gone),
 * `replace` it with the newest ask left, shown quietly (with its buttons, up to `maxActions`), or
 * `keep` it (the ask is not in it). An answer given from the notification takes its ask out the same way.
 */
export function clearPlan(data: unknown, askId: string, tag: string, maxActions = 0): { kind: "close" } | { kind: "keep" } | { kind: "replace"; plan: ShowPlan } {
  const d = readData(data);
  if (!d || !d.asks.some((a) => a.askId === askId)) return { kind: "keep" };
  const asks = d.asks.filter((a) => a.askId !== askId);
  if (asks.length === 0) return d.kind === "many-asks" ? { kind: "keep" } : { kind: "close" };
  const newest = asks[0]!;
  if (d.kind === "many-asks") return { kind: "keep" };
  return {
    kind: "replace",
    plan: { title: newest.title, options: { icon: ICON, badge: ICON, silent: true, body: more(newest.body, asks.length - 1), tag, ...withButtons(answerButtons(newest, maxActions)), data: { ...d, asks } } },
  };
}

/** Where a tap goes: the newest ask's card, else the notification's own page; same origin only. */
export function clickUrl(data: unknown, origin: string): string {
  const d = readData(data);
  const path = d?.asks[0]?.url ?? d?.url ?? FALLBACK.url;
  try {
    const url = new URL(path, origin);
    return url.origin === origin ? url.href : new URL(FALLBACK.url, origin).href;
  } catch {
    return new URL(FALLBACK.url, origin).href;
  }
}

/** True when a Collie window is on screen: then the app shows the card and no notification is needed. */
export function collieVisible(windows: readonly { visibilityState?: string; url: string }[], origin: string): boolean {
  return windows.some((w) => w.visibilityState === "visible" && w.url.startsWith(`${origin}/`));
}

/** The window a tap should use: a focused one, else a visible one, else any. */
export function pickWindow<W extends { focused?: boolean; visibilityState?: string; url: string }>(windows: readonly W[], origin: string): W | undefined {
  const ours = windows.filter((w) => w.url.startsWith(`${origin}/`));
  return ours.find((w) => w.focused) ?? ours.find((w) => w.visibilityState === "visible") ?? ours[0];
}
