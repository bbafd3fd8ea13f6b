/**
 * What the service worker leaves for the app after answering from a notification, and the switch
 * it reads (issue 30), on IndexedDB as the browser has it (fake-indexeddb): kept, read back,
 * bounded in number and age, junk in storage ignored; the switch on by default, off when turned
 * off, and off when it cannot be read (no buttons rather than buttons the user turned off).
 */
import "fake-indexeddb/auto";
import { createStore, set } from "idb-keyval";
import { describe, expect, test } from "vitest";
import {
  ANSWER_KEPT_MS, ANSWERS_KEPT, answeringOn, idbNotificationAnswers, idbSettings, memorySettings, setAnswering, type NotificationAnswer,
} from "../../src/app/notification-answers.ts";

let n = 0;
const fresh = () => createStore(`answers-${++n}`, "answers");

function answer(requestId: string, at: number): NotificationAnswer {
  return {
    request: { requestId, kind: "answer", agent: "desk", pane: "p1", path: "/api/agents/desk/panes/p1/asks/a1/answer", body: { requestId, revision: "r", answer: { kind: "permission", optionId: "allow" } } },
    askId: "a1",
    reply: { status: 200, body: { ok: true } },
    at,
    notice: { tag: "collie:desk", title: "Permission needed in p1", url: "/#/agent/desk/pane/p1/ask/a1", word: "Allow", what: "refund" },
  };
}

describe("answers from notifications", () => {
  test("kept and read back; let go by request id", async () => {
    const store = idbNotificationAnswers(fresh(), () => 1_000);
    await store.put(answer("r1", 900));
    await store.put({ ...answer("r2", 950), reply: null });
    expect((await store.all()).map((a) => [a.request.requestId, a.reply])).toEqual([["r1", { status: 200, body: { ok: true } }], ["r2", null]]);
    await store.delete("r1");
    expect((await store.all()).map((a) => a.request.requestId)).toEqual(["r2"]);
  });
  test("the newest within a week are kept", async () => {
    const now = ANSWER_KEPT_MS * 2;
    const store = idbNotificationAnswers(fresh(), () => now);
    await store.put(answer("old", now - ANSWER_KEPT_MS - 1));
    for (let i = 0; i < ANSWERS_KEPT + 3; i++) await store.put(answer(`r${i}`, now - 1000 + i));
    const kept = (await store.all()).map((a) => a.request.requestId);
    expect(kept).toHaveLength(ANSWERS_KEPT);
    expect(kept).not.toContain("old");
    expect(kept).not.toContain("r0");
    expect(kept).toContain(`r${ANSWERS_KEPT + 2}`);
  });
  test("what storage holds that is not an answer is left out", async () => {
    const raw = fresh();
    await set("junk", { request: { requestId: 5 } }, raw);
    await set("send", { ...answer("s", 1), request: { ...answer("s", 1).request, kind: "send" } }, raw);
    await set("reply", { ...answer("x", 1), reply: { status: "200" } }, raw);
    await set("null", null, raw);
    const store = idbNotificationAnswers(raw, () => 2);
    expect(await store.all()).toEqual([]);
  });
});

describe("the switch", () => {
  test("on until turned off, kept where the service worker reads it", async () => {
    const settings = idbSettings(createStore(`settings-${++n}`, "settings"));
    expect(await answeringOn(settings)).toBe(true);
    await setAnswering(settings, false);
    expect(await answeringOn(settings)).toBe(false);
    await setAnswering(settings, true);
    expect(await answeringOn(settings)).toBe(true);
  });
  test("unreadable: off, so no button answers against the user's choice", async () => {
    const broken = { ...memorySettings(), get: () => Promise.reject(new Error("no storage")) };
    expect(await answeringOn(broken)).toBe(false);
  });
});
