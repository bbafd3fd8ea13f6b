/**
 * agent text is data, never markup. React's text children escape by construction; these are
 * the ways around that, and the PWA's source uses none of them. (The browser journey
 * e2e/xss.spec.ts shows hostile text on every screen; this keeps a new sink from creeping in.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "..", "src");

const SINKS: [string, RegExp][] = [
  ["dangerouslySetInnerHTML", /dangerouslySetInnerHTML/],
  ["innerHTML / outerHTML", /\.(inner|outer)HTML\b/],
  ["insertAdjacentHTML", /insertAdjacentHTML/],
  ["document.write", /document\.write/],
  ["createContextualFragment", /createContextualFragment/],
  ["DOMParser", /\bDOMParser\b/],
  ["eval / new Function", /\beval\s*\(|new\s+Function\s*\(/],
  ["string timers", /set(Timeout|Interval)\(\s*["'`]/],
  ["javascript: URLs", /["'`]javascript:/i],
];

/** Doc comments may name a sink to say it is not used. */
const isComment = (line: string): boolean => /^\s*(\*|\/\/|\/\*)/.test(line);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(e.name) ? [path] : [];
  });
}

describe("the PWA's source has no HTML sinks (X-2)", () => {
  const files = sourceFiles(SRC);

  it("reads the whole source tree", () => {
    expect(files.length).toBeGreaterThan(40);
    expect(files.some((f) => f.endsWith("markdown.tsx"))).toBe(true);
  });

  it.each(SINKS)("no %s", (_name, pattern) => {
    const found = files.flatMap((f) =>
      readFileSync(f, "utf8").split("\n").flatMap((line, i) => (!isComment(line) && pattern.test(line) ? [`${relative(SRC, f)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
