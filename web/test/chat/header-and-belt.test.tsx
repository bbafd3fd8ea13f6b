/**
 * The chat header's line 2 (P-21) and the belt's rules (P-1, P-22, P-23): which buttons draw,
 * dimmed in place so nothing shifts, busy and disabled, at most 4 actions, icons from the twelve.
 */
import { afterEach, describe, expect, test } from "vitest";
import { cleanup } from "@testing-library/react";
import { STRINGS, WORDS, type Conversation } from "@colliepwa/shared";
import type { Action } from "@colliepwa/durable-sdk/wire";
import { CAPS } from "../support/phone-rig.tsx";
import { headerLine2 } from "../../src/app/rules.ts";
import { beltButtons, beltNote, beltNoteText, MAX_ACTIONS, newestTurn } from "../../src/features/chat/belt.ts";
import { ICON_NAMES, isIconName } from "../../src/features/chat/icons.tsx";

afterEach(() => cleanup());

const conv = (over: Partial<Conversation> = {}): Conversation => ({
  id: "p", tabId: "main:t", title: "Refund", harness: "h", sessionId: "p", state: "working", actions: [], openAsks: 0,
  turnId: "turn-7", activeAt: new Date().toISOString(), agent: "desk", workspaceTitle: "Support", ...over,
});

describe("header line 2 (P-21)", () => {
  test("steps while it works: `Step 2 of 3: Save note`", () => {
    expect(headerLine2(conv({ progress: { kind: "steps", current: 2, total: 3, label: "Save note" }, subtitle: "sub" }))).toBe("Step 2 of 3: Save note");
  });
  test("a percentage with a label: `42%: Uploading`", () => {
    expect(headerLine2(conv({ state: "waiting", progress: { kind: "percent", value: 42, label: "Uploading" } }))).toBe("42%: Uploading");
  });
  test("else the agent's subtitle; every step done counts as no progress", () => {
    expect(headerLine2(conv({ subtitle: "Waiting for approval" }))).toBe("Waiting for approval");
    expect(headerLine2(conv({ progress: { kind: "steps", current: 4, total: 3, label: "x" }, subtitle: "All done" }))).toBe("All done");
  });
  test("else the workspace", () => {
    expect(headerLine2(conv())).toBe("Support");
  });
  test("progress is hidden while the conversation is idle", () => {
    expect(headerLine2(conv({ state: "idle", progress: { kind: "percent", value: 42, label: "Uploading" }, subtitle: "Idle sub" }))).toBe("Idle sub");
    expect(headerLine2(conv({ state: "idle", progress: { kind: "steps", current: 1, total: 3, label: "x" } }))).toBe("Support");
  });
});

const act = (id: string, over: Partial<Action> = {}): Action => ({ id, label: id, ...over });

describe("belt buttons (P-1, P-22)", () => {
  test("Steer and Stop, then the agent's own buttons, in that order", () => {
    const b = beltButtons({ caps: CAPS, state: "working", actions: [act("escalate", { icon: "flag" }), act("refund")], text: "hi" });
    expect(b.map((x) => x.label)).toEqual([STRINGS.steer, STRINGS.stop, "escalate", "refund"]);
    expect(b.every((x) => x.enabled && !x.dimmed)).toBe(true);
  });

  test("only what the agent declared: no steer, stop or actions without their caps; nothing before hello", () => {
    expect(beltButtons({ caps: { ...CAPS, steer: false }, state: "working", actions: [], text: "x" }).map((x) => x.key)).toEqual(["stop"]);
    expect(beltButtons({ caps: { ...CAPS, stop: false }, state: "working", actions: [], text: "x" }).map((x) => x.key)).toEqual(["steer"]);
    expect(beltButtons({ caps: { ...CAPS, actions: false }, state: "working", actions: [act("a")], text: "" }).map((x) => x.key)).toEqual(["steer", "stop"]);
    expect(beltButtons({ caps: null, state: "working", actions: [act("a")], text: "x" })).toEqual([]);
  });

  test("an agent Collie cannot reach: every button stays in place, dimmed, and takes no tap", () => {
    const b = beltButtons({ caps: CAPS, state: "working", actions: [act("escalate"), act("refund", { busy: true })], text: "hi", away: true });
    expect(b.map((x) => x.key)).toEqual(["steer", "stop", "action:escalate", "action:refund"]);
    expect(b.every((x) => !x.enabled && x.dimmed && !x.busy)).toBe(true);
  });

  test("at most 4 of the agent's buttons", () => {
    const b = beltButtons({ caps: CAPS, state: "idle", actions: ["a", "b", "c", "d", "e", "f"].map((id) => act(id)), text: "" });
    expect(b.filter((x) => x.kind === "action").map((x) => x.actionId)).toEqual(["a", "b", "c", "d"]);
    expect(MAX_ACTIONS).toBe(4);
  });

  test("idle: Steer and Stop are dimmed in place, the same buttons in the same order (nothing shifts)", () => {
    const actions = [act("escalate")];
    const working = beltButtons({ caps: CAPS, state: "working", actions, text: "more" });
    const idle = beltButtons({ caps: CAPS, state: "idle", actions, text: "more" });
    expect(idle.map((x) => x.key)).toEqual(working.map((x) => x.key));
    const [steer, stop, esc] = idle;
    expect([steer!.dimmed, steer!.enabled, stop!.dimmed, stop!.enabled]).toEqual([true, false, true, false]);
    expect([esc!.dimmed, esc!.enabled]).toEqual([false, true]);
  });

  test("Steer needs text to send; waiting on you still counts as a running turn", () => {
    const empty = beltButtons({ caps: CAPS, state: "waiting", actions: [], text: "  " });
    expect(empty[0]!.enabled).toBe(false);
    expect(empty[1]!.enabled).toBe(true);
  });

  test("busy: a spinner and no tap, not dimmed; disabled: dimmed and no tap; a tap on its way is sending (the pending clock), not busy", () => {
    const b = beltButtons({ caps: CAPS, state: "working", actions: [act("a", { busy: true, icon: "play" }), act("b", { disabled: true }), act("c")], text: "", inFlight: new Set(["stop", "action:c"]) });
    const byKey = Object.fromEntries(b.map((x) => [x.key, x]));
    expect(byKey["action:a"]).toMatchObject({ busy: true, sending: false, enabled: false, dimmed: false });
    expect(byKey["action:b"]).toMatchObject({ busy: false, enabled: false, dimmed: true });
    expect(byKey.stop).toMatchObject({ busy: false, sending: true, enabled: false, dimmed: false });
    expect(byKey["action:c"]).toMatchObject({ busy: false, sending: true, enabled: false, dimmed: false });
  });

  test("icons: one of the twelve names, another draws none", () => {
    expect(ICON_NAMES).toHaveLength(12);
    const b = beltButtons({ caps: CAPS, state: "working", actions: [act("a", { icon: "flag" }), act("b", { icon: "rocket" }), act("c")], text: "" });
    expect(b.filter((x) => x.kind === "action").map((x) => x.icon)).toEqual(["flag", undefined, undefined]);
    expect(isIconName("constructor")).toBe(false);
  });
});

describe("belt taps (P-23)", () => {
  test("a tap names the newest turn the phone saw", () => {
    expect(newestTurn("turn-7", null)).toBe("turn-7");
    // A send's reply named turn-8 while the conversation still said turn-7: turn-8 is newer.
    expect(newestTurn("turn-7", { turnId: "turn-8", base: "turn-7" })).toBe("turn-8");
    // The conversation moved since that reply: its own turn is newer.
    expect(newestTurn("turn-9", { turnId: "turn-8", base: "turn-7" })).toBe("turn-9");
  });

  test("moved on: `The conversation moved on, so the action did not run.` for stop and actions", () => {
    const movedOn = { kind: "reply" as const, reply: { status: 409, body: { error: "moved-on", message: "x" } } };
    expect(beltNoteText(beltNote("action", movedOn, "Escalate"))).toBe(STRINGS.movedOn);
    expect(beltNoteText(beltNote("stop", movedOn, "Stop"))).toBe(STRINGS.movedOn);
    // A steer is text: refused or moved on, it is `Not sent` and goes back into the composer (P-20).
    expect(beltNoteText(beltNote("steer", movedOn, "Steer"))).toBe(STRINGS.notSent);
    expect(beltNote("action", { kind: "reply", reply: { status: 200, body: { ok: true } } }, "Escalate")).toBeNull();
    expect(beltNoteText(beltNote("stop", { kind: "no-reply" }, "Stop"))).toBe(STRINGS.sendingNotConfirmed);
    expect(beltNoteText(beltNote("action", { kind: "reply", reply: { status: 409, body: { error: "refused", reason: "Already escalated" } } }, "Escalate"))).toBe("Already escalated");
  });

  test("every refused tap says so (issue 37): not offered, gone, refused without a reason, Collie's own refusal", () => {
    const reply = (status: number, body: Record<string, unknown>) => ({ kind: "reply" as const, reply: { status, body } });
    const note = (status: number, body: Record<string, unknown>, label = "Stop") => beltNoteText(beltNote("stop", reply(status, body), label));
    expect(note(409, { error: "not-supported", message: "This conversation cannot be stopped." })).toBe(WORDS.chat.notOffered("Stop"));
    expect(note(404, { error: "not-found", message: "No button." }, "Escalate")).toBe(WORDS.chat.gone("Escalate"));
    expect(note(409, { error: "refused", message: "no" })).toBe(WORDS.chat.refused("Stop"));
    expect(note(403, { error: "caller-refused", message: "agent text" })).toBe(WORDS.chat.refused("Stop"));
    // Collie's own code carries Collie's words; an agent's message is never passed off as them.
    expect(note(409, { error: "agent-version-mismatch", message: "The durable agent speaks another wire version." }))
      .toBe("Stop did not run. The durable agent speaks another wire version.");
    expect(note(418, { error: "teapot", message: "<b>agent text</b>" })).toBe(WORDS.chat.refused("Stop"));
  });
});
