/** The route table both ends read (W-1, W-2, W-4, S-33, S-34). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { matchRoute, type RouteName, ROUTES, routePath, WIRE_ROOT, wirePrefix } from "../../src/wire/index.ts";

const NAMES = Object.keys(ROUTES) as RouteName[];
const paramsOf = (name: RouteName): string[] => [...ROUTES[name].path.matchAll(/:([a-z]+)/g)].map((m) => m[1]!);
const sample = (name: RouteName, value: (key: string) => string): Record<string, string> =>
  Object.fromEntries(paramsOf(name).map((key) => [key, value(key)]));

/** Ids that need encoding: `:` (tab ids), Unicode, emoji, `%`, and characters the ID rule allows. */
const AWKWARD_IDS = ["desk:inbox", "会话-1", "café", "ticket-🎫", "100%", "a+b&c=d", "ñ:ü", "%41", "x".repeat(128)];

describe("routePath and matchRoute", () => {
  for (const name of NAMES.filter((n) => n !== "hello")) {
    const { method } = ROUTES[name];
    test(`round trip: ${method} ${ROUTES[name].path} matches ${name} with its params`, () => {
      const params = sample(name, (key) => `${key}-1`);
      const path = routePath(name, params);
      assert.equal(path.includes(":"), false, `${path} still has a :param`);
      assert.deepEqual(matchRoute(method, path), { name, params });
    });

    if (paramsOf(name).length > 0) {
      test(`round trip with URI-encoded ids (colon, Unicode, emoji, %): ${name}`, () => {
        for (const id of AWKWARD_IDS) {
          const params = sample(name, () => id);
          const path = routePath(name, params);
          assert.ok(/^[\x21-\x7e]+$/.test(path), `${path} is not plain ASCII`);
          assert.deepEqual(matchRoute(method, path), { name, params }, id);
        }
      });
    }
  }

  test("a :param is encoded with encodeURIComponent, so ':' and '/' cannot change the path's shape", () => {
    assert.equal(routePath("pane", { pane: "desk:inbox" }), "/panes/desk%3Ainbox");
    assert.equal(routePath("pane", { pane: "会话" }), "/panes/%E4%BC%9A%E8%AF%9D");
    assert.equal(routePath("pane", { pane: "a/b" }), "/panes/a%2Fb");
    assert.deepEqual(matchRoute("GET", "/panes/a%2Fb"), { name: "pane", params: { pane: "a/b" } });
    assert.equal(
      routePath("answer", { pane: "p 1", ask: "0123456789abcdef0123456789abcdef" }),
      "/panes/p%201/asks/0123456789abcdef0123456789abcdef/answer",
    );
  });

  test("two params are filled and decoded independently", () => {
    const params = { pane: "desk:inbox:p1", action: "✅-ok" };
    assert.deepEqual(matchRoute("POST", routePath("action", params)), { name: "action", params });
  });

  test("routePath throws a TypeError naming a missing param", () => {
    assert.throws(() => routePath("pane"), /route pane needs :pane/);
    assert.throws(() => routePath("answer", { pane: "p" }), /route answer needs :ask/);
  });

  test("routePath of a route without params is its path", () => {
    for (const name of NAMES.filter((n) => paramsOf(n).length === 0)) assert.equal(routePath(name), ROUTES[name].path);
  });
});

describe("hello is unversioned (S-34)", () => {
  test("hello's path is /hello under the unversioned root", () => {
    assert.equal(routePath("hello"), "/hello");
    assert.equal(`${WIRE_ROOT}${routePath("hello")}`, "/durable/hello");
    assert.equal(`${wirePrefix(1)}${routePath("layout")}`, "/durable/v1/layout");
  });

  test("matchRoute (paths after the version prefix) never matches hello", () => {
    assert.equal(matchRoute("GET", "/hello"), null);
  });
});

describe("paths that match nothing", () => {
  const misses: [method: string, path: string, why: string][] = [
    ["GET", "/nope", "unknown path"],
    ["GET", "/", "the root"],
    ["GET", "", "the empty path"],
    ["GET", "/panes", "a collection without an id"],
    ["GET", "/panes/", "an empty id"],
    ["POST", "/panes//send", "an empty id in the middle"],
    ["GET", "/layout/", "a trailing slash"],
    ["GET", "//layout", "a doubled slash"],
    ["GET", "layout", "no leading slash"],
    ["GET", "/Layout", "wrong case"],
    ["GET", "/layout/extra", "an extra segment"],
    ["POST", "/panes/p1/send/more", "an extra segment after a write"],
    ["GET", "/panes/p1/asks/a1", "a prefix of a longer route"],
    ["GET", "/panes/%E0%A4%A", "a malformed percent-encoding"],
    ["GET", "/panes/%", "a lone percent sign"],
    ["GET", "/durable/v1/layout", "the version prefix left on"],
    ["GET", "/v1/layout", "part of the prefix left on"],
  ];
  for (const [method, path, why] of misses) {
    test(`${why}: ${method} ${JSON.stringify(path)} → null`, () => assert.equal(matchRoute(method, path), null));
  }
});

describe("wrong method → null", () => {
  for (const name of NAMES.filter((n) => n !== "hello")) {
    const spec = ROUTES[name];
    const other = spec.method === "GET" ? "POST" : "GET";
    test(`${other} on ${name}'s path (${spec.method} ${spec.path}) does not match ${name}`, () => {
      const path = routePath(name, sample(name, (key) => `${key}-1`));
      const hit = matchRoute(other, path);
      // The only path shared by a GET and a POST route would be a different route; there is none.
      assert.equal(hit, null);
    });
  }

  test("methods are case-sensitive and other verbs match nothing", () => {
    for (const method of ["get", "post", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", ""]) {
      assert.equal(matchRoute(method, "/layout"), null, method);
      assert.equal(matchRoute(method, "/panes/p1/send"), null, method);
    }
  });
});

describe("route table (W-4, S-33)", () => {
  test("every write is a POST and every POST is a write", () => {
    for (const name of NAMES) assert.equal(ROUTES[name].write, ROUTES[name].method === "POST", name);
  });

  test("every write names a cap", () => {
    for (const name of NAMES.filter((n) => ROUTES[n].write)) assert.ok(ROUTES[name].cap, name);
  });

  test("no two routes share a method and path shape", () => {
    const shapes = NAMES.map((n) => `${ROUTES[n].method} ${ROUTES[n].path.replace(/:[a-z]+/g, ":")}`);
    assert.equal(new Set(shapes).size, shapes.length);
  });
});
