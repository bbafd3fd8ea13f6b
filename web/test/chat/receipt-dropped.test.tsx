/**
 * A `receipt-dropped` reply (P-15, issue #34): the agent says it only for a request id it saw
 * before, so the tap landed once already and the same id again can only be dropped again. Your line
 * and the belt say `May have been applied already. Check the chat.`, never `Sending, not confirmed`
 * with a retry that cannot succeed.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { act, cleanup, fireEvent, screen, within } from "@testing-library/react";
import { STRINGS } from "@colliepwa/shared";
import type { Item } from "@colliepwa/durable-sdk/wire";
import { Chat } from "../../src/features/chat/Chat.tsx";
import { conversation, detail, on, renderWith, startPhone, T0, type FakeReply } from "./harness.tsx";

const PANE = "/api/agents/desk/panes/p1";
const SEND = `${PANE}/send`;
const STOP = `${PANE}/stop`;
const DROPPED: FakeReply = { status: 500, body: { error: "receipt-dropped", message: "This request id was seen before, but its receipt is no longer kept; nothing ran." } };
const ITEMS: Item[] = [{ kind: "reply", id: "item-1", text: "How can I help?", ts: new Date(T0 - 60_000).toISOString() }];

beforeEach(() => {
  location.hash = "#/agent/desk/pane/p1";
});
afterEach(() => cleanup());

async function openChat(h: Awaited<ReturnType<typeof startPhone>>) {
  renderWith(h.phone, <Chat agent="desk" pane="p1" />);
  await act(async () => {});
}

describe("receipt-dropped (P-15)", () => {
  test("a send: `May have been applied already. Check the chat.`, no `Sending, not confirmed`, and Send with nothing typed sends nothing again", async () => {
    const h = await startPhone({ routes: [on("GET", PANE, { status: 200, body: detail(ITEMS) }), on("POST", SEND, DROPPED)] });
    await openChat(h);
    fireEvent.change(screen.getByRole("textbox", { name: "Message" }), { target: { value: "Are you there?" } });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: STRINGS.send }));
    });
    const line = document.querySelector<HTMLElement>("[data-own-line]")!;
    expect(line.getAttribute("data-state")).toBe("maybe-applied");
    expect(within(line).getByText(STRINGS.mayHaveBeenApplied)).toBeTruthy();
    expect(screen.queryByRole("button", { name: STRINGS.sendingNotConfirmed })).toBeNull();
    expect(document.querySelector("[data-dots]")).toBeNull();
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: STRINGS.send }));
    });
    expect(h.callsTo(SEND, "POST")).toHaveLength(1);
  });

  test("a belt tap: the note says it may have been applied, not `Sending, not confirmed`", async () => {
    const working = conversation({ state: "working", turnId: "turn-7" });
    const h = await startPhone({ conversations: [working], routes: [on("GET", PANE, { status: 200, body: detail(ITEMS, {}, working) }), on("POST", STOP, DROPPED)] });
    await openChat(h);
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: STRINGS.stop }));
    });
    expect(screen.getByText(STRINGS.mayHaveBeenApplied)).toBeTruthy();
    expect(screen.queryByText(STRINGS.sendingNotConfirmed)).toBeNull();
  });
});
