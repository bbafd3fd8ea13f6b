/**
 * The phone's store (D-4, P-26): a snapshot, then deltas; a drawn list stays drawn.
 */
import { describe, expect, it } from "vitest";
import type { Conversation, LiveMessage, Snapshot } from "@colliepwa/shared";
import { paneKey, PhoneStore } from "../../src/app/store.ts";

const conv: Conversation = {
  id: "p1", tabId: "w:t", title: "Maria", harness: "", sessionId: null, state: "idle", actions: [], openAsks: 0,
  turnId: null, activeAt: "2026-12-02T10:00:00.000Z", agent: "desk", workspaceTitle: "Support",
};
const snapshot: Snapshot = {
  seq: 3, collie: { version: "0.1.0", wire: 1 }, conversations: [conv],
  agents: [{ name: "desk", state: "ready", reach: "local", runtime: "node 22", selfName: null, machine: null, caps: null, wire: { agent: 1, collie: 1 }, counts: { open: 1, waiting: 0 } }],
};

describe("PhoneStore", () => {
  it("takes a snapshot, then applies deltas", () => {
    const store = new PhoneStore();
    store.apply({ type: "snapshot", seq: 3, snapshot });
    expect(store.getState().loaded).toBe(true);
    store.apply({ type: "conversation", seq: 4, conversation: { ...conv, title: "Maria Lopez" } });
    expect(store.getState().conversations.get(paneKey("desk", "p1"))?.title).toBe("Maria Lopez");
    store.apply({ type: "conversation-removed", seq: 5, agent: "desk", id: "p1" });
    expect(store.getState().conversations.size).toBe(0);
  });

  it("adds a further page of an agent's open conversations beside the snapshot's first page", () => {
    const store = new PhoneStore();
    store.apply({ type: "snapshot", seq: 3, snapshot });
    store.addConversations([{ ...conv, id: "p2" }, { ...conv, id: "p1", title: "Maria Lopez" }]);
    expect([...store.getState().conversations.keys()]).toEqual([paneKey("desk", "p1"), paneKey("desk", "p2")]);
    expect(store.getState().conversations.get(paneKey("desk", "p1"))?.title).toBe("Maria Lopez");
  });

  it("replaces an item with a known id in place and appends a new one (S-14)", () => {
    const store = new PhoneStore();
    store.setDetail("desk", { conversation: conv, items: [{ id: "a", kind: "reply", text: "Hel", partial: true }], itemsCut: false, asks: [] });
    const msgs: LiveMessage[] = [
      { type: "item", seq: 1, agent: "desk", paneId: "p1", item: { id: "b", kind: "notice", text: "n" } },
      { type: "item", seq: 2, agent: "desk", paneId: "p1", item: { id: "a", kind: "reply", text: "Hello" } },
    ];
    msgs.forEach((m) => store.apply(m));
    const items = store.getState().details.get(paneKey("desk", "p1"))!.items;
    expect(items.map((i) => i.id)).toEqual(["a", "b"]);
    expect(items[0]).toEqual({ id: "a", kind: "reply", text: "Hello" });
  });

  it("keeps what it drew when the connection drops (P-26)", () => {
    const store = new PhoneStore();
    store.apply({ type: "snapshot", seq: 3, snapshot });
    store.setStatus("offline");
    expect(store.getState().conversations.size).toBe(1);
    expect(store.getState().agents.size).toBe(1);
  });

  it("tells listeners about each change", () => {
    const store = new PhoneStore();
    let calls = 0;
    const off = store.subscribe(() => calls++);
    store.apply({ type: "snapshot", seq: 3, snapshot });
    store.setStatus("online");
    off();
    store.setStatus("offline");
    expect(calls).toBe(2);
  });
});
