/**
 * Composer drafts (drafts.ts, P-26): kept per conversation, at most MAX_DRAFTS (the ones typed in
 * last), an empty one is none, and a storage that refuses or holds rubbish loses nothing typed on
 * this page.
 */
import { describe, expect, test } from "vitest";
import { Drafts, MAX_DRAFTS, memoryDraftStorage, type DraftStorage } from "../../src/app/drafts.ts";

describe("drafts", () => {
  test("kept per conversation and read back by a new page on the same storage; an empty draft is removed", () => {
    const storage = memoryDraftStorage();
    const a = new Drafts(storage);
    a.set("desk\np1", "half a thought");
    a.set("desk\np2", "another");
    const b = new Drafts(storage);
    expect(b.get("desk\np1")).toBe("half a thought");
    expect(b.get("desk\np2")).toBe("another");
    b.set("desk\np1", "");
    expect(new Drafts(storage).get("desk\np1")).toBe("");
    expect(storage.getItem("collie.draft:desk\np1")).toBeNull();
  });

  test(`at most ${MAX_DRAFTS} conversations keep a draft: typing in one more drops the one typed in longest ago`, () => {
    const storage = memoryDraftStorage();
    const d = new Drafts(storage);
    for (let n = 0; n <= MAX_DRAFTS; n++) d.set(`desk\np${n}`, `text ${n}`);
    // p0 was typed in first; typing in p1 again makes it the newest, so p2 would go next.
    const fresh = new Drafts(storage);
    expect(fresh.get("desk\np0")).toBe("");
    expect(fresh.get(`desk\np${MAX_DRAFTS}`)).toBe(`text ${MAX_DRAFTS}`);
    fresh.set("desk\np1", "again");
    fresh.set("desk\nlast", "new");
    const later = new Drafts(storage);
    expect(later.get("desk\np1")).toBe("again");
    expect(later.get("desk\np2")).toBe("");
  });

  test("a storage that refuses keeps the draft for this page; rubbish in the index is ignored", () => {
    const refusing: DraftStorage = {
      getItem: () => { throw new Error("SecurityError"); },
      setItem: () => { throw new Error("QuotaExceededError"); },
      removeItem: () => undefined,
    };
    const d = new Drafts(refusing);
    d.set("desk\np1", "still here");
    expect(d.get("desk\np1")).toBe("still here");
    const storage = memoryDraftStorage();
    storage.setItem("collie.drafts", "{not json");
    const e = new Drafts(storage);
    e.set("desk\np1", "fine");
    expect(new Drafts(storage).get("desk\np1")).toBe("fine");
    expect(new Drafts(null).get("desk\np1")).toBe("");
  });
});
