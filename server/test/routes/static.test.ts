/**
 * The phone app's files (D-4, P-26, X-2): content types, cache headers, the CSP and the other
 * security headers, traversal refused, the SPA fallback, /api/* left alone, a 503 before the
 * app is built, ETags and 304s, and precompressed copies sent to a browser that takes them. A tiny
 * fake build in a temp dir; a plain Fastify app with only the static route (plus one API route),
 * so the route is tested on its own.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { acceptedEncodings, CSP, fresh, resolveInDist, staticRoutes } from "../../src/routes/static.ts";

const INDEX = "<!doctype html><title>Collie</title><div id=root></div>";
const SECRET = '{"name":"outside-the-build"}';

let root: string;
let dist: string;
let app: FastifyInstance;

async function appFor(distDir: string): Promise<FastifyInstance> {
  const a = Fastify();
  a.get("/api/health", async () => ({ ok: true }));
  await a.register(async (scope) => staticRoutes(scope, { distDir }));
  await a.ready();
  return a;
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), "collie-static-"));
  dist = join(root, "dist");
  mkdirSync(join(dist, "assets"), { recursive: true });
  mkdirSync(join(dist, "icons"), { recursive: true });
  writeFileSync(join(dist, "index.html"), INDEX);
  writeFileSync(join(dist, "assets", "main-abc123.js"), "console.log(1)");
  writeFileSync(join(dist, "assets", "main-abc123.css"), "body{}");
  writeFileSync(join(dist, "assets", "logo-1.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  writeFileSync(join(dist, "sw.js"), "self.addEventListener('fetch',()=>{})");
  writeFileSync(join(dist, "manifest.webmanifest"), '{"name":"Collie"}');
  writeFileSync(join(dist, "icons", "icon-192.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  writeFileSync(join(dist, "favicon.ico"), Buffer.from([0, 0, 1, 0]));
  writeFileSync(join(dist, "data.json"), "{}");
  writeFileSync(join(dist, "robots.txt"), "User-agent: *\nDisallow: /\n");
  // Outside the build: what a traversal would reach.
  writeFileSync(join(root, "package.json"), SECRET);
  app = await appFor(dist);
});

after(async () => {
  await app.close();
  rmSync(root, { recursive: true, force: true });
});

describe("content types", () => {
  const cases: [string, string][] = [
    ["/", "text/html; charset=utf-8"],
    ["/index.html", "text/html; charset=utf-8"],
    ["/assets/main-abc123.js", "text/javascript; charset=utf-8"],
    ["/assets/main-abc123.css", "text/css; charset=utf-8"],
    ["/assets/logo-1.svg", "image/svg+xml"],
    ["/sw.js", "text/javascript; charset=utf-8"],
    ["/manifest.webmanifest", "application/manifest+json; charset=utf-8"],
    ["/icons/icon-192.png", "image/png"],
    ["/favicon.ico", "image/x-icon"],
    ["/data.json", "application/json; charset=utf-8"],
    ["/robots.txt", "text/plain; charset=utf-8"],
  ];
  for (const [url, type] of cases) {
    test(`${url} is ${type}`, async () => {
      const r = await app.inject({ url });
      assert.equal(r.statusCode, 200);
      assert.equal(r.headers["content-type"], type);
      assert.equal(r.headers["x-content-type-options"], "nosniff");
    });
  }

  test("a file's bytes are sent as they are", async () => {
    const r = await app.inject({ url: "/icons/icon-192.png" });
    assert.deepEqual([...r.rawPayload], [0x89, 0x50, 0x4e, 0x47]);
    assert.equal((await app.inject({ url: "/" })).body, INDEX);
  });
});

describe("cache headers", () => {
  test("hashed assets are immutable for a year", async () => {
    const r = await app.inject({ url: "/assets/main-abc123.js" });
    assert.equal(r.headers["cache-control"], "public, max-age=31536000, immutable");
  });
  for (const url of ["/", "/index.html", "/sw.js", "/manifest.webmanifest", "/some/deep/link"]) {
    test(`${url} is revalidated (no-cache)`, async () => {
      const r = await app.inject({ url });
      assert.equal(r.headers["cache-control"], "no-cache");
    });
  }
  test("robots.txt and icons are kept a day", async () => {
    for (const url of ["/robots.txt", "/icons/icon-192.png"]) {
      assert.equal((await app.inject({ url })).headers["cache-control"], "public, max-age=86400", url);
    }
  });
  test("an ETag in a list, weak or strong, or `*` is a 304; another is the file", async () => {
    const etag = String((await app.inject({ url: "/sw.js" })).headers.etag);
    assert.match(etag, /^W\/"/);
    for (const match of [`"x", ${etag}`, etag.slice(2), "*"]) {
      assert.equal((await app.inject({ url: "/sw.js", headers: { "if-none-match": match } })).statusCode, 304, match);
    }
    const other = await app.inject({ url: "/sw.js", headers: { "if-none-match": 'W/"1-1"' } });
    assert.equal(other.statusCode, 200);
    assert.equal(fresh(undefined, etag), false);
  });
  test("HEAD names the file's length and sends no body", async () => {
    const r = await app.inject({ method: "HEAD", url: "/sw.js" });
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers["content-length"], String("self.addEventListener('fetch',()=>{})".length));
    assert.equal(r.body, "");
  });
  test("an unchanged file answers 304 to its etag", async () => {
    const first = await app.inject({ url: "/sw.js" });
    const etag = first.headers.etag;
    assert.ok(typeof etag === "string" && etag.length > 0);
    const again = await app.inject({ url: "/sw.js", headers: { "if-none-match": etag } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, "");
  });
});

describe("security headers (X-2)", () => {
  test("HTML carries the strict CSP, no referrer and nosniff", async () => {
    for (const url of ["/", "/index.html", "/anything"]) {
      const r = await app.inject({ url });
      assert.equal(
        r.headers["content-security-policy"],
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; manifest-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
      );
      assert.equal(r.headers["referrer-policy"], "no-referrer");
      assert.equal(r.headers["x-content-type-options"], "nosniff");
    }
    assert.equal(CSP.includes("unsafe"), false);
  });
  test("scripts carry no CSP of their own, still nosniff", async () => {
    const r = await app.inject({ url: "/assets/main-abc123.js" });
    assert.equal(r.headers["content-security-policy"], undefined);
    assert.equal(r.headers["x-content-type-options"], "nosniff");
  });
});

/**
 * A request over a real socket with the path exactly as written: inject() and fetch() normalise
 * `..` and `%2e%2e` away before the server sees them, an attacker's client does not.
 */
async function rawGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`));
    let data = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk) => (data += chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
      resolve({ status, body: data.slice(data.indexOf("\r\n\r\n") + 4) });
    });
  });
}

describe("path traversal is refused", () => {
  let port = 0;
  before(async () => {
    const address = await app.listen({ host: "127.0.0.1", port: 0 });
    port = Number(new URL(address).port);
  });

  const attempts = [
    "/../package.json",
    "/assets/../../package.json",
    "/%2e%2e/package.json",
    "/%2E%2E/package.json",
    "/.%2e/package.json",
    "/%2e%2e%2fpackage.json",
    "/assets/%2e%2e%2f%2e%2e%2fpackage.json",
    "/..%2fpackage.json",
    "/..%5cpackage.json",
    "/%5c..%5cpackage.json",
    "/assets/..\\..\\package.json",
    "/%00/package.json",
    "/%252e%252e/package.json",
    "/%c0%ae%c0%ae/package.json",
    "/%E0%A4%A",
  ];
  for (const url of attempts) {
    test(url, async () => {
      for (const r of [await rawGet(port, url), await app.inject({ url }).then((x) => ({ status: x.statusCode, body: x.body }))]) {
        assert.ok(!r.body.includes("outside-the-build"), `${url} reached a file outside the build`);
        assert.ok([400, 403, 404].includes(r.status) || (r.status === 200 && r.body === INDEX), `${url}: ${r.status}`);
      }
    });
  }
  test("dot segments as sent are refused with 403", async () => {
    for (const url of ["/../package.json", "/%2e%2e/package.json", "/..%2fpackage.json", "/assets/%2e%2e%2f%2e%2e%2fpackage.json", "/..%5cpackage.json"]) {
      const r = await rawGet(port, url);
      assert.equal(r.status, 403, url);
      assert.match(r.body, /Refused/);
    }
  });
  test("resolveInDist keeps every path inside the build", () => {
    assert.equal(resolveInDist(dist, "/../package.json"), null);
    assert.equal(resolveInDist(dist, "/a/%2e%2e/%2e%2e/b"), null);
    assert.equal(resolveInDist(dist, "/a\\b"), null);
    assert.equal(resolveInDist(dist, "/%ZZ"), null);
    assert.equal(resolveInDist(dist, "/x%00"), null);
    assert.equal(resolveInDist(dist, "/assets/x.js"), join(dist, "assets", "x.js"));
    assert.equal(resolveInDist(dist, "/"), dist);
  });
});

describe("SPA fallback", () => {
  test("an unknown path answers the index", async () => {
    for (const url of ["/settings", "/agent/desk/pane/p1", "/some/deep/link?x=1", "/icons"]) {
      const r = await app.inject({ url });
      assert.equal(r.statusCode, 200, url);
      assert.equal(r.body, INDEX, url);
      assert.equal(r.headers["content-type"], "text/html; charset=utf-8");
    }
  });
  test("a missing hashed asset is a 404, never HTML", async () => {
    const r = await app.inject({ url: "/assets/gone-000.js" });
    assert.equal(r.statusCode, 404);
    assert.ok(!String(r.headers["content-type"]).startsWith("text/html"));
  });
  test("HEAD works like GET without a body", async () => {
    const r = await app.inject({ method: "HEAD", url: "/" });
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers["content-type"], "text/html; charset=utf-8");
    assert.equal(r.body, "");
  });
});

describe("/api/* is not swallowed", () => {
  test("an API route still answers", async () => {
    const r = await app.inject({ url: "/api/health" });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { ok: true });
  });
  test("an unknown API path is a JSON 404, not the index", async () => {
    for (const url of ["/api/nope", "/api", "/api/agents/x/unknown?y=1"]) {
      const r = await app.inject({ url });
      assert.equal(r.statusCode, 404, url);
      assert.match(String(r.headers["content-type"]), /application\/json/);
      assert.equal(r.json().error, "not-found");
    }
  });
  test("writes to unknown paths are not answered with the index", async () => {
    const r = await app.inject({ method: "POST", url: "/anything", payload: {} });
    assert.equal(r.statusCode, 404);
    assert.notEqual(r.body, INDEX);
  });
});

describe("not built", () => {
  test("GET / answers a plain-text 503 saying how to build the app", async () => {
    const empty = mkdtempSync(join(tmpdir(), "collie-nodist-"));
    const a = await appFor(join(empty, "dist"));
    try {
      const r = await a.inject({ url: "/" });
      assert.equal(r.statusCode, 503);
      assert.equal(r.headers["content-type"], "text/plain; charset=utf-8");
      assert.match(r.body, /not built/);
      assert.match(r.body, /npm run build -w web/);
      const deep = await a.inject({ url: "/agent/desk" });
      assert.equal(deep.statusCode, 503);
      const api = await a.inject({ url: "/api/health" });
      assert.equal(api.statusCode, 200);
    } finally {
      await a.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
  test("a build that appears later is served without a restart", async () => {
    const later = mkdtempSync(join(tmpdir(), "collie-later-"));
    const a = await appFor(join(later, "dist"));
    try {
      assert.equal((await a.inject({ url: "/" })).statusCode, 503);
      mkdirSync(join(later, "dist"));
      writeFileSync(join(later, "dist", "index.html"), INDEX);
      const r = await a.inject({ url: "/" });
      assert.equal(r.statusCode, 200);
      assert.equal(r.body, INDEX);
    } finally {
      await a.close();
      rmSync(later, { recursive: true, force: true });
    }
  });
});

describe("precompressed copies: what crosses the network is the compressed size", () => {
  let pre: string;
  let a: FastifyInstance;
  const JS = `export const words = ${JSON.stringify("collie ".repeat(2000))};\n`;
  before(async () => {
    pre = mkdtempSync(join(tmpdir(), "collie-pre-"));
    mkdirSync(join(pre, "assets"), { recursive: true });
    writeFileSync(join(pre, "index.html"), INDEX);
    writeFileSync(join(pre, "assets", "main-1.js"), JS);
    writeFileSync(join(pre, "assets", "main-1.js.br"), brotliCompressSync(JS));
    writeFileSync(join(pre, "assets", "main-1.js.gz"), gzipSync(JS));
    writeFileSync(join(pre, "assets", "only-gz.css"), "body{}".repeat(100));
    writeFileSync(join(pre, "assets", "only-gz.css.gz"), gzipSync("body{}".repeat(100)));
    writeFileSync(join(pre, "assets", "plain.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    a = await appFor(pre);
  });
  after(async () => {
    await a.close();
    rmSync(pre, { recursive: true, force: true });
  });
  const get = (url: string, accept?: string) => a.inject({ url, ...(accept === undefined ? {} : { headers: { "accept-encoding": accept } }) });

  test("a browser that takes br gets the Brotli copy; one that takes only gzip the gzip copy; each decodes to the file", async () => {
    const br = await get("/assets/main-1.js", "gzip, deflate, br, zstd");
    assert.equal(br.statusCode, 200);
    assert.equal(br.headers["content-encoding"], "br");
    assert.equal(br.headers["content-type"], "text/javascript; charset=utf-8");
    assert.equal(br.headers.vary, "accept-encoding");
    assert.equal(br.headers["cache-control"], "public, max-age=31536000, immutable");
    assert.ok(br.rawPayload.length < JS.length / 10, `${br.rawPayload.length} bytes sent`);
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), JS);
    const gz = await get("/assets/main-1.js", "gzip");
    assert.equal(gz.headers["content-encoding"], "gzip");
    assert.equal(gunzipSync(gz.rawPayload).toString(), JS);
    // br refused (q=0) but allowed by `*`: gzip.
    assert.equal((await get("/assets/main-1.js", "br;q=0, *")).headers["content-encoding"], "gzip");
    // `*` alone allows the best copy.
    assert.equal((await get("/assets/main-1.js", "*")).headers["content-encoding"], "br");
  });

  test("no Accept-Encoding, identity only, or no copy of that encoding: the file itself, still marked as varying", async () => {
    for (const accept of [undefined, "identity", "deflate"]) {
      const r = await get("/assets/main-1.js", accept);
      assert.equal(r.headers["content-encoding"], undefined, String(accept));
      assert.equal(r.headers.vary, "accept-encoding", String(accept));
      assert.equal(r.body, JS);
    }
    const css = await get("/assets/only-gz.css", "br");
    assert.equal(css.headers["content-encoding"], undefined);
    assert.equal((await get("/assets/only-gz.css", "br, gzip")).headers["content-encoding"], "gzip");
    const png = await get("/assets/plain.png", "br, gzip");
    assert.equal(png.headers["content-encoding"], undefined);
    assert.equal(png.headers.vary, undefined);
  });

  test("each encoding has its own ETag, and a revalidation of the one it holds is a 304 that still varies", async () => {
    const br = await get("/assets/main-1.js", "br");
    const gz = await get("/assets/main-1.js", "gzip");
    const plain = await get("/assets/main-1.js");
    assert.equal(new Set([br.headers.etag, gz.headers.etag, plain.headers.etag]).size, 3);
    const again = await a.inject({ url: "/assets/main-1.js", headers: { "accept-encoding": "br", "if-none-match": String(br.headers.etag) } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.headers.vary, "accept-encoding");
    assert.equal(again.headers.etag, br.headers.etag);
    // The Brotli copy's ETag is not the gzip copy's: a browser that now takes only gzip gets it whole.
    const switched = await a.inject({ url: "/assets/main-1.js", headers: { "accept-encoding": "gzip", "if-none-match": String(br.headers.etag) } });
    assert.equal(switched.statusCode, 200);
    assert.equal(switched.headers["content-encoding"], "gzip");
  });

  test("a copy goes out with the length of the copy", async () => {
    const br = await get("/assets/main-1.js", "br");
    assert.equal(br.headers["content-length"], String(br.rawPayload.length));
  });

  test("acceptedEncodings reads q-values, case and `*`", () => {
    assert.deepEqual([...acceptedEncodings("GZIP;q=0.5, Br")].sort(), ["br", "gzip"]);
    assert.deepEqual([...acceptedEncodings("br;q=0")], []);
    assert.deepEqual([...acceptedEncodings(undefined)], []);
    assert.deepEqual([...acceptedEncodings("*;q=0")], []);
  });
});

describe("preconditions and Vary on their own", () => {
  let dir: string;
  let a: FastifyInstance;
  const JS = `export const n = ${JSON.stringify("x".repeat(500))};\n`;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "collie-vary-"));
    mkdirSync(join(dir, "assets"), { recursive: true });
    writeFileSync(join(dir, "index.html"), INDEX);
    writeFileSync(join(dir, "assets", "main-2.js"), JS);
    writeFileSync(join(dir, "assets", "main-2.js.br"), brotliCompressSync(JS));
    writeFileSync(join(dir, "assets", "plain.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    a = Fastify();
    // Another part of the app varies the reply on its own account: that token stays.
    a.addHook("onRequest", async (req, reply) => {
      if (req.headers["x-test-vary"]) reply.header("vary", "Origin");
    });
    await a.register(async (scope) => staticRoutes(scope, { distDir: dir }));
    await a.ready();
  });
  after(async () => {
    await a.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("If-Match and If-Unmodified-Since are not honoured: the file is sent with its 200, as before", async () => {
    for (const headers of [{ "if-match": '"not-this-one"' }, { "if-unmodified-since": new Date(0).toUTCString() }]) {
      for (const url of ["/assets/main-2.js", "/", "/some/deep/link"]) {
        const r = await a.inject({ url, headers });
        assert.equal(r.statusCode, 200, `${url} ${JSON.stringify(headers)}`);
        assert.ok(r.headers.etag);
      }
    }
    const r = await a.inject({ url: "/assets/main-2.js", headers: { "if-match": '"not-this-one"' } });
    assert.equal(r.body, JS);
  });

  test("a file without a copy drops only accept-encoding from Vary; one with a copy keeps it, twice asked the same", async () => {
    for (let i = 0; i < 2; i++) {
      const png = await a.inject({ url: "/assets/plain.png", headers: { "x-test-vary": "1", "accept-encoding": "br" } });
      assert.equal(png.statusCode, 200);
      assert.equal(png.headers.vary, "Origin");
      assert.equal((await a.inject({ url: "/assets/plain.png", headers: { "accept-encoding": "br" } })).headers.vary, undefined);
      const js = await a.inject({ url: "/assets/main-2.js", headers: { "x-test-vary": "1", "accept-encoding": "br" } });
      assert.equal(js.headers["content-encoding"], "br");
      assert.equal(js.headers.vary, "Origin, accept-encoding");
      const plain = await a.inject({ url: "/assets/main-2.js", headers: { "x-test-vary": "1" } });
      assert.equal(plain.headers["content-encoding"], undefined);
      assert.equal(plain.headers.vary, "Origin, accept-encoding");
    }
  });
});
