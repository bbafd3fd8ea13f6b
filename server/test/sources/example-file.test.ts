/**
 * `sources.example.json` documents every field of sources.json (D-1, issue #34): each field the
 * parser takes appears in it, crew members included, and the file is one Collie accepts once its
 * secrets and certificates exist.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { parseConfig } from "../../src/sources/sources.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

after(removeTempDirs);

const EXAMPLE = join(import.meta.dirname, "..", "..", "..", "sources.example.json");

test("sources.example.json names every field of a durable agent and of a crew member, and parses", () => {
  const doc = JSON.parse(readFileSync(EXAMPLE, "utf8")) as { durable: Record<string, string>[]; crew: Record<string, string>[] };
  assert.deepEqual(Object.keys(doc).sort(), ["crew", "durable"]);
  const fields = (list: Record<string, string>[]) => [...new Set(list.flatMap((e) => Object.keys(e)))].sort();
  assert.deepEqual(fields(doc.durable), ["ca", "comment", "name", "socket", "token", "url"]);
  assert.deepEqual(fields(doc.crew), ["ca", "name", "token", "url"]);
  // With its secrets and certificates in place, Collie takes it as it is.
  const dir = tempDir();
  const text = readFileSync(EXAMPLE, "utf8").replace(/file:\/home\/me\/[^"]+/g, (ref) => {
    const file = join(dir, ref.split("/").at(-1)!);
    writeFileSync(file, ref.endsWith(".pem") ? "-----BEGIN CERTIFICATE-----\n" : "a-token-of-at-least-16-characters");
    return `file:${file}`;
  });
  const config = parseConfig(JSON.parse(text), EXAMPLE, { BILLING_DURABLE_TOKEN: "another-token-of-16-characters" });
  assert.deepEqual(config.durable.map((a) => a.name), ["desk", "billing", "notes"]);
  assert.deepEqual(config.crew.map((m) => m.name), ["workshop"]);
});
