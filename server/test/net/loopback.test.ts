/** This machine's names and addresses, one module for every rule that asks (net/loopback.ts). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { isLoopbackAddress, isLoopbackHost, isLoopbackHostName, PLAIN_HTTP_HOSTS } from "../../src/net/loopback.ts";
import { parseSources, SourcesError } from "../../src/sources/sources.ts";

test("plain http and `local` are for 127.0.0.1 and localhost only (D-1, D-3)", () => {
  assert.deepEqual([...PLAIN_HTTP_HOSTS].sort(), ["127.0.0.1", "localhost"]);
  const http = (url: string) => parseSources({ durable: [{ name: "a", url, token: "0123456789abcdef" }] }, "/tmp/sources.json");
  assert.doesNotThrow(() => http("http://127.0.0.1:9"));
  assert.doesNotThrow(() => http("http://localhost:9"));
  assert.throws(() => http("http://[::1]:9"), SourcesError, "the specification names two hosts for plain http");
  assert.throws(() => http("http://127.0.0.2:9"), SourcesError);
});

test("the gate's loopback host names, the pair hint's loopback hosts, and peer addresses", () => {
  for (const n of ["127.0.0.1", "localhost", "LOCALHOST", "[::1]"]) assert.equal(isLoopbackHostName(n), true, n);
  for (const n of ["127.0.0.2", "a.localhost", "example.com", "::1"]) assert.equal(isLoopbackHostName(n), false, n);
  for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "app.localhost", "[::1]", "::1"]) assert.equal(isLoopbackHost(h), true, h);
  for (const h of ["10.0.0.1", "collie.example.ts.net", "localhost.example.com", "1127.0.0.1"]) assert.equal(isLoopbackHost(h), false, h);
  for (const ip of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) assert.equal(isLoopbackAddress(ip), true, ip);
  for (const ip of ["10.0.0.1", "::ffff:10.0.0.1", "fe80::1"]) assert.equal(isLoopbackAddress(ip), false, ip);
});
