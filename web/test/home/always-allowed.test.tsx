/**
 * The agent home's `Always allowed` (issue #32 item 13, #37 item 17): the list says what it means
 * and how it ends, one tap away; and it is read again when the agent's open asks change, since an
 * ask about a tool ends its `Always allowed` (Collie drops it): the list shows what the agent says now.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { act, cleanup, fireEvent, screen, within } from "@testing-library/react";
import { WORDS } from "@colliepwa/shared";
import { AgentHome } from "../../src/features/home/AgentHome.tsx";
import { conversation, on, renderWith, startPhone } from "./fixtures.tsx";

const ALWAYS = "/api/agents/desk/always-allowed";
const HISTORY = "/api/agents/desk/history";

beforeEach(() => {
  location.hash = "#/agent/desk";
});
afterEach(() => cleanup());

describe("Always allowed on the agent's home", () => {
  test("says what it means and how it ends; an ask of the agent reads it again, and a tool it asked about again is gone", async () => {
    let tools = [{ tool: "check_stock", device: "Pixel", at: new Date().toISOString() }];
    const h = await startPhone({
      conversations: [conversation({ id: "p1", title: "Sofia" })],
      routes: [on("GET", ALWAYS, () => ({ status: 200, body: { tools } })), on("GET", HISTORY, { status: 200, body: { rows: [] } })],
    });
    renderWith(h.phone, <AgentHome agent="desk" />);
    await act(async () => {});
    const region = screen.getByRole("region", { name: WORDS.screen.alwaysAllowed });
    expect(within(region).getByText("check_stock")).toBeTruthy();
    fireEvent.click(within(region).getByText(WORDS.screen.alwaysAllowedWhat));
    expect(within(region).getByText(WORDS.screen.alwaysAllowedMeans)).toBeTruthy();

    // The agent asks about check_stock again: Collie ends it, and the home reads the list again.
    tools = [];
    await act(async () => {
      h.deliver({ type: "conversation", conversation: conversation({ id: "p1", title: "Sofia", state: "waiting", openAsks: 1 }) });
    });
    await act(async () => {});
    expect(h.callsTo(ALWAYS).length).toBe(2);
    expect(screen.queryByRole("region", { name: WORDS.screen.alwaysAllowed })).toBeNull();
  });
});
