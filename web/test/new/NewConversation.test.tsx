/**
 * The New page (P-25): titled `New conversation`, the agent's starters (title, subtitle), the empty
 * line, a tap that posts the starter with a fresh request id and goes to the new conversation, and
 * nothing else offered: no folder, no text, no shell or command.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { act, cleanup, fireEvent, screen } from "@testing-library/react";
import { STRINGS } from "@colliepwa/shared";
import { NewConversation } from "../../src/features/new/NewConversation.tsx";
import { href } from "../../src/app/router.ts";
import { agentSummary, on, renderWith, startPhone, type Harness } from "../home/fixtures.tsx";

const STARTERS = "/api/agents/desk/starters";

async function page(h: Harness) {
  const r = renderWith(h.phone, <NewConversation agent="desk" />);
  await act(async () => {});
  return r;
}

beforeEach(() => {
  location.hash = "#/agent/desk/new";
});
afterEach(() => cleanup());

describe("New conversation (P-25)", () => {
  test("titled New conversation; lists the starters with title and subtitle; nothing to type", async () => {
    const h = await startPhone({
      routes: [on("GET", STARTERS, { status: 200, body: { starters: [
        { id: "triage", title: "Triage the inbox", subtitle: "Sorts new tickets" },
        { id: "standup", title: "Write the standup" },
      ] } })],
    });
    const { container } = await page(h);
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe(STRINGS.newConversation);
    const buttons = screen.getAllByRole("button");
    expect(buttons.map((b) => b.querySelector(".row-title")!.textContent)).toEqual(["Triage the inbox", "Write the standup"]);
    expect(screen.getByText("Sorts new tickets")).toBeTruthy();
    expect(h.callsTo(STARTERS)).toHaveLength(1);
    // A starter takes no folder and no text; no shell or command is offered.
    expect(container.querySelector("input, textarea, select")).toBeNull();
    expect(screen.queryByText(/shell|terminal|command/i)).toBeNull();
    expect(screen.getByRole("link", { name: "Back" }).getAttribute("href")).toBe(href({ name: "home", agent: "desk" }));
  });

  test("an agent with no starters says so", async () => {
    const h = await startPhone({ routes: [on("GET", STARTERS, { status: 200, body: { starters: [] } })] });
    await page(h);
    expect(screen.getByText("This machine's durable agent offers no starters yet.")).toBeTruthy();
    expect(screen.queryAllByRole("button")).toHaveLength(0);
  });

  test("an agent without the starters cap: the same line, and no read", async () => {
    const h = await startPhone({ agents: [agentSummary({ caps: { starters: false } })] });
    await page(h);
    expect(screen.getByText(STRINGS.noStarters)).toBeTruthy();
    expect(h.callsTo(STARTERS)).toHaveLength(0);
  });

  test("an agent that answers not-supported reads like one without starters", async () => {
    const h = await startPhone({ routes: [on("GET", STARTERS, { status: 409, body: { error: "not-supported", message: "x" } })] });
    await page(h);
    expect(screen.getByText(STRINGS.noStarters)).toBeTruthy();
  });

  test("a read with no answer says so and can be tried again", async () => {
    let down = true;
    const h = await startPhone({
      routes: [on("GET", STARTERS, () => (down ? "network" : { status: 200, body: { starters: [{ id: "s", title: "Back now" }] } }))],
    });
    await page(h);
    expect(screen.getByRole("status").textContent).toBe(STRINGS.historyNoAnswer);
    down = false;
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    });
    expect(screen.getByText("Back now")).toBeTruthy();
  });

  test("a tap posts the starter with a fresh request id through the outbox and goes to the new pane's chat", async () => {
    const h = await startPhone({
      routes: [
        on("GET", STARTERS, { status: 200, body: { starters: [{ id: "triage", title: "Triage the inbox" }, { id: "b", title: "Other" }] } }),
        on("POST", "/api/agents/desk/starters/triage", { status: 200, body: { ok: true, paneId: "p-42" } }),
      ],
    });
    await page(h);
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: /Triage the inbox/ }));
    });
    const posts = h.callsTo("/api/agents/desk/starters/triage", "POST");
    expect(posts).toHaveLength(1);
    const body = posts[0]!.body!;
    expect(Object.keys(body)).toEqual(["requestId"]); // no folder, no text
    expect(typeof body.requestId).toBe("string");
    expect((body.requestId as string).length).toBeGreaterThan(8);
    expect(location.hash).toBe(href({ name: "chat", agent: "desk", pane: "p-42" }));
    expect(h.phone.outbox.pending).toHaveLength(0);
  });

  test("each tap carries its own request id", async () => {
    const h = await startPhone({
      routes: [
        on("GET", STARTERS, { status: 200, body: { starters: [{ id: "s", title: "Start" }] } }),
        on("POST", "/api/agents/desk/starters/s", { status: 409, body: { error: "refused", message: "refused", reason: "Too many open" } }),
      ],
    });
    await page(h);
    for (let n = 0; n < 2; n++) {
      await act(async () => {
        fireEvent.click(screen.getByRole("button", { name: /Start/ }));
      });
    }
    const ids = h.callsTo("/api/agents/desk/starters/s", "POST").map((c) => c.body!.requestId);
    expect(ids).toHaveLength(2);
    expect(ids[0]).not.toBe(ids[1]);
    expect(screen.getByText("Too many open")).toBeTruthy();
    expect(location.hash).toBe("#/agent/desk/new");
  });

  test("no answer to a tap: the action stays in the outbox to be sent again with the same request id", async () => {
    const h = await startPhone({
      routes: [
        on("GET", STARTERS, { status: 200, body: { starters: [{ id: "s", title: "Start" }] } }),
        on("POST", "/api/agents/desk/starters/s", "network"),
      ],
    });
    await page(h);
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: /Start/ }));
    });
    const sent = h.callsTo("/api/agents/desk/starters/s", "POST")[0]!.body!.requestId;
    expect(h.phone.outbox.pending.map((p) => p.requestId)).toEqual([sent]);
    expect(h.phone.outbox.pending[0]!.kind).toBe("starter");
    expect(location.hash).toBe("#/agent/desk/new");
  });
});

describe("a starter tap with an unknown outcome (P-14, docs/decisions.md)", () => {
  for (const [name, first] of [["no reply", "network"], ["a 503", { status: 503, body: { error: "agent-unreachable", message: "x" } }]] as const) {
    test(`${name}: \`Sending, not confirmed\`, and the next tap sends the same request id (one conversation)`, async () => {
      let n = 0;
      const h = await startPhone({
        routes: [
          on("GET", STARTERS, { status: 200, body: { starters: [{ id: "s", title: "Start" }] } }),
          on("POST", "/api/agents/desk/starters/s", () => (n++ === 0 ? first : { status: 200, body: { ok: true, paneId: "p-9" } })),
        ],
      });
      await page(h);
      await act(async () => {
        fireEvent.click(screen.getByRole("button", { name: /Start/ }));
      });
      expect(screen.getByRole("status").textContent).toBe(STRINGS.sendingNotConfirmed);
      await act(async () => {
        fireEvent.click(screen.getByRole("button", { name: /Start/ }));
      });
      const ids = h.callsTo("/api/agents/desk/starters/s", "POST").map((c) => c.body!.requestId);
      expect(ids).toHaveLength(2);
      expect(ids[1]).toBe(ids[0]);
      expect(location.hash).toBe(href({ name: "chat", agent: "desk", pane: "p-9" }));
    });
  }
});
