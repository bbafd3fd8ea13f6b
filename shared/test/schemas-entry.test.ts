/**
 * The schema table is the server's: the phone's bundle carries no TypeBox. The package's index
 * (which the phone imports) never re-exports the schemas entry, and no phone source imports it
 * or TypeBox; the phone reads the contract as types only (phone-types.ts).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

const ROOT = new URL("../../", import.meta.url).pathname;
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));

test("the package's index does not carry the schema table", () => {
  const index = readFileSync(join(ROOT, "shared/src/index.ts"), "utf8");
  assert.doesNotMatch(index, /phone-schemas/);
  for (const entry of ["strings.ts", "phone-routes.ts", "phone-types.ts"]) {
    assert.doesNotMatch(readFileSync(join(ROOT, "shared/src", entry), "utf8"), /^import (?!type)[^;]*from "(typebox|\.\/phone-schemas\.ts|\.\/api\.ts)"/m, entry);
  }
});

test("no phone source imports the schema table or TypeBox", () => {
  const offenders = files(join(ROOT, "web/src")).filter((f) => /from "(@colliepwa\/shared\/schemas|typebox[^"]*)"/.test(readFileSync(f, "utf8").replace(/import type [^;]*;/g, "")));
  assert.deepEqual(offenders, []);
});
