/**
 * The ask cards' pure rules: the countdown (P-9, P-16), permission buttons and `Always allow`
 * (P-10…P-12), text limits (P-10), the form check (P-10), many asks (P-13), the folded reason
 * (P-9) and the card's state machine after taps (P-14, P-15).
 */
import { describe, expect, test } from "vitest";
import { STRINGS } from "@colliepwa/shared";
import {
  canRetry, canTap, cardLook, IDLE, pendingState, reduceCard, type CardState, type Sent,
} from "../../src/features/asks/card-state.ts";
import { countdown, FAST_TICK_MS, SLOW_TICK_MS } from "../../src/features/asks/countdown.ts";
import { checkForm, initialValues } from "../../src/features/asks/form.ts";
import { chatOrder, drawnAsks, FIRST_ASKS } from "../../src/features/asks/many-asks.ts";
import { alwaysAllowOffered, permissionButtons } from "../../src/features/asks/permission.ts";
import { foldReason } from "../../src/features/asks/reason.ts";
import { charCount, clampText, textLimit } from "../../src/features/asks/text-limit.ts";
import { formAsk, permissionAsk, T0 } from "./fixtures.tsx";

describe("countdown words with an injected clock (P-9, P-16)", () => {
  const end = T0 + 4 * 60_000;
  test("minutes rounded up while a minute or more is left", () => {
    expect(countdown(end, T0).text).toBe("Expires in 4 min");
    expect(countdown(end, T0 + 1).text).toBe("Expires in 4 min");
    expect(countdown(end, T0 + 60_000).text).toBe("Expires in 3 min");
    expect(countdown(end, end - 60_000).text).toBe("Expires in 1 min");
    expect(countdown(new Date(end).toISOString(), T0).text).toBe(STRINGS.expiresInMin(4));
  });
  test("seconds below a minute, then Expired", () => {
    expect(countdown(end, end - 40_000).text).toBe("Expires in 40 s");
    expect(countdown(end, end - 59_000).text).toBe("Expires in 59 s");
    expect(countdown(end, end - 1).text).toBe("Expires in 1 s");
    expect(countdown(end, end)).toEqual({ text: STRINGS.expired, expired: true, nextTickMs: null });
    expect(countdown(end, end + 10_000).text).toBe("Expired");
  });
  test("looks at the clock each second only in the last minute, else about every 15 s", () => {
    expect(countdown(end, T0).nextTickMs).toBe(SLOW_TICK_MS);
    expect(countdown(end, end - 40_000).nextTickMs).toBe(FAST_TICK_MS);
    // 65 s left: the next look is when the last minute starts, so seconds begin on time.
    expect(countdown(end, end - 65_000).nextTickMs).toBe(6_000);
  });
});

describe("permission buttons (P-10, P-11, P-12)", () => {
  test("Collie's words; the agent's label only when it says something else", () => {
    const b = permissionButtons(permissionAsk({
      options: [
        { id: "ok", kind: "allow", label: "allow" },
        { id: "al", kind: "allow-always", label: "Always allow refunds" },
        { id: "no", kind: "deny", label: "Refuse the refund" },
        { id: "x", kind: "cancel", label: "Cancel" },
      ],
    }));
    expect(b.map((x) => [x.word, x.label, x.twoTaps])).toEqual([
      [STRINGS.allow, null, false],
      [STRINGS.alwaysAllow, "Always allow refunds", true],
      [STRINGS.deny, "Refuse the refund", false],
      [STRINGS.cancel, null, false],
    ]);
  });
  test("at most 6 buttons", () => {
    const options = Array.from({ length: 8 }, (_, n) => ({ id: `o${n}`, kind: "deny" as const, label: `No ${n}` }));
    expect(permissionButtons(permissionAsk({ options }))).toHaveLength(6);
  });
  test("Always allow is not offered without a tool, nor when the text was shortened", () => {
    expect(alwaysAllowOffered(permissionAsk())).toBe(true);
    expect(alwaysAllowOffered(permissionAsk({ tool: undefined }))).toBe(false);
    expect(alwaysAllowOffered(permissionAsk({ textShortened: true }))).toBe(false);
    expect(permissionButtons(permissionAsk({ tool: undefined })).map((b) => b.option.kind)).toEqual(["allow", "deny"]);
    expect(permissionButtons(permissionAsk({ textShortened: true })).map((b) => b.option.kind)).toEqual(["allow", "deny"]);
  });
});

describe("text limits (P-10)", () => {
  test("500 by default, the agent's limit up to 2000", () => {
    expect(textLimit(undefined)).toBe(500);
    expect(textLimit(120)).toBe(120);
    expect(textLimit(2000)).toBe(2000);
    expect(textLimit(5000)).toBe(2000);
  });
  test("characters are code points; clamping never goes over", () => {
    expect(charCount("héllo 👋")).toBe(7);
    expect(clampText("ab👋cd", 3)).toBe("ab👋");
    expect(clampText("abc", 3)).toBe("abc");
  });
});

describe("the form check matches the agent's (P-10)", () => {
  const ask = formAsk({
    fields: [
      { id: "note", type: "text", label: "Note", required: true, limit: 5 },
      { id: "priority", type: "select", label: "Priority", required: true, options: [{ id: "low", label: "Low" }] },
      { id: "sure", type: "toggle", label: "I am sure", required: true },
      { id: "extra", type: "text", label: "Extra" },
      { id: "notify", type: "toggle", label: "Tell the customer" },
    ],
  });
  test("missing required text, select and toggle are named; nothing to send", () => {
    const c = checkForm(ask, initialValues(ask));
    expect(c.ok).toBe(false);
    if (!c.ok) expect([...c.problems]).toEqual([["note", "required"], ["priority", "required"], ["sure", "required"]]);
  });
  test("text over its limit and an unknown option do not pass", () => {
    const c = checkForm(ask, { note: "toolong", priority: "nope", sure: true });
    expect(c.ok).toBe(false);
    if (!c.ok) expect([...c.problems]).toEqual([["note", "too-long"], ["priority", "unknown-option"]]);
  });
  test("a filled form: empty optional text left out, toggles as booleans", () => {
    expect(checkForm(ask, { ...initialValues(ask), note: "hi", priority: "low", sure: true })).toEqual({
      ok: true, answer: { kind: "form", values: { note: "hi", priority: "low", sure: true, notify: false } },
    });
  });
});

describe("many asks (P-13)", () => {
  const asks = Array.from({ length: 7 }, (_, n) => permissionAsk({ id: `a${n}`, itemId: `i${6 - n}`, createdAt: ISOat(n) }));
  test("the first 5 in the chat's order are cards; the rest behind Show N more", () => {
    const ordered = chatOrder(asks, Array.from({ length: 7 }, (_, n) => ({ id: `i${n}` })));
    expect(ordered.map((a) => a.id)).toEqual(["a6", "a5", "a4", "a3", "a2", "a1", "a0"]);
    const d = drawnAsks(ordered, false);
    expect(FIRST_ASKS).toBe(5);
    expect([...d.drawn]).toEqual(["a6", "a5", "a4", "a3", "a2"]);
    expect(d.hidden).toBe(2);
    expect(d.showMoreAfter).toBe("a2");
    expect(drawnAsks(ordered, true)).toEqual({ drawn: new Set(ordered.map((a) => a.id)), hidden: 0, showMoreAfter: null });
    expect(drawnAsks(ordered.slice(0, 5), false).hidden).toBe(0);
  });
  test("asks whose item is not drawn come last, by when they were raised", () => {
    expect(chatOrder(asks, []).map((a) => a.id)).toEqual(["a0", "a1", "a2", "a3", "a4", "a5", "a6"]);
  });
});

function ISOat(n: number): string {
  return new Date(T0 + n * 1000).toISOString();
}

describe("a long reason folds (P-9)", () => {
  test("over 240 characters or over 4 lines", () => {
    expect(foldReason("short")).toEqual({ long: false, short: "short" });
    const long = "x".repeat(300);
    expect(foldReason(long)).toEqual({ long: true, short: `${"x".repeat(240)}…` });
    expect(foldReason("1\n2\n3\n4\n5")).toEqual({ long: true, short: "1\n2\n3\n4…" });
    expect(foldReason("1\n2\n3\n4").long).toBe(false);
  });
});

describe("the card's state machine (P-14, P-15)", () => {
  const sent: Sent = { requestId: "r-1", revision: "0000000000000001", answer: { kind: "permission", optionId: "allow" } };
  const reply = (status: number, body: Record<string, unknown>) => ({ kind: "reply" as const, reply: { status, body } });
  const after = (s: CardState, ...results: Parameters<typeof reduceCard>[1][]) => results.reduce(reduceCard, s);

  test("a tap sends; while sending nothing else can be tapped", () => {
    const s = reduceCard(IDLE, { type: "tap", sent });
    expect(s.phase).toBe("sending");
    expect(cardLook(s)).toMatchObject({ enabled: false, busy: true, line: null });
    expect(reduceCard(s, { type: "tap", sent: { ...sent, requestId: "r-2" } })).toBe(s);
  });
  test("accepted closes the card", () => {
    expect(cardLook(after(IDLE, { type: "tap", sent }, { type: "result", result: reply(200, { ok: true }) })).hidden).toBe(true);
  });
  test("no reply: not sure, Retry resends the same id, read as a retry", () => {
    const s = after(IDLE, { type: "tap", sent }, { type: "result", result: { kind: "no-reply" } });
    expect(cardLook(s)).toMatchObject({ line: STRINGS.notSureArrived, retry: true, enabled: false });
    expect(canRetry(s)).toBe(true);
    const r = reduceCard(s, { type: "retry" });
    expect(r).toMatchObject({ phase: "sending", retry: true, sent });
    expect(cardLook(reduceCard(r, { type: "result", result: reply(409, { error: "ask-answered" }) }))).toMatchObject({
      line: STRINGS.mayHaveBeenApplied, frozen: true, enabled: false, retry: false,
    });
  });
  test("receipt-dropped: `May have been applied already` at once, frozen, no Retry (the agent saw this request id)", () => {
    const first = after(IDLE, { type: "tap", sent }, { type: "result", result: reply(500, { error: "receipt-dropped", message: "dropped" }) });
    expect(cardLook(first)).toMatchObject({ line: STRINGS.mayHaveBeenApplied, frozen: true, retry: false, enabled: false });
    expect(canRetry(first)).toBe(false);
    // A Retry after no reply that comes back dropped ends the same way.
    const later = after(IDLE, { type: "tap", sent }, { type: "result", result: { kind: "no-reply" } }, { type: "retry" }, { type: "result", result: reply(500, { error: "receipt-dropped" }) });
    expect(cardLook(later)).toMatchObject({ line: STRINGS.mayHaveBeenApplied, frozen: true, retry: false });
  });
  test("the same result is never read twice", () => {
    const res = { kind: "no-reply" as const };
    const s = after(IDLE, { type: "tap", sent }, { type: "result", result: res });
    expect(reduceCard(s, { type: "result", result: res })).toBe(s);
  });
  test("frozen outcomes take no taps; changed and refused do", () => {
    const decided = after(IDLE, { type: "tap", sent }, { type: "result", result: reply(409, { error: "ask-decided" }) });
    expect(cardLook(decided)).toMatchObject({ frozen: true, enabled: false, line: STRINGS.decidedInAgent });
    expect(canTap(decided)).toBe(false);
    const changed = after(IDLE, { type: "tap", sent }, { type: "result", result: reply(409, { error: "ask-changed" }) });
    expect(cardLook(changed)).toMatchObject({ frozen: false, enabled: true, line: STRINGS.askChanged });
    const refused = after(IDLE, { type: "tap", sent }, { type: "result", result: reply(400, { error: "invalid-answer" }) });
    expect(cardLook(refused)).toMatchObject({ enabled: true, line: STRINGS.answerRefused });
  });
  test("held (202) waits for its held-outcome", () => {
    const held = after(IDLE, { type: "tap", sent }, { type: "result", result: reply(202, { held: true }) });
    expect(cardLook(held)).toMatchObject({ held: true, enabled: false, line: null });
    expect(reduceCard(held, { type: "held-outcome", reply: { status: 409, body: { error: "ask-timed-out" } } }).view?.line).toBe(STRINGS.timedOut);
    expect(cardLook(reduceCard(held, { type: "held-outcome", reply: { status: 200, body: { ok: true } } })).hidden).toBe(true);
    expect(reduceCard(IDLE, { type: "held-outcome", reply: { status: 200, body: {} } })).toBe(IDLE);
  });
  test("a pending answer from an earlier page: not sure, with Retry; a reply to its re-send is a retry", () => {
    const p = pendingState(sent);
    expect(cardLook(p)).toMatchObject({ line: STRINGS.notSureArrived, retry: true });
    expect(cardLook(p, true)).toMatchObject({ busy: true, retry: false });
    expect(reduceCard(p, { type: "result", result: reply(409, { error: "ask-decided" }) }).view?.line).toBe(STRINGS.mayHaveBeenApplied);
  });
});
