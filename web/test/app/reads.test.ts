/**
 * The read layer (reads.ts, `useRead`): a fresh read drops every read before it (its fetch is
 * aborted and its answer never arrives), a `more` read is dropped with the fresh read it follows,
 * and a component's reads are dropped when it unmounts.
 */
import { describe, expect, it } from "vitest";
import { act, cleanup, render } from "@testing-library/react";
import { createElement, useEffect, useState } from "react";
import { Api } from "../../src/app/api.ts";
import { memoryOutboxStorage } from "../../src/app/outbox.ts";
import { Phone } from "../../src/app/phone.ts";
import { PhoneContext, useRead } from "../../src/app/react.ts";
import { Reader, type ReadResult } from "../../src/app/reads.ts";

interface Pending {
  path: string;
  signal: AbortSignal | null | undefined;
  answer: (status: number, body: unknown) => void;
  fail: () => void;
}

/** A fetch whose replies the test gives, one by one. */
function slowFetch() {
  const calls: Pending[] = [];
  const fetchImpl = ((url: string, init: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      calls.push({
        path: url,
        signal: init.signal,
        answer: (status, body) => resolve(new Response(JSON.stringify(body), { status })),
        fail: () => reject(new TypeError("Failed to fetch")),
      });
    })) as unknown as typeof fetch;
  return { calls, api: new Api("", fetchImpl) };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

function watch<T>(p: Promise<T>): { value: T | undefined; settled: boolean } {
  const w = { value: undefined as T | undefined, settled: false };
  void p.then((v) => {
    w.value = v;
    w.settled = true;
  });
  return w;
}

describe("Reader", () => {
  it("a fresh read drops the one before it: aborted, and its answer never arrives", async () => {
    const { calls, api } = slowFetch();
    const reader = new Reader(api);
    const first = watch(reader.fresh("starters", { agent: "desk" }));
    const second = watch(reader.fresh("starters", { agent: "desk" }));
    expect(calls[0]!.signal?.aborted).toBe(true);
    expect(calls[1]!.signal?.aborted).toBe(false);
    calls[1]!.answer(200, { starters: [{ id: "new", title: "New" }] });
    calls[0]!.answer(200, { starters: [{ id: "old", title: "Old" }] });
    await settle();
    expect(first.settled).toBe(false);
    expect(second.value).toEqual({ kind: "reply", reply: { status: 200, body: { starters: [{ id: "new", title: "New" }] } } });
  });

  it("an older answer that comes last is dropped too", async () => {
    const { calls, api } = slowFetch();
    const reader = new Reader(api);
    const first = watch(reader.fresh("history", { agent: "desk" }, { limit: 100 }));
    const second = watch(reader.fresh("history", { agent: "desk" }, { limit: 200 }));
    calls[0]!.answer(200, { rows: [] });
    await settle();
    expect(first.settled).toBe(false);
    expect(second.settled).toBe(false);
    calls[1]!.answer(200, { rows: [] });
    await settle();
    expect(second.settled).toBe(true);
    expect(calls.map((c) => c.path)).toEqual(["/api/agents/desk/history?limit=100", "/api/agents/desk/history?limit=200"]);
  });

  it("a `more` read adds to the fresh one, and is dropped with it by the next fresh read", async () => {
    const { calls, api } = slowFetch();
    const reader = new Reader(api);
    const page1 = watch(reader.fresh("historyItems", { agent: "desk", session: "s1" }, {}));
    calls[0]!.answer(200, { items: [], next: "c2" });
    await settle();
    const page2 = watch(reader.more("historyItems", { agent: "desk", session: "s1" }, { after: "c2" }));
    expect(calls[0]!.signal?.aborted).toBe(false);
    calls[1]!.answer(200, { items: [] });
    await settle();
    expect(page1.settled && page2.settled).toBe(true);

    const page3 = watch(reader.more("historyItems", { agent: "desk", session: "s1" }, { after: "c3" }));
    const again = watch(reader.fresh("historyItems", { agent: "desk", session: "s1" }, {}));
    expect(calls[2]!.signal?.aborted).toBe(true);
    calls[2]!.answer(200, { items: [] });
    calls[3]!.answer(200, { items: [] });
    await settle();
    expect(page3.settled).toBe(false);
    expect(again.settled).toBe(true);
  });

  it("drop() drops every read in flight; a network failure is no reply", async () => {
    const { calls, api } = slowFetch();
    const reader = new Reader(api);
    const a = watch(reader.fresh("pane", { agent: "desk", pane: "p1" }));
    const b = watch(reader.more("alwaysAllowed", { agent: "desk" }));
    reader.drop();
    expect(calls.every((c) => c.signal?.aborted)).toBe(true);
    calls[0]!.answer(200, {});
    calls[1]!.fail();
    await settle();
    expect(a.settled || b.settled).toBe(false);
    const c = watch(reader.fresh("pane", { agent: "desk", pane: "p1" }));
    calls[2]!.fail();
    await settle();
    expect(c.value).toEqual({ kind: "no-reply" });
  });
});

describe("useRead", () => {
  it("drops a component's reads when it unmounts", async () => {
    const { calls, api } = slowFetch();
    const phone = new Phone({ api, storage: memoryOutboxStorage() });
    const seen: ReadResult<unknown>[] = [];
    function Starters() {
      const reader = useRead();
      const [n, setN] = useState(0);
      useEffect(() => {
        void reader.fresh("starters", { agent: "desk" }).then((r) => {
          seen.push(r);
          setN((x) => x + 1);
        });
      }, [reader]);
      return createElement("p", null, String(n));
    }
    const view = render(createElement(PhoneContext.Provider, { value: phone }, createElement(Starters)));
    expect(calls).toHaveLength(1);
    view.unmount();
    expect(calls[0]!.signal?.aborted).toBe(true);
    await act(async () => {
      calls[0]!.answer(200, { starters: [] });
      await settle();
    });
    expect(seen).toEqual([]);
    cleanup();
  });
});
