/**
 * Each item kind renders (P-18), growing items show a cursor and no time (P-19), `stopped` notes,
 * `Text shortened`, and the ask slot under its tool call (P-9).
 */
import { afterEach, describe, expect, test } from "vitest";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { STRINGS } from "@colliepwa/shared";
import type { Ask, Item } from "@colliepwa/durable-sdk/wire";
import { shortTime } from "../../src/app/rules.ts";
import { AskSlot } from "../../src/features/chat/AskSlot.tsx";
import { ItemView } from "../../src/features/chat/ItemView.tsx";
import { arrange, WINDOW_SIZE } from "../../src/features/chat/list.ts";

afterEach(() => cleanup());

const TODAY = new Date(2026, 11, 2, 15, 0).getTime();
const TS = new Date(2026, 11, 2, 14, 5).toISOString();

function view(item: Item) {
  const { container } = render(<ItemView item={item} today={TODAY} />);
  return container.querySelector<HTMLElement>("[data-item-id]")!;
}

describe("right-to-left text (issue 37)", () => {
  test("every agent text and your own line take their direction from their text; names are isolated; code stays left to right", () => {
    const hebrew = "ההזמנה 5521 הוחזרה.";
    const items: Item[] = [
      { kind: "user", id: "u", text: "שלום, מה המצב?", ts: TS },
      { kind: "reply", id: "r", text: hebrew, ts: TS },
      { kind: "thinking", id: "t", text: "يجب التحقق من الطلب", ts: TS },
      { kind: "notice", id: "n", text: "تمت الإحالة.", ts: TS },
      { kind: "markdown", id: "m", text: "**שלום** עולם", ts: TS },
      { kind: "link", id: "l", href: "https://example.com/he", label: "קבלה", ts: TS },
      { kind: "tool", id: "x", name: "בדיקה", status: "done", call: "check()", output: "تم", ts: TS },
      { kind: "code", id: "c", text: "// תגובה\nx = 1", ts: TS },
    ];
    const auto = (id: string, selector: string) => view(items.find((i) => i.id === id)!).querySelector(selector)!.getAttribute("dir");
    expect(auto("u", ".bubble")).toBe("auto");
    expect(auto("r", ".bubble")).toBe("auto");
    expect(auto("t", ".text")).toBe("auto");
    expect(auto("n", ".notice")).toBe("auto");
    expect(auto("m", ".bubble")).toBe("auto");
    expect(auto("l", ".link-label")).toBe("auto");
    expect(auto("x", ".tool-output")).toBe("auto");
    expect(view(items.find((i) => i.id === "x")!).querySelector("bdi.tool-name")!.textContent).toBe("בדיקה");
    expect(auto("c", "pre")).toBe("ltr");
  });
});

describe("item kinds (P-18)", () => {
  test("user: your own line", () => {
    const el = view({ kind: "user", id: "u", text: "Please refund", ts: TS });
    expect(el.classList.contains("own")).toBe(true);
    expect(el.textContent).toContain("Please refund");
  });

  test("reply: the agent's answer, as text even when it looks like markup", () => {
    const el = view({ kind: "reply", id: "r", text: "Done <b>now</b> **really**", ts: TS });
    expect(el.querySelector("b, strong")).toBeNull();
    expect(el.textContent).toContain("Done <b>now</b> **really**");
  });

  test("thinking: labelled and drawn apart from replies", () => {
    const el = view({ kind: "thinking", id: "t", text: "Vouchers above 10% need a manager", ts: TS });
    expect(el.querySelector(".thinking")).not.toBeNull();
    expect(el.textContent).toContain("Thinking");
    expect(el.querySelector(".bubble")).toBeNull();
  });

  test("notice: a short note; a stopped turn leaves the `stopped` note (P-19)", () => {
    expect(view({ kind: "notice", id: "n", text: "Ticket reassigned", ts: TS }).querySelector(".notice")!.textContent).toBe("Ticket reassigned");
    cleanup();
    expect(view({ kind: "notice", id: "s", text: "whatever", stopped: true, ts: TS }).querySelector(".notice")!.textContent).toBe(STRINGS.stopped);
  });

  test("markdown: rendered safely", () => {
    const el = view({ kind: "markdown", id: "m", text: "**Refund issued**\n\n- Amount: 40 EUR\n- <i>x</i>", ts: TS });
    expect(el.querySelector("strong")!.textContent).toBe("Refund issued");
    expect(el.querySelectorAll("li")).toHaveLength(2);
    expect(el.querySelector("i")).toBeNull();
  });

  test("code: a code block with its language when given", () => {
    const el = view({ kind: "code", id: "c", text: "await refunds.issue({ order: \"5521\" });", lang: "ts", ts: TS });
    expect(el.querySelector(".code-lang")!.textContent).toBe("ts");
    expect(el.querySelector("pre code")!.textContent).toBe("await refunds.issue({ order: \"5521\" });");
    cleanup();
    expect(view({ kind: "code", id: "c2", text: "x" }).querySelector(".code-lang")).toBeNull();
  });

  test("code: a copy button copies the block as written (issue 37); the block scrolls and can be focused", async () => {
    const written: string[] = [];
    Object.defineProperty(navigator, "clipboard", { value: { writeText: async (t: string) => void written.push(t) }, configurable: true });
    const text = Array.from({ length: 150 }, (_, n) => `const line${n} = ${n};`).join("\n");
    const el = view({ kind: "code", id: "c", text, lang: "ts", ts: TS });
    expect(el.querySelector("pre")!.getAttribute("tabindex")).toBe("0");
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Copy the code" })));
    expect(written).toEqual([text]);
  });

  test("link: a link row with its label, else the address; https only", () => {
    const labelled = view({ kind: "link", id: "l", href: "https://shop.example.com/orders/5521", label: "Order 5521", ts: TS });
    const a = labelled.querySelector("a")!;
    expect(a.getAttribute("href")).toBe("https://shop.example.com/orders/5521");
    expect(a.getAttribute("rel")).toBe("noopener noreferrer");
    expect(a.getAttribute("target")).toBe("_blank");
    expect(a.querySelector(".link-label")!.textContent).toBe("Order 5521");
    cleanup();
    expect(view({ kind: "link", id: "l2", href: "https://example.com/x" }).querySelector("a .link-label")!.textContent).toBe("https://example.com/x");
    cleanup();
    const bad = view({ kind: "link", id: "l3", href: "javascript:alert(1)", label: "Tap me" });
    expect(bad.querySelector("a")).toBeNull();
    expect(bad.textContent).toContain("Tap me");
  });

  test("tool: name, call line and status — running, done with output, failed, denied", () => {
    const running = view({ kind: "tool", id: "t1", name: "lookup_order", status: "running", call: 'lookup_order(order: "5521")' });
    expect(running.querySelector(".tool-name")!.textContent).toBe("lookup_order");
    expect(running.querySelector(".tool-call")!.textContent).toBe('lookup_order(order: "5521")');
    expect(running.querySelector(".tool-status")!.textContent).toBe("Running");
    expect(running.querySelector(".tool-status .spinner")).not.toBeNull();
    cleanup();
    const done = view({ kind: "tool", id: "t2", name: "lookup_order", status: "done", output: '{"status":"delivered"}', ts: TS });
    expect(done.querySelector(".tool-status")!.textContent).toBe("Done");
    expect(done.querySelector(".tool-output")!.textContent).toBe('{"status":"delivered"}');
    cleanup();
    expect(view({ kind: "tool", id: "t3", name: "refund", status: "failed" }).getAttribute("class")).toContain("item-tool");
    expect(screen.getByText("Failed")).toBeTruthy();
    cleanup();
    view({ kind: "tool", id: "t4", name: "refund", status: "denied" });
    expect(screen.getByText("Denied")).toBeTruthy();
  });
});

describe("growing items and times (P-19)", () => {
  test("a growing reply, thinking, notice or markdown shows a cursor at its end and no time", () => {
    for (const kind of ["reply", "thinking", "notice", "markdown"] as const) {
      const el = view({ kind, id: kind, text: "Sure, I will add a voucher wo", partial: true, ts: TS } as Item);
      expect(el.querySelector("[data-cursor]"), kind).not.toBeNull();
      expect(el.querySelector("time"), kind).toBeNull();
      cleanup();
    }
  });

  test("the final text: no cursor, and the time shows small", () => {
    const el = view({ kind: "reply", id: "r", text: "Sure, I will add a voucher.", ts: TS });
    expect(el.querySelector("[data-cursor]")).toBeNull();
    const time = el.querySelector("time")!;
    expect(time.getAttribute("datetime")).toBe(TS);
    expect(time.textContent).toBe(shortTime(TS, TODAY));
    expect(time.textContent).toMatch(/05/);
  });

  test("an item the agent had to cut or clean says `Text shortened`", () => {
    const el = view({ kind: "tool", id: "t", name: "lookup", status: "done", output: "…", textShortened: true, ts: TS });
    expect(el.querySelector(".shortened")!.textContent).toBe(STRINGS.textShortened);
    cleanup();
    expect(view({ kind: "reply", id: "r", text: "x", ts: TS }).querySelector(".shortened")).toBeNull();
  });
});

const ask = (over: Partial<Ask> = {}): Ask => ({
  id: "a1", revision: "ca978112ca1bbdca", kind: "permission", paneId: "p", toolCallId: "call_01", itemId: "t1",
  title: "refund wants to run", tool: { name: "refund", call: 'refund(order: "5521", amount: 40)' },
  options: [{ id: "allow", kind: "allow", label: "Allow" }, { id: "deny", kind: "deny", label: "Deny" }],
  createdAt: TS, ...over,
} as Ask);

describe("ask slot (P-9)", () => {
  test("a card drawn without a phone connection is read-only: caption with the agent, title, tool call, reason, no buttons", () => {
    const { container } = render(<AskSlot agent="desk" asks={[ask({ reason: "Order arrived broken" })]} />);
    const card = container.querySelector('[data-ask-id="a1"]')!;
    expect(card.querySelector(".ask-caption")!.textContent).toBe(STRINGS.needsYourAnswer("desk"));
    expect(card.querySelector(".ask-title")!.textContent).toBe("refund wants to run");
    expect(card.querySelector(".ask-call")!.textContent).toBe('refund(order: "5521", amount: 40)');
    expect(card.querySelector(".ask-reason")!.textContent).toBe("Order arrived broken");
    expect(card.querySelector("button")).toBeNull();
  });

  test("asks sit under the tool item they name; others, and those whose item is not drawn, at the end", () => {
    const items: Item[] = [
      { kind: "user", id: "u", text: "go" },
      { kind: "tool", id: "t1", name: "refund", status: "running" },
      { kind: "reply", id: "r", text: "waiting" },
    ];
    const a = arrange(items, [ask(), ask({ id: "a2", itemId: "nowhere" })], WINDOW_SIZE);
    expect(a.rows.map((r) => [r.item.id, r.asks.map((x) => x.id)])).toEqual([["u", []], ["t1", ["a1"]], ["r", []]]);
    expect(a.loose.map((x) => x.id)).toEqual(["a2"]);
    const narrow = arrange(items, [ask()], 1);
    expect(narrow.earlier).toBe(2);
    expect(narrow.loose.map((x) => x.id)).toEqual(["a1"]);
  });
});

describe("long conversations stay smooth (P-18)", () => {
  test("only the newest items are drawn; each `Show earlier` adds a window more", () => {
    const items: Item[] = Array.from({ length: 450 }, (_, n) => ({ kind: "reply", id: `i${n}`, text: `${n}` }));
    const first = arrange(items, [], WINDOW_SIZE);
    expect(first.rows).toHaveLength(200);
    expect(first.earlier).toBe(250);
    expect(first.rows.at(-1)!.item.id).toBe("i449");
    expect(arrange(items, [], WINDOW_SIZE * 2).earlier).toBe(50);
    expect(arrange(items, [], WINDOW_SIZE * 3).earlier).toBe(0);
  });
});
