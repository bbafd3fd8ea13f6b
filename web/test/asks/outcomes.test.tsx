/**
 * After a tap, end to end through the card (P-14, P-15, P-16): Collie's replies are faked at the
 * fetch boundary of the Phone's Api. Every outcome of the table — accepted (and replayed), decided
 * in the agent, timed out, already answered, not taken, changed (then a new tap), no reply and
 * Retry with the same request id, a retry that finds the ask closed, refused with and without a
 * reason, an older Collie, and an answer Collie holds (202) until its `held-outcome`. Also: the
 * buttons while sending, a pending answer after a reload, and no chat line for an answer taken on
 * the phone (P-16).
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { act, cleanup, fireEvent, within } from "@testing-library/react";
import { STRINGS } from "@colliepwa/shared";
import type { Item } from "@colliepwa/durable-sdk/wire";
import { phonePath } from "@colliepwa/shared/routes";
import { memoryOutboxStorage } from "../../src/app/outbox.ts";
import { deferred, detail, on, seq, type FakeReply } from "../chat/harness.tsx";
import {
  answerPath, card, cardOrNull, ISO, ITEMS, line, OK, openChat, option, permissionAsk, rev, tap, textAsk, until,
} from "./fixtures.tsx";

const ANSWER = answerPath("a1");
const conflict = (error: string, extra: Record<string, unknown> = {}): FakeReply => ({ status: 409, body: { error, message: `Collie says ${error}.`, ...extra } });

beforeEach(() => {
  location.hash = "#/agent/desk/pane/p1";
});
afterEach(() => cleanup());

const buttons = (c: HTMLElement) => [...c.querySelectorAll<HTMLButtonElement>(".ask-button")];
const retryButton = (c: HTMLElement) => within(c).queryByRole("button", { name: "Retry" }) as HTMLButtonElement | null;
const requestIds = (h: { answers(a: string): Record<string, unknown>[] }) => h.answers("a1").map((b) => b.requestId);

describe("each tap is one request id (P-14)", () => {
  test("while sending, the buttons are disabled and the tapped one shows progress; accepted closes the card", async () => {
    const reply = deferred<FakeReply>();
    const h = await openChat([permissionAsk()], { routes: [on("POST", ANSWER, () => reply.promise)] });
    await tap(option(card("a1"), "allow"));
    const c = card("a1");
    expect(buttons(c).every((b) => b.disabled)).toBe(true);
    expect(option(c, "allow").getAttribute("aria-busy")).toBe("true");
    // One pending look (issue 37): the tapped control keeps its mark and shows your line's clock.
    expect(option(c, "allow").querySelector("[data-clock]")).not.toBeNull();
    expect(option(c, "allow").getAttribute("data-chosen")).toBe("true");
    expect(option(c, "deny").getAttribute("data-chosen")).toBeNull();
    expect(c.getAttribute("aria-busy")).toBe("true");
    await tap(option(c, "deny"));
    expect(h.answers("a1")).toHaveLength(1);
    await act(async () => reply.resolve(OK));
    await until(() => expect(cardOrNull("a1")).toBeNull());
    expect(h.answers("a1")[0]).toMatchObject({ revision: rev(1), answer: { kind: "permission", optionId: "allow" } });
    expect(h.phone.outbox.pending).toEqual([]);
  });

  test("two taps on two cards are two request ids", async () => {
    const h = await openChat([permissionAsk(), permissionAsk({ id: "a2" })], {
      routes: [on("POST", ANSWER, conflict("refused")), on("POST", answerPath("a2"), conflict("refused"))],
    });
    await tap(option(card("a1"), "allow"));
    await tap(option(card("a1"), "allow"));
    await tap(option(card("a2"), "deny"));
    const ids = [...requestIds(h), ...h.answers("a2").map((b) => b.requestId)];
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
  });
});

describe("what the card shows after a tap (P-15, P-16)", () => {
  test("accepted: 200 closes the card at once, before the ask-closed delta", async () => {
    await openChat([permissionAsk()], { routes: [on("POST", ANSWER, OK)] });
    await tap(option(card("a1"), "allow"));
    await until(() => expect(cardOrNull("a1")).toBeNull());
  });

  test("accepted: a replayed 200 closes the card too", async () => {
    await openChat([permissionAsk()], { routes: [on("POST", ANSWER, { status: 200, body: { ok: true, replayed: true, decidedAt: ISO } })] });
    await tap(option(card("a1"), "deny"));
    await until(() => expect(cardOrNull("a1")).toBeNull());
  });

  test.each([
    ["decided in the durable agent first", "ask-decided", STRINGS.decidedInAgent],
    ["timed out first", "ask-timed-out", STRINGS.timedOut],
    ["another answer came first", "ask-answered", STRINGS.alreadyAnswered],
    ["an older Collie on the agent's machine", "agent-version-mismatch", STRINGS.olderCollie],
  ])("%s (409 %s): the card freezes with its line", async (_what, code, words) => {
    const h = await openChat([permissionAsk()], { routes: [on("POST", ANSWER, conflict(code))] });
    await tap(option(card("a1"), "allow"));
    await until(() => expect(line(card("a1"))).toBe(words));
    const c = card("a1");
    expect(c.classList.contains("ask-frozen")).toBe(true);
    expect(buttons(c).every((b) => b.disabled)).toBe(true);
    expect(retryButton(c)).toBeNull();
    await tap(option(c, "deny"));
    expect(h.answers("a1")).toHaveLength(1);
  });

  test("not open, no reason given (409 ask-not-open): `Not taken`, the buttons stay usable", async () => {
    const h = await openChat([permissionAsk()], { routes: [seq("POST", ANSWER, conflict("ask-not-open"), OK)] });
    await tap(option(card("a1"), "allow"));
    await until(() => expect(line(card("a1"))).toBe(STRINGS.notTaken));
    expect(buttons(card("a1")).every((b) => !b.disabled)).toBe(true);
    expect(card("a1").classList.contains("ask-frozen")).toBe(false);
    await tap(option(card("a1"), "allow"));
    await until(() => expect(cardOrNull("a1")).toBeNull());
    expect(new Set(requestIds(h)).size).toBe(2);
  });

  test("changed (409 ask-changed): the line, the ask's current content, then a new tap with the new revision", async () => {
    const h = await openChat([permissionAsk()], { routes: [seq("POST", ANSWER, conflict("ask-changed", { revision: rev(2) }), OK)] });
    await tap(option(card("a1"), "allow"));
    await until(() => expect(line(card("a1"))).toBe(STRINGS.askChanged));
    expect(buttons(card("a1")).every((b) => !b.disabled)).toBe(true);
    // The agent's new content arrives: the card shows it, ready for a new tap.
    const changed = permissionAsk({ revision: rev(2), title: "refund wants to run (60 EUR)", tool: { name: "refund", call: 'refund(order: "5521", amount: 60)' } });
    act(() => h.deliver({ type: "ask", agent: "desk", paneId: "p1", ask: changed }));
    expect(card("a1").querySelector(".ask-title")!.textContent).toBe("refund wants to run (60 EUR)");
    expect(card("a1").querySelector(".ask-call")!.textContent).toBe('refund(order: "5521", amount: 60)');
    expect(line(card("a1"))).toBe(STRINGS.askChanged);
    await tap(option(card("a1"), "allow"));
    await until(() => expect(cardOrNull("a1")).toBeNull());
    const [first, second] = h.answers("a1");
    expect(first!.revision).toBe(rev(1));
    expect(second!.revision).toBe(rev(2));
    expect(second!.requestId).not.toBe(first!.requestId);
  });

  test("changed, and the store still holds the old revision: the card reads the chat again for the current ask", async () => {
    const changed = permissionAsk({ revision: rev(3), title: "refund wants to run again" });
    let asks = [permissionAsk()];
    const h = await openChat([], {
      routes: [
        on("POST", ANSWER, conflict("ask-changed", { revision: rev(3) })),
        on("GET", "/api/agents/desk/panes/p1", () => ({ status: 200, body: detail(ITEMS, { asks }) })),
      ],
    });
    await until(() => expect(cardOrNull("a1")).not.toBeNull());
    asks = [changed];
    await tap(option(card("a1"), "allow"));
    await until(() => expect(card("a1").querySelector(".ask-title")!.textContent).toBe("refund wants to run again"));
    expect(line(card("a1"))).toBe(STRINGS.askChanged);
    expect(h.callsTo("/api/agents/desk/panes/p1")).toHaveLength(2);
  });

  test("no reply (the fetch fails): not sure, Retry sends the same request id, then accepted", async () => {
    const h = await openChat([permissionAsk()], { routes: [seq("POST", ANSWER, "network", OK)] });
    await tap(option(card("a1"), "allow"));
    await until(() => expect(line(card("a1"))).toBe(STRINGS.notSureArrived));
    const c = card("a1");
    expect(buttons(c).every((b) => b.disabled)).toBe(true);
    expect(h.phone.outbox.pending).toHaveLength(1);
    await tap(retryButton(c)!);
    await until(() => expect(cardOrNull("a1")).toBeNull());
    const ids = requestIds(h);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]);
    expect(h.phone.outbox.pending).toEqual([]);
  });

  test("no reply in time from the agent (504 agent-unreachable): not sure; Retry sends the same request id again", async () => {
    const h = await openChat([permissionAsk()], { routes: [seq("POST", ANSWER, { status: 504, body: { error: "agent-unreachable" } }, OK)] });
    await tap(option(card("a1"), "deny"));
    await until(() => expect(line(card("a1"))).toBe(STRINGS.notSureArrived));
    await tap(retryButton(card("a1"))!);
    await until(() => expect(cardOrNull("a1")).toBeNull());
    const ids = requestIds(h);
    expect(ids).toEqual([ids[0], ids[0]]);
    expect(h.answers("a1")[1]).toEqual(h.answers("a1")[0]);
  });

  test("receipt-dropped: `May have been applied already` at once, and no Retry that could only be dropped again", async () => {
    const dropped: FakeReply = { status: 500, body: { error: "receipt-dropped", message: "The receipt for this request was dropped." } };
    const h = await openChat([permissionAsk()], { routes: [seq("POST", ANSWER, dropped, OK)] });
    await tap(option(card("a1"), "allow"));
    await until(() => expect(line(card("a1"))).toBe(STRINGS.mayHaveBeenApplied));
    const c = card("a1");
    expect(retryButton(c)).toBeNull();
    expect(c.classList.contains("ask-frozen")).toBe(true);
    expect(buttons(c).every((b) => b.disabled)).toBe(true);
    expect(requestIds(h)).toHaveLength(1);
  });

  test.each([["ask-answered"], ["ask-decided"], ["ask-timed-out"], ["ask-changed"]])(
    "a retry that finds the ask closed or changed (%s): `May have been applied already`, frozen",
    async (code) => {
      const h = await openChat([permissionAsk()], { routes: [seq("POST", ANSWER, "network", conflict(code))] });
      await tap(option(card("a1"), "allow"));
      await until(() => expect(retryButton(card("a1"))).not.toBeNull());
      await tap(retryButton(card("a1"))!);
      await until(() => expect(line(card("a1"))).toBe(STRINGS.mayHaveBeenApplied));
      const c = card("a1");
      expect(c.classList.contains("ask-frozen")).toBe(true);
      expect(buttons(c).every((b) => b.disabled)).toBe(true);
      expect(retryButton(c)).toBeNull();
      expect(new Set(requestIds(h)).size).toBe(1);
    },
  );

  test("refused (400 invalid-answer) with a message: the message, and the buttons usable again", async () => {
    const h = await openChat([permissionAsk()], {
      routes: [seq("POST", ANSWER, { status: 400, body: { error: "invalid-answer", message: "Refunds above 50 EUR need a manager." } }, OK)],
    });
    await tap(option(card("a1"), "allow"));
    await until(() => expect(line(card("a1"))).toBe("Refunds above 50 EUR need a manager."));
    expect(buttons(card("a1")).every((b) => !b.disabled)).toBe(true);
    await tap(option(card("a1"), "deny"));
    await until(() => expect(cardOrNull("a1")).toBeNull());
    expect(new Set(requestIds(h)).size).toBe(2);
  });

  test("refused (409 refused) with a reason: the reason", async () => {
    await openChat([permissionAsk()], { routes: [on("POST", ANSWER, { status: 409, body: { error: "refused", reason: "Not during the audit." } })] });
    await tap(option(card("a1"), "allow"));
    await until(() => expect(line(card("a1"))).toBe("Not during the audit."));
  });

  test("refused without a reason: `The answer was refused.`", async () => {
    await openChat([permissionAsk()], { routes: [on("POST", ANSWER, { status: 400, body: { error: "invalid-answer" } })] });
    await tap(option(card("a1"), "allow"));
    await until(() => expect(line(card("a1"))).toBe(STRINGS.answerRefused));
    expect(buttons(card("a1")).every((b) => !b.disabled)).toBe(true);
  });

  test("held (202 {held: true}): the card says which answer waits for the agent, then takes the held-outcome's line", async () => {
    const h = await openChat([permissionAsk()], { routes: [on("POST", ANSWER, { status: 202, body: { held: true } })] });
    await tap(option(card("a1"), "allow"));
    await until(() => expect(card("a1").querySelector(".ask-held")).not.toBeNull());
    const c = card("a1");
    expect(c.querySelector(".ask-held")!.textContent).toBe("Sent: Allow. Collie delivers it when the durable agent is back.");
    expect(buttons(c).every((b) => b.disabled)).toBe(true);
    // The chosen answer stays marked; the others are not.
    expect(buttons(c).filter((b) => b.dataset.chosen === "true").map((b) => b.dataset.option)).toEqual(["allow"]);
    expect(retryButton(c)).toBeNull();
    const [sent] = requestIds(h);
    // Another answer's outcome is not this card's.
    act(() => h.deliver({ type: "held-outcome", agent: "desk", requestId: "someone-else", status: 200, body: { ok: true } }));
    expect(card("a1").querySelector(".ask-held")).not.toBeNull();
    act(() => h.deliver({ type: "held-outcome", agent: "desk", requestId: sent as string, status: 409, body: { error: "ask-timed-out" } }));
    await until(() => expect(line(card("a1"))).toBe(STRINGS.timedOut));
    expect(card("a1").querySelector(".ask-held")).toBeNull();
    expect(card("a1").classList.contains("ask-frozen")).toBe(true);
  });

  test("held, then accepted by the agent: the card closes", async () => {
    const h = await openChat([permissionAsk()], { routes: [on("POST", ANSWER, { status: 202, body: { held: true } })] });
    await tap(option(card("a1"), "allow"));
    await until(() => expect(card("a1").querySelector(".ask-held")).not.toBeNull());
    act(() => h.deliver({ type: "held-outcome", agent: "desk", requestId: requestIds(h)[0] as string, status: 200, body: { ok: true, decidedAt: ISO } }));
    await until(() => expect(cardOrNull("a1")).toBeNull());
  });

  test("a text card keeps what was typed after a refusal, and sends it again on a new tap", async () => {
    const h = await openChat([textAsk()], { routes: [seq("POST", answerPath("t1"), { status: 409, body: { error: "refused" } }, OK)] });
    const c = card("t1");
    const input = within(c).getByRole("textbox") as HTMLInputElement;
    fireEvent.change(input, { target: { value: "On its way" } });
    await tap(within(c).getByRole("button", { name: "Send" }));
    await until(() => expect(line(card("t1"))).toBe(STRINGS.answerRefused));
    expect((within(card("t1")).getByRole("textbox") as HTMLInputElement).value).toBe("On its way");
    await tap(within(card("t1")).getByRole("button", { name: "Send" }));
    await until(() => expect(cardOrNull("t1")).toBeNull());
    expect(h.answers("t1").map((b) => b.answer)).toEqual([{ kind: "text", text: "On its way" }, { kind: "text", text: "On its way" }]);
  });
});

describe("a pending answer after a reload (P-14, P-26)", () => {
  test("the card shows not sure with Retry; Retry sends the saved request id and body", async () => {
    const storage = memoryOutboxStorage();
    const body = { requestId: "req-saved", revision: rev(1), answer: { kind: "permission", optionId: "deny" } };
    await storage.put({ requestId: "req-saved", kind: "answer", agent: "desk", pane: "p1", path: phonePath("answer", { agent: "desk", pane: "p1", ask: "a1" }), body, createdAt: 0, attempts: 1 });
    // The reconnect's flush finds no answer either; then the Retry lands.
    const h = await openChat([permissionAsk()], { storage, routes: [seq("POST", ANSWER, "network", OK)] });
    await until(() => expect(line(card("a1"))).toBe(STRINGS.notSureArrived));
    const c = card("a1");
    expect(retryButton(c)).not.toBeNull();
    expect(buttons(c).every((b) => b.disabled)).toBe(true);
    await tap(retryButton(c)!);
    await until(() => expect(cardOrNull("a1")).toBeNull());
    expect(h.answers("a1").every((b) => JSON.stringify(b) === JSON.stringify(body))).toBe(true);
    expect(h.answers("a1").length).toBeGreaterThanOrEqual(2);
  });

  test("a pending answer whose re-send finds the ask closed: `May have been applied already`", async () => {
    const storage = memoryOutboxStorage();
    const body = { requestId: "req-saved", revision: rev(1), answer: { kind: "permission", optionId: "allow" } };
    await storage.put({ requestId: "req-saved", kind: "answer", agent: "desk", pane: "p1", path: phonePath("answer", { agent: "desk", pane: "p1", ask: "a1" }), body, createdAt: 0, attempts: 1 });
    await openChat([permissionAsk()], { storage, routes: [seq("POST", ANSWER, "network", conflict("ask-answered"))] });
    await until(() => expect(retryButton(card("a1"))).not.toBeNull());
    await tap(retryButton(card("a1"))!);
    await until(() => expect(line(card("a1"))).toBe(STRINGS.mayHaveBeenApplied));
  });
});

describe("receipts (P-16)", () => {
  test("an ask answered on the phone leaves no chat line; the agent's own notices are the only receipts", async () => {
    const h = await openChat([permissionAsk(), permissionAsk({ id: "a2", title: "refund wants to run twice" })], {
      routes: [on("POST", ANSWER, OK)],
    });
    const itemsBefore = document.querySelectorAll("[data-item-id]").length;
    await tap(option(card("a1"), "allow"));
    await until(() => expect(cardOrNull("a1")).toBeNull());
    act(() => h.deliver({ type: "ask-closed", agent: "desk", paneId: "p1", askId: "a1", decidedBy: "phone", title: "refund wants to run" }));
    expect(document.querySelectorAll("[data-item-id]")).toHaveLength(itemsBefore);
    const chat = document.querySelector(".chat-items")!.textContent!;
    expect(chat).not.toContain(STRINGS.decidedLine("refund wants to run"));
    expect(chat).not.toContain(STRINGS.timedOutLine("refund wants to run"));
    expect(chat).not.toContain(STRINGS.decidedInAgent);
    // The other ask times out in the agent: its notice item is the chat's line, drawn as it comes.
    const notice: Item = { kind: "notice", id: "n-9", text: STRINGS.timedOutLine("refund wants to run twice") };
    act(() => {
      h.deliver({ type: "ask-closed", agent: "desk", paneId: "p1", askId: "a2", decidedBy: "timeout", title: "refund wants to run twice" });
      h.deliver({ type: "item", agent: "desk", paneId: "p1", item: notice });
    });
    expect(cardOrNull("a2")).toBeNull();
    expect(document.querySelectorAll("[data-item-id]")).toHaveLength(itemsBefore + 1);
    expect(document.querySelector('[data-item-id="n-9"]')!.textContent).toContain("Timed out before an answer: refund wants to run twice");
  });
});
