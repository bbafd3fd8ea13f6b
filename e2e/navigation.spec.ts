/**
 * From the dashboard to a chat (P-2, P-4…P-6, P-18, P-21): the desk's row opens its conversation
 * list; a row opens the chat with the title, the Experimental badge and line 2.
 * Reads Maria Lopez's ticket only: no other journey writes to it.
 */
import { expect, openDashboard, test } from "./fixtures.ts";
import { chatParts, SEEDED } from "./desk.ts";

test.use({ viewport: { width: 360, height: 740 } });

test("dashboard → the desk's conversations → a chat", async ({ page, shot }) => {
  await openDashboard(page);
  await page.getByRole("link", { name: /^desk Experimental/ }).click();

  // The agent's home: every seeded customer is an open row, title and line 2 (P-5).
  await expect(page).toHaveURL(/#\/agent\/desk$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("desk Experimental");
  const open = page.getByRole("list", { name: "Open conversations" });
  for (const c of Object.values(SEEDED)) await expect(open.getByRole("link", { name: new RegExp(c.title) })).toBeVisible();
  const maria = open.getByRole("link", { name: new RegExp(SEEDED.maria.title) });
  await expect(maria).toContainText(SEEDED.maria.subtitle);
  await expect(maria.getByRole("img", { name: "Idle" })).toBeVisible();
  // The starters' page is one tap away (P-25); no closed conversation yet, so no Closed group.
  await expect(page.getByRole("link", { name: "New conversation" })).toBeVisible();
  await shot("agent-home");

  // The chat: header line 1 title + Experimental, line 2 the subtitle (P-21); the seeded notice.
  await maria.click();
  await expect(page).toHaveURL(new RegExp(`#/agent/desk/pane/${SEEDED.maria.pane}$`));
  const chat = chatParts(page);
  await expect(chat.title).toHaveText(`${SEEDED.maria.title} Experimental`);
  await expect(chat.header).toContainText(SEEDED.maria.subtitle);
  await expect(chat.log.locator('[data-item-id="intro"]')).toContainText(SEEDED.maria.intro);
  // The belt (P-22): Steer and Stop dimmed while nothing runs, then the desk's own buttons.
  await expect(chat.steer).toBeDisabled();
  await expect(chat.stop).toBeDisabled();
  await expect(chat.belt.getByRole("button")).toHaveText(["Steer", "Stop", "Escalate", "Resolve", "Archive"]);
  await expect(chat.composer).toBeVisible();
  await shot("chat");

  // Back goes to the list again.
  await page.getByRole("link", { name: "Back" }).click();
  await expect(page).toHaveURL(/#\/agent\/desk$/);
  await expect(open.getByRole("link", { name: new RegExp(SEEDED.maria.title) })).toBeVisible();
});
