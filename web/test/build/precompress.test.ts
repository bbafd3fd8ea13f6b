/**
 * The build's precompressed copies (web/build/precompress.ts): a `.br` and a `.gz` beside each
 * text file that decode to it, none for images, none that would not be smaller.
 */
// @vitest-environment node
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterEach, describe, expect, test } from "vitest";
import { precompressDir } from "../../build/precompress.ts";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("precompressDir", () => {
  test("writes Brotli and gzip copies of text files that decode to them, and nothing for images or tiny files", () => {
    dir = mkdtempSync(join(tmpdir(), "collie-precompress-"));
    mkdirSync(join(dir, "assets"));
    const js = `export const a = ${JSON.stringify("word ".repeat(500))};`;
    writeFileSync(join(dir, "assets", "main-1.js"), js);
    writeFileSync(join(dir, "index.html"), `<!doctype html>${"<p>hi</p>".repeat(50)}`);
    writeFileSync(join(dir, "icon.png"), Buffer.alloc(2000, 7));
    writeFileSync(join(dir, "tiny.json"), "{}");
    precompressDir(dir);
    expect(brotliDecompressSync(readFileSync(join(dir, "assets", "main-1.js.br"))).toString()).toBe(js);
    expect(gunzipSync(readFileSync(join(dir, "assets", "main-1.js.gz"))).toString()).toBe(js);
    expect(existsSync(join(dir, "index.html.br"))).toBe(true);
    expect(existsSync(join(dir, "icon.png.br"))).toBe(false);
    expect(existsSync(join(dir, "tiny.json.gz"))).toBe(false);
  });
});
