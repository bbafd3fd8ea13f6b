/**
 * The package as npm would ship it (S-1, S-2, S-3): compiled JS and .d.ts for every entry point,
 * importable by plain Node without the workspace's source condition, published under the
 * `experimental` dist-tag, with its own version named in the code.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { SDK_NAME, SDK_VERSION } from "../src/core/version.ts";

const sdk = join(import.meta.dirname, "..");
const root = join(sdk, "..");
const pkg = JSON.parse(readFileSync(join(sdk, "package.json"), "utf8"));

const ENTRIES: Record<string, string[]> = {
  "@colliepwa/durable-sdk": ["openCollie", "createCore", "askIdFor", "ALL_CAPS", "RECEIPTS_PER_GROUP", "MemoryReceiptStore", "SqliteReceiptStore", "AskClosed", "Refusal", "assertId", "ICONS"],
  "@colliepwa/durable-sdk/core": ["createCore", "MemoryReceiptStore", "SqliteReceiptStore", "askIdFor", "Refusal"],
  "@colliepwa/durable-sdk/wire": ["WIRE_VERSION", "WIRE_ERRORS", "ROUTES", "parseEventsPage", "parseHello", "MESSAGE_CHECKERS"],
  "@colliepwa/durable-sdk/testing": ["connectPhone", "FakePhone"],
  "@colliepwa/durable-sdk/pi": ["piPane", "piHistory", "PI_HARNESS", "PI_HOST_NAME"],
};

describe("the published package (S-1, S-2)", () => {
  before(() => {
    execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(sdk, "tsconfig.build.json")], { stdio: "inherit" });
  });

  it("is named @colliepwa/durable-sdk, publishes under experimental, and needs Node 22.19 or Bun 1.4", () => {
    assert.equal(pkg.name, SDK_NAME);
    assert.equal(pkg.version, SDK_VERSION);
    assert.equal(pkg.publishConfig?.tag, "experimental");
    assert.equal(pkg.engines?.node, ">=22.19");
    assert.equal(pkg.engines?.bun, ">=1.4", "S-3: Node 22.19 or newer, or Bun 1.4 or newer");
  });

  it("exports the root, ./core, ./wire, ./testing and ./pi, each with compiled JS and types", () => {
    for (const name of Object.keys(ENTRIES)) {
      const key = name === SDK_NAME ? "." : `.${name.slice(SDK_NAME.length)}`;
      const entry = pkg.exports[key];
      assert.ok(entry, `exports has ${key}`);
      assert.ok(existsSync(join(sdk, entry.default)), `${entry.default} was built`);
      assert.ok(existsSync(join(sdk, entry.types)), `${entry.types} was built`);
    }
  });

  it("imports every entry point from the compiled JS in plain Node", () => {
    const script = `
      const entries = ${JSON.stringify(ENTRIES)};
      const missing = [];
      for (const [name, names] of Object.entries(entries)) {
        const mod = await import(name);
        for (const n of names) if (!(n in mod)) missing.push(name + ":" + n);
      }
      console.log(JSON.stringify(missing));`;
    // No source condition here: this is how an agent that installed the package resolves it.
    const env = { ...process.env, NODE_OPTIONS: "" };
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, env, encoding: "utf8" });
    assert.deepEqual(JSON.parse(out.trim()), []);
  });
});
