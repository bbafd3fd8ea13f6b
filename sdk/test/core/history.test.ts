/** History: the agent's own store, paged by its own cursors; sessionId (S-31). */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { HistoryProvider } from "../../src/core/core.ts";
import type { HistoryRow, Item } from "../../src/wire/types.ts";
import { openRig, type Rig } from "../helpers/agent.ts";

const ROWS: HistoryRow[] = Array.from({ length: 5 }, (_, i) => ({
  id: `conv-${i}`,
  title: `Conversation ${i}`,
  ...(i === 0 ? { subtitle: "first", workspaceId: "w", tabId: "w:t" } : {}),
  startedAt: `2026-11-0${i + 1}T09:00:00.000Z`,
  ...(i % 2 === 1 ? { endedAt: `2026-11-0${i + 1}T10:00:00.000Z`, state: "closed" as const } : { state: "open" as const }),
  items: i * 3,
}));

const ITEMS: Item[] = Array.from({ length: 7 }, (_, i) => ({ kind: "notice", id: `item-${i}`, text: `line ${i}`, ts: "2026-11-01T09:00:00.000Z" }));

/** Pages `list` by `p.<index>` cursors and `items` by `i.<index>`. */
function provider(queries: { list: { after?: string; limit: number }[]; items: { session: string; after?: string; limit: number }[] }): HistoryProvider {
  return {
    list(q) {
      queries.list.push(q);
      const start = q.after ? Number(q.after.slice(2)) : 0;
      const rows = ROWS.slice(start, start + q.limit);
      const end = start + rows.length;
      return end < ROWS.length ? { rows, next: `p.${end}` } : { rows };
    },
    async items(session, q) {
      queries.items.push({ session, ...q });
      if (session !== "conv-1") return null;
      const start = q.after ? Number(q.after.slice(2)) : 0;
      const items = ITEMS.slice(start, start + q.limit);
      const end = start + items.length;
      return end < ITEMS.length ? { items, next: `i.${end}` } : { items };
    },
  };
}

describe("history pages (S-31)", () => {
  let rig: Rig;
  const queries = { list: [] as { after?: string; limit: number }[], items: [] as { session: string; after?: string; limit: number }[] };
  before(async () => {
    rig = await openRig();
  });
  after(() => rig.close());

  it("answers 409 not-supported before a provider is set", async () => {
    const reply = await rig.phone.history();
    assert.equal(reply.status, 409);
    assert.equal((reply.body as unknown as { error: string }).error, "not-supported");
  });

  it("pages through the provider's rows with its own cursors until a page has no next", async () => {
    rig.collie.history(provider(queries));
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const reply = await rig.phone.history(after === undefined ? { limit: 2 } : { after, limit: 2 });
      assert.equal(reply.status, 200);
      seen.push(...reply.body.rows.map((r) => r.id));
      pages++;
      if (!("next" in reply.body)) break;
      after = reply.body.next;
    }
    assert.deepEqual(seen, ROWS.map((r) => r.id));
    assert.equal(pages, 3);
    assert.deepEqual(queries.list, [{ limit: 2 }, { after: "p.2", limit: 2 }, { after: "p.4", limit: 2 }]);
  });

  it("serves the rows as the provider gave them", async () => {
    const reply = await rig.phone.history({ limit: 5 });
    assert.deepEqual(reply.body.rows, ROWS);
    assert.equal("next" in reply.body, false);
  });

  it("asks the provider for 100 rows when the reader gives no limit", async () => {
    await rig.phone.history();
    assert.deepEqual(queries.list.at(-1), { limit: 100 });
  });

  it("pages through a conversation's items, 500 by default", async () => {
    const first = await rig.phone.historyItems("conv-1", { limit: 4 });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.items.map((i) => i.id), ["item-0", "item-1", "item-2", "item-3"]);
    assert.equal(first.body.next, "i.4");
    const second = await rig.phone.historyItems("conv-1", { after: first.body.next!, limit: 4 });
    assert.deepEqual(second.body.items.map((i) => i.id), ["item-4", "item-5", "item-6"]);
    assert.equal("next" in second.body, false);
    await rig.phone.historyItems("conv-1");
    assert.deepEqual(queries.items.at(-1), { session: "conv-1", limit: 500 });
  });

  it("answers 404 not-found for the items of an unknown session", async () => {
    const reply = await rig.phone.historyItems("conv-404");
    assert.equal(reply.status, 404);
    assert.equal((reply.body as unknown as { error: string }).error, "not-found");
  });
});

describe("a provider's bad page answers 500 internal (S-31, L-2)", () => {
  const bad: [string, HistoryProvider][] = [
    ["a row with an unknown state", { list: () => ({ rows: [{ ...ROWS[0]!, state: "archived" as never }] }), items: () => null }],
    ["a row without startedAt", { list: () => ({ rows: [{ ...ROWS[0]!, startedAt: undefined as never }] }), items: () => null }],
    ["a row with a negative item count", { list: () => ({ rows: [{ ...ROWS[0]!, items: -1 }] }), items: () => null }],
    ["a next cursor with a space", { list: () => ({ rows: [], next: "page 2" }), items: () => null }],
    ["an empty next cursor", { list: () => ({ rows: [], next: "" }), items: () => null }],
    ["a thrown error", { list: () => { throw new Error("db down"); }, items: () => null }],
    ["a rejected promise", { list: () => Promise.reject(new Error("db down")), items: () => null }],
  ];

  for (const [what, p] of bad) {
    it(`answers 500 internal for ${what}`, async () => {
      const rig = await openRig();
      try {
        rig.collie.history(p);
        const reply = await rig.phone.history();
        assert.equal(reply.status, 500);
        assert.equal((reply.body as unknown as { error: string }).error, "internal");
        assert.equal((await rig.phone.hello()).caps.history, true, "the agent keeps serving");
      } finally {
        await rig.close();
      }
    });
  }

  it("answers 500 internal for an items page with a javascript: link", async () => {
    const rig = await openRig();
    try {
      rig.collie.history({ list: () => ({ rows: [] }), items: () => ({ items: [{ kind: "link", id: "l", href: "javascript:alert(1)" }] }) });
      const reply = await rig.phone.historyItems("any");
      assert.equal(reply.status, 500);
      assert.equal((reply.body as unknown as { error: string }).error, "internal");
    } finally {
      await rig.close();
    }
  });

  it("throws a TypeError for a provider without list() and items()", async () => {
    const rig = await openRig();
    try {
      assert.throws(() => rig.collie.history({ list: () => ({ rows: [] }) } as never), TypeError);
    } finally {
      await rig.close();
    }
  });
});

describe("sessionId (S-31)", () => {
  let rig: Rig;
  before(async () => {
    rig = await openRig();
    const tab = rig.collie.workspace("w").tab("t");
    tab.pane("plain");
    tab.pane("chosen", { sessionId: "store-42" });
    tab.pane("unstable", { sessionId: null });
  });
  after(() => rig.close());

  const sessions = async (): Promise<Record<string, string | null>> =>
    Object.fromEntries((await rig.phone.layout()).panes.map((p) => [p.id, p.sessionId]));

  it("is null without a history provider unless the agent passed one", async () => {
    assert.deepEqual(await sessions(), { plain: null, chosen: "store-42", unstable: null });
  });

  it("equals the pane id once a provider is set, keeps a chosen id, and stays null when null was passed", async () => {
    rig.collie.history({ list: () => ({ rows: [] }), items: () => null });
    assert.deepEqual(await sessions(), { plain: "plain", chosen: "store-42", unstable: null });
    assert.equal(rig.collie.pane("plain")!.sessionId, "plain");
    assert.equal((await rig.phone.pane("plain")).pane.sessionId, "plain");
  });

  it("throws a TypeError for a sessionId that breaks the ID rule", () => {
    assert.throws(() => rig.collie.workspace("w").tab("t").pane("bad-session", { sessionId: "a b" }), TypeError);
  });
});
