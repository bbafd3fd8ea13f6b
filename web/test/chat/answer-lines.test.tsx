/**
 * Answer lines (P-16, issue #34): an ask answered on the phone leaves no line in the chat, the tap
 * had its own card. The one record the card cannot give is an answer Collie holds for an agent
 * that is away while its ask is not shown open: that line shows until Collie delivers it. While the
 * ask is open, the card says which answer waits, after a reload too.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { act, cleanup } from "@testing-library/react";
import type { Decision } from "@colliepwa/shared";
import { WORDS } from "@colliepwa/shared";
import { Chat } from "../../src/features/chat/Chat.tsx";
import { card, ITEMS, PANE, permissionAsk } from "../asks/fixtures.tsx";
import { detail, on, renderWith, startPhone, T0 } from "./harness.tsx";

const AT = new Date(T0 - 60_000).toISOString();
const taken: Decision = { askId: "a0", paneId: "p1", itemId: "item-41", kind: "permission", title: "refund wants to run", tool: "refund", optionKind: "allow", device: "Pixel", at: AT };
const held = (askId: string, requestId: string): Decision => ({
  ...taken, askId, held: true, requestId, answer: { kind: "permission", optionId: "allow" },
});

beforeEach(() => {
  location.hash = "#/agent/desk/pane/p1";
});
afterEach(() => cleanup());

async function open(decisions: Decision[], asks = [] as ReturnType<typeof permissionAsk>[]) {
  const h = await startPhone({ routes: [on("GET", PANE, { status: 200, body: detail(ITEMS, { asks, decisions }) })] });
  renderWith(h.phone, <Chat agent="desk" pane="p1" />);
  await act(async () => {});
  return h;
}

const lines = () => [...document.querySelectorAll<HTMLElement>(".decision-line")];

describe("answer lines in the chat", () => {
  test("an answer the agent took leaves no line, from the read or live (P-16)", async () => {
    const h = await open([taken]);
    expect(lines()).toHaveLength(0);
    await act(async () => {
      h.deliver({ type: "decision", agent: "desk", decision: { ...taken, askId: "a9" } });
    });
    expect(lines()).toHaveLength(0);
  });

  test("an answer Collie holds whose ask is not open: a line naming the answer, the phone and that it waits; gone once delivered", async () => {
    const h = await open([held("a1", "r1")]);
    expect(lines()).toHaveLength(1);
    expect(lines()[0]!.textContent).toMatch(new RegExp(`^Allowed: refund · Pixel · [^·]+ ${WORDS.chat.heldAnswer.replace(/\./g, "\\.")}$`));
    expect(lines()[0]!.getAttribute("data-held")).toBe("true");
    await act(async () => {
      h.deliver({ type: "held-outcome", agent: "desk", requestId: "r1", status: 200, body: { ok: true } });
    });
    expect(lines()).toHaveLength(0);
  });

  test("a held answer whose ask is open: no line; the card itself says which answer waits, as after a reload", async () => {
    await open([held("a1", "r1")], [permissionAsk()]);
    expect(lines()).toHaveLength(0);
    const c = card("a1");
    expect(c.getAttribute("data-phase")).toBe("held");
    expect(c.querySelector(".ask-held")!.textContent).toBe(WORDS.asks.held("Allow"));
    expect(c.querySelector('[data-option="allow"]')!.getAttribute("data-chosen")).toBe("true");
  });

  test("held live, from another phone: the line comes without a reload", async () => {
    const h = await open([]);
    expect(lines()).toHaveLength(0);
    await act(async () => {
      h.deliver({ type: "decision", agent: "desk", decision: held("a1", "r1") });
    });
    expect(lines()).toHaveLength(1);
  });
});
