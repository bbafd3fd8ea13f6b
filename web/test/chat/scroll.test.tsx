/**
 * A long chat (issue 37 items 7 and 8): scrolled up, new replies are counted on a jump-to-newest
 * pill that takes you back; scrolling near the top loads earlier items by itself and keeps the
 * lines on screen where they were. jsdom lays nothing out, so the scroll box's sizes are given
 * here: 50 px per row, a 600 px screen.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { act, cleanup, fireEvent, screen } from "@testing-library/react";
import type { Item } from "@colliepwa/durable-sdk/wire";
import { Chat } from "../../src/features/chat/Chat.tsx";
import { WINDOW_SIZE } from "../../src/features/chat/list.ts";
import { detail, on, renderWith, startPhone, T0 } from "./harness.tsx";

const PANE = "/api/agents/desk/panes/p1";
const ROW = 50;
const SCREEN = 600;
const line = (n: number): Item => ({ kind: "reply", id: `r${n}`, text: `line ${n}`, ts: new Date(T0 - 3_600_000 + n * 1000).toISOString() });

/** Gives the scroll box the sizes a browser would: its rows' height, a screen, a settable scrollTop. */
function layOut(el: HTMLElement): { top(): number; scrollTo(top: number): void } {
  let top = 0;
  const height = () => el.querySelectorAll(".row-slot").length * ROW;
  Object.defineProperty(el, "scrollHeight", { configurable: true, get: height });
  Object.defineProperty(el, "clientHeight", { configurable: true, get: () => SCREEN });
  Object.defineProperty(el, "scrollTop", { configurable: true, get: () => top, set: (v: number) => { top = Math.max(0, Math.min(v, height() - SCREEN)); } });
  return {
    top: () => top,
    scrollTo(t: number) {
      top = t;
      fireEvent.scroll(el);
    },
  };
}

async function openLong(count: number) {
  const items = Array.from({ length: count }, (_, n) => line(n));
  const h = await startPhone({ routes: [on("GET", PANE, { status: 200, body: detail(items) })] });
  renderWith(h.phone, <Chat agent="desk" pane="p1" />);
  await act(async () => {});
  const box = document.querySelector<HTMLElement>(".chat-scroll")!;
  return { h, box, scroll: layOut(box) };
}
const rows = () => document.querySelectorAll(".row-slot").length;
const pill = () => document.querySelector<HTMLButtonElement>(".jump-newest");

beforeEach(() => {
  location.hash = "#/agent/desk/pane/p1";
});
afterEach(() => cleanup());

describe("scrolling up loads earlier items by itself (issue 37 item 8)", () => {
  test("near the top the next window is drawn, and the line you were reading stays where it was", async () => {
    const { box, scroll } = await openLong(650);
    expect(rows()).toBe(WINDOW_SIZE);
    const reading = "r500";
    const placeOf = (id: string) => [...box.querySelectorAll(".row-slot")].findIndex((r) => r.querySelector(`[data-item-id="${id}"]`)) * ROW - scroll.top();
    await act(async () => scroll.scrollTo(2 * ROW));
    const before = 50 * ROW - 2 * ROW; // r500 is the 51st drawn row
    expect(rows()).toBe(2 * WINDOW_SIZE);
    expect(placeOf(reading)).toBe(before);
    // And again, up to the very first, without a tap.
    for (let n = 0; n < 3; n++) await act(async () => scroll.scrollTo(0));
    expect(rows()).toBe(650);
    expect(document.querySelector('[data-item-id="r0"]')).not.toBeNull();
  }, 60_000);

  test("the scroll box can be focused, so a keyboard can scroll it (axe scrollable-region-focusable)", async () => {
    const { box } = await openLong(10);
    expect(box.getAttribute("tabindex")).toBe("0");
    expect(box.getAttribute("aria-label")).toBe("Messages");
  });
});

describe("following the newest line (P-18)", () => {
  test("a scroll event of the chat's own following, arriving after more grew below (a card's Retry as the banner opens), keeps following", async () => {
    const { h, box, scroll } = await openLong(150);
    await act(async () => scroll.scrollTo(box.scrollHeight - SCREEN));
    // A new line: the chat follows it to the end.
    await act(async () => h.deliver({ type: "item", agent: "desk", paneId: "p1", item: line(150) }));
    const followed = scroll.top();
    expect(followed).toBe(box.scrollHeight - SCREEN);
    // More grows below before that follow's scroll event arrives; the reader did not move.
    for (let n = 0; n < 2; n++) box.appendChild(Object.assign(document.createElement("div"), { className: "row-slot" }));
    await act(async () => fireEvent.scroll(box));
    expect(scroll.top()).toBe(box.scrollHeight - SCREEN);
    expect(pill()).toBeNull();
    // A reader who scrolls up is not followed.
    await act(async () => scroll.scrollTo(40 * ROW));
    expect(pill()!.textContent).toBe("Newest");
  });
});

describe("jump to newest (issue 37 item 7)", () => {
  test("scrolled up, new replies are counted on a pill; a tap goes to the newest and the pill goes", async () => {
    const { h, box, scroll } = await openLong(150);
    await act(async () => scroll.scrollTo(box.scrollHeight - SCREEN));
    expect(pill()).toBeNull();
    // Reading further up: the pill offers the way back, nothing new yet.
    await act(async () => scroll.scrollTo(40 * ROW));
    expect(pill()!.textContent).toBe("Newest");
    await act(async () => h.deliver({ type: "item", agent: "desk", paneId: "p1", item: line(150) }));
    await act(async () => h.deliver({ type: "item", agent: "desk", paneId: "p1", item: { kind: "user", id: "u-mine", text: "mine" } }));
    await act(async () => h.deliver({ type: "item", agent: "desk", paneId: "p1", item: line(151) }));
    expect(pill()!.textContent).toBe("2 new");
    expect(pill()!.getAttribute("aria-label")).toBe("Jump to the newest message, 2 new");
    // A reply growing in place is not one more.
    await act(async () => h.deliver({ type: "item", agent: "desk", paneId: "p1", item: { ...line(151), text: "line 151, longer" } }));
    expect(pill()!.textContent).toBe("2 new");
    expect(scroll.top()).toBe(40 * ROW);
    await act(async () => fireEvent.click(pill()!));
    expect(scroll.top()).toBe(box.scrollHeight - SCREEN);
    expect(pill()).toBeNull();
  });
});
