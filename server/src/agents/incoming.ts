/**
 * What Collie does to an agent's text before it validates it (L-2, D-2): text over the wire's
 * limits is cut and control or invisible characters are removed, and the item or ask is marked
 * `textShortened`, so the phone can say `Text shortened` and offer no `Always allow` (P-12).
 * Shapes stay the validator's job: this only touches strings it knows.
 */
import { cleanChars, cleanText, LIMITS } from "@colliepwa/durable-sdk/wire";

type Raw = Record<string, unknown>;
const isObj = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/** Cleans `o[key]` in place when it is a string; returns true when it changed. */
function fix(o: Raw, key: string, max: number, opts: { singleLine?: boolean; chars?: boolean } = {}): boolean {
  const v = o[key];
  if (typeof v !== "string") return false;
  const r = opts.chars ? cleanChars(v, max, opts) : cleanText(v, max, opts);
  if (!r.changed) return false;
  o[key] = r.text;
  return true;
}

export function cleanRawItem(item: unknown): void {
  if (!isObj(item)) return;
  let changed = false;
  changed = fix(item, "text", item.kind === "user" ? LIMITS.userTextBytes : LIMITS.itemTextBytes) || changed;
  changed = fix(item, "output", LIMITS.toolOutputBytes) || changed;
  changed = fix(item, "call", LIMITS.toolCallBytes, { singleLine: true }) || changed;
  changed = fix(item, "name", LIMITS.toolNameBytes, { singleLine: true }) || changed;
  changed = fix(item, "label", LIMITS.linkLabelBytes, { singleLine: true }) || changed;
  if (changed) item.textShortened = true;
}

export function cleanRawAsk(ask: unknown): void {
  if (!isObj(ask)) return;
  let changed = false;
  changed = fix(ask, "title", LIMITS.askTitleBytes, { singleLine: true }) || changed;
  changed = fix(ask, "reason", LIMITS.askReasonBytes) || changed;
  changed = fix(ask, "placeholder", LIMITS.optionLabelBytes, { singleLine: true }) || changed;
  if (isObj(ask.tool)) {
    changed = fix(ask.tool, "name", LIMITS.toolNameBytes, { singleLine: true }) || changed;
    changed = fix(ask.tool, "call", LIMITS.toolCallBytes, { singleLine: true }) || changed;
  }
  if (isObj(ask.push)) {
    fix(ask.push, "title", LIMITS.pushTitleChars, { singleLine: true, chars: true });
    fix(ask.push, "line", LIMITS.pushLineChars, { singleLine: true, chars: true });
  }
  for (const list of [ask.options, ask.fields]) {
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      if (!isObj(entry)) continue;
      changed = fix(entry, "label", LIMITS.optionLabelBytes, { singleLine: true }) || changed;
      changed = fix(entry, "description", LIMITS.askReasonBytes) || changed;
      changed = fix(entry, "placeholder", LIMITS.optionLabelBytes, { singleLine: true }) || changed;
      if (Array.isArray(entry.options)) {
        for (const o of entry.options) if (isObj(o)) changed = fix(o, "label", LIMITS.optionLabelBytes, { singleLine: true }) || changed;
      }
    }
  }
  if (changed) ask.textShortened = true;
}

export function cleanRawSummary(summary: unknown): void {
  if (!isObj(summary)) return;
  fix(summary, "title", LIMITS.titleBytes, { singleLine: true });
  fix(summary, "subtitle", LIMITS.subtitleBytes, { singleLine: true });
  fix(summary, "harness", LIMITS.harnessBytes, { singleLine: true });
  fix(summary, "badge", LIMITS.badgeChars, { singleLine: true, chars: true });
  if (isObj(summary.progress)) fix(summary.progress, "label", LIMITS.titleBytes, { singleLine: true });
  if (Array.isArray(summary.actions)) for (const a of summary.actions) if (isObj(a)) fix(a, "label", LIMITS.actionLabelChars, { singleLine: true, chars: true });
}

function cleanRawView(view: unknown): void {
  if (!isObj(view)) return;
  cleanRawSummary(view.pane);
  if (Array.isArray(view.items)) view.items.forEach(cleanRawItem);
  if (Array.isArray(view.asks)) view.asks.forEach(cleanRawAsk);
}

/** Cleans the texts of a hello the phone shows (name, runtime, SDK) in place (before `parseHello`). */
export function cleanRawHello(hello: unknown): void {
  if (!isObj(hello)) return;
  fix(hello, "name", LIMITS.titleBytes, { singleLine: true });
  fix(hello, "runtime", 64, { singleLine: true });
  if (isObj(hello.sdk)) {
    fix(hello.sdk, "name", 128, { singleLine: true });
    fix(hello.sdk, "version", 64, { singleLine: true });
  }
}

/** Cleans every text of an events page in place (before `parseEventsPage`). */
export function cleanRawEventsPage(page: unknown): void {
  if (!isObj(page)) return;
  if (isObj(page.layout)) {
    if (Array.isArray(page.layout.panes)) page.layout.panes.forEach(cleanRawSummary);
    for (const key of ["workspaces", "tabs"]) {
      const list = page.layout[key];
      if (Array.isArray(list)) for (const e of list) if (isObj(e)) fix(e, "title", LIMITS.titleBytes, { singleLine: true });
    }
  }
  if (Array.isArray(page.views)) page.views.forEach(cleanRawView);
  if (Array.isArray(page.events)) {
    for (const e of page.events) {
      if (!isObj(e)) continue;
      if (e.type === "item") cleanRawItem(e.item);
      else if (e.type === "ask") cleanRawAsk(e.ask);
      else if (e.type === "state") cleanRawSummary(e.summary);
      else if (e.type === "ask-closed") fix(e, "title", LIMITS.askTitleBytes, { singleLine: true });
    }
  }
}

/** Cleans a single pane view page (`GET /panes/:pane`). */
export { cleanRawView };
