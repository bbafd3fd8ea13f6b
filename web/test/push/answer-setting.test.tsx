/**
 * The Settings switch for answering from notifications (issue 30): on by default, its one line on
 * a locked phone, off kept for the service worker, and not drawn where the browser shows no
 * buttons on a notification (an iPhone).
 */
import { afterEach, describe, expect, test } from "vitest";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { WORDS } from "@colliepwa/shared";
import { answeringOn, memorySettings, type SettingStorage } from "../../src/app/notification-answers.ts";
import { AnswerSetting } from "../../src/features/dashboard/AnswerSetting.tsx";

afterEach(() => cleanup());

async function draw(settings: SettingStorage, buttonsShown = true) {
  render(<AnswerSetting settings={settings} buttonsShown={buttonsShown} />);
  await act(async () => {});
}

describe("Answer from notifications", () => {
  test("on by default, with what it means on a locked phone; off is kept", async () => {
    const settings = memorySettings();
    await draw(settings);
    const toggle = screen.getByRole("switch", { name: WORDS.push.answerLabel }) as HTMLInputElement;
    expect(toggle.checked).toBe(true);
    expect(toggle.getAttribute("aria-describedby")).toBeTruthy();
    expect(document.getElementById(toggle.getAttribute("aria-describedby")!)?.textContent).toBe(WORDS.push.answerLocked);
    await act(async () => {
      fireEvent.click(toggle);
    });
    expect(toggle.checked).toBe(false);
    expect(await answeringOn(settings)).toBe(false);
  });
  test("a setting that could not be kept goes back, so it never shows what the worker does not read", async () => {
    const settings = { ...memorySettings(), set: () => Promise.reject(new Error("private mode")) };
    await draw(settings);
    const toggle = screen.getByRole("switch") as HTMLInputElement;
    await act(async () => {
      fireEvent.click(toggle);
    });
    expect(toggle.checked).toBe(true);
  });
  test("not drawn where a notification shows no buttons", async () => {
    await draw(memorySettings(), false);
    expect(screen.queryByRole("switch")).toBeNull();
  });
});
