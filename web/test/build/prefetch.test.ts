/**
 * The files index.html names for the browser to fetch ahead (web/build/prefetch.ts): every chunk
 * the entry does not load at start and its CSS, and nothing the entry loads already.
 */
// @vitest-environment node
import { describe, expect, test } from "vitest";
import { laterFiles, type ChunkInfo } from "../../build/prefetch.ts";

const chunk = (fileName: string, over: Partial<ChunkInfo> = {}): ChunkInfo => ({ type: "chunk", fileName, imports: [], viteMetadata: { importedCss: new Set() }, ...over });

describe("laterFiles", () => {
  test("names the chunks of screens loaded on demand and their CSS, not the entry, its imports or their CSS", () => {
    const bundle: Record<string, ChunkInfo> = {
      "assets/main.js": chunk("assets/main.js", { isEntry: true, imports: ["assets/shared.js"], viteMetadata: { importedCss: new Set(["assets/main.css"]) } }),
      "assets/shared.js": chunk("assets/shared.js", { viteMetadata: { importedCss: new Set(["assets/shared.css"]) } }),
      "assets/Chat.js": chunk("assets/Chat.js", { imports: ["assets/shared.js", "assets/chat.js"], viteMetadata: { importedCss: new Set(["assets/Chat.css", "assets/shared.css"]) } }),
      "assets/chat.js": chunk("assets/chat.js"),
      "assets/main.css": { type: "asset", fileName: "assets/main.css" },
      "assets/Chat.css": { type: "asset", fileName: "assets/Chat.css" },
    };
    expect(laterFiles(bundle)).toEqual(["assets/Chat.css", "assets/Chat.js", "assets/chat.js"]);
  });

  test("a bundle with nothing loaded on demand names nothing", () => {
    expect(laterFiles({ "assets/main.js": chunk("assets/main.js", { isEntry: true }) })).toEqual([]);
  });
});
