/**
 * The rules both ends apply to text and ids (S-10, S-11, S-16, S-31). Pure functions, no I/O.
 */
import { LIMITS } from "./constants.ts";

const encoder = new TextEncoder();

/** UTF-8 length of a string. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

/**
 * True when `text` is more than `maxBytes` UTF-8 bytes. A UTF-16 code unit is at most 3 bytes, so
 * a short enough string is not encoded at all: validators run this on every text Collie reads.
 */
export function overUtf8Bytes(text: string, maxBytes: number): boolean {
  return text.length * 3 > maxBytes && utf8Bytes(text) > maxBytes;
}

/**
 * Why an id breaks the ID rule (S-11), or null when it follows it: 1 to 128 bytes, no control
 * character, no white space, none of `/ ? #`.
 */
export function idRuleViolation(id: unknown): string | null {
  if (typeof id !== "string") return "must be a string";
  if (id.length === 0) return "must not be empty";
  if (!id.isWellFormed()) return "must be valid Unicode";
  if (overUtf8Bytes(id, LIMITS.idBytes)) return `must be at most ${LIMITS.idBytes} bytes`;
  if (ID_CONTROL.test(id)) return "must not contain a control character";
  if (ID_SPACE.test(id)) return "must not contain white space";
  if (ID_RESERVED.test(id)) return "must not contain / ? or #";
  return null;
}

// Made once (a regex literal in a function is a new object per call, and Collie checks every id
// it reads); none is global, so `test` keeps no state between calls.
const ID_CONTROL = /[\p{Cc}\p{Cf}]/u;
const ID_SPACE = /[\s\p{Z}]/u;
const ID_RESERVED = /[/?#]/;
const CURSOR = /^[\x21-\x7e]+$/;
const URL_INVISIBLE = /[\p{Cc}\p{Cf}\s\p{Z}]/u;
const LANG = /^[A-Za-z0-9][A-Za-z0-9_+#.-]*$/;
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** True when the id follows the ID rule. */
export function isValidId(id: unknown): id is string {
  return idRuleViolation(id) === null;
}

/**
 * Throws a TypeError naming the rule when `id` breaks it. `what` names the id in the message.
 * Workspace and tab ids must also not contain `:` (the wire names a tab `<workspace>:<tab>`).
 */
export function assertId(id: unknown, what: string, opts: { noColon?: boolean } = {}): asserts id is string {
  const why = idRuleViolation(id);
  if (why !== null) {
    throw new TypeError(
      `${what} ${JSON.stringify(String(id)).slice(0, 80)} breaks the ID rule: ${why} ` +
        "(1 to 128 bytes, no control character, no white space, none of / ? #)",
    );
  }
  if (opts.noColon && (id as string).includes(":")) {
    throw new TypeError(`${what} ${JSON.stringify(id)} must not contain ":" (the wire names a tab <workspace>:<tab>)`);
  }
}

/** Cuts `text` to at most `maxBytes` UTF-8 bytes without splitting a character (S-10). */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3) return text; // fast path: even all-3-byte text fits
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

/** Cuts `text` to at most `maxChars` code points. */
export function truncateChars(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const chars = Array.from(text);
  return chars.length <= maxChars ? text : chars.slice(0, maxChars).join("");
}

// Control characters except tab and newline; bidi overrides and isolates; zero-width and other
// invisible format characters. U+200D (zero width joiner) stays: emoji sequences need it.
const INVISIBLE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B\u200C\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB]/g;
const LINE_BREAKS = /[\t\n\r\u2028\u2029]+/g;
const CARRIAGE_RETURNS = /\r\n?/g;
// The same, as one test each: most texts have nothing to clean, and one test is cheaper than the
// replaces that would find nothing (a cutting read cleans every item text, issue 31). A carriage
// return is in INVISIBLE's class too.
const HAS_INVISIBLE = new RegExp(INVISIBLE.source);
const HAS_LINE_BREAK = new RegExp(LINE_BREAKS.source);

export interface CleanResult {
  text: string;
  /** True when anything was cut or removed. */
  changed: boolean;
}

/**
 * Removes control and invisible characters, repairs lone surrogates, and cuts to `maxBytes`
 * (S-16). `singleLine` also folds line breaks and tabs into one space (titles, labels).
 */
export function cleanText(text: string, maxBytes: number, opts: { singleLine?: boolean } = {}): CleanResult {
  let out = text.isWellFormed() ? text : text.toWellFormed();
  if (out !== text || HAS_INVISIBLE.test(out) || (opts.singleLine === true && HAS_LINE_BREAK.test(out))) {
    if (opts.singleLine) out = out.replace(LINE_BREAKS, " ");
    out = out.replace(CARRIAGE_RETURNS, "\n").replace(INVISIBLE, "");
  }
  out = truncateUtf8(out, maxBytes);
  return { text: out, changed: out !== text };
}

/** The same as cleanText, counting the limit in characters (push title and line, labels). */
export function cleanChars(text: string, maxChars: number, opts: { singleLine?: boolean } = {}): CleanResult {
  const cleaned = cleanText(text, Number.MAX_SAFE_INTEGER, opts);
  const out = truncateChars(cleaned.text, maxChars);
  return { text: out, changed: out !== text };
}

/** True when `text` has nothing `cleanText` would remove (for validating what the other end sent). */
export function hasInvisible(text: string): boolean {
  INVISIBLE.lastIndex = 0;
  const found = INVISIBLE.test(text) || !text.isWellFormed();
  INVISIBLE.lastIndex = 0;
  return found;
}

/** A history cursor: 1 to 512 bytes of printable ASCII without space (S-31). */
export function isValidCursor(cursor: unknown): cursor is string {
  return typeof cursor === "string" && cursor.length >= 1 && cursor.length <= LIMITS.cursorBytes && CURSOR.test(cursor);
}

/**
 * An https URL with a host and no credentials (S-14, X-2). The string must be the URL as written:
 * no control, format (bidi, zero-width) or white-space character, which the URL parser would
 * otherwise strip silently while the raw string travels on to the phone (L-2).
 */
export function isHttpsUrl(href: unknown): href is string {
  if (typeof href !== "string" || overUtf8Bytes(href, LIMITS.hrefBytes)) return false;
  if (URL_INVISIBLE.test(href)) return false;
  try {
    const url = new URL(href);
    return url.protocol === "https:" && url.hostname.length > 0 && url.username === "" && url.password === "";
  } catch {
    return false;
  }
}

/** A code block language: a short token such as `ts`, `c++`, `objective-c`. */
export function isValidLang(lang: unknown): lang is string {
  return typeof lang === "string" && lang.length >= 1 && lang.length <= LIMITS.langBytes && LANG.test(lang);
}

/** An ISO-8601 date-time with a zone (`Z` or `+02:00`), as `expiresAt` must be (S-22). */
export function isIsoWithZone(value: unknown): value is string {
  if (typeof value !== "string") return false;
  if (!ISO_WITH_ZONE.test(value)) return false;
  if (Number.isNaN(Date.parse(value))) return false;
  // Date.parse rolls an impossible day over (2026-02-30 → March 2); the calendar date must exist.
  // Counted, not by building a Date and its ISO text: this runs for every item's `ts` Collie
  // reads, 2000 of them in a whole view (issue 31).
  const year = Number(value.slice(0, 4));
  const month = Number(value.slice(5, 7));
  const day = Number(value.slice(8, 10));
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** Days in `month` (1–12) of `year`, proleptic Gregorian (year 0 is a leap year, as for Date). */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
