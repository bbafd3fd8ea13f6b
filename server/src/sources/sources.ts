/**
 * sources.json (D-1): which durable agents Collie connects to. Its shape is a TypeBox schema
 * (`SourcesFile`, the types derived from it); what a schema cannot say (a name used twice, socket or
 * url, the URL's rules, the token's value) is checked after it. Every error is one line naming the
 * file, the entry and the field; a token is resolved here (inline, `env:NAME` or `file:PATH`) and
 * never appears in an error.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { isAbsolute, resolve, dirname } from "node:path";
import type { Endpoint } from "../agents/client.ts";
import { locateJsonError } from "./json-error.ts";
import { PLAIN_HTTP_HOSTS } from "../net/loopback.ts";
import { Type, type Static } from "typebox";
import { Compile } from "typebox/compile";

/** One durable agent as sources.json names it, with its token resolved. */
export interface AgentSource {
  name: string;
  endpoint: Endpoint;
  /** A stable text of the entry (token hashed out), so a reload can tell what changed. */
  key: string;
}

/** One crew member (C-1) as sources.json names it, with its credential resolved. */
export interface CrewSource {
  /** The member's name, shown on the lead's phone (`pi-durable, local, workshop`). */
  name: string;
  /** The member's front door (its origin). */
  url: URL;
  token: string;
  /** A CA certificate (PEM) to trust for the member's TLS. */
  ca?: string;
  /** A stable text of the entry (token hashed out), so a reload can tell what changed. */
  key: string;
}

/** Everything sources.json says: durable agents and crew members. */
export interface SourcesConfig {
  durable: AgentSource[];
  crew: CrewSource[];
}

export class SourcesError extends Error {
  override name = "SourcesError";
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * A bearer token goes into an HTTP header as it is: a character outside visible ASCII makes
 * `http.request` throw before any request exists. So a token is checked where it enters (this
 * file, `crew join`, `durable attach`), never found out at the first request.
 */
const TOKEN = /^[\x21-\x7e]+$/;

/** Why `token` cannot be a bearer token (too short, or not visible ASCII), or null when it can. */
export function tokenProblem(token: string): string | null {
  if (token.length < 16) return "is shorter than 16 characters";
  if (!TOKEN.test(token)) return "must be printable ASCII without spaces (letters, digits and punctuation)";
  return null;
}

/**
 * The variable an agent's `openCollie` takes its socket path from (S-5), and Collie reads too:
 * `collie durable attach <name>` without `--socket` uses it, and `collie serve` shows the agent on
 * it when sources.json names no entry with that socket.
 */
export const SOCKET_ENV = "COLLIE_DURABLE_SOCKET";
/** The name of the agent on `COLLIE_DURABLE_SOCKET` (with `-env`, `-env-2` … should it be taken). */
export const ENV_AGENT_NAME = "durable";

/** `COLLIE_DURABLE_SOCKET` as an absolute path (relative to the working directory), or null when unset or empty. */
export function envSocketPath(env: NodeJS.ProcessEnv = process.env): string | null {
  const raw = env[SOCKET_ENV];
  return raw ? resolve(raw) : null;
}

/**
 * The sources with the agent on `COLLIE_DURABLE_SOCKET` added, unless an entry already names that
 * socket (then the file's entry, and its name, win). `added` is the entry added, if any.
 */
export function withEnvSocket(sources: AgentSource[], socketPath: string | null): { sources: AgentSource[]; added: AgentSource | null } {
  if (socketPath === null) return { sources, added: null };
  const key = `socket:${socketPath}`;
  if (sources.some((s) => s.key === key)) return { sources, added: null };
  const taken = new Set(sources.map((s) => s.name));
  let name = ENV_AGENT_NAME;
  for (let n = 1; taken.has(name); n++) name = n === 1 ? `${ENV_AGENT_NAME}-env` : `${ENV_AGENT_NAME}-env-${n}`;
  const added: AgentSource = { name, endpoint: { kind: "socket", path: socketPath }, key };
  return { sources: [...sources, added], added };
}

/** Reads and checks sources.json's durable agents; throws SourcesError naming the file, entry and field. */
export function loadSources(path: string, env: NodeJS.ProcessEnv = process.env): AgentSource[] {
  return loadConfig(path, env).durable;
}

/** Reads and checks sources.json (agents and crew); throws SourcesError naming the file, entry and field. */
export function loadConfig(path: string, env: NodeJS.ProcessEnv = process.env): SourcesConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new SourcesError(`${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Never the parser's message: it quotes the file around the error, inline tokens included.
    const at = locateJsonError(text);
    throw new SourcesError(at
      ? `${path}: is not valid JSON at line ${at.line}, column ${at.column} (in ${at.field}: ${at.problem})`
      : `${path}: is not valid JSON`);
  }
  return parseConfig(json, path, env);
}

/** Checks the parsed content of sources.json; returns its durable agents. */
export function parseSources(json: unknown, path: string, env: NodeJS.ProcessEnv = process.env): AgentSource[] {
  return parseConfig(json, path, env).durable;
}

/** Checks the parsed content of sources.json: durable agents and crew members. */
export function parseConfig(json: unknown, path: string, env: NodeJS.ProcessEnv = process.env): SourcesConfig {
  const fail = (where: string, why: string): never => {
    throw new SourcesError(`${path}: ${where}: ${why}`);
  };
  // The shape first, by the schema; then what a schema cannot say (names used twice, socket or
  // url, the URL's rules, the token's value), entry by entry.
  const shape = schemaProblem(json);
  if (shape) fail(shape.where, shape.why);
  const file = json as SourcesFile;
  return { durable: parseDurable(file.durable ?? [], path, env, fail), crew: parseCrew(file.crew ?? [], path, env, fail) };
}

type Fail = (where: string, why: string) => never;

const NAME_WORDS = "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit";
const Name = Type.String({ pattern: NAME.source });
/** A secret as sources.json names it: inline, `env:NAME` or `file:PATH`. */
const Secret = Type.String({ minLength: 1 });
const Ca = Type.String({ pattern: "^file:" });
const DurableEntry = Type.Object({
  name: Name,
  socket: Type.Optional(Type.String({ minLength: 1 })),
  url: Type.Optional(Type.String()),
  token: Type.Optional(Secret),
  ca: Type.Optional(Ca),
  comment: Type.Optional(Type.Unknown()),
}, { additionalProperties: false });
const CrewEntry = Type.Object({
  name: Name,
  url: Type.String(),
  token: Secret,
  ca: Type.Optional(Ca),
  comment: Type.Optional(Type.Unknown()),
}, { additionalProperties: false });

/** sources.json's shape (D-1, C-1; `sources.example.json` documents every field). */
export const SourcesFile = Type.Object({
  $schema: Type.Optional(Type.Unknown()),
  durable: Type.Optional(Type.Array(DurableEntry)),
  crew: Type.Optional(Type.Array(CrewEntry)),
}, { additionalProperties: false });
export type SourcesFile = Static<typeof SourcesFile>;
type DurableEntry = Static<typeof DurableEntry>;
type CrewEntry = Static<typeof CrewEntry>;

const checkShape = Compile(SourcesFile);

/** What each list says of itself and of its entries' fields, in the words the errors use. */
const LISTS = {
  durable: {
    notArray: "must be an array of agents",
    unknownField: "is not a field of a durable agent (name, socket, url, token, ca)",
    fields: { name: NAME_WORDS, socket: "must be a path", url: "must be a URL", token: "must be a string (inline, env:NAME or file:PATH)", ca: "must be file:PATH to a PEM certificate" } as Record<string, string>,
    missing: {} as Record<string, string>,
  },
  crew: {
    notArray: "must be an array of member machines",
    unknownField: "is not a field of a crew member (name, url, token, ca)",
    fields: { name: NAME_WORDS, url: "must be a URL", token: "must be a string (inline, env:NAME or file:PATH)", ca: "must be file:PATH to a PEM certificate" } as Record<string, string>,
    missing: { token: "is required: the crew credential `collie crew join` stored (inline, env:NAME or file:PATH)" } as Record<string, string>,
  },
} as const;

/**
 * The first thing the schema refuses in `json`, in sources.json's one-line words: where (the list,
 * the entry, its name once that is valid, the field) and why. Of several, an unknown field comes
 * first, then the name, then the schema's order (as the checks ran before the schema).
 */
function schemaProblem(json: unknown): { where: string; why: string } | null {
  if (checkShape.Check(json)) return null;
  const errors = [...checkShape.Errors(json)];
  const rank = (e: { keyword: string; instancePath: string; params: unknown }) =>
    e.keyword === "boolean" ? 0 : /\/name$/.test(e.instancePath) || ((e.params as { requiredProperties?: string[] }).requiredProperties ?? []).includes("name") ? 1 : 2;
  const first = errors.map((e, i) => ({ e, i })).sort((x, y) => rank(x.e) - rank(y.e) || x.i - y.i)[0]!.e;
  const parts = first.instancePath.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (parts.length === 0) return { where: "top level", why: "must be an object like {\"durable\": [...]}" };
  const list = parts[0]!;
  if (list !== "durable" && list !== "crew") return { where: list, why: "is not a field of sources.json (expected \"durable\" or \"crew\")" };
  const words = LISTS[list];
  if (parts.length === 1) return { where: list, why: words.notArray };
  const at = `${list}[${parts[1]}]`;
  if (parts.length === 2 && first.keyword !== "required") return { where: at, why: "must be an object" };
  const entry = ((json as Record<string, unknown[]>)[list]![Number(parts[1])] ?? {}) as Record<string, unknown>;
  const named = typeof entry.name === "string" && NAME.test(entry.name) ? `${at} (${entry.name})` : at;
  const field = parts[2] ?? ((first.params as { requiredProperties?: string[] }).requiredProperties ?? [])[0] ?? "";
  if (first.keyword === "boolean") return { where: `${at}.${field}`, why: words.unknownField };
  if (field === "name") return { where: `${at}.name`, why: NAME_WORDS };
  if (first.keyword === "required" && words.missing[field]) return { where: `${named}.${field}`, why: words.missing[field]! };
  return { where: `${named}.${field}`, why: words.fields[field] ?? "has the wrong type" };
}

function parseDurable(list: DurableEntry[], path: string, env: NodeJS.ProcessEnv, fail: Fail): AgentSource[] {
  const seen = new Set<string>();
  return list.map((e, i) => {
    const named = `durable[${i}] (${e.name})`;
    if (seen.has(e.name)) fail(`${named}.name`, "is used by an earlier entry");
    seen.add(e.name);
    if ((e.socket !== undefined) === (e.url !== undefined)) fail(named, "needs exactly one of \"socket\" or \"url\"");
    if (e.socket !== undefined) {
      if (e.token !== undefined) fail(`${named}.token`, "is only for url entries: a socket is private to its owner");
      const socket = isAbsolute(e.socket) ? e.socket : resolve(dirname(path), e.socket);
      return { name: e.name, endpoint: { kind: "socket", path: socket }, key: `socket:${socket}` };
    }
    const url = parseUrl(e.url!, `${named}.url`, fail);
    checkOrigin(url, `${named}.url`, "the agent's", fail);
    if (e.token === undefined) fail(`${named}.token`, "is required for a url entry (inline, env:NAME or file:PATH)");
    const token = checkedToken(e.token!, `${named}.token`, path, env, fail);
    const endpoint: Endpoint = { kind: "url", url, token };
    if (e.ca !== undefined) endpoint.ca = readFile(e.ca.slice(5), `${named}.ca`, path, fail);
    // The key says whether the entry changed; the token enters it only as a hash.
    const tokenHash = createHash("sha256").update(token).digest("hex");
    return { name: e.name, endpoint, key: `url:${url.origin}|${tokenHash}|${e.ca ?? ""}` };
  });
}

/**
 * The `crew` entries (C-1): `{name, url, token, ca?}`. The url is the member's front door; the
 * token is the crew credential `collie crew join` stored (inline, env:NAME or file:PATH).
 */
function parseCrew(list: CrewEntry[], path: string, env: NodeJS.ProcessEnv, fail: Fail): CrewSource[] {
  const seen = new Set<string>();
  return list.map((e, i) => {
    const named = `crew[${i}] (${e.name})`;
    if (seen.has(e.name)) fail(`${named}.name`, "is used by an earlier entry");
    seen.add(e.name);
    const url = parseUrl(e.url, `${named}.url`, fail);
    checkOrigin(url, `${named}.url`, "the member's", fail);
    const token = checkedToken(e.token, `${named}.token`, path, env, fail);
    const member: CrewSource = { name: e.name, url, token, key: "" };
    if (e.ca !== undefined) member.ca = readFile(e.ca.slice(5), `${named}.ca`, path, fail);
    member.key = `crew:${url.origin}|${createHash("sha256").update(token).digest("hex")}|${e.ca ?? ""}`;
    return member;
  });
}

function parseUrl(text: string, where: string, fail: Fail): URL {
  try {
    return new URL(text);
  } catch {
    return fail(where, "is not a valid URL");
  }
}

/** The token an entry names, resolved (inline, env:NAME or file:PATH), that HTTP can carry. */
function checkedToken(value: string, where: string, path: string, env: NodeJS.ProcessEnv, fail: Fail): string {
  const token = resolveSecret(value, where, path, env, fail);
  const wrong = tokenProblem(token);
  if (wrong) fail(where, wrong);
  return token;
}

/** An https origin (http only on loopback), without credentials or a path. */
function checkOrigin(url: URL, where: string, whose: string, fail: Fail): void {
  if (url.username || url.password) fail(where, "must not carry credentials; put the token in \"token\"");
  if (url.protocol === "http:" && !PLAIN_HTTP_HOSTS.has(url.hostname)) fail(where, "must be https (http only for 127.0.0.1 or localhost)");
  if (url.protocol !== "https:" && url.protocol !== "http:") fail(where, "must be https (http only for 127.0.0.1 or localhost)");
  if (url.pathname !== "/" || url.search || url.hash) fail(where, `must be ${whose} origin, without a path`);
}

function resolveSecret(value: string, where: string, path: string, env: NodeJS.ProcessEnv, fail: Fail): string {
  if (value.startsWith("env:")) {
    const name = value.slice(4);
    const v = env[name];
    if (!v) return fail(where, `names the environment variable ${name}, which is not set`);
    return v.trim();
  }
  if (value.startsWith("file:")) return readFile(value.slice(5), where, path, fail).trim();
  return value;
}

function readFile(file: string, where: string, path: string, fail: (w: string, why: string) => never): string {
  const full = isAbsolute(file) ? file : resolve(dirname(path), file);
  try {
    return readFileSync(full, "utf8");
  } catch (err) {
    return fail(where, `cannot read ${full} (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
}
