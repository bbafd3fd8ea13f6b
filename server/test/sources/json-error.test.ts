/**
 * A sources.json syntax error names the line, the column and the field, and never quotes the file
 * (the security issue, item 7: an inline token's tail reached the log through the parser's message).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { locateJsonError } from "../../src/sources/json-error.ts";
import { loadSources, SourcesError } from "../../src/sources/sources.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

after(() => removeTempDirs());

const TOKEN = "tok-9f8e7d6c5b4a3921";

test("a trailing comma after an entry with an inline token: line, column and field, no text of the file", () => {
  const text = `{\n  "durable": [\n    {"name": "far", "url": "https://agent.example", "token": "${TOKEN}"},\n  ]\n}\n`;
  const path = join(tempDir(), "sources.json");
  writeFileSync(path, text);
  let message = "";
  try {
    loadSources(path);
  } catch (err) {
    assert.ok(err instanceof SourcesError);
    message = err.message;
  }
  assert.equal(message, `${path}: is not valid JSON at line 4, column 3 (in durable: a comma before ']')`);
  for (let i = 0; i + 4 <= TOKEN.length; i++) assert.ok(!message.includes(TOKEN.slice(i, i + 4)), `no part of the token: ${message}`);
});

test("the locator agrees with JSON.parse on valid and broken texts, and names the field", () => {
  const cases: [string, { line: number; column: number; field: string } | null][] = [
    ['{"durable": []}', null],
    ['  [1, 2.5e3, -0, true, null, "a\\u00e9\\n"]  ', null],
    ['{"durable": [\n {"name": "x" "url": 1}]}', { line: 2, column: 15, field: "durable[0]" }],
    ['{"durable": [', { line: 1, column: 14, field: "durable[0]" }],
    ['{"a": tru}', { line: 1, column: 7, field: "a" }],
    ['{"x": "abc\u0001"}', { line: 1, column: 11, field: "x" }],
    ['{"x": 1}}', { line: 1, column: 9, field: "top level" }],
    ["", { line: 1, column: 1, field: "top level" }],
    ['{"durable": [{"name": "a", "token": secret123}]}', { line: 1, column: 37, field: "durable[0].token" }],
    ["{'durable': []}", { line: 1, column: 2, field: "top level" }],
  ];
  for (const [text, want] of cases) {
    let valid = true;
    try {
      JSON.parse(text);
    } catch {
      valid = false;
    }
    const got = locateJsonError(text);
    assert.equal(got === null, valid, `${JSON.stringify(text)}: valid ${valid}`);
    if (want) assert.deepEqual({ line: got!.line, column: got!.column, field: got!.field }, want, JSON.stringify(text));
    if (got) assert.ok(!got.problem.includes("secret"), got.problem);
  }
});
