/**
 * The shared kit of the fault-injection and fuzz suites (L-1, L-2; docs/reliability.md):
 * a seeded PRNG, bounded iteration counts from the environment, hostile values and mutations of
 * valid wire messages, and the one-line summary every suite prints.
 *
 * Every suite is deterministic for a seed: each run picks a fresh one and prints it, so every
 * `npm test` explores new cases; `FUZZ_SEED` replays a run. `FUZZ_CASES` and `FAULT_RUNS` say how
 * many (bounded defaults for `npm test`, large ones for `npm run test:soak`). A failure names the
 * case number, and the run's output the seed, so a case can be replayed.
 */
import { randomInt } from "node:crypto";
import { appendFileSync } from "node:fs";

/** mulberry32: a small, fast, seeded 32-bit PRNG; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded random source with the helpers the suites use. */
export class Rng {
  readonly seed: number;
  readonly #next: () => number;

  constructor(seed: number) {
    this.seed = seed >>> 0;
    this.#next = mulberry32(this.seed);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.#next();
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.#next() * n);
  }
  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.#next() < p;
  }
  pick<T>(list: readonly T[]): T {
    if (list.length === 0) throw new Error("pick from an empty list");
    return list[this.int(list.length)]!;
  }
  /** Picks by weight: `[[weight, value], ...]`. */
  weighted<T>(table: readonly (readonly [number, T])[]): T {
    const total = table.reduce((s, [w]) => s + w, 0);
    let r = this.#next() * total;
    for (const [w, v] of table) {
      if ((r -= w) < 0) return v;
    }
    return table[table.length - 1]![1];
  }
  /** A derived generator (for a sub-stream that must not shift the main one). */
  fork(): Rng {
    return new Rng(Math.floor(this.#next() * 4294967296));
  }
}

/** A 32-bit seed from the suite's seed and any keys (FNV-1a): a case's own stream, whatever ran before it. */
export function seedOf(...keys: (string | number)[]): number {
  let h = 0x811c9dc5 ^ SEED_FROM_ENV();
  for (const k of keys) {
    for (const ch of `${k}\u0000`) {
      h ^= ch.codePointAt(0)!;
      h = Math.imul(h, 0x01000193);
    }
  }
  return h >>> 0;
}

function SEED_FROM_ENV(): number {
  return SEED;
}

/** A positive integer from the environment, or the default. */
export function envInt(name: string, def: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return def;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name}=${raw} is not a non-negative integer`);
  return n;
}

/**
 * The run's seed: `FUZZ_SEED` when set (to replay a run), else a fresh 32-bit one. A fixed default
 * would send the same cases every run and never find what they miss.
 */
export function pickSeed(env: NodeJS.ProcessEnv = process.env, fresh: () => number = () => randomInt(2 ** 32)): number {
  const raw = env.FUZZ_SEED;
  if (raw === undefined || raw === "") return fresh() >>> 0;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`FUZZ_SEED=${raw} is not a 32-bit seed (0 to 4294967295)`);
  return n;
}

/** The seed of every suite in this process, printed once so a failing run can be replayed. */
export const SEED = pickSeed();
console.log(`fuzz seed ${SEED}${process.env.FUZZ_SEED ? " (from FUZZ_SEED)" : ""}: FUZZ_SEED=${SEED} replays this run`);
/** Fuzz cases per suite (`FUZZ_CASES`, default 10 000). */
export const fuzzCases = (def = 10_000): number => envInt("FUZZ_CASES", def);
/**
 * Replays from case N (`FUZZ_FROM`): every case is still generated, so the numbers and the cases
 * are the same, but only cases from N on are sent. A failure names its case; this goes to it fast.
 */
export const FUZZ_FROM = envInt("FUZZ_FROM", 0);
/** Fault-injection runs per scenario (`FAULT_RUNS`). */
export const faultRuns = (def: number): number => envInt("FAULT_RUNS", def);

/**
 * Prints one summary line (`RELIABILITY <suite> key=value …`) and, when
 * `COLLIE_RELIABILITY_OUT` names a file, appends the figures to it as one JSON line.
 */
export function report(suite: string, figures: Record<string, number | string>): string {
  const line = `RELIABILITY ${suite} seed=${SEED} ${Object.entries(figures).map(([k, v]) => `${k}=${v}`).join(" ")}`;
  console.log(line);
  const out = process.env.COLLIE_RELIABILITY_OUT;
  if (out) appendFileSync(out, `${JSON.stringify({ suite, seed: SEED, ...figures, at: new Date().toISOString() })}\n`);
  return line;
}

// ---------------------------------------------------------------------------------------------
// Hostile values

/** Keys that pollute a prototype when an object is built carelessly. */
export const PROTO_KEYS = ["__proto__", "constructor", "prototype", "toString", "valueOf", "hasOwnProperty", "__defineGetter__", "isPrototypeOf"] as const;

const CONTROL = ["\u0000", "\u0001", "\u0007", "\b", "\t", "\n", "\u000b", "\f", "\r", "\u001b", "\u007f", "\u0085", "\u009b"];
/** Bidi overrides and isolates, zero-width and other invisible characters. */
const INVISIBLE = ["\u202e", "\u202d", "\u202a", "\u202b", "\u202c", "\u2066", "\u2067", "\u2068", "\u2069", "\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u2028", "\u2029", "\ufeff", "\u00ad", "\u061c", "\u180e"];
const ODD = ["\ud800", "\udfff", "\ud83d", "\ude00", "\ufffd", "\uffff", "\ufffe", "😀", "👩‍👩‍👧", "é", "é", "𝕏", "Ω", "ﷺ", "\u0301\u0301\u0301", "日本語", "עברית", "العربية"];
const SPECIAL = ["/", "?", "#", ":", "%", "%00", "%2F", "%E0%A4%A", "..", ".", "\\", "'", '"', "<", ">", "&", "<script>alert(1)</script>", "javascript:alert(1)", "${x}", "{{x}}", " ", "\u00a0", "\u3000"];

/** A string made to hurt: control, bidi and invisible characters, lone surrogates, ids with forbidden characters, huge lengths. */
export function hostileString(rng: Rng, maxLen = 4096): string {
  const kind = rng.int(12);
  switch (kind) {
    case 0: return "";
    case 1: return rng.pick(CONTROL) + "x";
    case 2: return `a${rng.pick(INVISIBLE)}b`;
    case 3: return rng.pick(ODD);
    case 4: return rng.pick(SPECIAL);
    case 5: return rng.pick(PROTO_KEYS);
    case 6: return "x".repeat(rng.pick([127, 128, 129, 255, 256, 257, 1024, 2049, 16_385, 65_537].filter((n) => n <= Math.max(maxLen, 129))));
    case 7: return "é".repeat(rng.range(60, 70)); // 2-byte characters around the 128-byte id limit
    case 8: {
      let s = "";
      const n = rng.range(1, 40);
      for (let i = 0; i < n; i++) s += rng.pick([...CONTROL, ...INVISIBLE, ...ODD, ...SPECIAL, "a", "Z", "0", "-", "_"]);
      return s;
    }
    case 9: return `id-${rng.int(1000)}`;
    case 10: return rng.pick(["allow", "deny", "null", "undefined", "true", "NaN", "Infinity", "-0", "1e999", "0x10"]);
    default: return String.fromCharCode(...Array.from({ length: rng.range(1, 24) }, () => rng.int(0x10000)));
  }
}

/** A JSON value of any type, hostile strings included; `depth` bounds nesting. */
export function hostileValue(rng: Rng, depth = 2): unknown {
  const kind = rng.int(depth > 0 ? 12 : 9);
  switch (kind) {
    case 0: return null;
    case 1: return rng.chance(0.5);
    case 2: return rng.pick([0, -1, 1, 1.5, -0.5, 2 ** 53, -(2 ** 53), 1e308, -1e308, 5e-324, 4294967296, 1001, 60_001]);
    case 3: return rng.int(100);
    case 4:
    case 5:
    case 6: return hostileString(rng);
    case 7: return "";
    case 8: return rng.pick([[], {}]);
    case 9: return Array.from({ length: rng.range(0, 5) }, () => hostileValue(rng, depth - 1));
    case 10: {
      const o: Record<string, unknown> = {};
      const n = rng.range(0, 4);
      for (let i = 0; i < n; i++) setOwn(o, rng.chance(0.4) ? rng.pick(PROTO_KEYS) : hostileString(rng, 64), hostileValue(rng, depth - 1));
      return o;
    }
    default: return Array.from({ length: rng.range(0, 3) }, () => hostileString(rng, 256));
  }
}

/** Sets an own, enumerable key, even `__proto__` (an assignment would set the prototype instead). */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A deep copy of a JSON value that keeps `__proto__` keys as own keys. */
export function clone<T>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => clone(x)) as T;
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) setOwn(out, k, clone((v as Record<string, unknown>)[k]));
    return out as T;
  }
  return v;
}

type Container = Record<string, unknown> | unknown[];
const isContainer = (v: unknown): v is Container => v !== null && typeof v === "object";

/** Every container in a value with the key or index of each slot, for picking a place to mutate. */
function slots(root: unknown): { parent: Container; key: string | number }[] {
  const out: { parent: Container; key: string | number }[] = [];
  const walk = (v: unknown, depth: number) => {
    if (!isContainer(v) || depth > 12) return;
    if (Array.isArray(v)) v.forEach((x, i) => { out.push({ parent: v, key: i }); walk(x, depth + 1); });
    else for (const k of Object.keys(v)) { out.push({ parent: v, key: k }); walk(v[k], depth + 1); }
  };
  walk(root, 0);
  return out;
}

/**
 * One structural mutation of a JSON value (in place when it is a container; returns the result):
 * a slot deleted, retyped, replaced by a hostile value, wrapped, duplicated into a huge array, or a
 * prototype key added.
 */
export function mutate(rng: Rng, root: unknown): unknown {
  if (!isContainer(root) || rng.chance(0.03)) return hostileValue(rng, 3);
  const all = slots(root);
  const containers = [root, ...all.map((s) => (s.parent as Record<string, unknown>)[s.key as string]).filter(isContainer)];
  const op = rng.int(10);
  if (op === 0 || all.length === 0) {
    const target = rng.pick(containers);
    if (Array.isArray(target)) target.push(hostileValue(rng));
    else setOwn(target, rng.chance(0.6) ? rng.pick(PROTO_KEYS) : hostileString(rng, 64), rng.chance(0.5) ? hostileValue(rng) : { polluted: true });
    return root;
  }
  const { parent, key } = rng.pick(all);
  const get = () => (parent as Record<string | number, unknown>)[key];
  const set = (v: unknown) => {
    if (Array.isArray(parent)) parent[key as number] = v;
    else setOwn(parent, key as string, v);
  };
  switch (op) {
    case 1:
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key as string];
      break;
    case 2: set(hostileValue(rng)); break;
    case 3: set(hostileString(rng)); break;
    case 4: set(rng.pick([null, true, false, 0, -1, 1.5, "", [], {}])); break;
    case 5: set(rng.chance(0.5) ? [get()] : { value: get() }); break;
    case 6: {
      const v = get();
      if (typeof v === "string") set(v + rng.pick(["\u202e", "\u0000", " ", "/", "\ud800", "x".repeat(rng.pick([1, 200, 70_000]))]));
      else if (typeof v === "number") set(rng.pick([v + 1, v - 1, -v, v * 1e6, v + 0.5]));
      else set(hostileValue(rng));
      break;
    }
    case 7: {
      // A long array of the slot's value, kept under ~1 MB of JSON so building the case stays cheap.
      // Copies, not one object many times: a later mutation that grows a shared object would grow
      // every entry at once (5000 × 70 KB built a 290 MB case that stalled the suite).
      const v = get();
      const size = (JSON.stringify(v) ?? "null").length + 1;
      set(Array.from({ length: Math.max(1, Math.min(rng.pick([9, 17, 33, 65, 1001, 5000]), Math.floor(1_000_000 / size))) }, () => clone(v)));
      break;
    }
    case 8: set(nested(rng.range(5, 400), get())); break;
    default: set(hostileValue(rng, 3)); break;
  }
  return root;
}

/** `value` wrapped in `depth` arrays or objects. */
export function nested(depth: number, value: unknown = 0): unknown {
  let v = value;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** JSON text nested `depth` levels deep, made as text (no stack needed to build it). */
export function deepJson(depth: number, kind: "array" | "object" = "array"): string {
  return kind === "array" ? `${"[".repeat(depth)}0${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}0${"}".repeat(depth)}`;
}

/** Byte sequences that are not UTF-8. */
export const INVALID_UTF8: readonly Buffer[] = [
  Buffer.from([0xff]), Buffer.from([0xfe, 0xff]), Buffer.from([0xc3, 0x28]), Buffer.from([0xa0, 0xa1]),
  Buffer.from([0xe2, 0x28, 0xa1]), Buffer.from([0xe2, 0x82, 0x28]), Buffer.from([0xf0, 0x28, 0x8c, 0xbc]),
  Buffer.from([0xc0, 0xaf]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf4, 0x90, 0x80, 0x80]), Buffer.from([0x80]),
];

/**
 * Text-level damage to JSON bytes: cut short, a byte flipped, invalid UTF-8 spliced into it (often
 * inside a string), a BOM, a stray comma, trailing garbage.
 */
export function damageBytes(rng: Rng, text: string): Buffer {
  const buf = Buffer.from(text, "utf8");
  const at = buf.length === 0 ? 0 : rng.int(buf.length);
  switch (rng.int(8)) {
    case 0: return buf.subarray(0, at);
    case 1: {
      const copy = Buffer.from(buf);
      if (copy.length > 0) copy[at] = rng.int(256);
      return copy;
    }
    case 2:
    case 3: {
      // Inside a string value when there is one: the body stays JSON-shaped, the text is not UTF-8.
      const quote = text.indexOf('"', rng.int(Math.max(1, text.length)));
      const pos = quote >= 0 ? Buffer.byteLength(text.slice(0, quote + 1)) : at;
      return Buffer.concat([buf.subarray(0, pos), rng.pick(INVALID_UTF8), buf.subarray(pos)]);
    }
    case 4: return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), buf]);
    case 5: return Buffer.concat([buf, Buffer.from(rng.pick([",", "}", "]", "\u0000", " garbage", "\n{}", "null"]))]);
    case 6: return Buffer.from(text.replace(/:/, rng.pick(["::", ":,", ": undefined,", ":NaN"])), "utf8");
    default: return Buffer.from(text.replace(/"/, "'"), "utf8");
  }
}

/** Bodies that are not what any route wants: wrong top-level types, empty, huge, deep, not JSON. */
export function garbageBody(rng: Rng): Buffer {
  switch (rng.int(14)) {
    case 0: return Buffer.alloc(0);
    case 1: return Buffer.from(rng.pick(["null", "true", "0", "-1", '"text"', "[]", "{}", "[{}]", " ", "\n", "1e999", "-0"]));
    case 2: return Buffer.from(deepJson(rng.pick([64, 1000, 10_000, 100_000, 120_000]), rng.chance(0.5) ? "array" : "object"));
    case 3: return Buffer.from(`[${"0,".repeat(rng.pick([1000, 60_000]))}0]`);
    case 4: return Buffer.from(JSON.stringify({ requestId: "x".repeat(rng.pick([129, 10_000, 200_000])) }));
    case 5: return Buffer.from(JSON.stringify({ requestId: "r", text: "y".repeat(rng.pick([16_385, 250_000])) }));
    case 6: return Buffer.alloc(rng.pick([256 * 1024 + 1, 300_000, 1_100_000]), 0x20);
    case 7: return Buffer.concat([Buffer.from('{"requestId":"'), rng.pick(INVALID_UTF8), Buffer.from('"}')]);
    case 8: return Buffer.from("<html><body>not json</body></html>");
    case 9: return Buffer.from('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"requestId":"p1"}');
    case 10: return Buffer.from('{"requestId":"a","requestId":"b","requestId":null}');
    case 11: return Buffer.from(Array.from({ length: rng.range(1, 64) }, () => rng.int(256)));
    case 12: return Buffer.from(`{"a":"${"\\u0000\\ud800\\u202e".repeat(rng.range(1, 2000))}"}`);
    default: return Buffer.from(JSON.stringify(hostileValue(rng, 4)));
  }
}

/** A stack trace in a reply body (what a reply must never hold). */
export const STACK_TRACE = /\n\s+at\s|\bat [\w$.<>]+ \(|\.(?:ts|js|mjs):\d+:\d+|node:internal/;

/** The own enumerable and non-enumerable keys of Object.prototype, to prove nothing polluted it. */
export function prototypeFingerprint(): string {
  const names = (o: object) => Reflect.ownKeys(o).map(String).sort().join(",");
  return [names(Object.prototype), names(Array.prototype), names(Function.prototype)].join("|");
}
