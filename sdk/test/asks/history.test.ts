/**
 * History from the agent's own store (S-31): pages with the agent's cursors across 250
 * conversations, closed conversations' items for the phone's read-only view, and the history cap
 * turned on by the provider (S-33).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { HistoryProvider } from "../../src/core/core.ts";
import type { HistoryRow, Item } from "../../src/wire/types.ts";
import { openRig, type Rig } from "../helpers/agent.ts";

const ROWS: HistoryRow[] = Array.from({ length: 250 }, (_, i) => ({
  id: `conv-${String(i).padStart(3, "0")}`,
  title: `Conversation ${i}`,
  startedAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
  state: i % 3 === 0 ? "closed" : "open",
  items: i,
  ...(i % 3 === 0 ? { endedAt: new Date(Date.UTC(2026, 0, 2) + i * 60_000).toISOString() } : {}),
}));

/** A provider over an array, with base64url offsets as its own cursors. */
const provider: HistoryProvider = {
  list({ after, limit }) {
    const start = after ? Number(Buffer.from(after, "base64url").toString()) : 0;
    const rows = ROWS.slice(start, start + limit);
    const next = start + limit < ROWS.length ? Buffer.from(String(start + limit)).toString("base64url") : undefined;
    return next ? { rows, next } : { rows };
  },
  items(sessionId) {
    const row = ROWS.find((r) => r.id === sessionId);
    if (!row) return null;
    const items: Item[] = [{ id: "u1", kind: "user", text: `hello from ${sessionId}` }, { id: "r1", kind: "reply", text: "hi" }];
    return { items };
  },
};

describe("history (S-31)", () => {
  let rig: Rig;
  before(async () => {
    rig = await openRig();
    rig.collie.workspace("w").tab("t").pane("conv-001");
    rig.collie.ready();
  });
  after(() => rig.close());

  it("answers 409 not-supported and declares no history cap before a provider is set", async () => {
    assert.equal((await rig.phone.hello()).caps.history, false);
    const reply = await rig.phone.history();
    assert.equal(reply.status, 409);
    assert.equal((reply.body as unknown as { error: string }).error, "not-supported");
    assert.equal((await rig.phone.layout()).panes[0]!.sessionId, null);
  });

  it("pages through all 250 conversations, 100 at a time, until no next", async () => {
    rig.collie.history(provider);
    assert.equal((await rig.phone.hello()).caps.history, true);
    const seen: string[] = [];
    const sizes: number[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await rig.phone.history(after ? { after } : {});
      assert.equal(page.status, 200);
      seen.push(...page.body.rows.map((r) => r.id));
      sizes.push(page.body.rows.length);
      if (!page.body.next) break;
      after = page.body.next;
    }
    assert.deepEqual(sizes, [100, 100, 50]);
    assert.deepEqual(seen, ROWS.map((r) => r.id));
  });

  it("passes the phone's limit to the provider", async () => {
    const page = await rig.phone.history({ limit: 7 });
    assert.equal(page.body.rows.length, 7);
  });

  it("refuses a cursor that is not printable ASCII, and a limit out of range", async () => {
    assert.equal((await rig.phone.history({ after: "two words" })).status, 400);
    assert.equal((await rig.phone.history({ limit: 0 })).status, 400);
    assert.equal((await rig.phone.history({ limit: 501 })).status, 400);
  });

  it("serves a closed conversation's items for the read-only view", async () => {
    const page = await rig.phone.historyItems("conv-000");
    assert.equal(page.status, 200);
    assert.deepEqual(page.body.items.map((i) => i.kind), ["user", "reply"]);
    assert.equal((await rig.phone.historyItems("nope")).status, 404);
  });

  it("gives each pane its id as sessionId once a provider is set", async () => {
    assert.equal((await rig.phone.layout()).panes[0]!.sessionId, "conv-001");
  });
});
