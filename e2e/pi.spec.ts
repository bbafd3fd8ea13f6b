/**
 * A Pi agent on the phone (S-35): the real daemon attaches the Pi example (sdk/examples/pi-agent, a
 * real Pi `Agent` on pi-ai's faux provider) through sources.json. The phone opens its session, sends
 * a message, gets the `bash` card right under the tool's line, taps Allow, and sees the command's
 * output and Pi's reply.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { STRINGS } from "@colliepwa/shared";
import { startCollie, type CollieServer } from "./collie.ts";
import { expect, test as base } from "./fixtures.ts";
import { askCard, say } from "./asks.ts";
import { chatParts, items, TURN_TIMEOUT } from "./desk.ts";

const AGENT = "pi";
const root = join(import.meta.dirname, "..");

interface PiExample {
  sources: string;
  dir: string;
  child: ChildProcess;
}

/** Starts the example as its README says, on a socket of its own, and names it in a sources.json. */
async function startPiExample(): Promise<PiExample> {
  const dir = mkdtempSync(join(tmpdir(), "collie-pi-e2e-"));
  const socket = join(dir, "run", "pi.sock");
  const work = join(dir, "work");
  mkdirSync(work);
  const child = spawn(process.execPath, [
    "--conditions=collie-source", "--disable-warning=ExperimentalWarning", join(root, "sdk/examples/pi-agent/main.ts"),
    "--socket", socket, "--cwd", work, "--sessions", join(dir, "sessions"),
  ], { cwd: root, env: { ...process.env, PI_PROVIDER: "" }, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the Pi example exited (${code}) before it was ready`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.includes('"ready":true')) resolve();
    });
  });
  const sources = join(dir, "sources.json");
  writeFileSync(sources, JSON.stringify({ durable: [{ name: AGENT, socket }] }), { mode: 0o600 });
  return { sources, dir, child };
}

const test = base.extend<object, { collie: CollieServer; pi: PiExample }>({
  pi: [
    async ({}, use) => {
      const pi = await startPiExample();
      await use(pi);
      const exited = new Promise((r) => pi.child.once("exit", r));
      pi.child.kill("SIGTERM");
      await exited;
      rmSync(pi.dir, { recursive: true, force: true });
    },
    { scope: "worker" },
  ],
  collie: [
    async ({ pi }, use) => {
      const collie = await startCollie({ sources: pi.sources });
      await use(collie);
      await collie.stop();
    },
    { scope: "worker" },
  ],
});

test.use({ viewport: { width: 360, height: 740 } });

test("the phone runs a Pi session: a message, the bash card under its line, Allow, the output and the reply", async ({ page, shot }) => {
  // The dashboard: the Pi agent names itself pi-durable (P-2).
  await page.goto("/");
  const row = page.locator(`[data-agent="${AGENT}"]`);
  await expect(row).toContainText("pi-durable, local");
  await expect(row).not.toContainText("Starting");
  await page.getByRole("link", { name: /^pi Experimental/ }).click();

  // Its one session, opened from the agent's home.
  const open = page.getByRole("list", { name: "Open conversations" });
  await open.getByRole("link", { name: /New session/ }).click();
  await expect(page).toHaveURL(new RegExp(`#/agent/${AGENT}/pane/`));
  const chat = chatParts(page);
  await expect(chat.title).toContainText("New session");

  await say(page, "run echo hello from pi");

  // The card sits right under the bash call it concerns (P-9).
  const title = "bash wants to run";
  const card = askCard(page, title);
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });
  // The call is on the tool line right above the card, so the card does not repeat it.
  await expect(card.locator(".ask-call")).toHaveCount(0);
  const bash = items(page, "tool").filter({ hasText: 'bash(command: "echo hello from pi")' });
  await expect(bash.locator("[data-status]")).toHaveAttribute("data-status", "running");
  const itemId = await bash.getAttribute("data-item-id");
  await expect(chat.log.locator(`[data-item-id="${itemId}"] + .ask-slot`).getByRole("region", { name: title })).toBeVisible();
  await expect(card.getByRole("button", { name: STRINGS.allow, exact: true })).toBeVisible();
  await shot("pi-card");

  await card.getByRole("button", { name: STRINGS.allow, exact: true }).click();
  await expect(card).toHaveCount(0);
  // Pi ran the command once Allow landed: its output on the tool's line, then the reply.
  await expect(bash.locator("[data-status]")).toHaveAttribute("data-status", "done", { timeout: TURN_TIMEOUT });
  await expect(bash).toContainText("hello from pi");
  await expect(items(page, "reply").filter({ hasText: "bash returned:" })).toContainText("hello from pi", { timeout: TURN_TIMEOUT });
  // The session is named by its first message, on the phone as in the history.
  await expect(chat.title).toContainText("run echo hello from pi");
  await expect(chat.stop).toBeDisabled({ timeout: TURN_TIMEOUT });
  await shot("pi-done");
});
