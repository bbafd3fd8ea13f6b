/**
 * One pending look for a tap (issue 37 item 3): your line, the ask card's control you tapped and a
 * belt button whose tap is on its way all draw P-20's clock; `Sending, not confirmed` (a send with
 * no reply or a 5xx) survives a reload with its request id; a card answered while Collie was down
 * shows which answer you tapped, before and after a reload.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { act, cleanup, fireEvent, screen } from "@testing-library/react";
import { STRINGS } from "@colliepwa/shared";
import type { Item } from "@colliepwa/durable-sdk/wire";
import { memoryOutboxStorage } from "../../src/app/outbox.ts";
import { Chat } from "../../src/features/chat/Chat.tsx";
import { card, line, option, permissionAsk, answerPath } from "../asks/fixtures.tsx";
import { conversation, deferred, detail, on, renderWith, startPhone, T0, type FakeReply } from "./harness.tsx";

const PANE = "/api/agents/desk/panes/p1";
const SEND = `${PANE}/send`;
const STOP = `${PANE}/stop`;
const ITEMS: Item[] = [
  { kind: "user", id: "u1", text: "Please refund order 5521.", ts: new Date(T0 - 60_000).toISOString() },
  { kind: "tool", id: "item-41", name: "refund", status: "running", call: 'refund(order: "5521", amount: 40)' },
];
const unreachable: FakeReply = { status: 503, body: { error: "agent-unreachable", message: "The durable agent cannot be reached right now." } };

async function open(h: { phone: Parameters<typeof renderWith>[0] }) {
  renderWith(h.phone, <Chat agent="desk" pane="p1" />);
  await act(async () => {});
  await act(async () => {});
}
const composer = () => screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement;
const ownLine = () => document.querySelector<HTMLElement>("[data-own-line]");

beforeEach(() => {
  location.hash = "#/agent/desk/pane/p1";
});
afterEach(() => cleanup());

describe("Sending, not confirmed survives a reload (P-20, P-26)", () => {
  test("a send that got a 5xx: after a reload its line still says so, and a tap sends the same request id", async () => {
    const storage = memoryOutboxStorage();
    const first = await startPhone({ storage, routes: [on("GET", PANE, { status: 200, body: detail(ITEMS) }), on("POST", SEND, { status: 500, body: { error: "internal", message: "x" } })] });
    await open(first);
    fireEvent.change(composer(), { target: { value: "Did the refund go through?" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: STRINGS.send })));
    expect(ownLine()!.getAttribute("data-state")).toBe("not-confirmed");
    const id = first.callsTo(SEND, "POST")[0]!.body!.requestId;
    cleanup();

    const again = await startPhone({ storage, routes: [on("GET", PANE, { status: 200, body: detail(ITEMS) }), on("POST", SEND, { status: 200, body: { ok: true } })] });
    await open(again);
    // Not sent again by itself after a 5xx: the line says it is not sure, as before the reload.
    expect(again.callsTo(SEND, "POST")).toHaveLength(0);
    expect(ownLine()!.getAttribute("data-state")).toBe("not-confirmed");
    expect(ownLine()!.textContent).toContain("Did the refund go through?");
    await act(async () => fireEvent.click(screen.getByRole("button", { name: STRINGS.sendingNotConfirmed })));
    expect(again.callsTo(SEND, "POST").map((c) => c.body!.requestId)).toEqual([id]);
  });

  test("a send with no reply, reloaded while Collie is still down: `Sending, not confirmed`, not a clock that never ends", async () => {
    const storage = memoryOutboxStorage();
    const first = await startPhone({ storage, routes: [on("GET", PANE, { status: 200, body: detail(ITEMS) }), on("POST", SEND, "network")] });
    await open(first);
    fireEvent.change(composer(), { target: { value: "Hello?" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: STRINGS.send })));
    expect(ownLine()!.getAttribute("data-state")).toBe("not-confirmed");
    cleanup();
    // Collie's WebSocket does not open: no snapshot, no flush. The line is still not sure.
    const again = await startPhone({ storage, online: false, routes: [on("POST", SEND, "network")] });
    again.phone.store.restore({ savedAt: T0, collie: { version: "0.1.0", wire: 1 }, agents: [], conversations: [conversation()], details: [["desk", detail(ITEMS)]] });
    await open(again);
    expect(ownLine()!.getAttribute("data-state")).toBe("not-confirmed");
    expect(again.callsTo(SEND, "POST")).toHaveLength(0);
  });
});

describe("an unsure send the chat settles leaves the outbox", () => {
  test("the agent's copy of a send that got a 5xx replaces its line and the outbox lets it go", async () => {
    const h = await startPhone({ routes: [on("GET", PANE, { status: 200, body: detail(ITEMS) }), on("POST", SEND, { status: 502, body: { error: "agent-failed", message: "x" } })] });
    await open(h);
    fireEvent.change(composer(), { target: { value: "Landed after all?" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: STRINGS.send })));
    const id = h.callsTo(SEND, "POST")[0]!.body!.requestId as string;
    expect(h.phone.actions.unsure(id)).toBe(true);
    await act(async () => h.deliver({ type: "item", agent: "desk", paneId: "p1", item: { kind: "user", id: `user-${id}`, text: "Landed after all?", requestId: id } }));
    expect(ownLine()).toBeNull();
    expect(h.phone.actions.isPending(id)).toBe(false);
  });
});

describe("a card answered while Collie was down shows which answer you tapped (issue 37)", () => {
  test("not sure: Allow stays marked, Deny dims; after a reload too; Retry sends the same request id", async () => {
    const storage = memoryOutboxStorage();
    const routes = (answer: FakeReply | "network") => [on("GET", PANE, { status: 200, body: detail(ITEMS, { asks: [permissionAsk()] }) }), on("POST", answerPath("a1"), answer)];
    const first = await startPhone({ storage, routes: routes("network") });
    await open(first);
    await act(async () => fireEvent.click(option(card("a1"), "allow")));
    await act(async () => {});
    expect(line(card("a1"))).toBe(STRINGS.notSureArrived);
    expect(option(card("a1"), "allow").getAttribute("data-chosen")).toBe("true");
    expect(option(card("a1"), "deny").getAttribute("data-chosen")).toBeNull();
    expect(option(card("a1"), "deny").disabled).toBe(true);
    const id = first.callsTo(answerPath("a1"), "POST")[0]!.body!.requestId;
    cleanup();

    const again = await startPhone({ storage, routes: routes(unreachable) });
    await open(again);
    expect(line(card("a1"))).toBe(STRINGS.notSureArrived);
    expect(option(card("a1"), "allow").getAttribute("data-chosen")).toBe("true");
    expect(option(card("a1"), "deny").getAttribute("data-chosen")).toBeNull();
    expect(again.callsTo(answerPath("a1"), "POST").every((c) => c.body!.requestId === id)).toBe(true);
  });
});

describe("the belt: a tap on its way shows the same clock", () => {
  test("Stop, sent and not answered yet: the clock in the button, not the agent's busy spinner", async () => {
    const working = conversation({ state: "working", turnId: "turn-7" });
    const reply = deferred<FakeReply>();
    const h = await startPhone({ conversations: [working], routes: [on("GET", PANE, { status: 200, body: detail(ITEMS, {}, working) }), on("POST", STOP, () => reply.promise)] });
    await open(h);
    await act(async () => fireEvent.click(screen.getByRole("button", { name: STRINGS.stop })));
    const stop = screen.getByRole("button", { name: STRINGS.stop });
    expect(stop.querySelector("[data-clock]")).not.toBeNull();
    expect(stop.querySelector(".spinner")).toBeNull();
    expect(stop.getAttribute("aria-busy")).toBe("true");
    await act(async () => reply.resolve({ status: 200, body: { ok: true } }));
    expect(screen.getByRole("button", { name: STRINGS.stop }).querySelector("[data-clock]")).toBeNull();
  });
});
