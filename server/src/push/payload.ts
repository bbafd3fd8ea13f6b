/**
 * What a push says (U-2) and how it travels: the title, body and data the service worker shows
 * and opens, the notification tag (one per agent, so a burst collapses), the `Topic` header (one
 * per ask, so a later clear replaces an undelivered ask at the push service) and the TTL.
 * Every title and body is masked before it is cut, so a cut never leaves half a secret.
 */
import { createHash } from "node:crypto";
import type { Ask } from "@colliepwa/durable-sdk/wire";
import {
  PUSH_PAYLOAD_VERSION, STRINGS, agentUrl, askUrl,
  type PushAskPayload, type PushClearPayload, type PushManyAsksPayload,
} from "@colliepwa/shared";
import type { PushAnswerOption, PushAnswers } from "@colliepwa/shared";

/** The agent's own push title and line (U-2); Collie's own title is cut at TITLE_MAX. */
export const AGENT_TITLE_MAX = 60;
export const LINE_MAX = 120;
/** `Permission needed in <pane>` with a long pane name is cut here. */
export const TITLE_MAX = 80;

/** An ask with no expiry is worth delivering for this long (seconds). */
export const DEFAULT_ASK_TTL_S = 12 * 60 * 60;
/** The many-asks push is stale once the hour of silence is over. */
export const MANY_ASKS_TTL_S = 60 * 60;
/** The body of the many-asks push (its title is STRINGS.manyAsks, U-1). */
export const manyAsksBody = (agent: string): string => `No push from ${agent} for an hour. Its asks still show in Collie.`;

/** Cuts to `max` characters (code points), with `…` when it cut. */
export function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** One line: control characters and runs of white space become one space. */
function oneLine(text: string): string {
  return text.replace(/[\s\u0000-\u001f\u007f]+/gu, " ").trim();
}

/** The notification tag of one durable agent (on one machine). */
export function agentTag(machine: string | null, agent: string): string {
  return machine === null ? `collie:${agent}` : `collie:${machine}/${agent}`;
}

/**
 * A `Topic` header (RFC 8030 §5.4) Apple accepts: at most 32 characters of the URL-safe base64
 * alphabet, and a length that is not 1 mod 4 (Apple answers 400 BadWebPushTopic to those).
 */
export function safeTopic(seed: string): string {
  let t = createHash("sha256").update(seed).digest("base64url").slice(0, 32);
  if (t.length % 4 === 1) t = t.slice(0, -1);
  return t;
}

/** The topic of one ask: its push and its clear share it, so the clear replaces a pending push. */
export function askTopic(machine: string | null, agent: string, askId: string): string {
  return safeTopic(`ask\u0000${machine ?? ""}\u0000${agent}\u0000${askId}`);
}

export function manyAsksTopic(machine: string | null, agent: string): string {
  return safeTopic(`many\u0000${machine ?? ""}\u0000${agent}`);
}

/** How long the push service keeps an ask's push: until the ask expires, else DEFAULT_ASK_TTL_S. 0 = expired. */
export function askTtlSeconds(ask: Pick<Ask, "expiresAt">, now: number): number {
  if (!ask.expiresAt) return DEFAULT_ASK_TTL_S;
  const left = Math.floor((Date.parse(ask.expiresAt) - now) / 1000);
  if (!Number.isFinite(left)) return DEFAULT_ASK_TTL_S;
  return Math.max(0, Math.min(DEFAULT_ASK_TTL_S, left));
}

export interface AskPushInput {
  agent: string;
  machine: string | null;
  paneId: string;
  /** The pane's name as the list shows it; empty → `Untitled conversation`. */
  paneTitle: string;
  ask: Pick<Ask, "id" | "title" | "push">;
  mask: (text: string) => string;
}

/** Between Collie's title and the agent's own, as the phone separates parts of a line. */
export const TITLE_JOIN = " · ";

/**
 * The title of an ask's push (U-2): always `Permission needed in <pane>` (cut at TITLE_MAX); the
 * agent's own push title (≤ 60) is added after it, never in its place. Each part is masked
 * before it is cut.
 */
export function askTitle(paneTitle: string, ownTitle: string | undefined, mask: (text: string) => string): string {
  const pane = oneLine(paneTitle) || STRINGS.untitledConversation;
  const collie = cut(mask(STRINGS.permissionNeededIn(pane)), TITLE_MAX);
  const own = oneLine(ownTitle ?? "");
  return own ? `${collie}${TITLE_JOIN}${cut(mask(own), AGENT_TITLE_MAX)}` : collie;
}

/**
 * The push of one ask (U-2): title `Permission needed in <pane>` with the agent's own push title
 * added (`askTitle`), body the agent's push line (≤ 120) else the ask's title.
 */
export function askPayload(input: AskPushInput): PushAskPayload {
  const { ask, mask } = input;
  const title = askTitle(input.paneTitle, ask.push?.title, mask);
  const line = oneLine(ask.push?.line ?? "");
  const body = cut(mask(line || oneLine(ask.title)), LINE_MAX);
  return {
    v: PUSH_PAYLOAD_VERSION,
    type: "ask",
    tag: agentTag(input.machine, input.agent),
    agent: input.agent,
    machine: input.machine,
    title,
    body,
    paneId: input.paneId,
    askId: ask.id,
    url: askUrl(input.agent, input.paneId, ask.id),
  };
}

/** The one push of an agent over its hourly limit (U-1). */
export function manyAsksPayload(input: { agent: string; machine: string | null; host: string; mask: (text: string) => string }): PushManyAsksPayload {
  return {
    v: PUSH_PAYLOAD_VERSION,
    type: "many-asks",
    tag: agentTag(input.machine, input.agent),
    agent: input.agent,
    machine: input.machine,
    title: cut(input.mask(STRINGS.manyAsks(input.host)), TITLE_MAX),
    body: cut(input.mask(manyAsksBody(input.agent)), LINE_MAX),
    url: agentUrl(input.agent),
  };
}

/** Withdraws the notification of an ask that was answered, expired or decided. */
export function clearPayload(input: { agent: string; machine: string | null; paneId: string; askId: string }): PushClearPayload {
  return {
    v: PUSH_PAYLOAD_VERSION,
    type: "clear",
    tag: agentTag(input.machine, input.agent),
    agent: input.agent,
    machine: input.machine,
    paneId: input.paneId,
    askId: input.askId,
  };
}

/** A choice's label on a notification's button is cut here (the button shows a few words). */
export const ACTION_TITLE_MAX = 40;
/**
 * The most a push may carry: one Web Push record of 4096 bytes less the aes128gcm header (86),
 * the padding delimiter (1) and the AEAD tag (16) (RFC 8188, RFC 8291). A push service may refuse
 * a longer one (413), and the phone would hear of nothing.
 */
export const PAYLOAD_MAX_BYTES = 3993;

/** The parts of an ask that say whether, and how, its notification can answer it. */
export type AnswerableAsk = Pick<Ask, "id" | "title" | "push"> & {
  kind?: string;
  revision?: string;
  tool?: { name: string; call?: string };
  options?: readonly { id: string; label: string; kind?: string }[];
  multiple?: boolean;
};

/**
 * The buttons that answer an ask from its notification (issue 30), or undefined for an ask that
 * only opens its card: a permission offers `Allow` and `Deny` (the specification's words) when it
 * has both, never `Always allow` (it takes two taps, P-11); a choice of one or two options taken
 * one at a time offers its options' labels. The answer needs only ids and the revision; the words
 * (the labels, and what the quiet notification after it names) are masked before they are cut,
 * like every text of a push (R-1).
 */
export function askAnswers(ask: AnswerableAsk, mask: (text: string) => string): PushAnswers | undefined {
  if (typeof ask.revision !== "string" || !Array.isArray(ask.options)) return undefined;
  const words = (text: string, max: number) => cut(mask(oneLine(text)), max);
  if (ask.kind === "permission") {
    const allow = ask.options.find((o) => o.kind === "allow");
    const deny = ask.options.find((o) => o.kind === "deny");
    if (!allow || !deny) return undefined;
    const options: PushAnswerOption[] = [
      { id: allow.id, title: STRINGS.allow, optionKind: "allow" },
      { id: deny.id, title: STRINGS.deny, optionKind: "deny" },
    ];
    return { kind: "permission", revision: ask.revision, what: words(ask.tool?.name || ask.title, AGENT_TITLE_MAX), options };
  }
  if (ask.kind === "choice") {
    if (ask.multiple === true || ask.options.length < 1 || ask.options.length > 2) return undefined;
    const options = ask.options.map((o) => ({ id: o.id, title: words(o.label, ACTION_TITLE_MAX) }));
    if (options.some((o) => o.title === "")) return undefined;
    return { kind: "choice", revision: ask.revision, what: words(ask.title, AGENT_TITLE_MAX), options };
  }
  return undefined;
}

/**
 * An ask's push with the buttons that answer it, when it has any and they fit: a payload that
 * would not fit in one Web Push record goes without them, and its notification opens the card as
 * before.
 */
export function withAnswers(payload: PushAskPayload, ask: AnswerableAsk, mask: (text: string) => string): PushAskPayload {
  const answers = askAnswers(ask, mask);
  if (!answers) return payload;
  const full: PushAskPayload = { ...payload, answers };
  return Buffer.byteLength(JSON.stringify(full)) <= PAYLOAD_MAX_BYTES ? full : payload;
}
