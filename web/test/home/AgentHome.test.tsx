/**
 * The agent's home (P-5…P-8, P-17) against a Phone with a fake Api, the memory outbox and a fake
 * WebSocket: row order, marks and counts, line 2, the Closed group, Reopen, Load more, the four
 * notes, no note without the history cap, a drawn list staying drawn, the version warning.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { act, cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { STRINGS } from "@colliepwa/shared";
import { AgentHome } from "../../src/features/home/AgentHome.tsx";
import { href } from "../../src/app/router.ts";
import {
  agentSummary, conversation, deferred, historyRow, minutesAgo, on, renderWith, startPhone, type FakeReply, type Harness,
} from "./fixtures.tsx";

const HISTORY = "/api/agents/desk/history";
const REOPEN = "/api/agents/desk/reopen";
const page = (rows: ReturnType<typeof historyRow>[], next?: string): FakeReply => ({ status: 200, body: next ? { rows, next } : { rows } });
const EMPTY_PAGE = page([]);

async function home(h: Harness) {
  const r = renderWith(h.phone, <AgentHome agent="desk" />);
  await act(async () => {});
  return r;
}

/** The titles of the open rows, top to bottom. */
function openTitles(): string[] {
  const list = screen.queryByRole("list", { name: "Open conversations" });
  if (!list) return [];
  return within(list).getAllByRole("listitem").map((li) => li.querySelector(".row-title")!.textContent!);
}

function closedGroup(): HTMLElement | null {
  return screen.queryByRole("region", { name: STRINGS.closed });
}

beforeEach(() => {
  location.hash = "#/agent/desk";
});
afterEach(() => cleanup());

describe("open rows (P-5, P-7)", () => {
  test("draw at once from the store: waiting first, then newest first; other agents' rows left out", async () => {
    const hold = deferred<FakeReply>();
    const h = await startPhone({
      conversations: [
        conversation({ id: "old", title: "Old idle", activeAt: minutesAgo(300) }),
        conversation({ id: "new", title: "New idle", activeAt: minutesAgo(1) }),
        conversation({ id: "w-old", title: "Waiting old", state: "waiting", openAsks: 1, activeAt: minutesAgo(200) }),
        conversation({ id: "w-new", title: "Waiting new", state: "waiting", openAsks: 2, activeAt: minutesAgo(50) }),
        conversation({ id: "mid", title: "Working mid", state: "working", activeAt: minutesAgo(30) }),
        conversation({ id: "x", title: "Other agent", agent: "elsewhere" }),
      ],
      routes: [on("GET", HISTORY, () => hold.promise)],
    });
    await home(h);
    // History has not answered yet: the open rows are drawn anyway.
    expect(openTitles()).toEqual(["Waiting new", "Waiting old", "New idle", "Working mid", "Old idle"]);
    hold.resolve(EMPTY_PAGE);
  });

  test("each row: title, state mark, time, line 2, and the open-ask count on waiting rows; tap goes to the chat", async () => {
    const h = await startPhone({
      conversations: [
        conversation({ id: "w", title: "Refund 5521", state: "waiting", openAsks: 3, pendingQuestion: "Refund 40 EUR?", subtitle: "Support", activeAt: minutesAgo(5) }),
        conversation({ id: "k", title: "Build", state: "working", subtitle: "Compiling", activeAt: minutesAgo(6) }),
        conversation({ id: "i", title: "   ", state: "idle", activeAt: minutesAgo(7) }),
      ],
      routes: [on("GET", HISTORY, EMPTY_PAGE)],
    });
    await home(h);
    const rows = within(screen.getByRole("list", { name: "Open conversations" })).getAllByRole("link");
    expect(rows).toHaveLength(3);
    const [w, k, i] = rows as [HTMLElement, HTMLElement, HTMLElement];

    expect(within(w).getByRole("img", { name: "Waiting on you" })).toBeTruthy();
    expect(within(w).getByText("Refund 40 EUR?")).toBeTruthy(); // the pending question, not the subtitle
    expect(within(w).queryByText("Support")).toBeNull();
    expect(within(w).getByLabelText("3 open asks").textContent).toBe("3");
    expect(w.getAttribute("href")).toBe(href({ name: "chat", agent: "desk", pane: "w" }));
    expect(w.querySelector("time")!.getAttribute("datetime")).toBe(minutesAgo(5));
    expect(w.querySelector("time")!.textContent).not.toBe("");

    expect(within(k).getByRole("img", { name: "Working" })).toBeTruthy();
    expect(within(k).getByText("Compiling")).toBeTruthy(); // no question: the subtitle
    expect(within(k).queryByLabelText(/open asks?$/)).toBeNull();

    expect(within(i).getByRole("img", { name: "Idle" })).toBeTruthy();
    expect(within(i).getByText(STRINGS.untitledConversation)).toBeTruthy();
    expect(within(i).queryByLabelText(/open asks?$/)).toBeNull();
  });

  test("a row's title and line 2 keep their own direction: a Hebrew or Arabic title reads right to left in a left-to-right list", async () => {
    const h = await startPhone({
      conversations: [conversation({ id: "r", title: "החזר כספי 5521", state: "working", subtitle: "طلب استرداد", activeAt: minutesAgo(5) })],
      routes: [on("GET", HISTORY, EMPTY_PAGE)],
    });
    await home(h);
    const row = within(screen.getByRole("list", { name: "Open conversations" })).getByRole("link");
    expect(within(row).getByText("החזר כספי 5521").getAttribute("dir")).toBe("auto");
    expect(within(row).getByText("طلب استرداد").getAttribute("dir")).toBe("auto");
  });

  test("a waiting row with one ask says `1 open ask`; a waiting row with no counted ask shows no count", async () => {
    const h = await startPhone({
      conversations: [
        conversation({ id: "a", state: "waiting", openAsks: 1, pendingQuestion: "Deploy?" }),
        conversation({ id: "b", state: "waiting", openAsks: 0 }),
      ],
      routes: [on("GET", HISTORY, EMPTY_PAGE)],
    });
    await home(h);
    expect(screen.getByLabelText("1 open ask").textContent).toBe("1");
    expect(screen.getAllByRole("img", { name: "Waiting on you" })).toHaveLength(2);
    expect(screen.queryAllByLabelText(/open asks?$/)).toHaveLength(1);
  });

  test("header: the name, the Experimental badge, a back link, and New conversation only with the starters cap", async () => {
    const h = await startPhone({ routes: [on("GET", HISTORY, EMPTY_PAGE)] });
    await home(h);
    const heading = screen.getByRole("heading", { level: 1 });
    expect(heading.textContent).toContain("desk");
    expect(within(heading).getByText(STRINGS.experimental)).toBeTruthy();
    expect(screen.getByRole("link", { name: "Back" }).getAttribute("href")).toBe(href({ name: "dashboard" }));
    expect(screen.getByRole("link", { name: STRINGS.newConversation }).getAttribute("href")).toBe(href({ name: "new", agent: "desk" }));
    cleanup();

    const h2 = await startPhone({ agents: [agentSummary({ caps: { starters: false } })], routes: [on("GET", HISTORY, EMPTY_PAGE)] });
    await home(h2);
    expect(screen.queryByRole("link", { name: STRINGS.newConversation })).toBeNull();
  });

  test("an agent this Collie does not know: a short note and a link back", async () => {
    const h = await startPhone({ agents: [agentSummary({ name: "other" })] });
    await home(h);
    expect(screen.getByText(/No durable agent named/)).toBeTruthy();
    expect(screen.getByRole("link", { name: "Back to the dashboard" }).getAttribute("href")).toBe(href({ name: "dashboard" }));
    expect(h.callsTo(HISTORY)).toHaveLength(0);
  });
});

describe("closed rows (P-5, P-6, P-7)", () => {
  test("the history's closed rows go under Closed and open read-only; its open rows are not repeated", async () => {
    const h = await startPhone({
      conversations: [conversation({ id: "live", title: "Live one" })],
      routes: [on("GET", HISTORY, page([
        historyRow({ id: "live", title: "Live one", state: "open", endedAt: undefined }),
        historyRow({ id: "c1", title: "Password reset", subtitle: "Done" }),
        historyRow({ id: "c2", title: "" }),
      ]))],
    });
    await home(h);
    const group = closedGroup()!;
    expect(group).toBeTruthy();
    expect(within(group).getByRole("heading", { name: STRINGS.closed })).toBeTruthy();
    const links = within(group).getAllByRole("link");
    expect(links.map((a) => a.querySelector(".row-title")!.textContent)).toEqual(["Password reset", STRINGS.untitledConversation]);
    expect(links[0]!.getAttribute("href")).toBe(href({ name: "closed", agent: "desk", session: "c1" }));
    expect(within(links[0]!).getByText("Done")).toBeTruthy();
    expect(openTitles()).toEqual(["Live one"]);
    // One read, the first page of 100.
    expect(h.callsTo(HISTORY)).toHaveLength(1);
    expect(h.callsTo(HISTORY)[0]!.query.get("limit")).toBe("100");
    expect(h.callsTo(HISTORY)[0]!.query.has("after")).toBe(false);
  });

  test("Reopen only with the reopen cap", async () => {
    const rows = page([historyRow({ id: "c1", title: "Password reset" })]);
    const h = await startPhone({ agents: [agentSummary({ caps: { reopen: false } })], routes: [on("GET", HISTORY, rows)] });
    await home(h);
    expect(closedGroup()).toBeTruthy();
    expect(screen.queryByRole("button", { name: /^Reopen/ })).toBeNull();
    cleanup();

    const h2 = await startPhone({ routes: [on("GET", HISTORY, rows)] });
    await home(h2);
    expect(within(closedGroup()!).getByRole("button", { name: /^Reopen/ }).textContent).toBe(STRINGS.reopen);
  });

  test("Reopen posts reopen with a fresh request id through the outbox and goes to the new pane's chat", async () => {
    const h = await startPhone({
      routes: [
        on("GET", HISTORY, page([historyRow({ id: "c1", title: "Password reset" }), historyRow({ id: "c2" })])),
        on("POST", REOPEN, { status: 200, body: { ok: true, paneId: "p-new" } }),
      ],
    });
    await home(h);
    const buttons = screen.getAllByRole("button", { name: /^Reopen/ });
    await act(async () => {
      fireEvent.click(buttons[0]!);
    });
    const posts = h.callsTo(REOPEN, "POST");
    expect(posts).toHaveLength(1);
    const body = posts[0]!.body!;
    expect(typeof body.requestId).toBe("string");
    expect((body.requestId as string).length).toBeGreaterThan(0);
    expect(body.target).toEqual({ kind: "pane", id: "c1" });
    await waitFor(() => expect(location.hash).toBe(href({ name: "chat", agent: "desk", pane: "p-new" })));
    expect(h.phone.outbox.pending).toHaveLength(0);

    await act(async () => {
      fireEvent.click(screen.getAllByRole("button", { name: /^Reopen/ })[1]!);
    });
    const second = h.callsTo(REOPEN, "POST")[1]!.body!;
    expect(second.requestId).not.toBe(body.requestId); // one request id per tap (P-14)
    expect(second.target).toEqual({ kind: "pane", id: "c2" });
  });

  test("a refused reopen says why, as text, and stays on the list", async () => {
    const h = await startPhone({
      routes: [
        on("GET", HISTORY, page([historyRow({ id: "c1" })])),
        on("POST", REOPEN, { status: 409, body: { error: "refused", message: "refused", reason: "<b>Archived</b> for good" } }),
      ],
    });
    await home(h);
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: /^Reopen/ }));
    });
    expect(screen.getByText("<b>Archived</b> for good")).toBeTruthy(); // agent text is text (X-2)
    expect(document.querySelector("b")).toBeNull();
    expect(location.hash).toBe("#/agent/desk");
  });

  test("Load more reads the next 100 after the cursor and appends; it goes away at the end of the list", async () => {
    const first = Array.from({ length: 3 }, (_, n) => historyRow({ id: `a${n}`, title: `First ${n}` }));
    const second = [historyRow({ id: "b0", title: "Second 0" }), historyRow({ id: "a2", title: "First 2" })];
    const h = await startPhone({
      routes: [on("GET", HISTORY, (call) => (call.query.get("after") === "cur-2" ? page(second) : page(first, "cur-2")))],
    });
    await home(h);
    expect(within(closedGroup()!).getAllByRole("link")).toHaveLength(3);
    const more = screen.getByRole("button", { name: STRINGS.loadMore });
    await act(async () => {
      fireEvent.click(more);
    });
    const reads = h.callsTo(HISTORY);
    expect(reads).toHaveLength(2);
    expect(reads[1]!.query.get("after")).toBe("cur-2");
    expect(reads[1]!.query.get("limit")).toBe("100");
    const titles = within(closedGroup()!).getAllByRole("link").map((a) => a.querySelector(".row-title")!.textContent);
    expect(titles).toEqual(["First 0", "First 1", "First 2", "Second 0"]); // a repeated row once
    expect(screen.queryByRole("button", { name: STRINGS.loadMore })).toBeNull();
  });

  test("history is read once per visit, again when a conversation opens or closes, never on other live messages", async () => {
    const h = await startPhone({
      conversations: [conversation({ id: "p1", title: "One" })],
      routes: [on("GET", HISTORY, EMPTY_PAGE)],
    });
    await home(h);
    expect(h.callsTo(HISTORY)).toHaveLength(1);

    // Live changes to an open conversation, another agent's, items: no read.
    await act(async () => {
      h.deliver({ type: "conversation", conversation: conversation({ id: "p1", title: "One renamed", state: "working", activeAt: minutesAgo(0) }) });
      h.deliver({ type: "conversation", conversation: conversation({ id: "z", agent: "elsewhere" }) });
      h.deliver({ type: "item", agent: "desk", paneId: "p1", item: { id: "i1", kind: "reply", text: "hi", events: [] } });
      h.deliver({ type: "agent", agent: agentSummary({ counts: { open: 1, waiting: 0 } }) });
    });
    expect(openTitles()).toEqual(["One renamed"]);
    expect(h.callsTo(HISTORY)).toHaveLength(1);

    // A conversation opens: one read.
    await act(async () => {
      h.deliver({ type: "conversation", conversation: conversation({ id: "p2", title: "Two", activeAt: minutesAgo(0) }) });
    });
    expect(h.callsTo(HISTORY)).toHaveLength(2);
    // One closes: one read.
    await act(async () => {
      h.deliver({ type: "conversation-removed", agent: "desk", id: "p1" });
    });
    expect(h.callsTo(HISTORY)).toHaveLength(3);
    expect(openTitles()).toEqual(["Two"]);
  });

  test("a re-read keeps the pages Load more added (it asks for as many rows as are drawn)", async () => {
    const h = await startPhone({
      routes: [on("GET", HISTORY, (call) => {
        const limit = Number(call.query.get("limit"));
        if (call.query.get("after")) return page([historyRow({ id: "b0", title: "Second 0" })]);
        return limit >= 200 ? page([historyRow({ id: "a0", title: "First 0" }), historyRow({ id: "b0", title: "Second 0" })]) : page([historyRow({ id: "a0", title: "First 0" })], "cur");
      })],
    });
    await home(h);
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: STRINGS.loadMore }));
    });
    expect(within(closedGroup()!).getAllByRole("link")).toHaveLength(2);
    await act(async () => {
      h.deliver({ type: "conversation", conversation: conversation({ id: "n1" }) });
    });
    expect(h.callsTo(HISTORY).at(-1)!.query.get("limit")).toBe("200");
    expect(within(closedGroup()!).getAllByRole("link")).toHaveLength(2);
  });
});

describe("the notes at the end of the list (P-8)", () => {
  const cases: [string, FakeReply, string][] = [
    ["409 not-supported", { status: 409, body: { error: "not-supported", message: "no history" } }, STRINGS.noHistory],
    ["504 agent-unreachable", { status: 504, body: { error: "agent-unreachable", message: "x" } }, STRINGS.historyNoAnswer],
    ["503 agent-unreachable", { status: 503, body: { error: "agent-unreachable", message: "x" } }, STRINGS.historyNoAnswer],
    ["a network failure", "network", STRINGS.historyNoAnswer],
    ["500 internal", { status: 500, body: { error: "internal", message: "x" } }, STRINGS.historyFailed],
    ["502 agent-failed", { status: 502, body: { error: "agent-failed", message: "x" } }, STRINGS.historyFailed],
    ["a 200 that is not a page", { status: 200, body: { nope: true } }, STRINGS.historyFailed],
  ];
  for (const [name, reply, note] of cases) {
    test(`${name} → ${note}`, async () => {
      const h = await startPhone({ conversations: [conversation({ id: "p1", title: "Still here" })], routes: [on("GET", HISTORY, reply)] });
      await home(h);
      expect(screen.getByRole("status").textContent).toBe(note);
      expect(openTitles()).toEqual(["Still here"]);
      expect(closedGroup()).toBeNull();
    });
  }

  test("a wire version mismatch names both versions", async () => {
    const h = await startPhone({
      agents: [agentSummary({ wire: { agent: 2, collie: 1 } })],
      routes: [on("GET", HISTORY, { status: 409, body: { error: "agent-version-mismatch", message: "x" } })],
    });
    await home(h);
    expect(screen.getByRole("status").textContent).toBe("The durable agent speaks wire v2, this Collie speaks v1. Update Collie, or the agent's SDK.");
  });

  test("the agent's own 404 version-mismatch names the newest version it speaks", async () => {
    const h = await startPhone({
      agents: [agentSummary({ wire: { agent: null, collie: 1 } })],
      routes: [on("GET", HISTORY, { status: 404, body: { error: "version-mismatch", message: "x", speaks: [3, 2] } })],
    });
    await home(h);
    expect(screen.getByRole("status").textContent).toBe(STRINGS.historyVersion(3, 1));
  });

  test("an agent without the history cap: open conversations alone, no Closed, no note, no read", async () => {
    const h = await startPhone({
      agents: [agentSummary({ caps: { history: false } })],
      conversations: [conversation({ id: "p1", title: "Only this" })],
      routes: [on("GET", HISTORY, { status: 409, body: { error: "not-supported", message: "x" } })],
    });
    await home(h);
    expect(openTitles()).toEqual(["Only this"]);
    expect(h.callsTo(HISTORY)).toHaveLength(0);
    expect(closedGroup()).toBeNull();
    expect(screen.queryByRole("status")).toBeNull();
    expect(screen.queryByText(STRINGS.noHistory)).toBeNull();
    expect(screen.queryByRole("button", { name: STRINGS.loadMore })).toBeNull();
  });

  test("a list already drawn stays drawn when a later read fails", async () => {
    let fail = false;
    const h = await startPhone({
      routes: [on("GET", HISTORY, (call) => {
        if (fail) return { status: 504, body: { error: "agent-unreachable", message: "x" } };
        return call.query.get("after") ? page([historyRow({ id: "c2", title: "Older" })]) : page([historyRow({ id: "c1", title: "Kept" })], "next-1");
      })],
    });
    await home(h);
    expect(within(closedGroup()!).getAllByRole("link")).toHaveLength(1);

    // A conversation opens; the re-read fails: the rows stay, the note says why.
    fail = true;
    await act(async () => {
      h.deliver({ type: "conversation", conversation: conversation({ id: "n1", title: "New one" }) });
    });
    expect(h.callsTo(HISTORY)).toHaveLength(2);
    expect(within(closedGroup()!).getByText("Kept")).toBeTruthy();
    expect(screen.getByRole("status").textContent).toBe(STRINGS.historyNoAnswer);
    expect(openTitles()).toEqual(["New one"]);

    // Load more fails too: still drawn. Then it works: the note goes.
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: STRINGS.loadMore }));
    });
    expect(within(closedGroup()!).getByText("Kept")).toBeTruthy();
    expect(screen.getByRole("status").textContent).toBe(STRINGS.historyNoAnswer);
    fail = false;
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: STRINGS.loadMore }));
    });
    expect(within(closedGroup()!).getAllByRole("link").map((a) => a.querySelector(".row-title")!.textContent)).toEqual(["Kept", "Older"]);
    expect(screen.queryByRole("status")).toBeNull();
  });

  test("an answer that arrives after a newer read started is dropped", async () => {
    const slow = deferred<FakeReply>();
    let n = 0;
    const h = await startPhone({
      routes: [on("GET", HISTORY, () => (++n === 1 ? slow.promise : page([historyRow({ id: "fresh", title: "Fresh" })])))],
    });
    await home(h);
    await act(async () => {
      h.deliver({ type: "conversation", conversation: conversation({ id: "n1" }) });
    });
    expect(within(closedGroup()!).getByText("Fresh")).toBeTruthy();
    await act(async () => {
      slow.resolve(page([historyRow({ id: "stale", title: "Stale" })]));
    });
    expect(within(closedGroup()!).queryByText("Stale")).toBeNull();
  });
});

describe("the version warning (P-17)", () => {
  test("a version-mismatched agent's home names both versions", async () => {
    const h = await startPhone({
      agents: [agentSummary({ state: "version-mismatch", wire: { agent: 2, collie: 1 }, counts: { open: 0, waiting: 0 } })],
      routes: [on("GET", HISTORY, { status: 409, body: { error: "agent-version-mismatch", message: "x" } })],
    });
    await home(h);
    expect(screen.getByRole("alert").textContent).toBe("Program speaks wire v2, this Collie speaks v1. Update Collie, or the durable agent's SDK.");
    expect(screen.getByRole("status").textContent).toBe(STRINGS.historyVersion(2, 1));
  });

  test("no warning for a ready agent", async () => {
    const h = await startPhone({ routes: [on("GET", HISTORY, EMPTY_PAGE)] });
    await home(h);
    expect(screen.queryByRole("alert")).toBeNull();
  });
});

describe("agent text is text (X-2)", () => {
  test("titles, questions and subtitles with markup render as text", async () => {
    const h = await startPhone({
      conversations: [conversation({ id: "x", title: "<img src=x onerror=alert(1)>", state: "waiting", openAsks: 1, pendingQuestion: "<script>bad()</script>" })],
      routes: [on("GET", HISTORY, page([historyRow({ id: "c", title: "<i>closed</i>", subtitle: "<u>sub</u>" })]))],
    });
    const { container } = await home(h);
    expect(screen.getByText("<img src=x onerror=alert(1)>")).toBeTruthy();
    expect(screen.getByText("<script>bad()</script>")).toBeTruthy();
    expect(screen.getByText("<i>closed</i>")).toBeTruthy();
    expect(container.querySelector("img, script, i, u")).toBeNull();
  });
});

describe("a reopen with an unknown outcome (P-14, docs/decisions.md)", () => {
  for (const [name, first] of [["no reply", "network"], ["a 504", { status: 504, body: { error: "agent-unreachable", message: "x" } }]] as const) {
    test(`${name}: \`Sending, not confirmed\`, and the next tap sends the same request id`, async () => {
      let n = 0;
      const h = await startPhone({
        routes: [
          on("GET", HISTORY, page([historyRow({ id: "c1" })])),
          on("POST", REOPEN, () => (n++ === 0 ? first : { status: 200, body: { ok: true, paneId: "p-new" } })),
        ],
      });
      await home(h);
      await act(async () => {
        fireEvent.click(screen.getByRole("button", { name: /^Reopen/ }));
      });
      expect(within(closedGroup()!).getByRole("status").textContent).toBe(STRINGS.sendingNotConfirmed);
      await act(async () => {
        fireEvent.click(screen.getByRole("button", { name: /^Reopen/ }));
      });
      const ids = h.callsTo(REOPEN, "POST").map((c) => c.body!.requestId);
      expect(ids).toHaveLength(2);
      expect(ids[1]).toBe(ids[0]);
      await waitFor(() => expect(location.hash).toBe(href({ name: "chat", agent: "desk", pane: "p-new" })));
    });
  }
});
