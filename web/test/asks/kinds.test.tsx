/**
 * The cards in the chat, kind by kind (P-9…P-13): what each draws and its limits, the agent's
 * label on a second line, `Pick any` and the set sent, the text counter and limit, the form's own
 * check before sending, `Always allow` in two taps (and not offered), an unknown kind, the first 5
 * asks and `Show N more`, and the countdown with the phone's injected clock.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { act, cleanup, fireEvent, screen, within } from "@testing-library/react";
import { STRINGS } from "@colliepwa/shared";
import type { Ask } from "@colliepwa/durable-sdk/wire";
import { agentSummary, on } from "../chat/harness.tsx";
import {
  answerPath, card, choiceAsk, formAsk, line, OK, openChat, option, permissionAsk, sendButton, T0, tap, textAsk, until,
} from "./fixtures.tsx";

beforeEach(() => {
  location.hash = "#/agent/desk/pane/p1";
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe("the card (P-9)", () => {
  test("caption with the agent, title, reason; under the tool call it concerns, whose call it does not repeat", async () => {
    await openChat([permissionAsk()]);
    const c = card("a1");
    const item = c.closest(".row-slot")!.querySelector('[data-item-id="item-41"]');
    expect(item).not.toBeNull();
    expect(c.querySelector(".ask-caption")!.textContent).toBe(STRINGS.needsYourAnswer("desk"));
    expect(c.querySelector(".ask-title")!.textContent).toBe("refund wants to run");
    // The tool item right above shows the same call: the card does not say it again.
    expect(item!.querySelector(".tool-call")!.textContent).toBe('refund(order: "5521", amount: 40)');
    expect(c.querySelector(".ask-call")).toBeNull();
    expect(c.querySelector(".ask-reason")!.textContent).toBe("The customer reports a broken item; policy allows a full refund.");
    expect(c.querySelector(".ask-expiry")).toBeNull();
    expect(c.querySelector(".shortened")).toBeNull();
  });

  test("the tool's name when it gives no call; Text shortened when Collie cut the text", async () => {
    await openChat([permissionAsk({ tool: { name: "refund" }, textShortened: true })]);
    expect(card("a1").querySelector(".ask-call")!.textContent).toBe("refund");
    expect(card("a1").querySelector(".shortened")!.textContent).toBe(STRINGS.textShortened);
  });

  test("a long reason folds with Show more / Show less; agent text is never HTML", async () => {
    const reason = `<b>bold</b> ${"word ".repeat(80)}`;
    await openChat([permissionAsk({ reason })]);
    const c = card("a1");
    expect(c.querySelector("b")).toBeNull();
    expect(c.querySelector(".ask-reason")!.textContent!.endsWith("…")).toBe(true);
    fireEvent.click(within(c).getByRole("button", { name: "Show more" }));
    expect(c.querySelector(".ask-reason")!.textContent).toBe(reason);
    fireEvent.click(within(c).getByRole("button", { name: "Show less" }));
    expect(c.querySelector(".ask-reason")!.textContent!.length).toBeLessThan(reason.length);
  });
});

describe("permission (P-10)", () => {
  test("one button per option in Collie's words; the agent's label on a quiet second line", async () => {
    await openChat([permissionAsk({
      options: [
        { id: "allow", kind: "allow", label: "Allow" },
        { id: "deny", kind: "deny", label: "Refuse the refund" },
        { id: "cancel", kind: "cancel", label: "Stop asking" },
      ],
    })]);
    const c = card("a1");
    const words = [...c.querySelectorAll(".ask-button")].map((b) => [b.querySelector(".ask-word")!.textContent, b.querySelector(".ask-sub")?.textContent ?? null]);
    expect(words).toEqual([["Allow", null], ["Deny", "Refuse the refund"], ["Cancel", "Stop asking"]]);
  });

  test("at most 6 buttons", async () => {
    const options = Array.from({ length: 6 }, (_, n) => ({ id: `o${n}`, kind: "deny" as const, label: `No ${n}` }));
    await openChat([permissionAsk({ options: [...options, { id: "o6", kind: "deny", label: "No 6" }] })]);
    expect(card("a1").querySelectorAll(".ask-button")).toHaveLength(6);
  });

  test("a tap sends that option with its own request id and the ask's revision (P-14)", async () => {
    const h = await openChat([permissionAsk()], { routes: [on("POST", answerPath("a1"), OK)] });
    await tap(option(card("a1"), "deny"));
    const [body] = h.answers("a1");
    expect(body).toEqual({ requestId: expect.any(String), revision: permissionAsk().revision, answer: { kind: "permission", optionId: "deny" } });
    expect(h.answers("a1")).toHaveLength(1);
  });
});

describe("Always allow takes two taps (P-11, P-12)", () => {
  test("the first tap arms it with the tool's name, sending nothing; the second sends", async () => {
    const h = await openChat([permissionAsk()], { routes: [on("POST", answerPath("a1"), OK)] });
    const always = option(card("a1"), "allow-always");
    expect(always.querySelector(".ask-word")!.textContent).toBe(STRINGS.alwaysAllow);
    expect(always.querySelector(".ask-sub")!.textContent).toBe("Always allow refunds");
    await tap(always);
    expect(h.answers("a1")).toHaveLength(0);
    expect(always.querySelector(".ask-word")!.textContent).toBe(STRINGS.tapAgainToAlwaysAllow);
    expect(always.querySelector(".ask-sub")!.textContent).toBe("refund");
    await tap(always);
    expect(h.answers("a1").map((b) => b.answer)).toEqual([{ kind: "permission", optionId: "allow-always" }]);
  });

  test("not offered when the ask names no tool", async () => {
    await openChat([permissionAsk({ tool: undefined })]);
    expect(card("a1").querySelector('[data-option="allow-always"]')).toBeNull();
    expect(within(card("a1")).queryByText(STRINGS.alwaysAllow)).toBeNull();
    expect(card("a1").querySelectorAll(".ask-button")).toHaveLength(2);
  });

  test("not offered when the text was shortened", async () => {
    await openChat([permissionAsk({ textShortened: true })]);
    expect(card("a1").querySelector('[data-option="allow-always"]')).toBeNull();
    expect(card("a1").querySelector(".shortened")).not.toBeNull();
  });
});

describe("choice (P-10)", () => {
  test("one row per option with its description; a tap sends it", async () => {
    const h = await openChat([choiceAsk()], { routes: [on("POST", answerPath("c1"), OK)] });
    const c = card("c1");
    expect([...c.querySelectorAll(".ask-row")].map((r) => r.textContent)).toEqual(["Original card3 to 5 business days", "Store credit", "Voucher by email"]);
    expect(within(c).queryByText(STRINGS.pickAny)).toBeNull();
    await tap(option(c, "credit"));
    expect(h.answers("c1").map((b) => b.answer)).toEqual([{ kind: "choice", optionIds: ["credit"] }]);
  });

  test("at most 8 rows", async () => {
    const options = Array.from({ length: 9 }, (_, n) => ({ id: `o${n}`, label: `Option ${n}` }));
    await openChat([choiceAsk({ options })]);
    expect(card("c1").querySelectorAll(".ask-row")).toHaveLength(8);
  });

  test("multiple: rows toggle under Pick any; Send sends the set", async () => {
    const h = await openChat([choiceAsk({ multiple: true })], { routes: [on("POST", answerPath("c1"), OK)] });
    const c = card("c1");
    expect(within(c).getByText(STRINGS.pickAny)).toBeTruthy();
    expect(sendButton(c).disabled).toBe(false); // nothing picked is an answer too
    await tap(option(c, "voucher"));
    await tap(option(c, "card"));
    await tap(option(c, "credit"));
    await tap(option(c, "credit"));
    expect(h.answers("c1")).toHaveLength(0);
    expect(option(c, "card").getAttribute("aria-pressed")).toBe("true");
    expect(option(c, "credit").getAttribute("aria-pressed")).toBe("false");
    expect(sendButton(c).disabled).toBe(false);
    await tap(sendButton(c));
    expect(h.answers("c1").map((b) => b.answer)).toEqual([{ kind: "choice", optionIds: ["card", "voucher"] }]);
  });

  test("multiple with nothing picked: Send sends the empty set", async () => {
    const h = await openChat([choiceAsk({ multiple: true })], { routes: [on("POST", answerPath("c1"), OK)] });
    await tap(sendButton(card("c1")));
    expect(h.answers("c1").map((b) => b.answer)).toEqual([{ kind: "choice", optionIds: [] }]);
  });
});

describe("text (P-10)", () => {
  const input = (c: HTMLElement) => within(c).getByRole("textbox") as HTMLInputElement;

  test("one input line, a counter like `12 of 500`, Send", async () => {
    const h = await openChat([textAsk()], { routes: [on("POST", answerPath("t1"), OK)] });
    const c = card("t1");
    expect(c.querySelector(".ask-counter")!.textContent).toBe("0 of 500");
    expect(input(c).placeholder).toBe("A short reply");
    expect(sendButton(c).disabled).toBe(false); // an empty text is an answer the wire allows
    fireEvent.change(input(c), { target: { value: "Sorry, 👋 late" } });
    expect(c.querySelector(".ask-counter")!.textContent).toBe(STRINGS.counter(13, 500));
    await tap(sendButton(c));
    expect(h.answers("t1").map((b) => b.answer)).toEqual([{ kind: "text", text: "Sorry, 👋 late" }]);
  });

  test("nothing typed: Send sends the empty text", async () => {
    const h = await openChat([textAsk()], { routes: [on("POST", answerPath("t1"), OK)] });
    await tap(sendButton(card("t1")));
    expect(h.answers("t1").map((b) => b.answer)).toEqual([{ kind: "text", text: "" }]);
  });

  test("the limit blocks going over: 500 by default", async () => {
    await openChat([textAsk()]);
    const c = card("t1");
    fireEvent.change(input(c), { target: { value: "x".repeat(600) } });
    expect(input(c).value).toHaveLength(500);
    expect(c.querySelector(".ask-counter")!.textContent).toBe("500 of 500");
  });

  test("the agent's limit up to 2000", async () => {
    await openChat([textAsk({ limit: 2000 })]);
    const c = card("t1");
    fireEvent.change(input(c), { target: { value: "y".repeat(2100) } });
    expect(input(c).value).toHaveLength(2000);
    expect(c.querySelector(".ask-counter")!.textContent).toBe("2000 of 2000");
  });

  test("a smaller limit of the agent's, counted in characters", async () => {
    await openChat([textAsk({ limit: 3 })]);
    const c = card("t1");
    fireEvent.change(input(c), { target: { value: "a👋b👋c" } });
    expect(input(c).value).toBe("a👋b");
    expect(c.querySelector(".ask-counter")!.textContent).toBe("3 of 3");
  });
});

describe("form (P-10)", () => {
  test("fields stacked under one Send: text line with its counter, select list, toggle; Required marks", async () => {
    await openChat([formAsk()]);
    const c = card("f1");
    const fields = [...c.querySelectorAll<HTMLElement>("[data-field]")];
    expect(fields.map((f) => f.dataset.field)).toEqual(["note", "priority", "notify"]);
    expect(fields.map((f) => f.querySelector(".ask-required")?.textContent ?? null)).toEqual([STRINGS.required, STRINGS.required, null]);
    expect(fields[0]!.querySelector(".ask-counter")!.textContent).toBe("0 of 200");
    expect(within(c).getByRole("combobox", { name: /Priority/ })).toBeTruthy();
    expect(within(c).getByRole("switch", { name: /Tell the customer/ })).toBeTruthy();
    expect(within(c).getAllByRole("button", { name: "Send" })).toHaveLength(1);
  });

  test("at most 6 fields", async () => {
    const fields = Array.from({ length: 7 }, (_, n) => ({ id: `f${n}`, type: "toggle" as const, label: `Switch ${n}` }));
    await openChat([formAsk({ fields })]);
    expect(card("f1").querySelectorAll("[data-field]")).toHaveLength(6);
  });

  test("a missing required field is refused on the phone and named; once filled, the form is sent", async () => {
    const h = await openChat([formAsk()], { routes: [on("POST", answerPath("f1"), OK)] });
    const c = card("f1");
    const note = within(c).getByRole("textbox", { name: /Note for the manager/ });
    fireEvent.change(note, { target: { value: "Second broken parcel this month." } });
    expect(sendButton(c).disabled).toBe(false);
    await tap(sendButton(c));
    expect(h.answers("f1")).toHaveLength(0);
    const priority = c.querySelector<HTMLElement>('[data-field="priority"]')!;
    expect(priority.classList.contains("ask-field-invalid")).toBe(true);
    expect(within(priority).getByRole("alert").textContent).toBeTruthy();
    expect(c.querySelector('[data-field="note"]')!.classList.contains("ask-field-invalid")).toBe(false);
    fireEvent.change(within(c).getByRole("combobox", { name: /Priority/ }), { target: { value: "high" } });
    expect(priority.classList.contains("ask-field-invalid")).toBe(false);
    fireEvent.click(within(c).getByRole("switch", { name: /Tell the customer/ }));
    await tap(sendButton(c));
    expect(h.answers("f1").map((b) => b.answer)).toEqual([
      { kind: "form", values: { note: "Second broken parcel this month.", priority: "high", notify: true } },
    ]);
  });

  test("a required toggle must be on; a text field stays within its limit", async () => {
    const h = await openChat([formAsk({
      fields: [
        { id: "sure", type: "toggle", label: "I checked the parcel", required: true },
        { id: "why", type: "text", label: "Why", limit: 4 },
      ],
    })], { routes: [on("POST", answerPath("f1"), OK)] });
    const c = card("f1");
    fireEvent.change(within(c).getByRole("textbox", { name: /Why/ }), { target: { value: "because" } });
    expect((within(c).getByRole("textbox", { name: /Why/ }) as HTMLInputElement).value).toBe("beca");
    await tap(sendButton(c));
    expect(h.answers("f1")).toHaveLength(0);
    expect(c.querySelector('[data-field="sure"]')!.classList.contains("ask-field-invalid")).toBe(true);
    fireEvent.click(within(c).getByRole("switch", { name: /I checked the parcel/ }));
    await tap(sendButton(c));
    expect(h.answers("f1").map((b) => b.answer)).toEqual([{ kind: "form", values: { sure: true, why: "beca" } }]);
  });
});

describe("unknown kinds and many asks (P-13)", () => {
  test("a kind this Collie does not know shows its text and cannot be answered here", async () => {
    const odd = { ...permissionAsk({ id: "u1", title: "Sign the delivery note", reason: "Draw your signature" }), kind: "signature" } as unknown as Ask;
    await openChat([odd]);
    const c = card("u1");
    expect(c.querySelector(".ask-title")!.textContent).toBe("Sign the delivery note");
    expect(c.querySelector(".ask-reason")!.textContent).toBe("Draw your signature");
    expect(within(c).getByText(STRINGS.cannotAnswer)).toBeTruthy();
    expect(c.querySelector(".ask-button, .ask-send, input")).toBeNull();
  });

  test("the first 5 asks are cards; `Show 2 more` opens the rest", async () => {
    const asks = Array.from({ length: 7 }, (_, n) => permissionAsk({ id: `m${n}`, title: `Ask ${n}`, createdAt: new Date(T0 - 10_000 + n).toISOString() }));
    await openChat(asks);
    expect([...document.querySelectorAll("[data-ask-id]")].map((e) => e.getAttribute("data-ask-id"))).toEqual(["m0", "m1", "m2", "m3", "m4"]);
    await tap(screen.getByRole("button", { name: STRINGS.showMore(2) }));
    expect(document.querySelectorAll("[data-ask-id]")).toHaveLength(7);
    expect(screen.queryByRole("button", { name: /^Show \d+ more$/ })).toBeNull();
  });

  test("five or fewer: no Show more row", async () => {
    await openChat(Array.from({ length: 5 }, (_, n) => permissionAsk({ id: `m${n}` })));
    expect(document.querySelectorAll("[data-ask-id]")).toHaveLength(5);
    expect(screen.queryByRole("button", { name: /^Show \d+ more$/ })).toBeNull();
  });
});

describe("right-to-left text on a card (issue 37)", () => {
  test("the title, reason and the agent's own labels take their direction from their text; the agent's name is isolated", async () => {
    await openChat([permissionAsk({ title: "החזר כספי להזמנה 5521?", reason: "הלקוחה ביקשה.", options: [{ id: "allow", kind: "allow", label: "אשר" }, { id: "deny", kind: "deny", label: "דחה" }] })]);
    const c = card("a1");
    expect(c.querySelector(".ask-title")!.getAttribute("dir")).toBe("auto");
    expect(c.querySelector(".ask-reason")!.getAttribute("dir")).toBe("auto");
    expect(c.querySelector(".ask-sub")!.getAttribute("dir")).toBe("auto");
    expect(c.querySelector(".ask-caption bdi")!.textContent).toBe("desk");
    expect(c.querySelector(".ask-caption")!.textContent).toBe(STRINGS.needsYourAnswer("desk"));
  });
});

describe("the countdown under the title, with the phone's clock (P-9, P-16)", () => {
  test("stays while the agent is away (issue 32): a held answer reaches the agent only if the ask is still open", async () => {
    const expiresAt = new Date(T0 + 4 * 60_000).toISOString();
    const h = await openChat([permissionAsk({ expiresAt })]);
    act(() => h.deliver({ type: "agent", agent: { ...agentSummary(), state: "unreachable" } }));
    expect(document.querySelector("[data-away]")).toBeTruthy();
    expect(card("a1").querySelector(".ask-expiry")!.textContent).toBe("Expires in 4 min");
  });

  test("Expires in 4 min, then 40 s, then Expired; the buttons stay and a late tap is sent", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const expiresAt = new Date(T0 + 4 * 60_000).toISOString();
    const h = await openChat([permissionAsk({ expiresAt })], { routes: [on("POST", answerPath("a1"), { status: 409, body: { error: "ask-timed-out" } })] });
    const c = () => card("a1");
    const expiry = () => c().querySelector(".ask-expiry")!.textContent;
    const title = c().querySelector(".ask-title")!;
    expect(title.nextElementSibling!.classList.contains("ask-expiry")).toBe(true);
    expect(expiry()).toBe("Expires in 4 min");
    h.clock.t = T0 + 4 * 60_000 - 40_000;
    act(() => void vi.advanceTimersByTime(15_000));
    expect(expiry()).toBe("Expires in 40 s");
    h.clock.t += 1_000;
    act(() => void vi.advanceTimersByTime(1_000));
    expect(expiry()).toBe("Expires in 39 s");
    h.clock.t = T0 + 4 * 60_000 + 1;
    act(() => void vi.advanceTimersByTime(1_000));
    expect(expiry()).toBe(STRINGS.expired);
    expect(option(c(), "allow").disabled).toBe(false);
    vi.useRealTimers();
    await tap(option(c(), "allow"));
    await until(() => expect(line(c())).toBe(STRINGS.timedOut));
    expect(h.answers("a1")).toHaveLength(1);
    expect(option(c(), "allow").disabled).toBe(true);
  });
});
