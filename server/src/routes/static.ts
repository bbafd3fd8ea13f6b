/**
 * Serves the phone app (D-4, P-26) from the Vite build in `web/dist`. The files go out through
 * @fastify/static (`reply.sendFile`: streaming, ETag and 304, precompressed copies); which file a
 * path names, and every header, stay ours:
 * - content types for what the build holds (html, js, css, webmanifest, png, svg, json, ico …);
 * - `/assets/*` (hashed names) cached for a year as immutable; `index.html`, `/sw.js` and the
 *   manifest revalidated on every load (`no-cache`), so a new build reaches the phone;
 * - a path that climbs out of the build (`..`, encoded or not, backslashes, NUL) is refused;
 * - any other unknown path that is not `/api/*` answers the index (the app routes by hash, but a
 *   deep link or a reload must still land in the app); a missing `/assets/*` file is a 404, never
 *   HTML a browser or the service worker would take for a script;
 * - HTML carries a strict CSP and the other security headers (X-2);
 * - a file with a precompressed copy beside it (`.br`, `.gz`, written by the build) goes out as
 *   the smallest copy the browser accepts (`Content-Encoding`, `Vary: Accept-Encoding`), so what
 *   crosses the network is the compressed size, with no compression work per request;
 * - without a build, a plain-text 503 says how to build it.
 *
 * The plugin serves no route itself (`serve: false`): the two routes here declare their access
 * like every other (security/access.ts), and the gate decides on them as before.
 */
import { stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fastifyStatic from "@fastify/static";
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
  /** The file of the build each request is being answered with (set by the handler, read by the headers). */
  const chosen = new WeakMap<FastifyRequest, Chosen>();

  await app.register(fastifyStatic, {
    root: dist,
    // The plugin registers no route of its own: its routes would declare no access (X-1, they would
    // not start), and its 404 for a missing file would bypass the SPA fallback. Our two PUBLIC
    // routes below pick the file; `reply.sendFile` sends it.
    serve: false,
    // A missing build is expected (the 503 below says how to build it), not a warning.
    suppressWarning: true,
    // The handler only ever names a file, never a directory: no index lookup, no listing.
    index: false,
    // The build is ours (Vite's output and web/public): its files are served whatever their name,
    // as before; what lies outside it is kept out by resolveInDist.
    dotfiles: "allow",
    preCompressed: true,
    // Content type and caching follow our own table and rules (setHeaders); the ETag stays the one
    // validator, as before (no Last-Modified, no ranges).
    contentType: false,
    cacheControl: false,
    lastModified: false,
    acceptRanges: false,
    setHeaders: (reply: FastifyReply) => {
      const c = chosen.get(reply.request);
      if (!c) return;
      c.sent = true;
      const ext = extname(c.rel).toLowerCase();
      const html = ext === ".html";
      reply.header("content-type", contentType(c.rel));
      reply.header("cache-control", c.rel.startsWith("/assets/") ? IMMUTABLE
        : html || c.rel === "/sw.js" || ext === ".webmanifest" ? REVALIDATE
        : SHORT);
      reply.header("x-content-type-options", "nosniff");
      reply.header("referrer-policy", "no-referrer");
      if (html) {
        reply.header("content-security-policy", CSP);
        reply.header("x-frame-options", "DENY");
      }
    },
  });

  // Two rules @fastify/static cannot express, applied once it has set its headers:
  // - on a precompressed copy it sets the type from its own MIME table after setHeaders ran
  //   (`application/javascript` for a script), so our table's type is set again;
  // - with `preCompressed` it marks every file `Vary: Accept-Encoding`, while only a file with a
  //   copy beside it varies: a file without one (an icon) goes out the same to every browser, so
  //   its `accept-encoding` token goes (any other token set for the reply stays). A reply with a
  //   `Content-Encoding` is a copy: no need to look for one.
  app.addHook("onSend", async (req, reply, payload) => {
    const c = chosen.get(req);
    if (!c?.sent) return payload;
    reply.header("content-type", contentType(c.rel));
    if (reply.hasHeader("vary") && !reply.hasHeader("content-encoding") && !(await copies(c.file))) {
      const vary = reply.getHeader("vary");
      const rest = (Array.isArray(vary) ? vary.join(",") : String(vary)).split(",").map((t) => t.trim())
        .filter((t) => t !== "" && t.toLowerCase() !== "accept-encoding");
      if (rest.length > 0) reply.header("vary", rest.join(", "));
      else reply.removeHeader("vary");
    }
    return payload;
  });

  /**
   * Whether a file of the build has a precompressed copy, looked up once per file: the build does
   * not change under a running Collie (a new build comes with a restart or a new dist directory,
   * and the absolute path is the key).
   */
  const withCopies = new Map<string, boolean>();
  const copies = async (file: string): Promise<boolean> => {
    let has = withCopies.get(file);
    if (has === undefined) {
      has = await hasCopies(file);
      withCopies.set(file, has);
    }
    return has;
  };

  const send = (req: FastifyRequest, reply: FastifyReply, file: string, rel: string) => {
    // @fastify/static picks the copy from Accept-Encoding by its own reading, which takes `*` as
    // gzip and follows the client's q order; the copy is ours to pick (acceptedEncodings, best
    // first), so the header it reads names exactly the encodings allowed, best first.
    if (req.headers["accept-encoding"] !== undefined) {
      const ok = acceptedEncodings(req.headers["accept-encoding"]);
      req.headers["accept-encoding"] = ENCODINGS.filter((e) => ok.has(e.encoding)).map((e) => e.encoding).join(", ") || "identity";
    }
    // The app's files were always sent whole whatever the preconditions (If-None-Match's 304
    // aside); @fastify/send now answers If-Match and If-Unmodified-Since with a 412, which the
    // app's error handler would turn into a JSON 400. Those two are not ours to honour here: they
    // are dropped, and the file goes out with its 200 as before.
    delete req.headers["if-match"];
    delete req.headers["if-unmodified-since"];
    chosen.set(req, { file, rel, sent: false });
    return reply.sendFile(rel);
  };

  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    // The absolute form of a request target (`GET http://host/path`) names the same path.
    const rawPath = req.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "").split("?")[0]!.split("#")[0]! || "/";
    if (isApiPath(rawPath)) return sendError(reply, "not-found", "No such route.");
    // Checked here, before the plugin sees the path: a climb out of the build is a 403 whatever
    // the spelling, and the plugin is only ever handed a clean path inside it.
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

/** A file of the build chosen for a request; `sent` once the plugin is sending it. */
interface Chosen {
  file: string;
  rel: string;
  sent: boolean;
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

async function hasCopies(file: string): Promise<boolean> {
  for (const e of ENCODINGS) if (await isFile(file + e.suffix)) return true;
  return false;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
