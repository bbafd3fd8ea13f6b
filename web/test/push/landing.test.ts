/**
 * Landing from a notification (P-27): the address names the card, the service worker's
 * `collie-open` changes only the hash (no reload), and the card is scrolled into view once drawn.
 */
import { afterEach, describe, expect, test } from "vitest";
import { askIdFromHash, openInApp, revealCard } from "../../src/sw/landing.ts";

afterEach(() => {
  document.body.innerHTML = "";
  delete (HTMLElement.prototype as { scrollIntoView?: unknown }).scrollIntoView;
});

describe("landing", () => {
  test("the ask id in a chat address", () => {
    expect(askIdFromHash("#/agent/desk/pane/ticket-5521/ask/a1b2")).toBe("a1b2");
    expect(askIdFromHash("#/agent/desk/pane/a%2Fb/ask/x%23y")).toBe("x#y");
    expect(askIdFromHash("#/agent/desk/pane/ticket-5521")).toBeNull();
    expect(askIdFromHash("#/agent/desk")).toBeNull();
  });

  test("collie-open changes the hash, on this origin only", () => {
    const loc = { origin: "https://collie.example", hash: "#/" };
    expect(openInApp("https://collie.example/#/agent/desk/pane/p1/ask/a1", loc)).toBe(true);
    expect(loc.hash).toBe("#/agent/desk/pane/p1/ask/a1");
    expect(openInApp("/#/agent/desk", loc)).toBe(true);
    expect(loc.hash).toBe("#/agent/desk");
    expect(openInApp("https://evil.example/#/x", loc)).toBe(false);
    expect(loc.hash).toBe("#/agent/desk");
  });

  test("the card is scrolled into view when it appears", async () => {
    const scrolled: string[] = [];
    // jsdom draws nothing, so it has no scrollIntoView: record the calls instead.
    Object.defineProperty(HTMLElement.prototype, "scrollIntoView", {
      configurable: true,
      value(this: HTMLElement) {
        scrolled.push(this.dataset.askId ?? "");
      },
    });
    revealCard(document, "#/agent/desk/pane/p1/ask/a2");
    expect(scrolled).toEqual([]);
    const other = document.createElement("div");
    other.dataset.askId = "a1";
    document.body.append(other);
    const card = document.createElement("div");
    card.dataset.askId = "a2";
    document.body.append(card);
    await new Promise((r) => setTimeout(r, 0));
    expect(scrolled).toEqual(["a2"]);
  });
});
