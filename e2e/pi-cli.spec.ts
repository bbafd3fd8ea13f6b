/**
 * Issue 29, as a Pi user lives it, at phone size: Collie runs (`collie serve`), Collie's extension
 * is installed into Pi with the one command docs/pi.md gives (`pi install <path>`), and the real
 * `pi` runs interactive in a terminal (a tmux pane: its TUI needs a TTY) against the scripted model
 * on loopback. On the phone: the session appears; a message from the phone reaches Pi; the bash
 * card; Allow runs it and its output shows; Deny blocks it; Stop aborts a turn; quitting `pi` ends
 * the conversation and its history reads on; killing Collie mid-turn does not hang `pi`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { STRINGS } from "@colliepwa/shared";
import { startScriptedModel, type ScriptedModel } from "../sdk/test/helpers/scripted-model.ts";
import { startCollie, type CollieServer } from "./collie.ts";
import { expect, test as base } from "./fixtures.ts";
import { askCard, say } from "./asks.ts";
import { chatParts, items } from "./desk.ts";
import { installExtension, PiTerminal } from "./pi-terminal.ts";

/** Pi takes seconds to start on a busy machine; a phone waits on it this long. */
const PI_START = 150_000;
const TURN = 60_000;

interface PiWorld {
  dir: string;
  model: ScriptedModel;
  agentDir: string;
  sources: string;
}

const test = base.extend<object, { world: PiWorld; collie: CollieServer }>({
  world: [
    async ({}, use) => {
      const dir = mkdtempSync(join(tmpdir(), "collie-pi-cli-"));
      const model = await startScriptedModel();
      const agentDir = join(dir, "agent");
      model.agentDir(agentDir);
      // Collie with a sources.json of its own agents (none): the Pi desk needs no entry in it.
      const sources = join(dir, "sources.json");
      writeFileSync(sources, JSON.stringify({ durable: [] }), { mode: 0o600 });
      installExtension({ PI_CODING_AGENT_DIR: agentDir });
      await use({ dir, model, agentDir, sources });
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
    { scope: "worker" },
  ],
  collie: [
    async ({ world }, use) => {
      // The desk Collie starts lists Pi's saved sessions from Pi's folder, as a user's would.
      const collie = await startCollie({ sources: world.sources, env: { PI_CODING_AGENT_DIR: world.agentDir } });
      await use(collie);
      await collie.stop();
    },
    { scope: "worker" },
  ],
});

test.use({ viewport: { width: 360, height: 740 } });

function terminal(world: PiWorld, collie: CollieServer, name: string): { pi: PiTerminal; cwd: string; start: () => Promise<void> } {
  const cwd = join(world.dir, name);
  mkdirSync(cwd, { recursive: true });
  const pi = new PiTerminal();
  return { pi, cwd, start: () => pi.start({ cwd, env: { PI_CODING_AGENT_DIR: world.agentDir, COLLIE_STATE_DIR: collie.stateDir } }) };
}

test("a running pi on the phone: its session, a message from the phone, the bash card, Allow, Deny, Stop, quitting, and Collie killed mid-turn", async ({ page, world, collie, shot }) => {
  test.setTimeout(900_000);
  const first = terminal(world, collie, "widget");
  try {
    await first.start();
    await first.pi.waitFor(/scripted/);

    // A session appears: the agent `pi` on the dashboard (P-2), its conversation named by the folder.
    await page.goto("/");
    const row = page.locator('[data-agent="pi"]');
    await expect(row).toContainText("pi-durable, local", { timeout: PI_START });
    await shot("pi-cli-dashboard");
    await page.getByRole("link", { name: /^pi Experimental/ }).click();
    const open = page.getByRole("list", { name: "Open conversations" });
    await expect(open.getByRole("link", { name: /widget/ })).toBeVisible({ timeout: PI_START });
    await open.getByRole("link", { name: /widget/ }).click();
    const chat = chatParts(page);
    await expect(chat.title).toContainText("widget");

    // A message from the phone reaches Pi: the scripted model runs bash with it, which asks first.
    await say(page, "run echo hello from the phone");
    const card = askCard(page, "bash wants to run");
    await expect(card).toBeVisible({ timeout: TURN });
    const bash = items(page, "tool").filter({ hasText: 'bash(command: "echo hello from the phone")' });
    await expect(bash.locator("[data-status]")).toHaveAttribute("data-status", "running");
    // The terminal asks the same question: whichever answers first wins.
    await first.pi.waitFor(/bash wants to run/);
    await shot("pi-cli-card");

    // Allow runs it, and its output shows on the tool's line and in Pi's reply.
    await card.getByRole("button", { name: STRINGS.allow, exact: true }).click();
    await expect(card).toHaveCount(0);
    await expect(bash.locator("[data-status]")).toHaveAttribute("data-status", "done", { timeout: TURN });
    await expect(bash).toContainText("hello from the phone");
    await expect(items(page, "reply").filter({ hasText: "Output: hello from the phone" })).toBeVisible({ timeout: TURN });
    await first.pi.waitFor(/Output: hello from the phone/);
    await expect(chat.title).toContainText("run echo hello from the phone", { timeout: TURN });

    // Deny blocks it: nothing runs, Pi is told, the line says denied.
    await say(page, "run touch denied.txt");
    const second = askCard(page, "bash wants to run");
    await expect(second).toBeVisible({ timeout: TURN });
    await second.getByRole("button", { name: STRINGS.deny, exact: true }).click();
    const touch = items(page, "tool").filter({ hasText: 'bash(command: "touch denied.txt")' });
    await expect(touch.locator("[data-status]")).toHaveAttribute("data-status", "denied", { timeout: TURN });
    await expect(items(page, "reply").filter({ hasText: "Refused: bash was not run: the user refused it on the phone." })).toBeVisible({ timeout: TURN });
    await shot("pi-cli-denied");

    // Stop aborts a turn.
    await say(page, "slow 300");
    await expect(items(page, "reply").filter({ hasText: "tick 2" })).toBeVisible({ timeout: TURN });
    await chat.stop.click();
    await expect(items(page, "notice").filter({ hasText: "stopped" })).toBeVisible({ timeout: TURN });
    await expect(chat.stop).toBeDisabled({ timeout: TURN });
    await first.pi.waitFor(/Operation aborted|aborted/i);
    await shot("pi-cli-stopped");

    // Quitting pi ends the conversation; its history reads on under Closed.
    await first.pi.keys("C-d");
    await expect.poll(() => first.pi.alive(), { timeout: TURN }).toBe(false);
    await page.goto("/#/agent/pi");
    await expect(open.getByRole("link", { name: /run echo hello from the phone/ })).toHaveCount(0, { timeout: TURN });
    const closedSection = page.getByRole("region", { name: STRINGS.closed });
    const closedRow = closedSection.getByRole("link", { name: /run echo hello from the phone/ });
    await expect(closedRow).toBeVisible({ timeout: TURN });
    await closedRow.click();
    await expect(page.getByRole("main")).toContainText("hello from the phone", { timeout: TURN });
    await expect(page.getByRole("main")).toContainText("Output: hello from the phone");
    await shot("pi-cli-history");
  } finally {
    await first.pi.close();
  }

  // Killing Collie mid-turn does not hang pi: the turn runs to its end, pi says so once, and goes on.
  const other = terminal(world, collie, "outlive");
  try {
    await other.start();
    await page.goto("/#/agent/pi");
    await expect(page.getByRole("list", { name: "Open conversations" }).getByRole("link", { name: /outlive/ })).toBeVisible({ timeout: PI_START });
    await other.pi.type("slow 15");
    await other.pi.waitFor(/tick 1/, TURN);
    await collie.kill();
    await other.pi.waitFor(/Done slowly\./, TURN);
    await other.pi.waitFor(/Collie went away/, TURN);
    await other.pi.type("run echo still working");
    const screen = await other.pi.waitFor(/Output: still working/, TURN);
    expect(screen.match(/Collie went away/g)?.length).toBe(1);
    expect(screen).not.toMatch(/bash wants to run/);
  } finally {
    await other.pi.close();
    await collie.start(); // the worker's Collie, for its own teardown
  }
});
