/**
 * The outbox (P-14, P-26): saved before it is sent, sent again with the same request id after no
 * reply, gone once a reply came.
 */
import { describe, expect, it } from "vitest";
import { Api } from "../../src/app/api.ts";
import { memoryOutboxStorage, Outbox } from "../../src/app/outbox.ts";

function fakeFetch(plan: ("fail" | number)[], seen: unknown[]): typeof fetch {
  return (async (_url: string, init: RequestInit) => {
    seen.push(JSON.parse(String(init.body)));
    const next = plan.shift();
    if (next === "fail" || next === undefined) throw new TypeError("Failed to fetch");
    return new Response(JSON.stringify({ ok: true }), { status: next });
  }) as unknown as typeof fetch;
}

describe("Outbox", () => {
  it("keeps an action after no reply and resends it with the same request id", async () => {
    const seen: { requestId: string }[] = [];
    const storage = memoryOutboxStorage();
    const outbox = new Outbox(new Api("", fakeFetch(["fail", 200], seen)), storage);
    const first = await outbox.submit({ requestId: "r-1", kind: "send", agent: "desk", pane: "p", path: "/x", body: { requestId: "r-1", text: "hi" } });
    expect(first).toEqual({ kind: "no-reply" });
    expect((await storage.all()).map((a) => a.requestId)).toEqual(["r-1"]);
    const again = await outbox.send("r-1");
    expect(again.kind).toBe("reply");
    expect(seen.map((b) => b.requestId)).toEqual(["r-1", "r-1"]);
    expect(await storage.all()).toEqual([]);
  });

  it("survives a reload: a new outbox on the same storage loads and flushes what was left", async () => {
    const storage = memoryOutboxStorage();
    await new Outbox(new Api("", fakeFetch(["fail"], [])), storage).submit({ requestId: "r-2", kind: "send", agent: "desk", path: "/x", body: { requestId: "r-2" } });
    const seen: { requestId: string }[] = [];
    const reloaded = new Outbox(new Api("", fakeFetch([200], seen)), storage);
    expect((await reloaded.load()).map((a) => a.requestId)).toEqual(["r-2"]);
    await reloaded.flush();
    expect(seen.map((b) => b.requestId)).toEqual(["r-2"]);
    expect(reloaded.pending).toEqual([]);
  });

  it("keeps a send Collie holds (202 held) across a reload, and lets a held answer go", async () => {
    const storage = memoryOutboxStorage();
    const heldFetch = (async (_url: string, init: RequestInit) => {
      void init;
      return new Response(JSON.stringify({ held: true }), { status: 202 });
    }) as unknown as typeof fetch;
    const outbox = new Outbox(new Api("", heldFetch), storage);
    await outbox.submit({ requestId: "s-1", kind: "send", agent: "desk", pane: "p", path: "/send", body: { requestId: "s-1", text: "hello?" } });
    await outbox.submit({ requestId: "a-1", kind: "answer", agent: "desk", pane: "p", path: "/answer", body: { requestId: "a-1" } });
    expect(outbox.held("s-1")).toBe(true);
    expect((await storage.all()).map((a) => [a.requestId, a.held])).toEqual([["s-1", true]]);
    const reloaded = new Outbox(new Api("", heldFetch), storage);
    await reloaded.load();
    expect(reloaded.held("s-1")).toBe(true);
    await reloaded.discard("s-1");
    expect(await storage.all()).toEqual([]);
  });

  it("sends a request id once at a time, even when asked twice", async () => {
    const seen: unknown[] = [];
    const outbox = new Outbox(new Api("", fakeFetch([200, 200], seen)), memoryOutboxStorage());
    const p = outbox.submit({ requestId: "r-3", kind: "send", agent: "desk", path: "/x", body: { requestId: "r-3" } });
    await Promise.all([p, outbox.send("r-3")]);
    expect(seen.length).toBe(1);
  });
});

describe("Outbox when storage refuses (private mode, a full disk)", () => {
  const refusing = () => {
    const inner = memoryOutboxStorage();
    return { ...inner, put: async () => Promise.reject(new DOMException("quota", "QuotaExceededError")), delete: async () => Promise.reject(new Error("no")) };
  };

  it("still sends the action, keeps it in memory after no reply, and sends it again with the same id", async () => {
    const seen: { requestId: string; text?: string }[] = [];
    const outbox = new Outbox(new Api("", fakeFetch(["fail", 200], seen)), refusing());
    const first = await outbox.submit({ requestId: "q-1", kind: "steer", agent: "desk", pane: "p", path: "/steer", body: { requestId: "q-1", text: "shorter" } });
    expect(first).toEqual({ kind: "no-reply" });
    expect(outbox.pending.map((p) => p.body.text)).toEqual(["shorter"]);
    const again = await outbox.send("q-1");
    expect(again.kind).toBe("reply");
    expect(seen).toEqual([{ requestId: "q-1", text: "shorter" }, { requestId: "q-1", text: "shorter" }]);
    expect(outbox.pending).toEqual([]);
  });

  it("a reply still settles it", async () => {
    const outbox = new Outbox(new Api("", fakeFetch([200], [])), refusing());
    const r = await outbox.submit({ requestId: "q-2", kind: "send", agent: "desk", pane: "p", path: "/send", body: { requestId: "q-2", text: "hi" } });
    expect(r.kind === "reply" && r.reply.status).toBe(200);
    expect(outbox.pending).toEqual([]);
    expect(outbox.saved("q-2")?.body.text).toBe("hi");
  });
  it("takes in what another outbox on the same storage saved since its load, once, and sends it with its request id", async () => {
    const storage = memoryOutboxStorage();
    const seen: { requestId: string }[] = [];
    const page = new Outbox(new Api("", fakeFetch([200], seen)), storage);
    await page.load();
    // The service worker's own outbox over the same storage: its send found no network (issue 30).
    await new Outbox(new Api("", fakeFetch(["fail"], [])), storage).submit({ requestId: "w-1", kind: "answer", agent: "desk", pane: "p", path: "/answer", body: { requestId: "w-1" } });
    expect(page.pending).toEqual([]);
    expect(await page.adopt()).toBe(1);
    expect(await page.adopt()).toBe(0);
    expect(page.pending.map((a) => a.requestId)).toEqual(["w-1"]);
    await page.flush();
    expect(seen.map((b) => b.requestId)).toEqual(["w-1"]);
    expect(await storage.all()).toEqual([]);
  });
});
