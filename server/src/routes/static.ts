/**
 * Serves the phone app (D-4, P-26) from the Vite build in `web/dist`, directly: which file a path
 * names, which copy goes out, and every header are decided here, and `node:fs` streams the file.
 * - content types for what the build holds (html, js, css, webmanifest, png, svg, json, ico …);
 * - `/assets/*` (hashed names) cached for a year as immutable; `index.html`, `/sw.js` and the
 *   manifest revalidated on every load (`no-cache`), so a new build reaches the phone; the rest
 *   (icons, robots.txt) for a day;
 * - one validator, a weak ETag per file and encoding (its size and mtime), answered with a 304 on
 *   `If-None-Match`; no Last-Modified, no ranges, and no other precondition honoured (the file is
 *   always sent whole with its 200);
 * - a path that climbs out of the build (`..`, encoded or not, backslashes, NUL) is refused;
 * - any other unknown path that is not `/api/*` answers the index (the app routes by hash, but a
 *   deep link or a reload must still land in the app); a missing `/assets/*` file is a 404, never
 *   HTML a browser or the service worker would take for a script;
 * - HTML carries a strict CSP and the other security headers (X-2);
 * - a file with a precompressed copy beside it (`.br`, `.gz`, written by the build) goes out as
 *   the best copy the browser accepts (`Content-Encoding`), and only such a file is marked
 *   `Vary: Accept-Encoding`, so what crosses the network is the compressed size, with no
 *   compression work per request;
 * - without a build, a plain-text 503 says how to build it.
 *
 * The two routes here declare their access like every other (security/access.ts), and the gate
 * decides on them as before.
 */
import { stat } from "node:fs/promises";
import { createReadStream, existsSync, type Stats } from "node:fs";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { PUBLIC } from "../security/access.ts";
import { sendError } from "../errors.ts";

/** The build, relative to this file: server/src/routes → the repo's web/dist. */
export const DEFAULT_DIST_DIR = fileURLToPath(new URL("../../../web/dist/", import.meta.url));

export interface StaticOptions {
  /** Where the built app is; tests point it at a fake build. */
  distDir?: string;
}

export const CONTENT_TYPES: Readonly<Record<string, string>> = Object.freeze({
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".webmanifest": "application/manifest+json; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".txt": "text/plain; charset=utf-8",
});

/** X-2: the app loads nothing from anywhere else, runs no inline script or style, sits in no frame. */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join("; ");

const IMMUTABLE = "public, max-age=31536000, immutable";
const REVALIDATE = "no-cache";
/** Icons and other unhashed files: a day, then revalidated. */
const SHORT = "public, max-age=86400";

export const NOT_BUILT =
  "Collie's phone app is not built yet.\n" +
  "Build it with: npm run build -w web\n" +
  "(npm start builds it by itself when web/dist is missing.) Then reload this page.\n";

/**
 * True when a path names the API in any spelling: `/api/…`, but also `/%61pi/…`, `/API/…`,
 * `//api/…`, `/./api/…`, `/api;x/…`, `/api./…`. Such a path that reached this catch-all matched no
 * API route, so it is a 404 in the API's shape, never the app's HTML (a 2xx for an API path would
 * read as "allowed" to anyone probing the gate).
 */
export function isApiPath(path: string): boolean {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A path the router could not decode never reached here; keep the raw text.
  }
  const first = decoded.toLowerCase().split(/[/\\]/).find((s) => s !== "" && s !== ".") ?? "";
  return first.replace(/;.*$/, "").replace(/[.\s]+$/, "") === "api";
}

/** The file a path names inside the build, or null when the path is refused (traversal and the like). */
export function resolveInDist(distDir: string, pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes("\0") || decoded.includes("\\")) return null;
  const segments = decoded.split("/").filter((s) => s !== "");
  if (segments.some((s) => s === ".." || s === ".")) return null;
  const root = resolve(distDir);
  const file = resolve(root, ...segments);
  if (file !== root && !file.startsWith(root + sep)) return null;
  return file;
}

export async function staticRoutes(app: FastifyInstance, opts: StaticOptions = {}): Promise<void> {
  const dist = resolve(opts.distDir ?? DEFAULT_DIST_DIR);
  const index = join(dist, "index.html");

  /**
   * The encodings a file of the build has a copy in, looked up once per file: the build does not
   * change under a running Collie (a new build comes with a restart or a new dist directory, and
   * the absolute path is the key).
   */
  const copiesOf = new Map<string, Set<string>>();
  const copies = async (file: string): Promise<Set<string>> => {
    let has = copiesOf.get(file);
    if (has === undefined) {
      has = new Set<string>();
      for (const e of ENCODINGS) if (await isFile(file + e.suffix)) has.add(e.encoding);
      copiesOf.set(file, has);
    }
    return has;
  };

  const send = async (req: FastifyRequest, reply: FastifyReply, file: string, rel: string) => {
    const has = await copies(file);
    // The best copy the browser allows (`*` allows Brotli, br before gzip), else the file itself.
    const accepted = has.size > 0 ? acceptedEncodings(req.headers["accept-encoding"]) : new Set<string>();
    const copy = ENCODINGS.find((e) => has.has(e.encoding) && accepted.has(e.encoding));
    const path = copy ? file + copy.suffix : file;
    let info: Stats;
    try {
      info = await stat(path);
    } catch {
      // Gone since it was looked up (a build being replaced): what a missing file gets.
      return reply.code(404).header("content-type", "text/plain; charset=utf-8").send("Not found.\n");
    }
    const ext = extname(rel).toLowerCase();
    const html = ext === ".html";
    const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}${copy ? `-${copy.encoding}` : ""}"`;
    reply.header("cache-control", rel.startsWith("/assets/") ? IMMUTABLE : html || rel === "/sw.js" || ext === ".webmanifest" ? REVALIDATE : SHORT);
    reply.header("etag", etag);
    // Only a file with copies varies by what the browser accepts; another part of the app's Vary stays.
    if (has.size > 0) addVary(reply, "accept-encoding");
    if (fresh(req.headers["if-none-match"], etag)) return reply.code(304).send();
    reply.header("content-type", contentType(rel));
    reply.header("content-length", info.size);
    if (copy) reply.header("content-encoding", copy.encoding);
    reply.header("x-content-type-options", "nosniff");
    reply.header("referrer-policy", "no-referrer");
    if (html) {
      reply.header("content-security-policy", CSP);
      reply.header("x-frame-options", "DENY");
    }
    // HEAD too: Fastify's HEAD route drops the stream's bytes and keeps the length set here.
    return reply.send(createReadStream(path));
  };

  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    // The absolute form of a request target (`GET http://host/path`) names the same path.
    const rawPath = req.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "").split("?")[0]!.split("#")[0]! || "/";
    if (isApiPath(rawPath)) return sendError(reply, "not-found", "No such route.");
    // A climb out of the build is a 403 whatever the spelling; only a clean path inside it is read.
    const file = resolveInDist(dist, rawPath);
    if (file === null) {
      return reply.code(403).header("content-type", "text/plain; charset=utf-8").send("Refused.\n");
    }
    if (!existsSync(index)) {
      return reply.code(503).header("content-type", "text/plain; charset=utf-8").header("cache-control", "no-store").send(NOT_BUILT);
    }
    const rel = file.slice(dist.length).split(sep).join("/") || "/";
    if (await isFile(file)) return send(req, reply, file, rel);
    if (rel.startsWith("/assets/") || rel === "/sw.js") {
      return reply.code(404).header("content-type", "text/plain; charset=utf-8").send("Not found.\n");
    }
    return send(req, reply, index, "/index.html");
  };

  app.get("/", PUBLIC, handler);
  app.get("/*", PUBLIC, handler);
}

/** Adds a token to the reply's Vary, keeping the tokens set before (by another part of the app). */
function addVary(reply: FastifyReply, token: string): void {
  const set = reply.getHeader("vary");
  const tokens = (Array.isArray(set) ? set.join(",") : set === undefined ? "" : String(set)).split(",").map((t) => t.trim()).filter((t) => t !== "");
  if (!tokens.some((t) => t.toLowerCase() === token || t === "*")) tokens.push(token);
  reply.header("vary", tokens.join(", "));
}

/**
 * Whether `If-None-Match` names the file's current ETag (RFC 9110 §13.1.2: weak comparison, a
 * list, or `*`): the browser's copy is current, a 304 says so.
 */
export function fresh(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = (t: string) => t.trim().replace(/^W\//, "");
  const mine = opaque(etag);
  return (Array.isArray(header) ? header.join(",") : header).split(",").some((t) => t.trim() === "*" || opaque(t) === mine);
}

function contentType(rel: string): string {
  return CONTENT_TYPES[extname(rel).toLowerCase()] ?? "application/octet-stream";
}

/** The encodings the build writes beside a file, best first, with their file suffixes. */
const ENCODINGS = [
  { encoding: "br", suffix: ".br" },
  { encoding: "gzip", suffix: ".gz" },
] as const;

/**
 * The encodings an `Accept-Encoding` header allows: named with a q above 0, or covered by `*`
 * (RFC 9110 §12.5.3). `identity` needs nothing.
 */
export function acceptedEncodings(header: string | string[] | undefined): Set<string> {
  const ok = new Set<string>();
  const refused = new Set<string>();
  let star = false;
  for (const part of (Array.isArray(header) ? header.join(",") : header ?? "").split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    const allowed = Number.isFinite(weight) && weight > 0;
    if (name === "*") star = allowed;
    else if (allowed) ok.add(name);
    else refused.add(name);
  }
  if (star) for (const e of ENCODINGS) if (!refused.has(e.encoding)) ok.add(e.encoding);
  return ok;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
