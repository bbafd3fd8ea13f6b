/**
 * A tiny validator kit for the wire (hand-written: the SDK has zero runtime dependencies, S-3).
 * A checker takes an unknown value and returns the typed value or throws a `WireShapeError`
 * naming the path. Objects are rebuilt from known keys only, so unknown keys (including
 * `__proto__` and `constructor`) never reach the caller's objects.
 */
import { idRuleViolation, isValidCursor, isIsoWithZone, overUtf8Bytes } from "./rules.ts";

export class WireShapeError extends Error {
  readonly path: string;
  constructor(path: string, reason: string) {
    super(`${path || "message"}: ${reason}`);
    this.name = "WireShapeError";
    this.path = path;
  }
}

export type Checker<T> = (value: unknown, path: string) => T;

const fail = (path: string, reason: string): never => {
  throw new WireShapeError(path, reason);
};

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

export function chars(max: number): Checker<string> {
  return (v, path) => {
    const s = str()(v, path);
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
  return (v, path) => (v === null ? null : inner(v, path));
}

export function arr<T>(inner: Checker<T>, opts: { max?: number; min?: number } = {}): Checker<T[]> {
  return (v, path) => {
    if (!Array.isArray(v)) return fail(path, "must be an array");
    if (opts.max !== undefined && v.length > opts.max) return fail(path, `must have at most ${opts.max} entries`);
    if (opts.min !== undefined && v.length < opts.min) return fail(path, `must have at least ${opts.min} entries`);
    return v.map((entry, i) => inner(entry, `${path}[${i}]`));
  };
}

type Shape = Record<string, Checker<unknown>>;
type Out<S extends Shape, O extends Shape> = { [K in keyof S]: ReturnType<S[K]> } & { [K in keyof O]?: ReturnType<O[K]> };

/** An object with required keys `req` and optional keys `opt` (absent or undefined). */
export function obj<S extends Shape, O extends Shape = {}>(req: S, opt?: O): Checker<Out<S, O>> {
  // The keys are listed once, not on every object checked.
  const reqKeys = Object.keys(req);
  const optKeys = Object.keys(opt ?? {});
  return (v, path) => {
    if (!isPlainObject(v)) return fail(path, "must be an object");
    const out: Record<string, unknown> = {};
    for (const key of reqKeys) {
      const sub = path ? `${path}.${key}` : key;
      if (!Object.hasOwn(v, key) || v[key] === undefined) return fail(sub, "is required");
      out[key] = req[key]!(v[key], sub);
    }
    for (const key of optKeys) {
      if (!Object.hasOwn(v, key) || v[key] === undefined) continue;
      out[key] = opt![key]!(v[key], path ? `${path}.${key}` : key);
    }
    return out as Out<S, O>;
  };
}

/** A record with id keys and values checked by `inner`. */
export function record<T>(inner: Checker<T>, opts: { max?: number } = {}): Checker<Record<string, T>> {
  return (v, path) => {
    if (!isPlainObject(v)) return fail(path, "must be an object");
    const keys = Object.keys(v);
    if (opts.max !== undefined && keys.length > opts.max) return fail(path, `must have at most ${opts.max} keys`);
    const out: Record<string, T> = Object.create(null);
    for (const key of keys) {
      id(key, `${path}{key}`);
      out[key] = inner(v[key], `${path}.${key}`);
    }
    return out;
  };
}

/** Picks a checker by the value of a discriminating string field. */
export function union<T>(field: string, cases: Record<string, Checker<T>>): Checker<T> {
  return (v, path) => {
    if (!isPlainObject(v)) return fail(path, "must be an object");
    const tag = v[field];
    if (typeof tag !== "string" || !Object.hasOwn(cases, tag)) {
      return fail(path ? `${path}.${field}` : field, `must be one of ${Object.keys(cases).join(", ")}`);
    }
    return cases[tag]!(v, path);
  };
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** Runs a checker and returns a result instead of throwing. */
export function parseWith<T>(checker: Checker<T>, value: unknown): Parsed<T> {
  try {
    return { ok: true, value: checker(value, "") };
  } catch (err) {
    if (err instanceof WireShapeError) return { ok: false, error: err.message };
    throw err;
  }
}
