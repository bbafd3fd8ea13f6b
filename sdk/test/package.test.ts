/**
 * S-3: the SDK has zero runtime dependencies. package.json declares none (optional peers of `./pi`
 * excepted), and nothing under sdk/src imports anything but `node:` builtins and relative files
 * inside sdk/src — except sdk/src/pi, which may import exactly those optional peers. Every entry
 * point but `./pi` reaches only `node:` builtins, so an agent that never imports `./pi` needs none.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const SDK = fileURLToPath(new URL("../", import.meta.url));
const SRC = join(SDK, "src");
const PI = join(SRC, "pi");
/** The optional peers `./pi` is built on (S-3, S-35), and the only packages sdk/src/pi may import. */
export const PI_PEERS = ["@mariozechner/pi-agent-core", "@mariozechner/pi-ai", "@mariozechner/pi-coding-agent"];

/** Comments out, strings kept: a doc example such as `import x from "pkg"` in a comment is not an import. */
const COMMENT_OR_STRING = /("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`)|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g;
const stripComments = (source: string): string =>
  source.replace(COMMENT_OR_STRING, (m: string, str: string | undefined) => str ?? ` ${m.replace(/[^\n]/g, "")}`); // keeps line numbers

/** `import … from "x"`, `export … from "x"` (also across lines), `import type …`. */
const STATIC_FROM = /^[ \t]*(?:import|export)\b[^;'"`]*?\bfrom\s*(["'])([^"'\n]*)\1/gm;
/** `import "x"` (side effect only). */
const BARE_IMPORT = /^[ \t]*import\s*(["'])([^"'\n]*)\1/gm;
/** `import(…)` and `require(…)` anywhere; the argument is checked below. */
const DYNAMIC = /(?<![\w$.])(?:import|require)\s*\(\s*([^)]*?)\s*\)/g;

export interface ImportFound {
  specifier: string;
  /** 1-based line of the statement. */
  line: number;
  kind: "static" | "dynamic";
}

/** Every module specifier a source text asks for. A dynamic import of a non-literal is reported as `<computed: …>`. */
export function findImports(source: string): ImportFound[] {
  const code = stripComments(source);
  const lineAt = (index: number) => code.slice(0, index).split("\n").length;
  const found: ImportFound[] = [];
  for (const re of [STATIC_FROM, BARE_IMPORT]) {
    for (const m of code.matchAll(re)) found.push({ specifier: m[2]!, line: lineAt(m.index), kind: "static" });
  }
  for (const m of code.matchAll(DYNAMIC)) {
    const arg = m[1]!;
    const literal = /^(["'`])([^"'`$\\]*)\1$/.exec(arg);
    found.push({ specifier: literal ? literal[2]! : `<computed: ${arg}>`, line: lineAt(m.index), kind: "dynamic" });
  }
  return found.sort((a, b) => a.line - b.line);
}

/** Why a specifier is not allowed in sdk/src, or null. Files under `<srcRoot>/pi` may also import the Pi peers. */
export function importViolation(specifier: string, fromFile: string, srcRoot: string): string | null {
  if (specifier.startsWith("node:")) return isBuiltin(specifier) ? null : `${specifier} is not a Node builtin`;
  const piRoot = join(srcRoot, "pi");
  if (PI_PEERS.includes(specifier) && fromFile.startsWith(piRoot + sep)) return null;
  if (specifier.startsWith("./") || specifier.startsWith("../")) {
    const target = resolve(dirname(fromFile), specifier);
    return target === srcRoot || target.startsWith(srcRoot + sep) ? null : `${specifier} leaves sdk/src (not shipped in dist)`;
  }
  if (isBuiltin(specifier)) return `${specifier}: write builtins as node:${specifier}`;
  return `${specifier} is a package, and the SDK has zero runtime dependencies (S-3)`;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(?:[cm]?ts|[cm]?js|tsx|jsx)$/.test(entry.name) ? [path] : [];
  });
}

/** Every file reached from `entry` through relative imports, and every other specifier they import. */
function importGraph(entry: string): { files: string[]; specifiers: string[] } {
  const files = new Set<string>();
  const specifiers: string[] = [];
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const imp of findImports(readFileSync(file, "utf8"))) {
      if (imp.specifier.startsWith("./") || imp.specifier.startsWith("../")) visit(resolve(dirname(file), imp.specifier));
      else specifiers.push(imp.specifier);
    }
  };
  visit(entry);
  return { files: [...files], specifiers };
}

describe("sdk/package.json (S-3)", () => {
  const pkg = JSON.parse(readFileSync(join(SDK, "package.json"), "utf8")) as Record<string, unknown>;
  const names = (field: string): string[] => Object.keys((pkg[field] ?? {}) as Record<string, unknown>);

  test("has no dependencies", () => {
    assert.deepEqual(names("dependencies"), [], "dependencies must be empty: the SDK has zero runtime dependencies");
  });

  test("has no optional or bundled dependencies either (they install at runtime too)", () => {
    assert.deepEqual(names("optionalDependencies"), []);
    assert.deepEqual([...names("bundleDependencies"), ...names("bundledDependencies")], []);
    for (const field of ["bundleDependencies", "bundledDependencies"]) {
      const v = pkg[field];
      assert.ok(v === undefined || v === false || (Array.isArray(v) && v.length === 0), `${field} must be empty`);
    }
  });

  test("has exactly the Pi packages as peers, for ./pi", () => {
    assert.deepEqual(names("peerDependencies").sort(), [...PI_PEERS].sort());
  });

  test("marks every peer dependency optional", () => {
    const meta = (pkg.peerDependenciesMeta ?? {}) as Record<string, { optional?: unknown }>;
    const required = names("peerDependencies").filter((name) => meta[name]?.optional !== true);
    assert.deepEqual(required, [], "peer dependencies without peerDependenciesMeta[name].optional === true");
  });
});

describe("imports under sdk/src (S-3)", () => {
  const files = sourceFiles(SRC);

  test("there are source files to check", () => {
    assert.ok(files.length > 0, `no source files under ${SRC}`);
    assert.ok(files.some((f) => f.endsWith(join("wire", "index.ts"))));
  });

  test("every import is a node: builtin or a relative path inside sdk/src", () => {
    const bad: string[] = [];
    for (const file of files) {
      for (const imp of findImports(readFileSync(file, "utf8"))) {
        const why = importViolation(imp.specifier, file, SRC);
        if (why) bad.push(`${relative(SDK, file)}:${imp.line}: ${why}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  test("every entry point but ./pi reaches only node: builtins (an agent without Pi installs nothing)", () => {
    const exportsMap = JSON.parse(readFileSync(join(SDK, "package.json"), "utf8")).exports as Record<string, Record<string, string> | string>;
    const entries = Object.entries(exportsMap).filter(([key, v]) => key !== "./pi" && typeof v === "object");
    assert.ok(entries.length >= 4, "the root, ./core, ./wire and ./testing are checked");
    for (const [key, v] of entries) {
      const reached = importGraph(join(SDK, (v as Record<string, string>)["collie-source"]!));
      const packages = reached.specifiers.filter((s) => !s.startsWith("node:"));
      assert.deepEqual(packages, [], `${key} imports packages`);
      assert.deepEqual(reached.files.filter((f) => f.startsWith(PI + sep)), [], `${key} reaches sdk/src/pi`);
    }
  });

  test("./pi imports no package but the Pi peers", () => {
    const reached = importGraph(join(PI, "index.ts"));
    const packages = [...new Set(reached.specifiers.filter((s) => !s.startsWith("node:")))].sort();
    assert.ok(packages.length > 0, "./pi is built on the Pi packages");
    assert.deepEqual(packages.filter((p) => !PI_PEERS.includes(p)), []);
  });

  test("the wire module's files import one another (the scan sees real imports)", () => {
    const found = findImports(readFileSync(join(SRC, "wire", "messages.ts"), "utf8")).map((i) => i.specifier);
    assert.deepEqual([...new Set(found)].sort(), ["./check.ts", "./constants.ts", "./rules.ts", "./types.ts"]);
  });
});

describe("the import scanner itself", () => {
  const specs = (source: string) => findImports(source).map((i) => i.specifier);

  test("finds every form of static import and export", () => {
    const source = [
      'import a from "pkg-a";',
      "import { b } from 'pkg-b';",
      'import * as c from "pkg-c";',
      'import type { D } from "pkg-d";',
      'import e, { f } from "pkg-e";',
      'import "pkg-side-effect";',
      'export { g } from "pkg-g";',
      'export * from "pkg-h";',
      'export * as i from "pkg-i";',
      'export type { J } from "pkg-j";',
      "import {",
      "  k,",
      "  l,",
      '} from "pkg-multiline";',
      'import m from "./m.ts";',
    ].join("\n");
    assert.deepEqual(specs(source), [
      "pkg-a", "pkg-b", "pkg-c", "pkg-d", "pkg-e", "pkg-side-effect", "pkg-g", "pkg-h", "pkg-i", "pkg-j", "pkg-multiline", "./m.ts",
    ]);
  });

  test("finds dynamic import() and require(), and flags a computed specifier", () => {
    const source = 'const a = await import("pkg-a");\nconst b = import(\n  \'pkg-b\'\n);\nconst c = require("pkg-c");\nconst d = await import(name);\nconst e = import(`pkg-${x}`);';
    assert.deepEqual(specs(source), ["pkg-a", "pkg-b", "pkg-c", "<computed: name>", "<computed: `pkg-${x}`>"]);
  });

  test("ignores imports in comments but not code after a string holding //", () => {
    const source = [
      "/**",
      " * import { openCollie } from \"@colliepwa/durable-sdk\";",
      " * await import(\"doc-example\")",
      " */",
      '// import x from "commented-out";',
      'const url = "https://example.com"; import("after-string");',
    ].join("\n");
    assert.deepEqual(specs(source), ["after-string"]);
  });

  test("does not mistake imports-like words in code for imports", () => {
    const source = 'const importer = 1;\nobj.import("x");\nconst s = "from \\"y\\"";\nmyrequire("z");';
    assert.deepEqual(specs(source), []);
  });

  test("judges specifiers: node: builtins and relative files inside src pass, everything else fails", () => {
    const from = join(SRC, "wire", "messages.ts");
    assert.equal(importViolation("node:crypto", from, SRC), null);
    assert.equal(importViolation("node:fs/promises", from, SRC), null);
    assert.equal(importViolation("node:sqlite", from, SRC), null); // prefix-only builtin
    assert.equal(importViolation("./rules.ts", from, SRC), null);
    assert.equal(importViolation("../core/types.ts", from, SRC), null);
    assert.match(importViolation("node:nope", from, SRC)!, /not a Node builtin/);
    assert.match(importViolation("crypto", from, SRC)!, /node:crypto/);
    assert.match(importViolation("fs/promises", from, SRC)!, /node:fs\/promises/);
    assert.match(importViolation("zod", from, SRC)!, /zero runtime dependencies/);
    assert.match(importViolation("@colliepwa/shared", from, SRC)!, /zero runtime dependencies/);
    assert.match(importViolation("../../../server/src/x.ts", from, SRC)!, /leaves sdk\/src/);
    assert.match(importViolation("../../test/fixtures/load.ts", from, SRC)!, /leaves sdk\/src/);
    assert.match(importViolation("<computed: name>", from, SRC)!, /zero runtime dependencies/);
  });

  test("lets only sdk/src/pi import the Pi peers, and nothing else", () => {
    const fromPi = join(SRC, "pi", "pane.ts");
    const fromCore = join(SRC, "core", "core.ts");
    for (const peer of PI_PEERS) {
      assert.equal(importViolation(peer, fromPi, SRC), null);
      assert.match(importViolation(peer, fromCore, SRC)!, /zero runtime dependencies/);
    }
    assert.match(importViolation("@mariozechner/pi-tui", fromPi, SRC)!, /zero runtime dependencies/);
    assert.match(importViolation("zod", fromPi, SRC)!, /zero runtime dependencies/);
    assert.match(importViolation("@mariozechner/pi-ai", join(SRC, "pilot", "x.ts"), SRC)!, /zero runtime dependencies/);
  });
});
