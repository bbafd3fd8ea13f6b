/**
 * What Collie does to an agent's text before it validates it (L-2, D-2): text over the wire's
 * limits is cut and control or invisible characters are removed, and the item or ask is marked
 * `textShortened`, so the phone can say `Text shortened` and offer no `Always allow` (P-12).
 * Shapes stay the validator's job: this only touches strings it knows.
 *
 * Every read from an agent is cleaned the same way: the events long-poll and a pane read, and also
 * history, a closed conversation's items and starters, so U+202E, BEL or ESC reach the phone on
 * no path (the security issue's item 5).
 *
 * A text Collie masks (R-1: titles, subtitles, progress labels, an ask's title as the pending
 * question, push titles and lines, the agent's self-name, history rows) is masked whole before
 * it is cut: cut first, a secret straddling the limit would lose the tail the masking rules need
 * to recognise it, and its head would reach the lock screen in clear.
 */
import { cleanChars, cleanText, LIMITS } from "@colliepwa/durable-sdk/wire";

type Raw = Record<string, unknown>;
const isObj = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/** How a text Collie masks is masked before a cut; identity when masking is off. */
export type Mask = (text: string) => string;
const noMask: Mask = (text) => text;

interface FixOptions {
  singleLine?: boolean;
  chars?: boolean;
  /** The field is masked where it is shown: mask it whole before cutting it (see above). */
  mask?: Mask;
}

// Shared, not written per call: every text of every events page passes here (issue 18, the
// garbage a daemon makes under streaming load).
const NO_OPTIONS: FixOptions = Object.freeze({});
const SINGLE_LINE: FixOptions = Object.freeze({ singleLine: true });
const SINGLE_LINE_CHARS: FixOptions = Object.freeze({ singleLine: true, chars: true });

const clean = (text: string, max: number, opts: FixOptions) => (opts.chars ? cleanChars(text, max, opts) : cleanText(text, max, opts));

/** Cleans `o[key]` in place when it is a string; returns true when it changed. */
function fix(o: Raw, key: string, max: number, opts: FixOptions = NO_OPTIONS): boolean {
  const v = o[key];
  if (typeof v !== "string") return false;
  let r = clean(v, max, opts);
  if (r.changed && opts.mask && opts.mask !== noMask) {
    const whole = clean(v, Number.MAX_SAFE_INTEGER, opts).text;
    // A cut happened: cut the masked whole text instead.
    if (whole !== r.text) r = { text: clean(opts.mask(whole), max, opts).text, changed: true };
  }
  if (!r.changed) return false;
  o[key] = r.text;
  return true;
}

export function cleanRawItem(item: unknown): void {
  if (!isObj(item)) return;
  let changed = false;
  changed = fix(item, "text", item.kind === "user" ? LIMITS.userTextBytes : LIMITS.itemTextBytes) || changed;
  changed = fix(item, "output", LIMITS.toolOutputBytes) || changed;
  changed = fix(item, "call", LIMITS.toolCallBytes, SINGLE_LINE) || changed;
  changed = fix(item, "name", LIMITS.toolNameBytes, SINGLE_LINE) || changed;
  changed = fix(item, "label", LIMITS.linkLabelBytes, SINGLE_LINE) || changed;
  if (changed) item.textShortened = true;
}

export function cleanRawAsk(ask: unknown, mask: Mask = noMask): void {
  if (!isObj(ask)) return;
  let changed = false;
  changed = fix(ask, "title", LIMITS.askTitleBytes, { singleLine: true, mask }) || changed;
  changed = fix(ask, "reason", LIMITS.askReasonBytes) || changed;
  changed = fix(ask, "placeholder", LIMITS.optionLabelBytes, SINGLE_LINE) || changed;
  if (isObj(ask.tool)) {
    changed = fix(ask.tool, "name", LIMITS.toolNameBytes, SINGLE_LINE) || changed;
    changed = fix(ask.tool, "call", LIMITS.toolCallBytes, SINGLE_LINE) || changed;
  }
  if (isObj(ask.push)) {
    fix(ask.push, "title", LIMITS.pushTitleChars, { singleLine: true, chars: true, mask });
    fix(ask.push, "line", LIMITS.pushLineChars, { singleLine: true, chars: true, mask });
  }
  for (const list of [ask.options, ask.fields]) {
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      if (!isObj(entry)) continue;
      changed = fix(entry, "label", LIMITS.optionLabelBytes, SINGLE_LINE) || changed;
      changed = fix(entry, "description", LIMITS.askReasonBytes) || changed;
      changed = fix(entry, "placeholder", LIMITS.optionLabelBytes, SINGLE_LINE) || changed;
      if (Array.isArray(entry.options)) {
        for (const o of entry.options) if (isObj(o)) changed = fix(o, "label", LIMITS.optionLabelBytes, SINGLE_LINE) || changed;
      }
    }
  }
  if (changed) ask.textShortened = true;
}

export function cleanRawSummary(summary: unknown, mask: Mask = noMask): void {
  if (!isObj(summary)) return;
  fix(summary, "title", LIMITS.titleBytes, { singleLine: true, mask });
  fix(summary, "subtitle", LIMITS.subtitleBytes, { singleLine: true, mask });
  fix(summary, "harness", LIMITS.harnessBytes, SINGLE_LINE);
  fix(summary, "badge", LIMITS.badgeChars, SINGLE_LINE_CHARS);
  if (isObj(summary.progress)) fix(summary.progress, "label", LIMITS.titleBytes, { singleLine: true, mask });
  if (Array.isArray(summary.actions)) for (const a of summary.actions) if (isObj(a)) fix(a, "label", LIMITS.actionLabelChars, SINGLE_LINE_CHARS);
}

function cleanRawView(view: unknown, mask: Mask = noMask): void {
  if (!isObj(view)) return;
  cleanRawSummary(view.pane, mask);
  if (Array.isArray(view.items)) view.items.forEach(cleanRawItem);
  if (Array.isArray(view.asks)) for (const ask of view.asks) cleanRawAsk(ask, mask);
}

/** Cleans the texts of a hello the phone shows (name, runtime, SDK) in place (before `parseHello`). */
export function cleanRawHello(hello: unknown, mask: Mask = noMask): void {
  if (!isObj(hello)) return;
  fix(hello, "name", LIMITS.titleBytes, { singleLine: true, mask });
  fix(hello, "runtime", 64, SINGLE_LINE);
  if (isObj(hello.sdk)) {
    fix(hello.sdk, "name", 128, SINGLE_LINE);
    fix(hello.sdk, "version", 64, SINGLE_LINE);
  }
}

/** Cleans every text of an events page in place (before `parseEventsPage`). */
export function cleanRawEventsPage(page: unknown, mask: Mask = noMask): void {
  if (!isObj(page)) return;
  if (isObj(page.layout)) {
    if (Array.isArray(page.layout.panes)) for (const pane of page.layout.panes) cleanRawSummary(pane, mask);
    for (const key of ["workspaces", "tabs"]) {
      const list = page.layout[key];
      if (Array.isArray(list)) for (const e of list) if (isObj(e)) fix(e, "title", LIMITS.titleBytes, SINGLE_LINE);
    }
  }
  if (Array.isArray(page.views)) for (const view of page.views) cleanRawView(view, mask);
  if (Array.isArray(page.events)) {
    for (const e of page.events) {
      if (!isObj(e)) continue;
      if (e.type === "item") cleanRawItem(e.item);
      else if (e.type === "ask") cleanRawAsk(e.ask, mask);
      else if (e.type === "state") cleanRawSummary(e.summary, mask);
      else if (e.type === "ask-closed") fix(e, "title", LIMITS.askTitleBytes, SINGLE_LINE);
    }
  }
}

/** Cleans a single pane view page (`GET /panes/:pane`). */
export { cleanRawView };

/** Cleans a history page (`GET /history`): the rows' titles and subtitles, masked before a cut. */
export function cleanRawHistoryPage(page: unknown, mask: Mask = noMask): void {
  if (!isObj(page) || !Array.isArray(page.rows)) return;
  for (const row of page.rows) {
    if (!isObj(row)) continue;
    fix(row, "title", LIMITS.titleBytes, { singleLine: true, mask });
    fix(row, "subtitle", LIMITS.subtitleBytes, { singleLine: true, mask });
  }
}

/** Cleans a closed conversation's items page (`GET /history/:session/items`). */
export function cleanRawHistoryItemsPage(page: unknown): void {
  if (!isObj(page) || !Array.isArray(page.items)) return;
  page.items.forEach(cleanRawItem);
}

/** Cleans a starters page (`GET /starters`). */
export function cleanRawStartersPage(page: unknown): void {
  if (!isObj(page) || !Array.isArray(page.starters)) return;
  for (const starter of page.starters) {
    if (!isObj(starter)) continue;
    fix(starter, "title", LIMITS.titleBytes, SINGLE_LINE);
    fix(starter, "subtitle", LIMITS.subtitleBytes, SINGLE_LINE);
  }
}
