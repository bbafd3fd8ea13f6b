/**
 * A new conversation from a starter, closed and reopened (P-5, P-6, P-24, P-25): the New page
 * lists the desk's starters; a tap opens the new conversation's chat; `Close conversation` from
 * the chat's menu puts it under `Closed` on the home; it reads read-only there; `Reopen` brings the
 * chat back. Works on a conversation of its own (the `New ticket` starter).
 */
import { STRINGS } from "@colliepwa/shared";
import { expect, test } from "./fixtures.ts";
import { AGENT, chatParts } from "./desk.ts";

test.use({ viewport: { width: 360, height: 740 } });

const INTRO = "New ticket. Tell me what the customer needs.";

test("a starter opens a conversation; close it, read it, reopen it", async ({ page, shot }) => {
  await page.goto(`/#/agent/${AGENT}`);
  const newLink = page.getByRole("link", { name: STRINGS.newConversation });
  await expect(newLink).toHaveText("+ New"); // a visible label, not a bare "+"
  await newLink.click();

  // The New page: its title and the desk's starters, nothing else to pick (P-25).
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(STRINGS.newConversation);
  const starters = page.getByRole("list", { name: "Starters" }).getByRole("button");
  await expect(starters).toHaveCount(2);
  await expect(starters.nth(0)).toHaveText(/New ticket\s*A customer wrote in/);
  await expect(starters.nth(1)).toHaveText(/Refund check\s*List the refunds made so far/);
  // The icons the starters name are drawn.
  await expect(starters.nth(0).locator('svg[data-icon="note"]')).toBeVisible();
  await expect(starters.nth(1).locator('svg[data-icon="search"]')).toBeVisible();
  await shot("new-conversation");

  // A tap: the agent opens the conversation and the phone goes to its chat.
  await page.getByRole("button", { name: /^New ticket/ }).click();
  await expect(page).toHaveURL(/#\/agent\/desk\/pane\/[^/]+$/);
  const pane = decodeURIComponent(page.url().split("/pane/")[1]!);
  const chat = chatParts(page);
  await expect(chat.title).toHaveText("New ticket Experimental");
  await expect(chat.log).toContainText(INTRO);
  await expect(chat.composer).toBeVisible();

  // The menu holds Rename (the desk declares it) and Close conversation, nothing else (P-24).
  await chat.menu.click();
  const menu = page.getByRole("menu");
  await expect(menu.getByRole("menuitem")).toHaveText(["Rename", STRINGS.closeConversation]);
  // Rename: the title changes in the header.
  await menu.getByRole("menuitem", { name: "Rename" }).click();
  await menu.getByRole("textbox", { name: "Title" }).fill("Damaged parcel");
  await menu.getByRole("button", { name: "Save" }).click();
  await expect(chat.title).toHaveText("Damaged parcel Experimental");
  // Close asks once more: Keep open changes nothing; Close closes.
  await chat.menu.click();
  await menu.getByRole("menuitem", { name: STRINGS.closeConversation }).click();
  await menu.getByRole("button", { name: "Keep open" }).click();
  await expect(chat.composer).toBeVisible();
  await menu.getByRole("menuitem", { name: STRINGS.closeConversation }).click();
  await expect(menu.getByText("Close this conversation?")).toBeVisible();
  await menu.getByRole("button", { name: "Close", exact: true }).click();

  // Back on the home: no longer open, listed under Closed (from the agent's history, P-7).
  await expect(page).toHaveURL(/#\/agent\/desk$/);
  await expect(page.getByRole("list", { name: "Open conversations" }).locator(`[data-pane="${pane}"]`)).toHaveCount(0);
  const closed = page.getByRole("region", { name: STRINGS.closed });
  const row = closed.locator(`[data-session="${pane}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByRole("link")).toContainText("Damaged parcel");
  await expect(row.getByRole("button", { name: `${STRINGS.reopen} Damaged parcel` })).toBeVisible();

  // A tap on the row reads it, read-only: its items, no composer, no belt, `Reopen` (P-6).
  await row.getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`#/agent/desk/closed/${encodeURIComponent(pane)}$`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Damaged parcel Experimental");
  await expect(page.locator(".chat-line2")).toHaveText(`${STRINGS.closed} · desk`);
  await expect(page.getByText(INTRO)).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveCount(0);
  await expect(page.getByRole("toolbar", { name: "Belt" })).toHaveCount(0);
  await shot("closed-conversation");

  // Reopen: the agent lays it out again and the phone goes to its chat.
  await page.getByRole("button", { name: STRINGS.reopen, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`#/agent/desk/pane/${encodeURIComponent(pane)}$`));
  await expect(chat.title).toHaveText("Damaged parcel Experimental"); // the desk kept the new title
  await expect(chat.log).toContainText(INTRO);
  await expect(chat.composer).toBeVisible();
  await expect(chat.belt).toBeVisible();

  // And the home lists it as open again, not under Closed.
  await page.getByRole("link", { name: "Back" }).click();
  await expect(page.getByRole("list", { name: "Open conversations" }).locator(`[data-pane="${pane}"]`)).toBeVisible();
  await expect(page.locator(`[data-session="${pane}"]`)).toHaveCount(0);
});
