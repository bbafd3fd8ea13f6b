/**
 * Every screen of the phone, audited (issue 32, issue 37): axe-core finds no violation, in light
 * and dark mode, and nothing is clipped without a visible way to it at 320, 390 and 430 px wide.
 * Every text's contrast is also checked beside axe-core, which leaves out some (audit.ts).
 * The screens come from the gallery agent (gallery-agent.ts): the pairing page, the dashboard with
 * the push offer, Settings, the conversation list (running, waiting, idle and closed rows), a chat
 * with every item kind and a long tool output, each ask kind, a running turn, a right-to-left
 * conversation, a title too long for any phone, a closed conversation and the New page.
 */
import type { Page } from "@playwright/test";
import { startCollie, type CollieServer } from "./collie.ts";
import { expect, test as base } from "./fixtures.ts";
import { axeViolations, clippedOnScreen, lowContrastText } from "./audit.ts";
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
  expect.soft(await page.evaluate(lowContrastText), `${where}: text with too little contrast`).toEqual([]);
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

/** The colour a mark is drawn in and the colour of its row, as `rgb(…)`, for each mark on the list. */
function markColours(): Record<string, { mark: string; row: string }> {
  const out: Record<string, { mark: string; row: string }> = {};
  for (const el of Array.from(document.querySelectorAll("[data-mark]"))) {
    const shape = el.querySelector("svg > *");
    const s = shape ? getComputedStyle(shape) : null;
    const mark = !s ? "none" : s.fill !== "none" ? s.fill : s.stroke;
    out[el.getAttribute("data-mark")!] ??= { mark, row: getComputedStyle(el.closest(".row")!).backgroundColor };
  }
  return out;
}

const contrast = (a: string, b: string): number => {
  const lum = (c: string) => {
    const [r, g, b2] = /rgba?\(([^)]+)\)/.exec(c)![1]!.split(/[ ,]+/).map(Number).map((v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b2!;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};

// Issue 32, item 5: the list's marks were faint grey rings and two dots told apart by colour alone.
test("the list's state marks tell working, waiting, idle and closed apart without colour, and stand out from the row in both schemes", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const kinds = ["working", "waiting", "idle", "closed"] as const;
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await open(page, SCREENS.find((s) => s.name === "list")!);
    for (const kind of kinds) await expect(page.locator(`[data-mark="${kind}"]`).first()).toBeVisible();
    // Non-text contrast (WCAG 1.4.11): the mark against its row.
    const colours = await page.evaluate(markColours);
    for (const kind of kinds) {
      expect(contrast(colours[kind]!.mark, colours[kind]!.row), `${kind} mark in ${scheme} mode: ${JSON.stringify(colours[kind])}`).toBeGreaterThanOrEqual(3);
    }
  }
  // Without colour (WCAG 1.4.1): every mark drawn in one colour still has a shape of its own, and
  // says what it means to a screen reader and as a tooltip.
  // (Through the CSSOM: the app's CSP refuses a style tag.)
  await page.locator("[data-mark]").evaluateAll((marks) => marks.forEach((m) => ((m as HTMLElement).style.filter = "grayscale(1) brightness(0)")));
  const shapes = new Map<string, string>();
  for (const kind of kinds) {
    const mark = page.locator(`[data-mark="${kind}"]`).first();
    const label = { working: "Working", waiting: "Waiting on you", idle: "Idle", closed: "Closed" }[kind];
    await expect(mark).toHaveAttribute("role", "img");
    await expect(mark).toHaveAccessibleName(label);
    await expect(mark).toHaveAttribute("title", label);
    shapes.set(kind, (await mark.screenshot({ animations: "disabled" })).toString("base64"));
  }
  expect(new Set(shapes.values()).size, "four different shapes").toBe(kinds.length);
});
