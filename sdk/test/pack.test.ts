/**
 * The packed SDK in a project of its own (S-2, S-3, S-35): `npm pack`, then `npm install` of the
 * tarball in a scratch folder. With only the Pi packages beside it, `@colliepwa/durable-sdk/pi`
 * resolves to the compiled `dist/pi` and runs a Pi agent; without them, the root entry still works
 * (they are optional peers) and `./pi` says what is missing.
 *
 * The install needs the npm cache or the registry. When neither can serve it, the test is skipped
 * and says why; every other failure fails it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { removeTempDirs, tempDir } from "./helpers/temp-dirs.ts";

const sdk = join(import.meta.dirname, "..");
const root = join(sdk, "..");
const PEERS = ["@mariozechner/pi-agent-core", "@mariozechner/pi-ai", "@mariozechner/pi-coding-agent"];
const npmNextToNode = join(dirname(process.execPath), "npm");
const NPM = existsSync(npmNextToNode) ? npmNextToNode : "npm";
/** No source condition, no workspace: how an agent that installed the package runs. */
const plainEnv = { ...process.env, NODE_OPTIONS: "" };

/** The version of a peer the workspace installed, so the scratch project gets the one the tests ran against. */
const installed = (name: string): string => JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")).version;

function npmInstall(cwd: string, specs: string[]): { ok: true } | { ok: false; why: string } {
  const r = spawnSync(NPM, ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", ...specs], {
    cwd, env: plainEnv, encoding: "utf8", timeout: 8 * 60_000,
  });
  if (r.status === 0) return { ok: true };
  return { ok: false, why: (r.error?.message ?? `${r.stderr}`.trim().split("\n").slice(-3).join(" ")) || `npm exited ${r.status}` };
}

/** Whether npm failed for want of the package itself (no network and not in the cache), not for our package. */
const unreachable = (why: string) => /ENOTFOUND|ECONNREFUSED|EAI_AGAIN|ETIMEDOUT|ENOTCACHED|ENETUNREACH|network|offline|timed out|socket hang up/i.test(why);

function scratch(name: string): string {
  const dir = tempDir("collie-pack-");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0", private: true, type: "module" }));
  return dir;
}

function runIn(cwd: string, script: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd, env: plainEnv, encoding: "utf8", timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("npm pack of the SDK in a scratch project (S-3, S-35)", () => {
  let tarball: string;

  before(() => {
    const out = tempDir("collie-tgz-");
    // prepack builds dist/ first, as a publish would.
    const packed = JSON.parse(execFileSync(NPM, ["pack", "--json", "--pack-destination", out], { cwd: sdk, env: plainEnv, encoding: "utf8" })) as { filename: string }[];
    tarball = join(out, packed[0]!.filename);
  });
  after(removeTempDirs);

  it("ships dist/pi and declares the Pi packages as optional peers", () => {
    const listed = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n");
    assert.ok(listed.includes("package/dist/pi/index.js"));
    assert.ok(listed.includes("package/dist/pi/index.d.ts"));
    assert.ok(!listed.some((f) => f.startsWith("package/src/")), "sources are not shipped");
    const pkg = JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" }));
    assert.deepEqual(Object.keys(pkg.peerDependencies).sort(), PEERS);
    for (const peer of PEERS) assert.equal(pkg.peerDependenciesMeta[peer].optional, true);
    assert.equal(pkg.dependencies, undefined);
  });

  it("resolves @colliepwa/durable-sdk/pi with only the Pi packages installed, and runs a Pi agent on it", (t) => {
    const dir = scratch("pi-scratch");
    const installedPeers = npmInstall(dir, [tarball, ...PEERS.map((p) => `${p}@${installed(p)}`)]);
    if (!installedPeers.ok) {
      if (!unreachable(installedPeers.why)) assert.fail(`npm install failed: ${installedPeers.why}`);
      console.log(`# skipped: the Pi packages could not be installed offline or from the registry (${installedPeers.why})`);
      t.skip(`the Pi packages could not be installed: ${installedPeers.why}`);
      return;
    }
    const deps = readdirSync(join(dir, "node_modules", "@colliepwa"));
    assert.deepEqual(deps, ["durable-sdk"], "the SDK came from the tarball, nothing else of ours");
    // `pi install npm:@colliepwa/durable-sdk` reads this manifest (docs/pi.md): its extension is in the tarball.
    const installedSdk = join(dir, "node_modules", "@colliepwa", "durable-sdk");
    const manifest = (JSON.parse(readFileSync(join(installedSdk, "package.json"), "utf8")) as { pi?: { extensions?: string[] } }).pi;
    assert.deepEqual(manifest?.extensions, ["./dist/pi/extension.js"]);
    assert.ok(existsSync(join(installedSdk, "dist", "pi", "extension.js")), "the pi extension ships compiled");

    // A whole round: a real Agent on the faux provider, its pane read by the packed fake phone.
    const run = runIn(dir, `
      import { mkdtempSync } from "node:fs";
      import { tmpdir } from "node:os";
      import { join } from "node:path";
      import { Agent } from "@mariozechner/pi-agent-core";
      import { fauxAssistantMessage, registerFauxProvider } from "@mariozechner/pi-ai";
      import { openCollie } from "@colliepwa/durable-sdk";
      import { connectPhone } from "@colliepwa/durable-sdk/testing";
      import { piHistory, piPane, PI_HARNESS, PI_HOST_NAME } from "@colliepwa/durable-sdk/pi";
      const faux = registerFauxProvider();
      faux.setResponses([fauxAssistantMessage("Hello from the packed SDK.")]);
      const agent = new Agent({ initialState: { systemPrompt: "", model: faux.getModel(), tools: [] } });
      const dir = mkdtempSync(join(tmpdir(), "collie-packed-"));
      const collie = await openCollie({ socket: join(dir, "a.sock"), hostName: PI_HOST_NAME, descendantCheck: false });
      const pane = piPane(collie.workspace("pi").tab("sessions"), agent, { id: "s-1" });
      collie.history(piHistory({ cwd: dir, sessionDir: join(dir, "sessions") }));
      collie.ready();
      const phone = connectPhone(collie.socketPath);
      await phone.send("s-1", "Hi", { requestId: "r-1" });
      await agent.waitForIdle();
      const view = await phone.pane("s-1");
      console.log(JSON.stringify({
        resolved: import.meta.resolve("@colliepwa/durable-sdk/pi"),
        harness: view.pane.harness, name: (await phone.hello()).name,
        items: view.items.map((i) => i.kind + ":" + i.text), history: (await phone.history()).status,
      }));
      phone.disconnect();
      await collie.close();`);
    assert.equal(run.status, 0, run.stderr);
    const seen = JSON.parse(run.stdout.trim());
    assert.match(seen.resolved, /\/node_modules\/@colliepwa\/durable-sdk\/dist\/pi\/index\.js$/);
    assert.equal(seen.harness, "pi");
    assert.equal(seen.name, "pi-durable");
    assert.deepEqual(seen.items, ["user:Hi", "reply:Hello from the packed SDK."]);
    assert.equal(seen.history, 200);
  });

  it("installs nothing else without Pi: the root entry works, ./pi names what is missing when used", (t) => {
    const dir = scratch("plain-scratch");
    const plain = npmInstall(dir, [tarball]);
    if (!plain.ok) {
      if (!unreachable(plain.why)) assert.fail(`npm install failed: ${plain.why}`);
      console.log(`# skipped: the tarball could not be installed (${plain.why})`);
      t.skip(plain.why);
      return;
    }
    assert.deepEqual(readdirSync(join(dir, "node_modules")).filter((n) => !n.startsWith(".")), ["@colliepwa"], "no Pi package (optional peers) and no dependency");
    const root = runIn(dir, `const m = await import("@colliepwa/durable-sdk"); console.log(typeof m.openCollie, typeof m.requireApproval);`);
    assert.equal(root.status, 0, root.stderr);
    assert.equal(root.stdout.trim(), "function function");
    // ./pi itself loads no Pi code until it needs it; then the error names the package to install.
    const pi = runIn(dir, `const { piHistory } = await import("@colliepwa/durable-sdk/pi"); await piHistory({ cwd: process.cwd() }).list({ limit: 1 });`);
    assert.notEqual(pi.status, 0);
    assert.match(pi.stderr, /Cannot find package '@mariozechner\/pi-coding-agent'/);
  });
});
