/**
 * The composer (P-20, P-26, issue 32 item 0, issue 34 item 6): its one button is Send in every
 * state of the conversation (Steer is the belt's); a message typed while the agent is away, or
 * during a turn the agent takes no message in, is sent and held by Collie, its line says which;
 * what is typed is the conversation's draft, kept across a reload.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { act, cleanup, fireEvent, screen, within } from "@testing-library/react";
import { STRINGS, WORDS } from "@colliepwa/shared";
import type { Item } from "@colliepwa/durable-sdk/wire";
import { memoryDraftStorage } from "../../src/app/drafts.ts";
import { Chat } from "../../src/features/chat/Chat.tsx";
import { agentSummary, conversation, detail, on, renderWith, startPhone, T0, type FakeReply, type Harness } from "./harness.tsx";

const PANE = "/api/agents/desk/panes/p1";
const SEND = `${PANE}/send`;
const STEER = `${PANE}/steer`;
const HELD: FakeReply = { status: 202, body: { held: true } };
const ITEMS: Item[] = [{ kind: "user", id: "u1", text: "Please refund order 5521.", ts: new Date(T0 - 60_000).toISOString() }];
const working = conversation({ state: "working", turnId: "turn-7" });

async function openChat(h: Harness, pane = "p1") {
  const r = renderWith(h.phone, <Chat agent="desk" pane={pane} />);
  await act(async () => {});
  return r;
}
const composer = () => screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement;
const form = () => composer().closest("form")!;
const sendButton = () => within(form()).getByRole("button", { name: STRINGS.send }) as HTMLButtonElement;
const type = (text: string) => fireEvent.change(composer(), { target: { value: text } });
const ownLine = () => document.querySelector<HTMLElement>("[data-own-line]");

beforeEach(() => {
  location.hash = "#/agent/desk/pane/p1";
});
afterEach(() => cleanup());

describe("one button, Send, in every state (#34 item 6)", () => {
  test("during a turn the composer's button is Send, never a second Steer; a tap sends, not steers", async () => {
    const h = await startPhone({ conversations: [working], routes: [on("GET", PANE, { status: 200, body: detail(ITEMS, {}, working) }), on("POST", SEND, HELD)] });
    await openChat(h);
    expect(within(form()).queryByRole("button", { name: STRINGS.steer })).toBeNull();
    // Steer is the belt's alone.
    expect(screen.getAllByRole("button", { name: STRINGS.steer })).toHaveLength(1);
    type("And add a voucher");
    await act(async () => fireEvent.click(sendButton()));
    expect(h.callsTo(SEND, "POST")[0]!.body).toMatchObject({ text: "And add a voucher" });
    expect(h.callsTo(STEER, "POST")).toHaveLength(0);
  });

  test("an agent without followUp: the empty composer says a message waits for the turn; held, its line says so", async () => {
    const h = await startPhone({ conversations: [working], routes: [on("GET", PANE, { status: 200, body: detail(ITEMS, {}, working) }), on("POST", SEND, HELD)] });
    await openChat(h);
    expect(composer().placeholder).toBe(WORDS.screen.messageAfterTurn);
    type("Then check the courier");
    await act(async () => fireEvent.click(sendButton()));
    expect(ownLine()!.getAttribute("data-state")).toBe("held");
    expect(ownLine()!.querySelector("[data-clock]")).toBeTruthy();
    expect(ownLine()!.textContent).toContain(WORDS.chat.heldForTurn);
    // The turn ends: the composer is a plain `Message` again.
    act(() => h.deliver({ type: "conversation", conversation: { ...working, state: "idle" } }));
    expect(composer().placeholder).toBe(WORDS.screen.message);
  });

  test("an agent that declares followUp: the composer says nothing of waiting during a turn", async () => {
    const h = await startPhone({ agents: [agentSummary({ followUp: true })], conversations: [working], routes: [on("GET", PANE, { status: 200, body: detail(ITEMS, {}, working) })] });
    await openChat(h);
    expect(composer().placeholder).toBe(WORDS.screen.message);
    expect(sendButton()).toBeTruthy();
  });
});

describe("the agent away mid-turn (#32 item 0)", () => {
  const away = { ...agentSummary(), state: "unreachable" as const };

  test("a message typed while the agent is down can be sent: held by Collie, the clock and the agent's words on its line", async () => {
    const h = await startPhone({ agents: [away], conversations: [working], routes: [on("GET", PANE, { status: 200, body: detail(ITEMS, {}, working) }), on("POST", SEND, HELD)] });
    await openChat(h);
    type("Are you back?");
    expect(sendButton().disabled).toBe(false);
    await act(async () => fireEvent.click(sendButton()));
    expect(h.callsTo(SEND, "POST")).toHaveLength(1);
    expect(composer().value).toBe("");
    const line = ownLine()!;
    expect(line.getAttribute("data-state")).toBe("held");
    expect(line.querySelector("[data-clock]")).toBeTruthy();
    expect(line.textContent).toContain(WORDS.chat.held);
  });
});

describe("drafts (P-26: nothing typed is lost)", () => {
  test("what is typed is kept per conversation: a reload opens each chat with its own draft; sending clears it", async () => {
    const drafts = memoryDraftStorage();
    const p2 = conversation({ id: "p2", title: "Another ticket" });
    const routes = [on("GET", PANE, { status: 200, body: detail(ITEMS) }), on("GET", "/api/agents/desk/panes/p2", { status: 200, body: detail([], {}, p2) })];
    const first = await startPhone({ draftStorage: drafts, conversations: [conversation(), p2], routes });
    const r = await openChat(first);
    type("Half a thought about the refund");
    r.unmount();
    await openChat(first, "p2");
    expect(composer().value).toBe("");
    type("For the other ticket");
    cleanup();

    // A reload: a new phone on the same storage.
    const second = await startPhone({ draftStorage: drafts, conversations: [conversation(), p2], routes: [...routes, on("POST", SEND, { status: 200, body: { ok: true } })] });
    await openChat(second);
    expect(composer().value).toBe("Half a thought about the refund");
    await act(async () => fireEvent.click(sendButton()));
    expect(composer().value).toBe("");
    cleanup();
    const third = await startPhone({ draftStorage: drafts, conversations: [conversation(), p2], routes });
    await openChat(third);
    expect(composer().value).toBe("");
    cleanup();
    await openChat(third, "p2");
    expect(composer().value).toBe("For the other ticket");
  });

  test("text a refused send gives back is kept as the draft too", async () => {
    const drafts = memoryDraftStorage();
    const h = await startPhone({ draftStorage: drafts, routes: [on("GET", PANE, { status: 200, body: detail(ITEMS) }), on("POST", SEND, { status: 409, body: { error: "refused", message: "No." } })] });
    await openChat(h);
    type("Refund it twice");
    await act(async () => fireEvent.click(sendButton()));
    expect(composer().value).toBe("Refund it twice");
    cleanup();
    const again = await startPhone({ draftStorage: drafts, routes: [on("GET", PANE, { status: 200, body: detail(ITEMS) })] });
    await openChat(again);
    expect(composer().value).toBe("Refund it twice");
  });
});
