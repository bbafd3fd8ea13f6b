/**
 * How deep JSON text nests (live-read.ts `jsonDeeperThan`): what the live socket and the phone API
 * refuse before parsing. Counted on the text, brackets in strings not counted; text with few
 * brackets is answered without reading every character, with the same answer.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { jsonDeeperThan } from "../src/live-read.ts";

/** Every character read: the rule itself, to compare the quick path with. */
function deeperByReading(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") {
      if (++depth > max) return true;
    } else if (c === "]" || c === "}") depth--;
  }
  return false;
}

const nest = (n: number, open = "[", close = "]") => `${open.repeat(n)}${close.repeat(n)}`;

describe("jsonDeeperThan", () => {
  it("refuses one level past the limit, arrays and objects alike, and not the limit itself", () => {
    assert.equal(jsonDeeperThan(nest(3), 3), false);
    assert.equal(jsonDeeperThan(nest(4), 3), true);
    assert.equal(jsonDeeperThan('{"a":{"b":{"c":{}}}}', 3), true);
    assert.equal(jsonDeeperThan('{"a":{"b":{"c":1}}}', 3), false);
  });

  it("counts depth, not brackets: many siblings at one level pass", () => {
    const wide = `[${Array.from({ length: 50 }, () => "{}").join(",")}]`;
    assert.equal(jsonDeeperThan(wide, 2), false);
    assert.equal(jsonDeeperThan(`[${wide}]`, 3), false);
    assert.equal(jsonDeeperThan(`[${wide}]`, 2), true);
  });

  it("does not count brackets in strings, escaped quotes included", () => {
    assert.equal(jsonDeeperThan(`{"text":"${"[".repeat(40)}"}`, 2), false);
    assert.equal(jsonDeeperThan(`{"text":"a \\" ${"{".repeat(40)}"}`, 2), false);
    assert.equal(jsonDeeperThan(`{"text":"a \\\\"}${nest(3)}`, 2), true);
  });

  it("answers as reading every character does, for text with few brackets and with many", () => {
    const parts = ["[", "]", "{", "}", '"', "\\", "a", ",", ":"];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 3000; n++) {
      const length = Math.floor(next() * 60);
      const text = Array.from({ length }, () => parts[Math.floor(next() * parts.length)]).join("");
      const max = Math.floor(next() * 6);
      assert.equal(jsonDeeperThan(text, max), deeperByReading(text, max), `${JSON.stringify(text)} max ${max}`);
    }
  });
});
