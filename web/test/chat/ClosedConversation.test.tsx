/**
 * A closed conversation, read-only (P-6): items from the agent's history with `Load more`, the
 * same item views as the chat, no composer or belt; `Reopen` with the reopen cap goes to the pane
 * the agent opened; read failures say so in P-8's words.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { act, cleanup, fireEvent, screen } from "@testing-library/react";
import { STRINGS } from "@colliepwa/shared";
import type { Item } from "@colliepwa/durable-sdk/wire";
import { href } from "../../src/app/router.ts";
import { ClosedConversation } from "../../src/features/chat/ClosedConversation.tsx";
import { rememberClosedTitles } from "../../src/features/home/home.ts";
import { agentSummary, on, renderWith, startPhone, type Harness } from "./harness.tsx";

const ITEMS = "/api/agents/desk/history/old-1/items";
const REOPEN = "/api/agents/desk/reopen";
const item = (n: number): Item => ({ kind: "reply", id: `h${n}`, text: `old line ${n}` });

async function openClosed(h: Harness) {
  const r = renderWith(h.phone, <ClosedConversation agent="desk" session="old-1" />);
  await act(async () => {});
  return r;
}

beforeEach(() => {
  location.hash = "#/agent/desk/closed/old-1";
});
afterEach(() => cleanup());

describe("closed conversation (P-6)", () => {
  test("reads its items, follows `next` with Load more, and has no composer or belt", async () => {
    const h = await startPhone({
      routes: [
        on("GET", ITEMS, (c) => (c.query.get("after") === "c2"
          ? { status: 200, body: { items: [item(3), { kind: "markdown", id: "h4", text: "**done**" }] } }
          : { status: 200, body: { items: [item(1), item(2)], next: "c2" } })),
      ],
    });
    await openClosed(h);
    expect(screen.getByText("old line 1")).toBeTruthy();
    expect(screen.getByText("old line 2")).toBeTruthy();
    expect(screen.queryByRole("textbox")).toBeNull();
    expect(screen.queryByRole("toolbar")).toBeNull();
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: STRINGS.loadMore }));
    });
    expect(h.callsTo(ITEMS).map((c) => c.query.get("after"))).toEqual([null, "c2"]);
    expect(screen.getByText("old line 3")).toBeTruthy();
    expect(document.querySelector('[data-item-id="h4"] strong')!.textContent).toBe("done");
    expect(screen.queryByRole("button", { name: STRINGS.loadMore })).toBeNull();
  });

  test("times are grouped as in the open chat: one per burst, not a stamp on every item (issue 37)", async () => {
    const at = (min: number) => new Date(Date.UTC(2026, 11, 1, 9, min)).toISOString();
    const items: Item[] = [
      { kind: "user", id: "h1", text: "I can't log in.", ts: at(0) },
      { kind: "reply", id: "h2", text: "Which account?", ts: at(1) },
      { kind: "user", id: "h3", text: "u-4471", ts: at(2) },
      { kind: "reply", id: "h4", text: "I sent a reset link.", ts: at(30) },
    ];
    const h = await startPhone({ routes: [on("GET", ITEMS, { status: 200, body: { items } })] });
    await openClosed(h);
    const timed = [...document.querySelectorAll("[data-item-id]")].filter((el) => el.querySelector("time")).map((el) => el.getAttribute("data-item-id"));
    expect(timed).toEqual(["h3", "h4"]);
  });

  test("is named by the title the home drew for its row; opened cold it says Closed and the agent", async () => {
    const h = await startPhone({ routes: [on("GET", ITEMS, { status: 200, body: { items: [item(1)] } })] });
    const cold = await openClosed(h);
    expect(screen.getByRole("heading", { level: 1 }).textContent).toContain(STRINGS.closed);
    expect(document.querySelector(".chat-line2")!.textContent).toBe("desk");
    cold.unmount();
    rememberClosedTitles("desk", [{ id: "old-1", title: "<b>Maria</b> Lopez", startedAt: "2026-12-01T09:00:00.000Z", state: "closed", items: 1 }]);
    await openClosed(h);
    expect(screen.getByRole("heading", { level: 1 }).textContent).toContain("<b>Maria</b> Lopez");
    expect(document.querySelector(".chat-line2")!.textContent).toBe(`${STRINGS.closed} · desk`);
  });

  test("Reopen (with the cap) posts `reopen` for the session and goes to the pane the agent names", async () => {
    const h = await startPhone({
      routes: [on("GET", ITEMS, { status: 200, body: { items: [item(1)] } }), on("POST", REOPEN, { status: 200, body: { ok: true, paneId: "p-new" } })],
    });
    await openClosed(h);
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: STRINGS.reopen }));
    });
    const [call] = h.callsTo(REOPEN, "POST");
    expect(call!.body).toMatchObject({ target: { kind: "pane", id: "old-1" } });
    expect(location.hash).toBe(href({ name: "chat", agent: "desk", pane: "p-new" }));
  });

  test("Reopen with no answer keeps its request id for the next tap", async () => {
    let n = 0;
    const h = await startPhone({
      routes: [
        on("GET", ITEMS, { status: 200, body: { items: [item(1)] } }),
        on("POST", REOPEN, () => (n++ === 0 ? "network" : { status: 200, body: { ok: true, paneId: "p-new" } })),
      ],
    });
    await openClosed(h);
    for (let i = 0; i < 2; i++) {
      await act(async () => {
        fireEvent.click(screen.getByRole("button", { name: STRINGS.reopen }));
      });
    }
    const ids = h.callsTo(REOPEN, "POST").map((c) => c.body!.requestId);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
  });

  test("no Reopen without the reopen cap (P-1)", async () => {
    const h = await startPhone({ agents: [agentSummary({ reopen: false })], routes: [on("GET", ITEMS, { status: 200, body: { items: [item(1)] } })] });
    await openClosed(h);
    expect(screen.queryByRole("button", { name: STRINGS.reopen })).toBeNull();
  });

  test("failures say so: no history, no answer, other errors", async () => {
    const h = await startPhone({ routes: [on("GET", ITEMS, { status: 409, body: { error: "not-supported" } })] });
    const r = await openClosed(h);
    expect(screen.getByText(STRINGS.noHistory)).toBeTruthy();
    r.unmount();
    h.setRoutes(on("GET", ITEMS, { status: 504, body: { error: "agent-unreachable" } }));
    const r2 = await openClosed(h);
    expect(screen.getByText(STRINGS.historyNoAnswer)).toBeTruthy();
    r2.unmount();
    h.setRoutes(on("GET", ITEMS, { status: 502, body: { error: "agent-failed" } }));
    await openClosed(h);
    expect(screen.getByText(STRINGS.historyFailed)).toBeTruthy();
  });
});

describe("Reopen with an unknown outcome (docs/decisions.md)", () => {
  for (const [name, reply] of [["no reply", "network"], ["a 503", { status: 503, body: { error: "agent-unreachable", message: "x" } }]] as const) {
    test(`${name} reads \`Sending, not confirmed\`, as the chat's menu does`, async () => {
      const h = await startPhone({ routes: [on("GET", ITEMS, { status: 200, body: { items: [item(1)] } }), on("POST", REOPEN, reply)] });
      await openClosed(h);
      await act(async () => {
        fireEvent.click(screen.getByRole("button", { name: STRINGS.reopen }));
      });
      expect(screen.getByRole("status").textContent).toBe(STRINGS.sendingNotConfirmed);
      expect(screen.queryByText(STRINGS.historyNoAnswer)).toBeNull();
    });
  }
});
