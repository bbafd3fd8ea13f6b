/**
 * The crew journey (C-1, P-2, P-3), two real Collies, each started as a user would:
 * - the lead runs `npm start`'s way, with no sources.json (the bundled example desk); the member
 *   runs the same desk as its user's own agent. `collie crew invite` on the member, `collie crew
 *   join` for the lead: the join writes the lead's first sources.json, keeps the lead's example in
 *   it and applies live (issue #37 item 0), and says so;
 * - the lead's phone shows a Durable agents section per machine, the member's named with the
 *   machine; two agents named `desk` on two machines are told apart by their homes' headers; the
 *   member's card names `desk`, never `desk@workshop` (issue #34 item 4, #37 item 15);
 * - an ask on the member floats its section; Allow reaches the member's agent, and the member's
 *   audit log names the lead for the phone's request id;
 * - the member's agent down: an answer is held on the member; the lead's phone hears of it at once,
 *   naming the phone that answered (#37 item 13); the member machine down: its section says
 *   `workshop is offline` and stays up with the pending answer (#37 item 14), also under "Show only
 *   what needs you"; back, the answer is delivered once and the section goes back down.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect, type Page } from "@playwright/test";
import { STRINGS } from "@colliepwa/shared";
import { startCollie, type CollieServer } from "./collie.ts";
import { chatParts, items, SEEDED, TURN_TIMEOUT } from "./desk.ts";
import { answersPosted, askCard, liveNews, say } from "./asks.ts";
import { watchActs } from "./acts.ts";

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
let joined: string;

test.beforeAll(async () => {
  member = await startCollie({ ownAgent: true });
  lead = await startCollie();
  const { invite } = JSON.parse(await collie(["crew", "invite", "--state-dir", member.stateDir, "--url", member.url, "--json"])) as { invite: string };
  joined = await collie(["crew", "join", "workshop", member.url, invite, "--sources", lead.sources, "--state-dir", lead.stateDir]);
});

test.afterAll(async () => {
  await lead?.stop();
  await member?.stop();
});

test.use({ viewport: { width: 390, height: 844 } });

async function pairWithLead(page: Page) {
  await page.goto(await lead.pairLink());
  await page.getByRole("button", { name: "Pair" }).click();
  await expect(page.getByRole("heading", { name: "Collie", level: 1 })).toBeVisible();
}

const memberSection = (page: Page) => page.locator('section.durable-section[data-machine="workshop"]');
const leadSection = (page: Page) => page.locator('section.durable-section[data-machine=""]');

test("crew join under a lead running the example keeps the example, applies live and says so; a section per machine names it", async ({ browser }) => {
  // The command said what happens, and wrote the example into the lead's first sources.json.
  expect(joined).toContain(`collie: added crew member workshop in ${lead.sources}; its agents show on this Collie's phone`);
  expect(joined).toContain(`collie: the running Collie applies it now, and keeps showing the bundled example "desk"`);
  const file = JSON.parse(readFileSync(lead.sources, "utf8")) as { durable: { name: string; socket: string }[]; crew: { name: string }[] };
  expect(file.durable).toEqual([{ name: "desk", socket: join(lead.stateDir, "example", "desk.sock") }]);
  expect(file.crew.map((m) => m.name)).toEqual(["workshop"]);

  const context = await browser.newContext({ baseURL: lead.url });
  const page = await context.newPage();
  watchActs(page);
  await pairWithLead(page);
  // Live, with no restart: the lead's own desk and the member's, each in a Durable agents section.
  await expect(leadSection(page).getByRole("heading", { name: "Durable agents", exact: true })).toBeVisible();
  await expect(leadSection(page).locator('[data-agent="desk"] .row-title')).toHaveText("desk");
  await expect(memberSection(page).getByRole("heading", { name: "Durable agents on workshop", exact: true })).toBeVisible();
  const row = memberSection(page).locator(`[data-agent="${KEY}"]`);
  await expect(row.locator(".row-title")).toHaveText("desk");
  await expect(row.locator(".row-line2")).toHaveText(/, local, workshop$/);
  await expect(row).not.toContainText(STRINGS.starting);

  // Two `desk`s on two machines: the member's home names its machine; the lead's names none.
  await row.click();
  await expect(page.locator(".home-line2")).toHaveText("workshop");
  await page.goBack();
  await leadSection(page).locator('[data-agent="desk"]').click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("desk");
  await expect(page.locator(".home-line2")).toHaveCount(0);
  await context.close();
});

test("an ask on the member: the section floats, the card names desk, Allow reaches its agent", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: lead.url });
  const page = await context.newPage();
  watchActs(page);
  await pairWithLead(page);
  const section = memberSection(page);
  const row = section.locator(`[data-agent="${KEY}"]`);
  await expect(row).not.toContainText(STRINGS.starting);
  await expect(section).toHaveAttribute("data-floats", "false");

  const { pane, title, intro } = SEEDED.maria;
  await page.goto(`/#/agent/${encodeURIComponent(KEY)}/pane/${encodeURIComponent(pane)}`);
  const chat = chatParts(page);
  await expect(chat.title).toContainText(title);
  await expect(chat.log).toContainText(intro);
  await say(page, "The parcel never came. Can she get a refund?");
  const card = askCard(page, "refund wants to run");
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });
  // The agent as the dashboard names it, never the crew key (C-1).
  await expect(card.locator(".ask-caption")).toHaveText(STRINGS.needsYourAnswer("desk"));

  await page.goto("/");
  await expect(section).toHaveAttribute("data-floats", "true");
  const above = await page.evaluate(() => {
    const s = document.querySelector('section.durable-section[data-machine="workshop"]');
    const spaces = document.querySelector("section.spaces");
    return !!s && !!spaces && (s.compareDocumentPosition(spaces) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
  });
  expect(above).toBe(true);
  await expect(row.locator(".count.accent")).toHaveText("1");

  await row.click();
  await page.locator(`[data-pane="${pane}"]`).click();
  const posted = answersPosted(page);
  await expect(card).toBeVisible();
  await card.getByRole("button", { name: STRINGS.allow, exact: true }).click();
  await expect(card).toHaveCount(0);
  expect(posted).toHaveLength(1);

  const refund = items(page, "tool").filter({ hasText: 'refund(order: "5521", amount: 40)' });
  await expect(refund.locator("[data-status]")).toHaveAttribute("data-status", "done", { timeout: TURN_TIMEOUT });
  // An answer given on the phone leaves no line (P-16).
  await expect(chat.log.locator(".decision-line")).toHaveCount(0);
  const audit = readFileSync(join(member.stateDir, "audit.log"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, string>);
  const line = audit.find((e) => e.requestId === posted[0]!.requestId);
  expect(line?.action).toBe("answer");
  expect(line?.device).toMatch(/^crew lead /);

  await page.goto("/");
  await expect(section).toHaveAttribute("data-floats", "false");
  await context.close();
});

test("the member's agent and then the member go down: the answer is held, named by the phone, and the section says the machine is offline", async ({ browser }) => {
  test.setTimeout(150_000);
  const context = await browser.newContext({ baseURL: lead.url });
  const page = await context.newPage();
  watchActs(page);
  const news = liveNews(page);
  await pairWithLead(page);
  const section = memberSection(page);
  await expect(section.locator(`[data-agent="${KEY}"]`)).not.toContainText(STRINGS.starting);

  const { pane, title, intro } = SEEDED.jonas;
  await page.goto(`/#/agent/${encodeURIComponent(KEY)}/pane/${encodeURIComponent(pane)}`);
  const chat = chatParts(page);
  await expect(chat.title).toContainText(title);
  await expect(chat.log).toContainText(intro);
  await say(page, "He sent the jacket back, please refund it");
  const card = askCard(page, "refund wants to run");
  await expect(card).toBeVisible({ timeout: TURN_TIMEOUT });

  // The member's agent goes down; Allow is held on the member, and the lead's phone hears of the
  // held answer at once, naming this phone, not the lead machine.
  await member.killAgent();
  await expect(page.locator("[data-away]")).toBeVisible({ timeout: 30_000 });
  await card.getByRole("button", { name: STRINGS.allow, exact: true }).click();
  await expect(card).toHaveAttribute("data-phase", "held");
  await expect.poll(() => news.filter((m) => m.type === "decision").map((m) => {
    const d = m.decision as { held?: boolean; device: string; paneId: string };
    return [m.agent, d.paneId, d.held, d.device];
  })).toContainEqual([KEY, pane, true, "Phone"]);

  // The member machine goes down: its section says so, and stays up where the answer waits, also
  // with "Show only what needs you" on.
  await member.kill();
  await page.goto("/");
  await expect(section.locator(".machine-offline")).toHaveText("workshop is offline", { timeout: 30_000 });
  await expect(section.locator(`[data-agent="${KEY}"]`)).toContainText(STRINGS.unreachable);
  await expect(section).toHaveAttribute("data-floats", "true");
  await page.goto("/#/settings");
  await page.getByRole("switch", { name: STRINGS.showOnlyWhatNeedsYou }).check();
  await page.goto("/");
  await expect(section.locator(".machine-offline")).toHaveText("workshop is offline");
  // The lead's own desk waits on nothing: no heading stands over an empty section.
  await expect(leadSection(page)).toHaveCount(0);
  // The conversation with the pending answer is still there after a reload.
  await page.reload();
  await section.locator(`[data-agent="${KEY}"]`).click();
  await expect(page.locator(`[data-pane="${pane}"]`)).toContainText(title);

  // Back: the answer lands once, the refund runs, the section goes back down.
  await member.start();
  await page.goto(`/#/agent/${encodeURIComponent(KEY)}/pane/${encodeURIComponent(pane)}`);
  const refund = items(page, "tool").filter({ hasText: 'refund(order: "5530", amount: 120)' });
  await expect(refund.locator("[data-status]")).toHaveAttribute("data-status", "done", { timeout: 60_000 });
  await expect(chat.log.locator(".decision-line")).toHaveCount(0);
  await page.goto("/#/settings");
  await page.getByRole("switch", { name: STRINGS.showOnlyWhatNeedsYou }).uncheck();
  await page.goto("/");
  await expect(section.locator(".machine-offline")).toHaveCount(0);
  await expect(section).toHaveAttribute("data-floats", "false");
  await context.close();
});
