/**
 * The crew journey (C-1, P-2, P-3): two real Collies, each started as a user would. The member runs
 * the example desk; `collie crew invite` on it and `collie crew join` for the lead make the crew. A
 * phone paired with the lead sees the member's section, reads `…, workshop` on line 2, asks the
 * member's desk for a refund; the section floats to the top while the desk waits on the phone; the
 * phone taps Allow, and the member's agent gets the approval the phone decided: the refund runs,
 * and the member's audit log names the lead for the phone's request id.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, expect } from "@playwright/test";
import { STRINGS } from "@colliepwa/shared";
import { startCollie, type CollieServer } from "./collie.ts";
import { chatParts, items, SEEDED, TURN_TIMEOUT } from "./desk.ts";
import { answersPosted, askCard, say } from "./asks.ts";

const root = join(import.meta.dirname, "..");
const KEY = "desk@workshop";

/** Runs the `collie` command line and returns its stdout. */
function collie(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--conditions=collie-source", "--disable-warning=ExperimentalWarning", join(root, "server/src/main.ts"), ...args], { cwd: root }, (err, stdout, stderr) =>
      err ? reject(new Error(`collie ${args[0]} ${args[1]}: ${stderr}`)) : resolve(stdout));
  });
}

let member: CollieServer;
let lead: CollieServer;
let dir: string;

test.beforeAll(async () => {
  member = await startCollie();
  const { invite } = JSON.parse(await collie(["crew", "invite", "--state-dir", member.stateDir, "--url", member.url, "--json"])) as { invite: string };
  dir = mkdtempSync(join(tmpdir(), "collie-e2e-crew-"));
  const sources = join(dir, "sources.json");
  writeFileSync(sources, JSON.stringify({ durable: [] }));
  await collie(["crew", "join", "workshop", member.url, invite, "--sources", sources, "--state-dir", dir]);
  lead = await startCollie({ sources });
});

test.afterAll(async () => {
  await lead?.stop();
  await member?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test.use({ viewport: { width: 360, height: 740 } });

test("a phone paired with the lead answers the member's ask: the section floats, line 2 names the member, Allow reaches its agent", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: lead.url });
  const page = await context.newPage();
  await page.goto(await lead.pairLink());
  await page.getByRole("button", { name: "Pair" }).click();
  await expect(page.getByRole("heading", { name: "Collie", level: 1 })).toBeVisible();

  // The member's section, titled with its name; the desk's row names the member on line 2.
  const section = page.locator('section.durable-section[data-machine="workshop"]');
  await expect(section.getByRole("heading", { name: "workshop" })).toBeVisible();
  const row = section.locator(`[data-agent="${KEY}"]`);
  await expect(row.locator(".row-title")).toHaveText("desk");
  await expect(row.locator(".row-line2")).toHaveText(/, local, workshop$/);
  await expect(row).not.toContainText(STRINGS.starting);
  await expect(section).toHaveAttribute("data-floats", "false");

  // Ask the member's desk for a refund from the lead's phone: it raises a permission ask.
  const { pane, title, intro } = SEEDED.maria;
  await page.goto(`/#/agent/${encodeURIComponent(KEY)}/pane/${encodeURIComponent(pane)}`);
  const chat = chatParts(page);
  await expect(chat.title).toContainText(title);
  await expect(chat.log).toContainText(intro);
  await say(page, "The parcel never came. Can she get a refund?");
  await expect(askCard(page, "refund wants to run")).toBeVisible({ timeout: TURN_TIMEOUT });

  // On the dashboard the member's section rises above the Spaces while the desk waits on the phone.
  await page.goto("/");
  await expect(section).toHaveAttribute("data-floats", "true");
  const above = await page.evaluate(() => {
    const s = document.querySelector('section.durable-section[data-machine="workshop"]');
    const spaces = document.querySelector("section.spaces");
    return !!s && !!spaces && (s.compareDocumentPosition(spaces) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
  });
  expect(above).toBe(true);
  await expect(row.locator(".count.accent")).toHaveText("1");

  // Tap through to the card and Allow.
  await row.click();
  await page.locator(`[data-pane="${pane}"]`).click();
  const posted = answersPosted(page);
  const card = askCard(page, "refund wants to run");
  await expect(card).toBeVisible();
  await card.getByRole("button", { name: STRINGS.allow, exact: true }).click();
  await expect(card).toHaveCount(0);
  expect(posted).toHaveLength(1);

  // The member's agent got the approval: the refund ran, and the member's log names the lead for
  // the phone's own request id.
  const refund = items(page, "tool").filter({ hasText: 'refund(order: "5521", amount: 40)' });
  await expect(refund.locator("[data-status]")).toHaveAttribute("data-status", "done", { timeout: TURN_TIMEOUT });
  const audit = readFileSync(join(member.stateDir, "audit.log"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, string>);
  const line = audit.find((e) => e.requestId === posted[0]!.requestId);
  expect(line?.action).toBe("answer");
  expect(line?.device).toMatch(/^crew lead /);

  // Answered: the section goes back down.
  await page.goto("/");
  await expect(section).toHaveAttribute("data-floats", "false");
  await context.close();
});
