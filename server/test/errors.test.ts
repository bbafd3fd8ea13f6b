/**
 * One error catalog (shared/src/errors.ts): every error Collie sends on the phone API is a code of
 * `API_ERRORS` with its status, sent through server/src/errors.ts. A code written by hand anywhere
 * else in the server would drift from the catalog; this test finds any.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { API_ERRORS, COLLIE_ERRORS } from "@colliepwa/shared";
import { apiError } from "../src/errors.ts";

const SRC = join(import.meta.dirname, "..", "src");
/** The admin socket is not the phone API: the `collie` command reads its messages. */
const NOT_THE_PHONE_API = new Set(["errors.ts", "security/admin.ts"]);

const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []);

test("no error body is written by hand outside server/src/errors.ts", () => {
  const found: string[] = [];
  for (const file of files(SRC)) {
    const rel = relative(SRC, file);
    if (NOT_THE_PHONE_API.has(rel)) continue;
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/\berror: ["'`][^"'`]*["'`]|\.send\(\{ error\b|status: \d{3}, body: \{ error/g)) found.push(`${rel}: ${m[0]}`);
  }
  assert.deepEqual(found, []);
});

test("every code the server names is in the catalog, with the catalog's status", () => {
  const named = new Set<string>();
  for (const file of files(SRC)) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/\b(?:apiError|sendError|refuse)\((?:reply[^,]*, )?["`]([a-z-]+)(?:\$\{[^}]+\})?["`]/g)) named.add(m[1]!);
  }
  assert.ok(named.size >= 10, [...named].join(", "));
  for (const code of named) {
    const known = Object.keys(API_ERRORS).some((c) => c === code || c.startsWith(code));
    assert.ok(known, `${code} is in API_ERRORS`);
  }
  for (const [code, e] of Object.entries(API_ERRORS)) assert.equal(apiError(code as keyof typeof API_ERRORS, "m").status, e.status);
  // The codes a tap can get are the catalog's, at the catalog's status.
  for (const [code, status] of Object.entries(COLLIE_ERRORS)) assert.equal(API_ERRORS[code as keyof typeof API_ERRORS].status, status);
});
