/**
 * Hostile text on every screen (X-2, L-2): an agent whose every text is markup, a `javascript:` or
 * `data:` link, a template or an attribute breakout (hostile-agent.ts) is shown to a real phone.
 * Nothing may run and the text must show as text: the journey defines `__pwn` and `x` on the page
 * and fails on any call, on any CSP violation (something tried to run and only the CSP stopped it),
 * on any dialog, and on any element an injection would leave behind (an `on…` attribute, a frame,
 * a script or style that is not the app's, a link that is not https or the app's own).
 *
 * The detector is checked first on the same page: markup written into it by hand is caught.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Locator, Page } from "@playwright/test";
import { startCollie, type CollieServer } from "./collie.ts";
import { expect, test as base } from "./fixtures.ts";
import { post } from "./desk.ts";
import { H, HOSTILE_HREF, MD, PANES, SHORT } from "./hostile.ts";
import { notifications, pairPage, PushPhone, pushRigFixture, tap, type PushRig } from "./push-rig.ts";

const AGENT = "evil";
const root = join(import.meta.dirname, "..");

/** The hostile agent on its own socket, and a sources.json that names it. */
interface Hostile {
  sources: string;
  dir: string;
  child: ChildProcess;
}

async function startHostile(): Promise<Hostile> {
  const dir = mkdtempSync(join(tmpdir(), "collie-xss-"));
  const socket = join(dir, "run", "evil.sock");
  const child = spawn(process.execPath, [
    "--conditions=collie-source", "--disable-warning=ExperimentalWarning", join(root, "e2e/hostile-agent.ts"), "--socket", socket,
  ], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the hostile agent exited (${code}) before it was ready`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.includes('"ready":true')) resolve();
    });
  });
  const sources = join(dir, "sources.json");
  writeFileSync(sources, JSON.stringify({ durable: [{ name: AGENT, socket }] }), { mode: 0o600 });
  return { sources, dir, child };
}

const test = base.extend<{ paired: void }, { collie: CollieServer; rig: PushRig; hostile: Hostile }>({
  rig: pushRigFixture,
  hostile: [
    async ({}, use) => {
      const hostile = await startHostile();
      await use(hostile);
      hostile.child.kill("SIGTERM");
      rmSync(hostile.dir, { recursive: true, force: true });
    },
    { scope: "worker" },
  ],
  collie: [
    async ({ rig, hostile }, use) => {
      const collie = await startCollie({ sources: hostile.sources, env: { NODE_EXTRA_CA_CERTS: rig.caFile } });
      await use(collie);
      await collie.stop();
    },
    { scope: "worker" },
  ],
  paired: [async ({ page, collie }, use) => use(await pairPage(page, collie.stateDir, "xss phone")), { auto: true }],
});

test.use({ viewport: { width: 360, height: 740 } });

/** Runs before any page script: the calls a hostile string makes when it runs, and CSP violations. */
function armDetector(): void {
  const w = window as unknown as { __ran: string[]; __pwn(t: string): void; x(): void };
  w.__ran = [];
  w.__pwn = (t) => void w.__ran.push(`ran: ${t}`);
  w.x = () => void w.__ran.push("ran: x");
  document.addEventListener("securitypolicyviolation", (e) => {
    w.__ran.push(`csp: ${e.violatedDirective} ${e.blockedURI} ${e.sample}`);
  }, true);
}

/** Arms the detector on every document the page loads; returns the dialogs it opens (dismissed). */
async function watchPage(page: Page): Promise<string[]> {
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.addInitScript(armDetector);
  return dialogs;
}

/** What an injection leaves behind in the page, read from the live DOM. */
function leftovers(): string[] {
  const found: string[] = [];
  const here = location.origin;
  const safeUrl = (v: string, link: boolean): boolean => {
    try {
      const u = new URL(v, location.href);
      return u.protocol === "https:" || (u.origin === here && (link || u.pathname.startsWith("/")));
    } catch {
      return false;
    }
  };
  for (const el of Array.from(document.querySelectorAll("*"))) {
    const tag = el.tagName.toLowerCase();
    if (["iframe", "frame", "object", "embed", "base"].includes(tag)) found.push(`<${tag}> element`);
    // The app's own <link> and <meta> are in the head; one in the body came from text.
    if ((tag === "link" || tag === "meta") && document.body.contains(el)) found.push(`<${tag}> in the body`);
    if (tag === "script" && !(el as HTMLScriptElement).src.startsWith(`${here}/assets/`)) found.push("a script that is not the app's");
    if (tag === "style") found.push("a <style> element");
    if (tag === "img" && !(el as HTMLImageElement).src.startsWith(`${here}/`)) found.push(`<img src=${(el as HTMLImageElement).src}>`);
    for (const a of Array.from(el.attributes)) {
      if (/^on/i.test(a.name)) found.push(`<${tag} ${a.name}>`);
      if (a.name === "srcdoc" || a.name === "formaction") found.push(`<${tag} ${a.name}>`);
      if ((a.name === "href" || a.name === "src" || a.name === "xlink:href" || a.name === "action") && !safeUrl(a.value, tag === "a")) {
        found.push(`<${tag} ${a.name}=${a.value}>`);
      }
    }
  }
  return found;
}

/** Fails when anything ran, was blocked by the CSP, opened a dialog, or was left in the page. */
async function expectInert(page: Page, dialogs: string[], where: string): Promise<void> {
  const ran = await page.evaluate(() => (window as unknown as { __ran: string[] }).__ran);
  expect(ran, `${where}: nothing ran`).toEqual([]);
  expect(await page.evaluate(leftovers), `${where}: nothing injected`).toEqual([]);
  expect(dialogs, `${where}: no dialog`).toEqual([]);
}

/** The element whose own text is exactly `text`, visible. */
const exact = (scope: Page | Locator, text: string): Locator => scope.getByText(text, { exact: true }).first();

async function open(page: Page, hash: string): Promise<void> {
  await page.goto(`/${hash}`);
  await expect(page.locator("main")).toBeVisible();
}

test("hostile agent text shows as text on every screen and nothing runs", async ({ page, shot }) => {
  test.setTimeout(120_000);
  const dialogs = await watchPage(page);

  // The detector works here, under this CSP: markup written into the page by hand is caught.
  await open(page, "#/");
  await page.evaluate((html) => {
    const probe = document.createElement("div");
    probe.id = "probe";
    probe.innerHTML = html;
    document.body.append(probe);
  }, `${H.img}<a href="javascript:void 0">x</a>`);
  await expect.poll(() => page.evaluate(() => (window as unknown as { __ran: string[] }).__ran.length)).toBeGreaterThan(0);
  expect(await page.evaluate(leftovers)).toEqual(expect.arrayContaining(["<img onerror>", "<a href=javascript:void 0>"]));
  await page.evaluate(() => {
    document.getElementById("probe")!.remove();
    (window as unknown as { __ran: string[] }).__ran.length = 0;
  });

  // Dashboard: the agent's row with its own (hostile) name on line 2 (P-2).
  const row = page.locator(`[data-agent="${AGENT}"]`);
  await expect(row).toBeVisible();
  await expect(row).not.toContainText("Starting");
  await expect(row).toContainText(H.img);
  await expectInert(page, dialogs, "dashboard");

  // The agent's home: conversation titles, subtitles and pending questions, the closed one from history.
  await open(page, `#/agent/${AGENT}`);
  for (const text of [H.anchor, H.iframe, H.template, H.style, H.svg, H.img, H.entity, H.attr]) await expect(exact(page, text)).toBeVisible();
  await expectInert(page, dialogs, "home");
  await shot("xss-home");

  // A conversation with every item kind.
  await open(page, `#/agent/${AGENT}/pane/${PANES.items}`);
  const log = page.getByRole("log");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${H.img} Experimental`);
  for (const text of [H.script, H.img, H.iframe]) await expect(exact(log, text)).toBeVisible();
  // Markdown: every hostile paragraph is text; a link to script shows its label as text (no link
  // to tap, issue 37), and the address is not shown as if it were one.
  for (const text of [H.img, H.svg, H.iframe, H.attr, H.anchor, H.jsUrl, H.dataUrl, H.style, H.entity, MD.autolink, MD.html]) {
    await expect(log.getByText(text, { exact: true }).first()).toBeAttached();
  }
  for (const label of ["open the refund", "see it"]) await expect(log.locator(".md-unlinked").getByText(label, { exact: true }).first()).toBeAttached();
  await expect(log.getByRole("link", { name: "the docs" })).toHaveAttribute("href", "https://example.com/docs");
  await expect(log.getByRole("link", { name: "open the refund" })).toHaveCount(0);
  await expect(log.getByRole("link", { name: "see it" })).toHaveCount(0);
  // The link item: an https address with markup in it stays one attribute value.
  const linkItem = log.getByRole("link", { name: H.img });
  await expect(linkItem).toHaveAttribute("href", new URL(HOSTILE_HREF).href);
  await expect(linkItem).toHaveAttribute("rel", "noopener noreferrer");
  // The tool item: name and call as text.
  await expect(exact(log, H.entity)).toBeVisible();
  await expect(exact(log, H.anchor)).toBeVisible();
  await expectInert(page, dialogs, "items");
  await shot("xss-items");

  // The agent's button, and its refusal in the agent's words.
  const button = page.getByRole("toolbar", { name: "Belt" }).getByRole("button", { name: SHORT.action });
  await button.click();
  await expect(exact(page, H.script)).toBeVisible();
  // What the phone sends is data too, on the way out and back.
  await page.getByRole("textbox", { name: "Message" }).fill(`${H.img} ${H.script}`);
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expect(exact(log, `You said: ${H.img} ${H.script}`)).toBeVisible();
  await expectInert(page, dialogs, "belt and composer");

  // Asks: a permission card with hostile title, reason, call and option labels.
  await open(page, `#/agent/${AGENT}/pane/${PANES.permission}`);
  const permission = page.locator("[data-ask-id]").first();
  await expect(permission).toBeVisible();
  await expect(permission).toContainText(H.img);
  await expect(permission).toContainText(H.script);
  await expect(permission).toContainText(H.anchor);
  await expect(permission.getByRole("button", { name: H.svg })).toBeVisible();
  await expect(page.locator("main header")).toContainText(`Step 1 of 3: ${H.anchor}`);
  await expectInert(page, dialogs, "permission card");
  await shot("xss-permission");

  // A choice card: option labels and descriptions.
  await open(page, `#/agent/${AGENT}/pane/${PANES.choice}`);
  const choice = page.locator("[data-ask-id]").first();
  await expect(choice).toContainText(H.template);
  for (const text of [H.img, H.script, MD.dataLink, H.iframe]) await expect(exact(choice, text)).toBeVisible();
  await expectInert(page, dialogs, "choice card");

  // A text card: the placeholder is one attribute value.
  await open(page, `#/agent/${AGENT}/pane/${PANES.text}`);
  const textCard = page.locator("[data-ask-id]").first();
  await expect(textCard).toContainText(H.iframe);
  await expect(textCard.getByRole("textbox")).toHaveAttribute("placeholder", H.attr);
  await expectInert(page, dialogs, "text card");

  // A form card: field labels, a placeholder, select options.
  await open(page, `#/agent/${AGENT}/pane/${PANES.form}`);
  const form = page.locator("[data-ask-id]").first();
  await expect(form).toContainText(H.style);
  // No subtitle and no progress: the header's second line is the workspace's (hostile) title (P-21).
  await expect(exact(page.locator("main header"), H.style)).toBeVisible();
  for (const text of [H.img, H.svg, H.iframe]) await expect(form).toContainText(text);
  await expect(form.getByRole("textbox").first()).toHaveAttribute("placeholder", H.script);
  await expect(form.locator("option", { hasText: H.anchor })).toHaveCount(1);
  await expectInert(page, dialogs, "form card");
  await shot("xss-form");

  // A closed conversation read from history, opened from its row on the home: named by its title.
  await open(page, `#/agent/${AGENT}`);
  await page.locator('[data-session="closed-1"]').getByRole("link").click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${H.iframe} Experimental`);
  const closed = page.locator("main");
  for (const text of [H.script, H.anchor, H.svg, H.iframe, "open the refund"]) await expect(closed).toContainText(text);
  await expect(closed.getByRole("link", { name: "open the refund" })).toHaveCount(0);
  await expectInert(page, dialogs, "closed conversation");

  // New: a hostile starter opens a conversation with a hostile title.
  await open(page, `#/agent/${AGENT}/new`);
  await expect(exact(page, H.script)).toBeVisible();
  await expect(exact(page, H.attr)).toBeVisible();
  await expectInert(page, dialogs, "new");
  await exact(page, H.script).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${H.template} Experimental`);
  await expect(exact(page.getByRole("log"), H.style)).toBeVisible();
  await expectInert(page, dialogs, "started conversation");
});

test("a hostile ask's push shows its text as text, and its tap lands on the card", async ({ page, collie, rig, shot }) => {
  test.setTimeout(120_000);
  const dialogs = await watchPage(page);
  const phone = await PushPhone.open(page, collie.url, rig.service, "xss-phone");
  await page.goto("about:blank");

  // Another approval in the permission conversation: its push title and line are markup.
  expect((await post(page, `/api/agents/${AGENT}/panes/${PANES.permission}/send`, { text: "again" })).status()).toBe(200);
  const push = await phone.next();
  expect(push.payload.type).toBe("ask");
  if (push.payload.type !== "ask") return;
  // Collie's title, with the agent's own added after it (U-2).
  expect(push.payload.title.startsWith("Permission needed in ")).toBe(true);
  expect(push.payload.title.endsWith(` · ${H.svg}`)).toBe(true);
  expect(push.payload.body).toBe(H.img);

  await phone.deliver(push.text);
  await expect.poll(async () => (await notifications(page)).map((n) => [n.title, n.body])).toEqual([[push.payload.title, H.img]]);

  // Tapped: the app opens at the card, which shows the same text as text.
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Durable agents" })).toBeVisible();
  await tap(page, `collie:${AGENT}`);
  const card = page.locator(`[data-ask-id="${push.payload.askId}"]`);
  await expect(card).toBeVisible();
  await expect(card).toContainText(H.img);
  await expectInert(page, dialogs, "landed on the card");
  await shot("xss-push-landed");
});
