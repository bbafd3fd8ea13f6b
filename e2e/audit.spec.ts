/**
 * Every screen of the phone, audited (issue 32, issue 37): axe-core finds no violation, in light
 * and dark mode, and nothing is clipped without a visible way to it at 320, 390 and 430 px wide.
 * The screens come from the gallery agent (gallery-agent.ts): the pairing page, the dashboard with
 * the push offer, Settings, the conversation list (running, waiting, idle and closed rows), a chat
 * with every item kind and a long tool output, each ask kind, a running turn, a right-to-left
 * conversation, a title too long for any phone, a closed conversation and the New page.
 */
import type { Page } from "@playwright/test";
import { startCollie, type CollieServer } from "./collie.ts";
import { expect, test as base } from "./fixtures.ts";
import { axeViolations, clippedOnScreen } from "./audit.ts";
import { GALLERY } from "./gallery.ts";
import { startOwnAgent, type OwnAgent } from "./own-agent.ts";

const test = base.extend<object, { collie: CollieServer; gallery: OwnAgent }>({
  gallery: [
    async ({}, use) => {
      const agent = await startOwnAgent("gallery-agent.ts", GALLERY.agent);
      await use(agent);
      agent.stop();
    },
    { scope: "worker" },
  ],
  collie: [
    async ({ gallery }, use) => {
      const collie = await startCollie({ sources: gallery.sources });
      await use(collie);
      await collie.stop();
    },
    { scope: "worker" },
  ],
});

const A = GALLERY.agent;
const chat = (pane: string): string => `#/agent/${A}/pane/${encodeURIComponent(pane)}`;

interface Screen {
  name: string;
  hash: string;
  /** Text that shows once the screen is drawn with its content. */
  ready: string;
}

const SCREENS: Screen[] = [
  { name: "dashboard", hash: "#/", ready: "Durable agents" },
  { name: "settings", hash: "#/settings", ready: "Push notifications" },
  { name: "list", hash: `#/agent/${A}`, ready: "Weekly report" },
  { name: "chat with every item kind", hash: chat(GALLERY.items.pane), ready: "Order 5521" },
  { name: "permission ask", hash: chat(GALLERY.permission.pane), ready: "refund wants to run" },
  { name: "choice ask", hash: chat(GALLERY.choice.pane), ready: "Which extras go with the replacement?" },
  { name: "text ask", hash: chat(GALLERY.text.pane), ready: "What should the note to Jonas say?" },
  { name: "form ask", hash: chat(GALLERY.form.pane), ready: "Exchange details" },
  { name: "running turn", hash: chat(GALLERY.working.pane), ready: "Export every invoice of the year." },
  { name: "right-to-left chat", hash: chat(GALLERY.rtl.pane), ready: GALLERY.rtl.arabic },
  { name: "long title", hash: chat(GALLERY.long.pane), ready: "A conversation whose title is longer" },
  { name: "closed conversation", hash: `#/agent/${A}/closed/weekly-report`, ready: "Refunds: 4, returns: 2" },
  { name: "new conversation", hash: `#/agent/${A}/new`, ready: "Find an order" },
];

/** Opens a screen and waits until its content and the agent's live state are drawn. */
async function open(page: Page, screen: Screen): Promise<void> {
  await page.goto(`/${screen.hash}`);
  await expect(page.getByText(screen.ready, { exact: false }).first()).toBeVisible();
}

const WIDTHS = [320, 390, 430] as const;

/**
 * Audits the screen drawn: axe-core (in the scheme the page emulates), and the clip check at each
 * width (the layout is the same in both schemes, so `widths` is given once, with the light pass).
 */
async function audit(page: Page, where: string, widths: readonly number[]): Promise<void> {
  // Soft: one run lists what every screen has, not only the first screen's.
  expect.soft(await axeViolations(page), `${where}: axe-core violations`).toEqual([]);
  for (const width of widths) {
    await page.setViewportSize({ width, height: 844 });
    expect.soft(await page.evaluate(clippedOnScreen), `${where} at ${width} px: clipped without a way to it`).toEqual([]);
  }
  await page.setViewportSize({ width: 390, height: 844 });
}

for (const scheme of ["light", "dark"] as const) {
  const widths = scheme === "light" ? WIDTHS : [];
  test(`every screen in ${scheme} mode: axe-core finds no violation${widths.length ? `, and nothing is clipped at ${widths.join(", ")} px` : ""}`, async ({ page, browser, collie }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: scheme });

    // The pairing page, on a phone that is not paired.
    const unpaired = await browser.newContext({ baseURL: collie.url, storageState: undefined, colorScheme: scheme, viewport: { width: 390, height: 844 } });
    const pair = await unpaired.newPage();
    await pair.goto("/");
    await expect(pair.getByRole("button", { name: "Pair" })).toBeVisible();
    await audit(pair, `pairing (${scheme})`, widths);
    await unpaired.close();

    // The dashboard offers push once after pairing (its card is audited with the dashboard).
    await page.goto("/");
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.evaluate(() => localStorage.setItem("collie.offerPush", "1"));
    await page.reload();
    for (const screen of SCREENS) {
      await open(page, screen);
      if (screen.name === "dashboard") await expect(page.getByRole("region", { name: "Push notifications" })).toBeVisible();
      await audit(page, `${screen.name} (${scheme})`, widths);
    }
  });
}
