/**
 * A card answered from a notification (issue 30): the service worker sent the answer through the
 * same action layer and outbox and left what came back; the app opened afterwards draws the card
 * exactly as if the tap had been its own — changed, held, accepted, not sure with a Retry that
 * sends the worker's request unchanged — and an open app takes in an answer given meanwhile.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { act, cleanup, within } from "@testing-library/react";
import { STRINGS, WORDS, type TapReply } from "@colliepwa/shared";
import { phonePath } from "@colliepwa/shared/routes";
import { memoryNotificationAnswers, type NotificationAnswer } from "../../src/app/notification-answers.ts";
import { memoryOutboxStorage } from "../../src/app/outbox.ts";
import { on } from "../chat/harness.tsx";
import { answerPath, card, cardOrNull, line, OK, openChat, option, permissionAsk, rev, T0, tap, until } from "./fixtures.tsx";

beforeEach(() => {
  location.hash = "#/agent/desk/pane/p1";
});
afterEach(() => cleanup());

const PATH = phonePath("answer", { agent: "desk", pane: "p1", ask: "a1" });

/** What the worker leaves after answering a1 from a notification with `optionId` at `revision`. */
function fromNotification(reply: TapReply, over: { requestId?: string; revision?: string; optionId?: string } = {}): NotificationAnswer {
  const requestId = over.requestId ?? "req-notification";
  return {
    request: {
      requestId, kind: "answer", agent: "desk", pane: "p1", path: PATH,
      body: { revision: over.revision ?? rev(1), answer: { kind: "permission", optionId: over.optionId ?? "allow" }, requestId },
    },
    askId: "a1",
    reply,
    at: T0,
    notice: { tag: "collie:desk", title: "Permission needed in Maria Lopez", url: "/#/agent/desk/pane/p1/ask/a1", word: "Allow", what: "refund", optionKind: "allow" },
  };
}

async function answered(reply: TapReply, over: Parameters<typeof fromNotification>[1] = {}) {
  const store = memoryNotificationAnswers();
  await store.put(fromNotification(reply, over));
  return store;
}

const buttons = (c: HTMLElement) => [...c.querySelectorAll<HTMLButtonElement>(".ask-button")];

describe("the app opened after an answer from a notification", () => {
  test("the ask changed: the card's line, and a new tap answers the new revision", async () => {
    const notificationAnswers = await answered({ status: 409, body: { error: "ask-changed", revision: rev(2) } }, { revision: rev(1) });
    const h = await openChat([permissionAsk({ revision: rev(2) })], { notificationAnswers, routes: [on("POST", answerPath("a1"), OK)] });
    await until(() => expect(line(card("a1"))).toBe(STRINGS.askChanged));
    expect(buttons(card("a1")).every((b) => !b.disabled)).toBe(true);
    await tap(option(card("a1"), "deny"));
    await until(() => expect(cardOrNull("a1")).toBeNull());
    expect(h.answers("a1")).toEqual([expect.objectContaining({ revision: rev(2), answer: { kind: "permission", optionId: "deny" } })]);
    expect(h.answers("a1")[0]!.requestId).not.toBe("req-notification");
    // Taken in once: the worker's record is let go.
    expect(await notificationAnswers.all()).toEqual([]);
  });

  test("held for an agent that is away: the card says so, the answer marked, and takes no tap", async () => {
    const notificationAnswers = await answered({ status: 202, body: { held: true } });
    const h = await openChat([permissionAsk()], { notificationAnswers });
    await until(() => expect(card("a1").querySelector(".ask-held")?.textContent).toBe(WORDS.asks.held(STRINGS.allow)));
    expect(buttons(card("a1")).every((b) => b.disabled)).toBe(true);
    await tap(option(card("a1"), "deny"));
    expect(h.answers("a1")).toEqual([]);
  });

  test("accepted: the card is gone even before the ask's close arrives", async () => {
    const notificationAnswers = await answered({ status: 200, body: { ok: true } });
    await openChat([permissionAsk()], { notificationAnswers });
    await until(() => expect(cardOrNull("a1")).toBeNull());
  });

  test("decided in the agent first: frozen with the card's line", async () => {
    const notificationAnswers = await answered({ status: 409, body: { error: "ask-decided" } });
    await openChat([permissionAsk()], { notificationAnswers });
    await until(() => expect(line(card("a1"))).toBe(STRINGS.decidedInAgent));
    expect(card("a1").classList.contains("ask-frozen")).toBe(true);
  });

  test("not sure (a 5xx): Retry sends the worker's request again, the same request id and body", async () => {
    const notificationAnswers = await answered({ status: 502, body: { error: "agent-failed" } }, { optionId: "deny" });
    const h = await openChat([permissionAsk()], { notificationAnswers, routes: [on("POST", answerPath("a1"), OK)] });
    await until(() => expect(line(card("a1"))).toBe(STRINGS.notSureArrived));
    await tap(within(card("a1")).getByRole("button", { name: "Retry" }));
    await until(() => expect(cardOrNull("a1")).toBeNull());
    expect(h.answers("a1")).toEqual([{ revision: rev(1), answer: { kind: "permission", optionId: "deny" }, requestId: "req-notification" }]);
  });

  test("no reply yet: the outbox the worker shares holds it, and the app sends it with its request id", async () => {
    const storage = memoryOutboxStorage();
    const body = { revision: rev(1), answer: { kind: "permission", optionId: "allow" }, requestId: "req-offline" };
    await storage.put({ requestId: "req-offline", kind: "answer", agent: "desk", pane: "p1", path: PATH, body, createdAt: T0, attempts: 1 });
    const notificationAnswers = await answered(null, { requestId: "req-offline" });
    const h = await openChat([permissionAsk()], { storage, notificationAnswers, routes: [on("POST", answerPath("a1"), OK)] });
    await until(() => expect(h.answers("a1")).toEqual([body]));
    act(() => h.deliver({ type: "ask-closed", agent: "desk", paneId: "p1", askId: "a1", decidedBy: "phone", title: "refund wants to run" }));
    await until(() => expect(cardOrNull("a1")).toBeNull());
    expect(await storage.all()).toEqual([]);
    // Still waiting on its reply when the app came: the worker's record stays for the worker to settle.
    expect((await notificationAnswers.all()).map((a) => a.request.requestId)).toEqual(["req-offline"]);
  });
});

test("an open app takes in an answer given from a notification meanwhile", async () => {
  const notificationAnswers = memoryNotificationAnswers();
  const h = await openChat([permissionAsk()], { notificationAnswers });
  expect(line(card("a1"))).toBeNull();
  await notificationAnswers.put(fromNotification({ status: 409, body: { error: "ask-not-open" } }));
  await act(async () => h.phone.adoptNotificationAnswers());
  await until(() => expect(line(card("a1"))).toBe(STRINGS.notTaken));
});

test("an open app sends an answer the worker left in the shared outbox meanwhile, with its request id", async () => {
  const storage = memoryOutboxStorage();
  const h = await openChat([permissionAsk()], { storage, notificationAnswers: memoryNotificationAnswers(), routes: [on("POST", answerPath("a1"), OK)] });
  const body = { revision: rev(1), answer: { kind: "permission", optionId: "deny" }, requestId: "req-worker" };
  await storage.put({ requestId: "req-worker", kind: "answer", agent: "desk", pane: "p1", path: PATH, body, createdAt: T0, attempts: 1 });
  await act(async () => h.phone.adoptNotificationAnswers());
  await until(() => expect(h.answers("a1")).toEqual([body]));
  await until(async () => expect(await storage.all()).toEqual([]));
});
