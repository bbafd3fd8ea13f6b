/**
 * The service worker's push logic (P-27, U-2): reading a payload (and refusing a bad one), the
 * notification of an ask and of a burst, the fallback for a push it cannot read, withdrawing an
 * ask on a clear, where a tap goes, and staying quiet while a Collie window is visible.
 */
import { describe, expect, test } from "vitest";
import type { PushAskPayload } from "@colliepwa/shared";
import { actionId, clearPlan, clickUrl, collieVisible, FALLBACK, parsePush, pickWindow, readAction, readAnswers, readData, showPlan } from "../../src/sw/push.ts";

const ORIGIN = "https://collie.example.ts.net";

const ask = (id: string, over: Partial<PushAskPayload> = {}): PushAskPayload => ({
  v: 1, type: "ask", tag: "collie:desk", agent: "desk", machine: null,
  title: "Permission needed in Maria Lopez", body: `${id} needs a yes`,
  paneId: "ticket-5521", askId: id, url: `/#/agent/desk/pane/ticket-5521/ask/${id}`, ...over,
});

describe("parsePush", () => {
  test("reads the three kinds", () => {
    expect(parsePush(JSON.stringify(ask("a1")))).toEqual(ask("a1"));
    const many = { v: 1, type: "many-asks", tag: "collie:desk", agent: "desk", machine: null, title: "A durable agent on studio is raising many asks", body: "…", url: "/#/agent/desk" };
    expect(parsePush(JSON.stringify(many))).toEqual(many);
    const clear = { v: 1, type: "clear", tag: "collie:desk", agent: "desk", machine: "workshop", paneId: "p", askId: "a1" };
    expect(parsePush(JSON.stringify(clear))).toEqual(clear);
  });
  test("refuses what it cannot trust", () => {
    for (const bad of [
      null, "", "not json", "[]", "42", JSON.stringify({ ...ask("a1"), v: 2 }), JSON.stringify({ ...ask("a1"), type: "approve" }),
      JSON.stringify({ ...ask("a1"), url: "https://evil.example/" }), JSON.stringify({ ...ask("a1"), url: "//evil.example/x" }),
      JSON.stringify({ ...ask("a1"), title: 5 }), JSON.stringify({ ...ask("a1"), title: "x".repeat(600) }),
    ]) expect(parsePush(bad)).toBeNull();
  });
  test("drops fields it does not know", () => {
    expect(parsePush(JSON.stringify({ ...ask("a1"), html: "<b>x</b>" }))).toEqual(ask("a1"));
  });
});

describe("showPlan", () => {
  test("an ask: its title and body under the agent's tag, with the card to open, and no actions", () => {
    const plan = showPlan(ask("a1"));
    expect(plan.title).toBe("Permission needed in Maria Lopez");
    expect(plan.options.body).toBe("a1 needs a yes");
    expect(plan.options.tag).toBe("collie:desk");
    expect(plan.options).not.toHaveProperty("actions"); // a tap opens the card; nothing approves from here
    expect(plan.options.data).toEqual({
      collie: 1, kind: "ask", agent: "desk", url: "/#/agent/desk",
      asks: [{ askId: "a1", paneId: "ticket-5521", url: "/#/agent/desk/pane/ticket-5521/ask/a1", title: "Permission needed in Maria Lopez", body: "a1 needs a yes" }],
    });
  });
  test("a burst collapses into one notification per agent that remembers every ask, newest first", () => {
    const first = showPlan(ask("a1"));
    const second = showPlan(ask("a2", { paneId: "vip-7781", url: "/#/agent/desk/pane/vip-7781/ask/a2", title: "Permission needed in Sofia Rossi" }), [first.options.data]);
    expect(second.title).toBe("Permission needed in Sofia Rossi");
    expect(second.options.body).toBe("a2 needs a yes (+1 more)");
    expect(second.options.data.asks.map((a) => a.askId)).toEqual(["a2", "a1"]);
    const third = showPlan(ask("a3"), [second.options.data, "junk"]);
    expect(third.options.data.asks.map((a) => a.askId)).toEqual(["a3", "a2", "a1"]);
    // The same ask again is not counted twice.
    expect(showPlan(ask("a3"), [third.options.data]).options.data.asks).toHaveLength(3);
    // Bounded.
    let data = first.options.data;
    for (let i = 0; i < 40; i++) data = showPlan(ask(`b${i}`), [data]).options.data;
    expect(data.asks).toHaveLength(20);
  });
  test("the many-asks push goes to the agent's home", () => {
    const plan = showPlan({ v: 1, type: "many-asks", tag: "collie:desk", agent: "desk", machine: null, title: "A durable agent on studio is raising many asks", body: "No push from desk for an hour.", url: "/#/agent/desk" });
    expect(plan.title).toBe("A durable agent on studio is raising many asks");
    expect(clickUrl(plan.options.data, ORIGIN)).toBe(`${ORIGIN}/#/agent/desk`);
  });
  test("a push it cannot read still shows something sensible", () => {
    const plan = showPlan(parsePush("garbage"));
    expect(plan.title).toBe(FALLBACK.title);
    expect(plan.options.body).toBe(FALLBACK.body);
    expect(plan.options.tag).toBe("collie");
    expect(clickUrl(plan.options.data, ORIGIN)).toBe(`${ORIGIN}/`);
  });
});

describe("clearPlan", () => {
  test("the last ask gone closes the notification", () => {
    expect(clearPlan(showPlan(ask("a1")).options.data, "a1", "collie:desk")).toEqual({ kind: "close" });
  });
  test("with others left it shows the newest one left, quietly", () => {
    const data = showPlan(ask("a2"), [showPlan(ask("a1")).options.data]).options.data;
    const plan = clearPlan(data, "a2", "collie:desk");
    expect(plan.kind).toBe("replace");
    if (plan.kind !== "replace") return;
    expect(plan.plan.options.tag).toBe("collie:desk");
    expect(plan.plan.options.silent).toBe(true);
    expect(plan.plan.options.body).toBe("a1 needs a yes");
    expect(plan.plan.options.data.asks.map((a) => a.askId)).toEqual(["a1"]);
  });
  test("an ask that is not in it, or data that is not ours, keeps it", () => {
    expect(clearPlan(showPlan(ask("a1")).options.data, "zz", "collie:desk")).toEqual({ kind: "keep" });
    expect(clearPlan({ something: "else" }, "a1", "collie:desk")).toEqual({ kind: "keep" });
    expect(clearPlan(null, "a1", "collie:desk")).toEqual({ kind: "keep" });
  });
});

describe("a tap", () => {
  test("opens the newest ask's card, on this origin only", () => {
    const data = showPlan(ask("a2"), [showPlan(ask("a1")).options.data]).options.data;
    expect(clickUrl(data, ORIGIN)).toBe(`${ORIGIN}/#/agent/desk/pane/ticket-5521/ask/a2`);
    expect(clickUrl({ ...data, asks: [] }, ORIGIN)).toBe(`${ORIGIN}/#/agent/desk`);
    expect(clickUrl(undefined, ORIGIN)).toBe(`${ORIGIN}/`);
    expect(readData({ ...data, url: "https://evil.example/" })).toBeNull();
  });
  test("uses a focused window, else a visible one, else any of this origin", () => {
    const other = { url: "https://elsewhere.example/", focused: true, visibilityState: "visible" };
    const hidden = { url: `${ORIGIN}/#/`, focused: false, visibilityState: "hidden" };
    const visible = { url: `${ORIGIN}/#/settings`, focused: false, visibilityState: "visible" };
    const focused = { url: `${ORIGIN}/#/agent/desk`, focused: true, visibilityState: "visible" };
    expect(pickWindow([other, hidden, visible, focused], ORIGIN)).toBe(focused);
    expect(pickWindow([other, hidden, visible], ORIGIN)).toBe(visible);
    expect(pickWindow([other, hidden], ORIGIN)).toBe(hidden);
    expect(pickWindow([other], ORIGIN)).toBeUndefined();
  });
});

test("no notification while a Collie window is visible", () => {
  expect(collieVisible([{ url: `${ORIGIN}/#/`, visibilityState: "visible" }], ORIGIN)).toBe(true);
  expect(collieVisible([{ url: `${ORIGIN}/#/`, visibilityState: "hidden" }], ORIGIN)).toBe(false);
  expect(collieVisible([{ url: "https://elsewhere.example/", visibilityState: "visible" }], ORIGIN)).toBe(false);
  expect(collieVisible([], ORIGIN)).toBe(false);
});

describe("the buttons of an ask's notification (issue 30)", () => {
  const allowDeny = {
    kind: "permission" as const, revision: "0123456789abcdef", what: "refund",
    options: [{ id: "allow", title: "Allow", optionKind: "allow" as const }, { id: "deny", title: "Deny", optionKind: "deny" as const }],
  };
  const withButtons = (id: string) => ask(id, { answers: allowDeny });

  test("Allow and Deny when the push carries them and the browser shows two; each names its ask", () => {
    expect(parsePush(JSON.stringify(withButtons("a1")))).toEqual(withButtons("a1"));
    const plan = showPlan(withButtons("a1"), [], 2);
    expect(plan.options.actions).toEqual([{ action: actionId(0, "a1"), title: "Allow" }, { action: actionId(1, "a1"), title: "Deny" }]);
    expect(plan.options.data.asks[0]!.answers).toEqual(allowDeny);
    expect(readAction(actionId(1, "a1"))).toEqual({ index: 1, askId: "a1" });
    expect(readAction(actionId(0, "x:y:z"))).toEqual({ index: 0, askId: "x:y:z" });
    for (const bad of ["", "allow", "answer:2:a1", "answer:0:", "answer:x:a1"]) expect(readAction(bad)).toBeNull();
  });
  test("none where answering is off or the browser shows none (an iPhone): the notification opens the card, as before", () => {
    expect(showPlan(withButtons("a1"), [], 0).options).not.toHaveProperty("actions");
    expect(showPlan(withButtons("a1"), [], 1).options).not.toHaveProperty("actions");
    expect(showPlan(ask("a1"), [], 2).options).not.toHaveProperty("actions");
  });
  test("a burst shows the newest ask's buttons; a clear of it shows the next one's", () => {
    const first = showPlan(withButtons("a1"), [], 2);
    const second = showPlan(ask("a2"), [first.options.data], 2);
    expect(second.options).not.toHaveProperty("actions");
    const third = showPlan(withButtons("a3"), [second.options.data], 2);
    expect(third.options.actions?.map((a) => a.action)).toEqual([actionId(0, "a3"), actionId(1, "a3")]);
    const afterA2 = clearPlan(showPlan(ask("a2"), [first.options.data], 2).options.data, "a2", "collie:desk", 2);
    if (afterA2.kind !== "replace") throw new Error("expected a replace");
    expect(afterA2.plan.options.actions?.map((a) => a.action)).toEqual([actionId(0, "a1"), actionId(1, "a1")]);
    expect(clearPlan(first.options.data, "zz", "collie:desk", 2)).toEqual({ kind: "keep" });
  });
  test("buttons it cannot trust are dropped, and the notification still shows", () => {
    const bad: unknown[] = [
      null, "x", [], { ...allowDeny, kind: "text" }, { ...allowDeny, revision: "" }, { ...allowDeny, revision: 5 },
      { ...allowDeny, options: [] }, { ...allowDeny, options: [...allowDeny.options, allowDeny.options[0]] },
      { ...allowDeny, options: [allowDeny.options[0], allowDeny.options[0]] },
      { ...allowDeny, options: [{ id: "allow", title: "Allow" }, allowDeny.options[1]] },
      { ...allowDeny, options: [{ ...allowDeny.options[0], optionKind: "allow-always" }, allowDeny.options[1]] },
      { ...allowDeny, options: [{ ...allowDeny.options[0], title: "   " }, allowDeny.options[1]] },
      { ...allowDeny, options: [{ ...allowDeny.options[0], id: 7 }, allowDeny.options[1]] },
      { ...allowDeny, options: [{ ...allowDeny.options[0], title: "x".repeat(300) }, allowDeny.options[1]] },
      { kind: "choice", revision: "r", what: "w", options: [{ id: "a", title: "A", optionKind: "allow" }] },
    ];
    for (const answers of bad) {
      expect(readAnswers(answers)).toBeUndefined();
      expect(parsePush(JSON.stringify({ ...ask("a1"), answers }))).toEqual(ask("a1"));
    }
    expect(readAnswers({ kind: "choice", revision: "r", what: "w", options: [{ id: "ups", title: "UPS" }] })).toEqual({ kind: "choice", revision: "r", what: "w", options: [{ id: "ups", title: "UPS" }] });
  });
});
