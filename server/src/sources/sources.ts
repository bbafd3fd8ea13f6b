/**
 * sources.json (D-1): which durable agents Collie connects to. Parsing is strict and every error
 * names the file, the entry and the field; a token is resolved here (inline, `env:NAME` or
 * `file:PATH`) and never appears in an error.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { isAbsolute, resolve, dirname } from "node:path";
import type { Endpoint } from "../agents/client.ts";
import { locateJsonError } from "./json-error.ts";
import { PLAIN_HTTP_HOSTS } from "../net/loopback.ts";

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
  if (typeof json !== "object" || json === null || Array.isArray(json)) fail("top level", "must be an object like {\"durable\": [...]}");
  const root = json as Record<string, unknown>;
  for (const key of Object.keys(root)) if (key !== "durable" && key !== "crew" && key !== "$schema") fail(key, "is not a field of sources.json (expected \"durable\" or \"crew\")");
  return { durable: parseDurable(root, path, env, fail), crew: parseCrew(root, path, env, fail) };
}

type Fail = (where: string, why: string) => never;

function parseDurable(root: Record<string, unknown>, path: string, env: NodeJS.ProcessEnv, fail: Fail): AgentSource[] {
  const list = root.durable ?? [];
  if (!Array.isArray(list)) fail("durable", "must be an array of agents");
  const seen = new Set<string>();
  return (list as unknown[]).map((raw, i) => {
    const at = `durable[${i}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) fail(at, "must be an object");
    const e = raw as Record<string, unknown>;
    const known = new Set(["name", "socket", "url", "token", "ca", "comment"]);
    for (const key of Object.keys(e)) if (!known.has(key)) fail(`${at}.${key}`, "is not a field of a durable agent (name, socket, url, token, ca)");
    if (typeof e.name !== "string" || !NAME.test(e.name)) fail(`${at}.name`, "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit");
    const name = e.name as string;
    const named = `${at} (${name})`;
    if (seen.has(name)) fail(`${named}.name`, "is used by an earlier entry");
    seen.add(name);
    const hasSocket = e.socket !== undefined;
    const hasUrl = e.url !== undefined;
    if (hasSocket === hasUrl) fail(named, "needs exactly one of \"socket\" or \"url\"");
    if (hasSocket) {
      if (typeof e.socket !== "string" || e.socket.length === 0) fail(`${named}.socket`, "must be a path");
      if (e.token !== undefined) fail(`${named}.token`, "is only for url entries: a socket is private to its owner");
      const socket = isAbsolute(e.socket as string) ? (e.socket as string) : resolve(dirname(path), e.socket as string);
      return { name, endpoint: { kind: "socket", path: socket }, key: `socket:${socket}` };
    }
    if (typeof e.url !== "string") fail(`${named}.url`, "must be a URL");
    let url: URL;
    try {
      url = new URL(e.url as string);
    } catch {
      return fail(`${named}.url`, "is not a valid URL");
    }
    checkOrigin(url, `${named}.url`, "the agent's", fail);
    if (e.token === undefined) fail(`${named}.token`, "is required for a url entry (inline, env:NAME or file:PATH)");
    const token = resolveSecret(e.token, `${named}.token`, path, env, fail);
    const tokenWrong = tokenProblem(token);
    if (tokenWrong) fail(`${named}.token`, tokenWrong);
    const endpoint: Endpoint = { kind: "url", url, token };
    let caKey = "";
    if (e.ca !== undefined) {
      if (typeof e.ca !== "string" || !e.ca.startsWith("file:")) fail(`${named}.ca`, "must be file:PATH to a PEM certificate");
      endpoint.ca = readFile((e.ca as string).slice(5), `${named}.ca`, path, fail);
      caKey = e.ca as string;
    }
    // The key says whether the entry changed; the token enters it only as a hash.
    const tokenHash = createHash("sha256").update(token).digest("hex");
    return { name, endpoint, key: `url:${url.origin}|${tokenHash}|${caKey}` };
  });
}

/**
 * The `crew` entries (C-1): `{name, url, token, ca?}`. The url is the member's front door; the
 * token is the crew credential `collie crew join` stored (inline, env:NAME or file:PATH).
 */
function parseCrew(root: Record<string, unknown>, path: string, env: NodeJS.ProcessEnv, fail: Fail): CrewSource[] {
  const list = root.crew ?? [];
  if (!Array.isArray(list)) fail("crew", "must be an array of member machines");
  const seen = new Set<string>();
  return (list as unknown[]).map((raw, i) => {
    const at = `crew[${i}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) fail(at, "must be an object");
    const e = raw as Record<string, unknown>;
    const known = new Set(["name", "url", "token", "ca", "comment"]);
    for (const key of Object.keys(e)) if (!known.has(key)) fail(`${at}.${key}`, "is not a field of a crew member (name, url, token, ca)");
    if (typeof e.name !== "string" || !NAME.test(e.name)) fail(`${at}.name`, "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit");
    const name = e.name as string;
    const named = `${at} (${name})`;
    if (seen.has(name)) fail(`${named}.name`, "is used by an earlier entry");
    seen.add(name);
    if (typeof e.url !== "string") fail(`${named}.url`, "must be a URL");
    let url: URL;
    try {
      url = new URL(e.url as string);
    } catch {
      return fail(`${named}.url`, "is not a valid URL");
    }
    checkOrigin(url, `${named}.url`, "the member's", fail);
    if (e.token === undefined) fail(`${named}.token`, "is required: the crew credential `collie crew join` stored (inline, env:NAME or file:PATH)");
    const token = resolveSecret(e.token, `${named}.token`, path, env, fail);
    const tokenWrong = tokenProblem(token);
    if (tokenWrong) fail(`${named}.token`, tokenWrong);
    const member: CrewSource = { name, url, token, key: "" };
    let caKey = "";
    if (e.ca !== undefined) {
      if (typeof e.ca !== "string" || !e.ca.startsWith("file:")) fail(`${named}.ca`, "must be file:PATH to a PEM certificate");
      member.ca = readFile((e.ca as string).slice(5), `${named}.ca`, path, fail);
      caKey = e.ca as string;
    }
    member.key = `crew:${url.origin}|${createHash("sha256").update(token).digest("hex")}|${caKey}`;
    return member;
  });
}

/** An https origin (http only on loopback), without credentials or a path. */
function checkOrigin(url: URL, where: string, whose: string, fail: Fail): void {
  if (url.username || url.password) fail(where, "must not carry credentials; put the token in \"token\"");
  if (url.protocol === "http:" && !PLAIN_HTTP_HOSTS.has(url.hostname)) fail(where, "must be https (http only for 127.0.0.1 or localhost)");
  if (url.protocol !== "https:" && url.protocol !== "http:") fail(where, "must be https (http only for 127.0.0.1 or localhost)");
  if (url.pathname !== "/" || url.search || url.hash) fail(where, `must be ${whose} origin, without a path`);
}

function resolveSecret(value: unknown, where: string, path: string, env: NodeJS.ProcessEnv, fail: (w: string, why: string) => never): string {
  if (typeof value !== "string" || value.length === 0) return fail(where, "must be a string (inline, env:NAME or file:PATH)");
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
