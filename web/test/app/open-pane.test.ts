/**
 * Opening a chat (D-4): the phone watches it on the WebSocket and reads it over HTTP. When the
 * WebSocket's view comes first, the read is not drawn again (a 2000-item chat drawn twice cost the
 * first view its time); when the read comes first, the view still replaces it (it is newer).
 */
import { describe, expect, test } from "vitest";
import type { Item } from "@colliepwa/durable-sdk/wire";
import { deferred, detail, on, startPhone, type FakeReply } from "../chat/harness.tsx";

const PANE = "/api/agents/desk/panes/p1";
const items = (...ids: string[]): Item[] => ids.map((id) => ({ kind: "reply", id, text: id, ts: new Date(0).toISOString() }));

describe("Phone.openPane", () => {
  test("the view came first: the HTTP read that follows is not drawn", async () => {
    const reply = deferred<FakeReply>();
    const h = await startPhone({ routes: [on("GET", PANE, () => reply.promise)] });
    const opened = h.phone.openPane("desk", "p1");
    h.deliver({ type: "view", agent: "desk", paneId: "p1", detail: detail(items("a", "b")) });
    const fromView = h.phone.store.getState().details.get("desk\np1");
    let changes = 0;
    h.phone.store.subscribe(() => changes++);
    reply.resolve({ status: 200, body: detail(items("a", "b")) });
    await opened;
    expect(h.phone.store.getState().details.get("desk\np1")).toBe(fromView);
    expect(changes).toBe(0);
  });

  test("the read came first: it is drawn, and the view after it replaces it", async () => {
    const h = await startPhone({ routes: [on("GET", PANE, { status: 200, body: detail(items("a")) })] });
    await h.phone.openPane("desk", "p1");
    expect(h.phone.store.getState().details.get("desk\np1")!.items.map((i) => i.id)).toEqual(["a"]);
    h.deliver({ type: "view", agent: "desk", paneId: "p1", detail: detail(items("a", "b")) });
    expect(h.phone.store.getState().details.get("desk\np1")!.items.map((i) => i.id)).toEqual(["a", "b"]);
  });
});
