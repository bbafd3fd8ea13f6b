/**
 * One state, one sentence (issue #32 item 3): while Collie cannot reach the agent, its home says so
 * once, in the note at the top; the end of the list does not add `The durable agent did not
 * answer. Try again in a moment.` for the same state. The closed list read waits until the agent is
 * back, and what was drawn stays drawn meanwhile.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { act, cleanup, screen } from "@testing-library/react";
import { STRINGS, WORDS } from "@colliepwa/shared";
import { AgentHome } from "../../src/features/home/AgentHome.tsx";
import { agentSummary, conversation, historyRow, on, renderWith, startPhone, type FakeReply } from "./fixtures.tsx";

const HISTORY = "/api/agents/desk/history";
const UNREACHABLE: FakeReply = { status: 503, body: { error: "agent-unreachable", message: "The durable agent cannot be reached." } };

beforeEach(() => {
  location.hash = "#/agent/desk";
});
afterEach(() => cleanup());

const noteAtTheEnd = () => screen.queryByText(STRINGS.historyNoAnswer);
const awayNote = () => screen.queryByText(WORDS.away.home);

describe("an agent Collie cannot reach, on its home", () => {
  test("opened while it is away: the away note alone, no read of its closed list; back: the list is read", async () => {
    const h = await startPhone({
      agents: [agentSummary({ state: "unreachable", problem: "connect ENOENT" })],
      conversations: [conversation({ id: "p1", title: "Still here" })],
      routes: [on("GET", HISTORY, { status: 200, body: { rows: [historyRow({ id: "old", title: "Done last week" })] } })],
    });
    renderWith(h.phone, <AgentHome agent="desk" />);
    await act(async () => {});
    expect(awayNote()).not.toBeNull();
    expect(noteAtTheEnd()).toBeNull();
    expect(h.callsTo(HISTORY)).toHaveLength(0);
    expect(screen.getByText("Still here")).toBeTruthy();

    await act(async () => {
      h.deliver({ type: "agent", agent: agentSummary() });
    });
    await act(async () => {});
    expect(awayNote()).toBeNull();
    expect(h.callsTo(HISTORY)).toHaveLength(1);
    expect(screen.getByText("Done last week")).toBeTruthy();
  });

  test("going away after its list was drawn: the closed rows stay, and the end of the list says nothing more", async () => {
    let down = false;
    const h = await startPhone({
      conversations: [conversation({ id: "p1", title: "Still here" })],
      routes: [on("GET", HISTORY, () => (down ? UNREACHABLE : { status: 200, body: { rows: [historyRow({ id: "old", title: "Done last week" })] } }))],
    });
    renderWith(h.phone, <AgentHome agent="desk" />);
    await act(async () => {});
    expect(screen.getByText("Done last week")).toBeTruthy();
    down = true;
    await act(async () => {
      h.deliver({ type: "agent", agent: agentSummary({ state: "unreachable", problem: "connect ENOENT" }) });
      // A conversation of the agent changes while it is away (the list would be read again).
      h.deliver({ type: "conversation", conversation: conversation({ id: "p2", title: "Another" }) });
    });
    await act(async () => {});
    expect(awayNote()).not.toBeNull();
    expect(noteAtTheEnd()).toBeNull();
    expect(screen.getByText("Done last week")).toBeTruthy();
  });
});
