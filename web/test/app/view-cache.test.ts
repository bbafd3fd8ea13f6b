/**
 * The last view kept on the phone (issue 21: offline showed only "Loading…"): what Collie sent is
 * saved a moment after it changes; a phone that starts without Collie draws it at once, marked as
 * not current (`cachedAt`), until Collie's snapshot replaces it.
 */
import { describe, expect, test, vi } from "vitest";
import type { Item } from "@colliepwa/durable-sdk/wire";
import { VIEW_SAVE_DELAY_MS } from "../../src/app/phone.ts";
import { CACHED_ITEMS, memoryViewCache } from "../../src/app/view-cache.ts";
import { conversation, detail, on, startPhone } from "../chat/harness.tsx";

const PANE = "/api/agents/desk/panes/p1";
const items = (n: number): Item[] => Array.from({ length: n }, (_, i) => ({ kind: "reply", id: `i${i}`, text: `line ${i}`, ts: new Date(0).toISOString() }));

describe("the view cache", () => {
  test("saved after a change; an offline start draws it as not current; Collie's snapshot makes it current", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const cache = memoryViewCache();
      const online = await startPhone({ viewCache: cache, routes: [on("GET", PANE, { status: 200, body: detail(items(CACHED_ITEMS + 20)) })] });
      await online.phone.openPane("desk", "p1");
      expect(await cache.read()).toBeUndefined(); // not at once: a moment after the last change
      await vi.advanceTimersByTimeAsync(VIEW_SAVE_DELAY_MS + 10);
      const saved = await cache.read();
      expect(saved!.conversations.map((c) => c.id)).toEqual(["p1"]);
      expect(saved!.details[0]![1].items).toHaveLength(CACHED_ITEMS);
      expect(saved!.details[0]![1].itemsCut).toBe(true);

      // A new start with no Collie: the saved view is drawn at once, marked as not current.
      const offline = await startPhone({ viewCache: cache, snapshot: false, routes: [] });
      const s = offline.phone.store.getState();
      expect(s.loaded).toBe(true);
      expect(s.cachedAt).toBe(saved!.savedAt);
      expect(s.agents.get("desk")?.state).toBe("ready");
      expect(s.details.get("desk\np1")!.items.at(-1)!.id).toBe(`i${CACHED_ITEMS + 19}`);
      // Nothing is saved back from the copy itself.
      await vi.advanceTimersByTimeAsync(VIEW_SAVE_DELAY_MS * 3);
      expect((await cache.read())!.savedAt).toBe(saved!.savedAt);

      // Collie answers: its snapshot replaces the copy, and what is drawn is current again.
      offline.deliver({ type: "snapshot", snapshot: { seq: 1, collie: { version: "0.1.0", wire: 1 }, agents: [], conversations: [conversation({ id: "p9" })] } });
      expect(offline.phone.store.getState().cachedAt).toBeNull();
      expect([...offline.phone.store.getState().conversations.values()].map((c) => c.id)).toEqual(["p9"]);
    } finally {
      vi.useRealTimers();
    }
  });
});
