/**
 * A crew member's agent on the lead's phone (C-1, issue #34 item 4, #37 item 15): named as the
 * dashboard names it, never by the lead's key `desk@workshop`: the ask card's caption, the closed
 * conversation's line 2 (with the machine), the agent's home (the machine under its name, so two
 * `desk`s on two machines are told apart), the link back from a closed chat.
 */
import { afterEach, describe, expect, test } from "vitest";
import { act, cleanup, screen } from "@testing-library/react";
import { STRINGS } from "@colliepwa/shared";
import { ClosedConversation } from "../../src/features/chat/ClosedConversation.tsx";
import { Chat } from "../../src/features/chat/Chat.tsx";
import { AgentHome } from "../../src/features/home/AgentHome.tsx";
import { rememberClosedTitles } from "../../src/features/home/home.ts";
import { ITEMS, permissionAsk } from "../asks/fixtures.tsx";
import { agentSummary, conversation, detail, on, renderWith, startPhone } from "./harness.tsx";

const KEY = "desk@workshop";
const ENC = encodeURIComponent(KEY);
const member = { ...agentSummary(), name: KEY, machine: "workshop" };
const own = agentSummary();

afterEach(() => cleanup());

describe("a member's agent is named as the dashboard names it", () => {
  test("the ask card's caption reads `Needs your answer · desk`", async () => {
    location.hash = `#/agent/${ENC}/pane/p1`;
    const h = await startPhone({
      agents: [own, member],
      conversations: [conversation({ agent: KEY })],
      routes: [on("GET", `/api/agents/${KEY}/panes/p1`, { status: 200, body: detail(ITEMS, { asks: [permissionAsk()] }, conversation({ agent: KEY })) })],
    });
    renderWith(h.phone, <Chat agent={KEY} pane="p1" />);
    await act(async () => {});
    expect(document.querySelector(".ask-caption")!.textContent).toBe(STRINGS.needsYourAnswer("desk"));
    expect(document.body.textContent).not.toContain(KEY);
  });

  test("a closed conversation's line 2 reads `Closed · desk, workshop`", async () => {
    location.hash = `#/agent/${ENC}/closed/old-1`;
    const h = await startPhone({ agents: [own, member], routes: [on("GET", `/api/agents/${KEY}/history/old-1/items`, { status: 200, body: { items: [] } })] });
    rememberClosedTitles(KEY, [{ id: "old-1", title: "Maria Lopez", startedAt: "2026-12-01T09:00:00.000Z", state: "closed", items: 0 }]);
    renderWith(h.phone, <ClosedConversation agent={KEY} session="old-1" />);
    await act(async () => {});
    expect(document.querySelector(".chat-line2")!.textContent).toBe(`${STRINGS.closed} · desk, workshop`);
  });

  test("two `desk`s: the member's home names its machine under the name; this machine's names none", async () => {
    location.hash = `#/agent/${ENC}`;
    const h = await startPhone({ agents: [own, member], routes: [on("GET", `/api/agents/${KEY}/history`, { status: 200, body: { rows: [] } }), on("GET", "/api/agents/desk/history", { status: 200, body: { rows: [] } })] });
    const theirs = renderWith(h.phone, <AgentHome agent={KEY} />);
    await act(async () => {});
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe(`desk ${STRINGS.experimental}`);
    expect(document.querySelector(".home-line2")!.textContent).toBe("workshop");
    theirs.unmount();
    renderWith(h.phone, <AgentHome agent="desk" />);
    await act(async () => {});
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe(`desk ${STRINGS.experimental}`);
    expect(document.querySelector(".home-line2")).toBeNull();
  });
});
