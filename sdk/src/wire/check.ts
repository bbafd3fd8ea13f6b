/**
 * A tiny validator kit for the wire (hand-written: the SDK has zero runtime dependencies, S-3).
 * A checker takes an unknown value and returns the typed value or throws a `WireShapeError`
 * naming the path. Objects are rebuilt from known keys only, so unknown keys (including
 * `__proto__` and `constructor`) never reach the caller's objects.
 *
 * A read runs in one of two modes, passed down every checker as its third argument (`CutRead`, null
 * or absent for strict). Strict (the default, and the SDK's own: what Collie writes must
 * fit) refuses a text over its limit. Cutting (`{cut: true}`, how Collie reads an agent, L-2) cleans
 * every text field declared with `text()` the way the SDK cleans its own (`cleanText`: control and
 * invisible characters out, titles and labels folded to one line) and cuts it at its limit, and an
 * item or ask whose text changed is marked `textShortened` (`marksShortened`). The text fields and
 * their limits are stated once, in the checkers; ids, cursors, URLs and counts stay errors in
 * both modes.
 */
import { cleanChars, cleanText, idRuleViolation, isValidCursor, isIsoWithZone, overUtf8Bytes } from "./rules.ts";

export class WireShapeError extends Error {
  readonly path: string;
  constructor(path: string, reason: string) {
    super(`${path || "message"}: ${reason}`);
    this.name = "WireShapeError";
    this.path = path;
  }
}

/**
 * A read in its cutting mode (`ReadOptions.cut`): the mask for texts a list or a push shows, and
 * whether a text of the item or ask being read changed (`marksShortened`). Made by `parseWith`
 * for one read and handed down to every checker it runs, so two reads never share one.
 */
export interface CutRead {
  readonly mask: ((text: string) => string) | undefined;
  changed: boolean;
}

/** Checks `value` at `path`; `read` is the cutting read in progress, null or absent when strict. */
export type Checker<T> = (value: unknown, path: string, read?: CutRead | null) => T;

const fail = (path: string, reason: string): never => {
  throw new WireShapeError(path, reason);
};

/**
 * The path of a quick pass (`parseWith`): the checkers that build a path for what they hand down
 * (`obj`, `arr`, `record`) hand this down instead. A path only names where a value failed; one that
 * passes never needs it, and building them cost more than the checks of a whole view (2000 items,
 * issue 31). A value the quick pass refuses is checked again from `""`, for the failure's words.
 */
const QUICK = "\u0000quick";

/** The path of `key` under `path`, or QUICK in a quick pass. */
const under = (path: string, key: string): string => (path === QUICK ? QUICK : path ? `${path}.${key}` : key);

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function str(opts: { maxBytes?: number; min?: number; pattern?: RegExp; oneOf?: readonly string[] } = {}): Checker<string> {
  return (v, path) => {
    if (typeof v !== "string") return fail(path, "must be a string");
    if (!v.isWellFormed()) return fail(path, "must be valid Unicode");
    if (opts.min !== undefined && v.length < opts.min) return fail(path, `must have at least ${opts.min} character(s)`);
    if (opts.maxBytes !== undefined && overUtf8Bytes(v, opts.maxBytes)) return fail(path, `must be at most ${opts.maxBytes} bytes`);
    if (opts.pattern && !opts.pattern.test(v)) return fail(path, "has the wrong format");
    if (opts.oneOf && !opts.oneOf.includes(v)) return fail(path, `must be one of ${opts.oneOf.join(", ")}`);
    return v;
  };
}

/**
 * How a reader takes what the other end sent (`parseWith`, every `parseX`). The default is strict.
 */
export interface ReadOptions {
  /**
   * Cut a text over its limit at the limit (UTF-8 safe; code points for limits in characters)
   * instead of refusing it, after removing control and invisible characters and folding a
   * one-line text to one line (`cleanText`, S-16); an item or ask whose text changed is marked
   * `textShortened: true` (P-12). Only fields declared with `text()` are cut.
   */
  cut?: boolean;
  /**
   * With `cut`: masking of a text a list or a push shows (`masked` fields, R-1). A masked field over
   * its limit is masked whole, then cut: cut first, a secret straddling the limit would lose the
   * tail the masking rules need to recognise it. A text within its limit is left as it is.
   */
  mask?: (text: string) => string;
}

export interface TextRule {
  /** The limit in UTF-8 bytes … */
  maxBytes?: number;
  /** … or in code points (badges, action labels, push lines). */
  maxChars?: number;
  min?: number;
  /** A title or label: a cutting read folds line breaks and tabs into one space. */
  line?: boolean;
  /** Shown by a list or a push, so a cutting read masks it whole before a cut (`ReadOptions.mask`). */
  masked?: boolean;
  /** A cut here does not mark the enclosing item or ask `textShortened` (push title and line). */
  unmarked?: boolean;
}

/**
 * A text field with its limit: strict, a string within the limit; in a cutting read, cleaned and
 * cut to the limit first (see `ReadOptions.cut`).
 */
export function text(rule: TextRule): Checker<string> {
  const strict = rule.maxChars !== undefined ? chars(rule.maxChars, rule.min) : str({ maxBytes: rule.maxBytes, min: rule.min });
  const max = rule.maxChars ?? rule.maxBytes ?? Number.MAX_SAFE_INTEGER;
  const opts = { singleLine: rule.line === true };
  const clean = (v: string, limit: number) => (rule.maxChars !== undefined ? cleanChars(v, limit, opts) : cleanText(v, limit, opts));
  return (v, path, read) => {
    if (!read || typeof v !== "string") return strict(v, path);
    let r = clean(v, max);
    if (r.changed && rule.masked && read.mask) {
      const whole = clean(v, Number.MAX_SAFE_INTEGER).text;
      // A cut happened: cut the masked whole text instead.
      if (whole !== r.text) r = { text: clean(read.mask(whole), max).text, changed: true };
    }
    if (r.changed && !rule.unmarked) read.changed = true;
    return strict(r.text, path);
  };
}

/**
 * An item or an ask: in a cutting read, one whose text was cut or cleaned is marked
 * `textShortened: true`, so the phone says `Text shortened` and offers no `Always allow` (P-12).
 */
export function marksShortened<T extends { textShortened?: boolean }>(inner: Checker<T>): Checker<T> {
  return (v, path, read) => {
    if (!read) return inner(v, path, read);
    const outer = read.changed;
    read.changed = false;
    try {
      const out = inner(v, path, read);
      if (read.changed) out.textShortened = true;
      return out;
    } finally {
      read.changed = outer;
    }
  };
}

export function chars(max: number, min?: number): Checker<string> {
  return (v, path) => {
    const s = str({ min })(v, path);
    if (Array.from(s).length > max) return fail(path, `must be at most ${max} characters`);
    return s;
  };
}

export function literal<const L extends string>(...values: L[]): Checker<L> {
  return (v, path) => (typeof v === "string" && (values as string[]).includes(v) ? (v as L) : fail(path, `must be one of ${values.join(", ")}`));
}

export const id: Checker<string> = (v, path) => {
  const why = idRuleViolation(v);
  return why === null ? (v as string) : fail(path, `breaks the ID rule: ${why}`);
};

export const cursor: Checker<string> = (v, path) =>
  isValidCursor(v) ? v : fail(path, "must be 1 to 512 bytes of printable ASCII without space");

export const isoTime: Checker<string> = (v, path) =>
  isIsoWithZone(v) ? v : fail(path, "must be an ISO-8601 date-time with a time zone");

export function int(opts: { min?: number; max?: number } = {}): Checker<number> {
  return (v, path) => {
    if (typeof v !== "number" || !Number.isSafeInteger(v)) return fail(path, "must be an integer");
    if (opts.min !== undefined && v < opts.min) return fail(path, `must be at least ${opts.min}`);
    if (opts.max !== undefined && v > opts.max) return fail(path, `must be at most ${opts.max}`);
    return v;
  };
}

export function num(opts: { min?: number; max?: number } = {}): Checker<number> {
  return (v, path) => {
    if (typeof v !== "number" || !Number.isFinite(v)) return fail(path, "must be a finite number");
    if (opts.min !== undefined && v < opts.min) return fail(path, `must be at least ${opts.min}`);
    if (opts.max !== undefined && v > opts.max) return fail(path, `must be at most ${opts.max}`);
    return v;
  };
}

export const bool: Checker<boolean> = (v, path) => (typeof v === "boolean" ? v : fail(path, "must be true or false"));

export const trueOnly: Checker<true> = (v, path) => (v === true ? true : fail(path, "must be true when present"));

export function nullable<T>(inner: Checker<T>): Checker<T | null> {
  return (v, path, read) => (v === null ? null : inner(v, path, read));
}

export function arr<T>(inner: Checker<T>, opts: { max?: number; min?: number } = {}): Checker<T[]> {
  return (v, path, read) => {
    if (!Array.isArray(v)) return fail(path, "must be an array");
    if (opts.max !== undefined && v.length > opts.max) return fail(path, `must have at most ${opts.max} entries`);
    if (opts.min !== undefined && v.length < opts.min) return fail(path, `must have at least ${opts.min} entries`);
    if (path === QUICK) return v.map((entry) => inner(entry, QUICK, read));
    return v.map((entry, i) => inner(entry, `${path}[${i}]`, read));
  };
}

type Shape = Record<string, Checker<unknown>>;
type Out<S extends Shape, O extends Shape> = { [K in keyof S]: ReturnType<S[K]> } & { [K in keyof O]?: ReturnType<O[K]> };

/** An object with required keys `req` and optional keys `opt` (absent or undefined). */
export function obj<S extends Shape, O extends Shape = {}>(req: S, opt?: O): Checker<Out<S, O>> {
  // The keys are listed once, not on every object checked.
  const reqKeys = Object.keys(req);
  const optKeys = Object.keys(opt ?? {});
  return (v, path, read) => {
    if (!isPlainObject(v)) return fail(path, "must be an object");
    const out: Record<string, unknown> = {};
    for (const key of reqKeys) {
      const sub = under(path, key);
      if (!Object.hasOwn(v, key) || v[key] === undefined) return fail(sub, "is required");
      out[key] = req[key]!(v[key], sub, read);
    }
    for (const key of optKeys) {
      if (!Object.hasOwn(v, key) || v[key] === undefined) continue;
      out[key] = opt![key]!(v[key], under(path, key), read);
    }
    return out as Out<S, O>;
  };
}

/** A record with id keys and values checked by `inner`. */
export function record<T>(inner: Checker<T>, opts: { max?: number } = {}): Checker<Record<string, T>> {
  return (v, path, read) => {
    if (!isPlainObject(v)) return fail(path, "must be an object");
    const keys = Object.keys(v);
    if (opts.max !== undefined && keys.length > opts.max) return fail(path, `must have at most ${opts.max} keys`);
    const out: Record<string, T> = Object.create(null);
    const quick = path === QUICK;
    for (const key of keys) {
      id(key, quick ? QUICK : `${path}{key}`);
      out[key] = inner(v[key], quick ? QUICK : `${path}.${key}`, read);
    }
    return out;
  };
}

/** Picks a checker by the value of a discriminating string field. */
export function union<T>(field: string, cases: Record<string, Checker<T>>): Checker<T> {
  return (v, path, read) => {
    if (!isPlainObject(v)) return fail(path, "must be an object");
    const tag = v[field];
    if (typeof tag !== "string" || !Object.hasOwn(cases, tag)) {
      return fail(path ? `${path}.${field}` : field, `must be one of ${Object.keys(cases).join(", ")}`);
    }
    return cases[tag]!(v, path, read);
  };
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** Runs a checker and returns a result instead of throwing; strict unless `opts` say otherwise. */
export function parseWith<T>(checker: Checker<T>, value: unknown, opts: ReadOptions = {}): Parsed<T> {
  const read = (): CutRead | null => (opts.cut === true ? { mask: opts.mask, changed: false } : null);
  try {
    return { ok: true, value: checker(value, QUICK, read()) };
  } catch (err) {
    if (!(err instanceof WireShapeError)) throw err;
  }
  // Refused: the same check again with paths, for the words that say where.
  try {
    return { ok: true, value: checker(value, "", read()) };
  } catch (err) {
    if (err instanceof WireShapeError) return { ok: false, error: err.message };
    throw err;
  }
}
