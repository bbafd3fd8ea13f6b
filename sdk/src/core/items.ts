/**
 * Turns what the agent passes into wire items, actions and progress (S-14…S-18): text is cut and
 * cleaned (marked `textShortened`), while an invalid lang, href, badge, icon-less label or progress
 * is a TypeError or RangeError at the call, because Collie would drop it otherwise (S-16).
 */
import { ICONS, ITEM_KINDS, LIMITS, PARTIAL_KINDS, TOOL_STATUSES } from "../wire/constants.ts";
import { assertId, cleanChars, cleanText, isHttpsUrl, isValidLang } from "../wire/rules.ts";
import type { Action, Item, Progress, ToolStatus } from "../wire/types.ts";

/** What `pane.item()` takes: an item whose `id` may be left out, and whose `ts` may be a Date. */
export type ItemInput = DistributeOmit<Item, "id" | "ts" | "textShortened"> & { id?: string; ts?: Date | string };
type DistributeOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const textLimit = (kind: Item["kind"]): number =>
  kind === "user" ? LIMITS.userTextBytes : LIMITS.itemTextBytes;

/** Validates and cleans an item; `id` must already be set. */
export function normalizeItem(input: ItemInput & { id: string }, now: number): Item {
  if (input === null || typeof input !== "object") throw new TypeError("an item must be an object");
  const kind = input.kind;
  if (!(ITEM_KINDS as readonly string[]).includes(kind)) {
    throw new TypeError(`item kind ${JSON.stringify(kind)} is not one of ${ITEM_KINDS.join(", ")} (ask and state events are written by ask() and state(), S-17)`);
  }
  assertId(input.id, "item id");
  let shortened = false;
  const clean = (text: unknown, what: string, max: number, singleLine = false): string => {
    if (typeof text !== "string") throw new TypeError(`${what} must be a string`);
    const r = cleanText(text, max, { singleLine });
    if (r.changed) shortened = true;
    return r.text;
  };
  const item: Record<string, unknown> = { kind, id: input.id };
  const ts = input.ts instanceof Date ? input.ts : typeof input.ts === "string" ? new Date(input.ts) : undefined;
  if (input.ts !== undefined && (!ts || Number.isNaN(ts.getTime()))) throw new RangeError("item ts must be a valid Date or ISO-8601 string");

  const raw = input as unknown as Record<string, unknown>;
  if (raw.partial !== undefined && raw.partial !== false) {
    if (raw.partial !== true) throw new TypeError("partial must be true or false");
    if (!(PARTIAL_KINDS as readonly string[]).includes(kind)) throw new TypeError(`a ${kind} item cannot be partial (only ${PARTIAL_KINDS.join(", ")})`);
  }
  switch (kind) {
    case "user":
      item.text = clean(raw.text, "user text", textLimit(kind));
      if (raw.requestId !== undefined) {
        assertId(raw.requestId, "requestId");
        item.requestId = raw.requestId;
      }
      if (raw.steered === true) item.steered = true;
      break;
    case "reply":
    case "thinking":
    case "markdown":
    case "notice":
      item.text = clean(raw.text, `${kind} text`, textLimit(kind));
      if (raw.partial === true) item.partial = true;
      if (kind === "notice" && raw.stopped === true) item.stopped = true;
      break;
    case "code":
      item.text = clean(raw.text, "code text", LIMITS.itemTextBytes);
      if (raw.lang !== undefined) {
        if (!isValidLang(raw.lang)) throw new TypeError(`code lang ${JSON.stringify(raw.lang)} must be a short language token such as ts, python or c++`);
        item.lang = raw.lang;
      }
      break;
    case "link":
      if (!isHttpsUrl(raw.href)) throw new TypeError(`link href ${JSON.stringify(String(raw.href)).slice(0, 100)} must be an https URL (S-14)`);
      item.href = raw.href;
      if (raw.label !== undefined) item.label = clean(raw.label, "link label", LIMITS.linkLabelBytes, true);
      break;
    case "tool": {
      const name = clean(raw.name, "tool name", LIMITS.toolNameBytes, true);
      if (name.length === 0) throw new TypeError("tool name must not be empty");
      item.name = name;
      if (!(TOOL_STATUSES as readonly string[]).includes(raw.status as string)) {
        throw new TypeError(`tool status ${JSON.stringify(raw.status)} is not one of ${TOOL_STATUSES.join(", ")}`);
      }
      item.status = raw.status as ToolStatus;
      if (raw.call !== undefined) item.call = clean(raw.call, "tool call", LIMITS.toolCallBytes, true);
      if (raw.output !== undefined) item.output = clean(raw.output, "tool output", LIMITS.toolOutputBytes);
      break;
    }
  }
  if (ts && raw.partial !== true) item.ts = ts.toISOString();
  else if (!ts && raw.partial !== true) item.ts = new Date(now).toISOString();
  if (shortened) item.textShortened = true;
  return item as unknown as Item;
}

/** Validates progress: steps `1 ≤ current ≤ total` or a percentage 0…100, each with a label (S-18). */
export function normalizeProgress(p: Progress): Progress {
  if (p === null || typeof p !== "object") throw new TypeError("progress must be an object");
  const label = typeof p.label === "string" ? cleanText(p.label, LIMITS.titleBytes, { singleLine: true }).text : null;
  if (label === null) throw new TypeError("progress needs a label string");
  if (p.kind === "steps") {
    if (!Number.isInteger(p.total) || p.total < 1 || p.total > 1000) throw new RangeError(`progress total ${p.total} must be an integer from 1 to 1000`);
    if (!Number.isInteger(p.current) || p.current < 1 || p.current > p.total) throw new RangeError(`progress step ${p.current} must be an integer from 1 to ${p.total}`);
    return { kind: "steps", current: p.current, total: p.total, label };
  }
  if (p.kind === "percent") {
    if (typeof p.value !== "number" || !Number.isFinite(p.value) || p.value < 0 || p.value > 100) throw new RangeError(`progress percentage ${p.value} must be from 0 to 100`);
    return { kind: "percent", value: p.value, label };
  }
  throw new TypeError(`progress kind ${JSON.stringify((p as { kind?: unknown }).kind)} must be steps or percent`);
}

/** Validates a badge: 1 to 16 characters of one line (S-16). */
export function normalizeBadge(badge: string): string {
  if (typeof badge !== "string") throw new TypeError("badge must be a string");
  const r = cleanChars(badge, LIMITS.badgeChars, { singleLine: true });
  if (r.changed || r.text.length === 0) throw new RangeError(`badge ${JSON.stringify(badge)} must be 1 to ${LIMITS.badgeChars} visible characters`);
  return r.text;
}

/** Validates the agent's buttons: at most 4, label ≤ 16 characters, ids unique (S-18). */
export function normalizeActions(actions: readonly Action[]): Action[] {
  if (!Array.isArray(actions)) throw new TypeError("actions must be an array");
  if (actions.length > LIMITS.actions) throw new RangeError(`at most ${LIMITS.actions} actions, got ${actions.length}`);
  const seen = new Set<string>();
  return actions.map((a) => {
    assertId(a?.id, "action id");
    if (seen.has(a.id)) throw new TypeError(`action id ${JSON.stringify(a.id)} is used twice`);
    seen.add(a.id);
    if (typeof a.label !== "string") throw new TypeError("action label must be a string");
    const label = cleanChars(a.label, LIMITS.actionLabelChars, { singleLine: true });
    if (label.changed || label.text.length === 0) throw new RangeError(`action label ${JSON.stringify(a.label)} must be 1 to ${LIMITS.actionLabelChars} characters`);
    const out: Action = { id: a.id, label: label.text };
    // Another icon name draws no icon (S-18): it is kept off the wire rather than refused.
    if (typeof a.icon === "string" && (ICONS as readonly string[]).includes(a.icon)) out.icon = a.icon;
    if (a.busy) out.busy = true;
    if (a.disabled) out.disabled = true;
    return out;
  });
}
