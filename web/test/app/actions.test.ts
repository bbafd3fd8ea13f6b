/**
 * The action layer (actions.ts): each action's request is built from the route table with a new
 * request id, saved once in the outbox before it is sent, and sent again unchanged (the same id
 * and body) by `retry`, whether the outbox still holds it (no reply, or a 5xx) or let it go. A
 * control that repeats an unsure tap sends the same id until the outcome is known.
 */
import { describe, expect, it } from "vitest";
import { PhoneActions, RepeatUntilSure, unsure } from "../../src/app/actions.ts";
import { Api } from "../../src/app/api.ts";
import { memoryOutboxStorage, Outbox, type OutboxStorage } from "../../src/app/outbox.ts";

interface Sent {
  method: string;
  path: string;
  body: Record<string, unknown>;
}

/** Collie faked at the fetch boundary: each reply in turn ("network": no reply), the last from then on. */
function rig(plan: (number | "network")[], storage: OutboxStorage = memoryOutboxStorage()) {
  const sent: Sent[] = [];
  let n = 0;
  const fetchImpl = (async (url: string, init: RequestInit) => {
    sent.push({ method: init.method ?? "GET", path: decodeURIComponent(new URL(url, "http://collie.test").pathname), body: JSON.parse(String(init.body)) });
    const next = plan[Math.min(n++, plan.length - 1)];
    if (next === "network" || next === undefined) throw new TypeError("Failed to fetch");
    return new Response(JSON.stringify(next < 300 ? { ok: true } : { error: "agent-unreachable", message: "No answer." }), { status: next });
  }) as unknown as typeof fetch;
  const outbox = new Outbox(new Api("", fetchImpl), storage);
  return { sent, outbox, storage, actions: new PhoneActions(outbox) };
}

describe("phone.actions", () => {
  it("builds each action from the route table: its path, and its body with a new request id", async () => {
    const { sent, actions } = rig([200]);
    const a = actions.send({ agent: "desk", pane: "p 1" }, { text: "hello" });
    const b = actions.close({ agent: "desk" }, { target: { kind: "pane", id: "p 1" } });
    const c = actions.answer({ agent: "desk", pane: "p1", ask: "a/1" }, { revision: "0000000000000001", answer: { kind: "permission", optionId: "allow" } });
    const d = actions.starter({ agent: "desk", starter: "triage" });
    await Promise.all([a.result, b.result, c.result, d.result]);
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual([
      "POST /api/agents/desk/panes/p 1/send",
      "POST /api/agents/desk/close",
      "POST /api/agents/desk/panes/p1/asks/a/1/answer",
      "POST /api/agents/desk/starters/triage",
    ]);
    expect(sent[0]!.body).toEqual({ text: "hello", requestId: a.requestId });
    expect(sent[1]!.body).toEqual({ target: { kind: "pane", id: "p 1" }, requestId: b.requestId });
    expect(sent[3]!.body).toEqual({ requestId: d.requestId });
    expect(new Set([a, b, c, d].map((t) => t.requestId)).size).toBe(4);
  });

  it("knows a tap's request id before anything shows: the outbox holds it once it is saved", async () => {
    const { actions, storage } = rig(["network"]);
    const tap = actions.send({ agent: "desk", pane: "p1" }, { text: "hi" });
    expect(actions.pending("send", { agent: "desk", pane: "p1" })).toEqual([]);
    expect(await tap.result).toEqual({ kind: "no-reply" });
    expect(actions.pending("send", { agent: "desk", pane: "p1" }).map((p) => p.requestId)).toEqual([tap.requestId]);
    expect((await storage.all()).map((p) => p.requestId)).toEqual([tap.requestId]);
  });

  it("no reply: retry sends the same request id and body again, from exactly one outbox entry", async () => {
    const { sent, actions, storage } = rig(["network", "network", 200]);
    const tap = actions.steer({ agent: "desk", pane: "p1" }, { text: "shorter", turnId: "t-7" });
    expect(await tap.result).toEqual({ kind: "no-reply" });
    expect(await actions.retry(tap.requestId)).toEqual({ kind: "no-reply" });
    expect(await storage.all()).toHaveLength(1);
    expect(actions.isPending(tap.requestId)).toBe(true);
    const last = await actions.retry(tap.requestId);
    expect(last.kind === "reply" && last.reply.status).toBe(200);
    expect(sent).toHaveLength(3);
    expect(sent.every((s) => JSON.stringify(s.body) === JSON.stringify(sent[0]!.body))).toBe(true);
    expect(sent.every((s) => s.body.requestId === tap.requestId)).toBe(true);
    expect(await storage.all()).toEqual([]);
  });

  it("a 5xx: the outbox keeps it, unsure (a reload still shows it), never resends it by itself; retry sends it unchanged", async () => {
    const { sent, actions, storage, outbox } = rig([503, "network", 200]);
    const tap = actions.answer({ agent: "desk", pane: "p1", ask: "a1" }, { revision: "0000000000000001", answer: { kind: "text", text: "yes" } });
    const first = await tap.result;
    expect(unsure(first)).toBe(true);
    expect(actions.isPending(tap.requestId)).toBe(true);
    expect(actions.unsure(tap.requestId)).toBe(true);
    expect((await storage.all()).map((p) => [p.requestId, p.unsure])).toEqual([[tap.requestId, true]]);
    await outbox.flush();
    expect(sent).toHaveLength(1);
    expect(await actions.retry(tap.requestId)).toEqual({ kind: "no-reply" });
    expect((await storage.all()).map((p) => p.requestId)).toEqual([tap.requestId]);
    expect(actions.pending("answer", { agent: "desk", pane: "p1", ask: "a1" })).toHaveLength(1);
    await actions.retry(tap.requestId);
    expect(sent.map((s) => s.body)).toEqual([sent[0]!.body, sent[0]!.body, sent[0]!.body]);
    expect(await storage.all()).toEqual([]);
  });

  it("two retries at once are one send", async () => {
    const { sent, actions } = rig(["network", 200]);
    const tap = actions.stop({ agent: "desk", pane: "p1" }, { turnId: null });
    await tap.result;
    await Promise.all([actions.retry(tap.requestId), actions.retry(tap.requestId)]);
    expect(sent).toHaveLength(2);
  });

  it("an id this page never saw gets no reply and sends nothing", async () => {
    const { sent, actions } = rig([200]);
    expect(await actions.retry("never-seen")).toEqual({ kind: "no-reply" });
    expect(sent).toEqual([]);
  });

  it("after a reload, what an earlier page left is found by route and sent again unchanged", async () => {
    const storage = memoryOutboxStorage();
    const before = rig(["network"], storage);
    const tap = before.actions.answer({ agent: "desk", pane: "p1", ask: "a1" }, { revision: "0000000000000002", answer: { kind: "permission", optionId: "deny" } });
    await tap.result;
    const after = rig([503, 200], storage);
    await after.outbox.load();
    expect(after.actions.pending("answer", { agent: "desk", pane: "p1", ask: "a1" }).map((p) => p.requestId)).toEqual([tap.requestId]);
    expect(after.actions.pending("answer", { agent: "desk", pane: "p1", ask: "a2" })).toEqual([]);
    await after.actions.retry(tap.requestId); // a 5xx: let go…
    await after.actions.retry(tap.requestId); // …and sent again from what was loaded
    expect(after.sent.map((s) => s.body)).toEqual([before.sent[0]!.body, before.sent[0]!.body]);
  });
});

describe("RepeatUntilSure", () => {
  it("repeats an unsure tap with its request id; once the outcome is known the next tap is new", async () => {
    const { sent, actions } = rig(["network", 503, 200, 200]);
    const repeat = new RepeatUntilSure(actions);
    let started = 0;
    const start = () => {
      started++;
      return actions.reopen({ agent: "desk" }, { target: { kind: "pane", id: "old-1" } });
    };
    expect((await repeat.tap(start)).kind).toBe("no-reply");
    const second = await repeat.tap(start);
    expect(second.kind === "reply" && second.reply.status).toBe(503);
    const third = await repeat.tap(start);
    expect(third.kind === "reply" && third.reply.status).toBe(200);
    expect(started).toBe(1);
    expect(new Set(sent.map((s) => s.body.requestId)).size).toBe(1);
    await repeat.tap(start);
    expect(started).toBe(2);
    expect(sent[3]!.body.requestId).not.toBe(sent[0]!.body.requestId);
  });

  it("a refusal (4xx) is an outcome: the next tap is a new request", async () => {
    const { sent, actions } = rig([409, 200]);
    const repeat = new RepeatUntilSure(actions);
    const start = () => actions.close({ agent: "desk" }, { target: { kind: "pane", id: "p1" } });
    await repeat.tap(start);
    await repeat.tap(start);
    expect(sent[0]!.body.requestId).not.toBe(sent[1]!.body.requestId);
  });
});

describe("RepeatUntilSure: a tap of something else", () => {
  it("a new title after an unsure rename is a new request with the new title, and the old one is let go", async () => {
    const { sent, actions } = rig(["network", 200]);
    const repeat = new RepeatUntilSure(actions);
    const rename = (title: string) => () => actions.rename({ agent: "desk" }, { target: { kind: "pane", id: "p1" }, title });
    expect((await repeat.tap(JSON.stringify({ title: "Old" }), rename("Old"))).kind).toBe("no-reply");
    const second = await repeat.tap(JSON.stringify({ title: "New" }), rename("New"));
    expect(second.kind === "reply" && second.reply.status).toBe(200);
    expect(sent.map((s) => s.body.title)).toEqual(["Old", "New"]);
    expect(sent[1]!.body.requestId).not.toBe(sent[0]!.body.requestId);
    expect(actions.isPending(sent[0]!.body.requestId as string)).toBe(false); // no later resend of the old title
  });

  it("the same key after an unsure tap sends the same request again", async () => {
    const { sent, actions } = rig(["network", 200]);
    const repeat = new RepeatUntilSure(actions);
    const rename = () => actions.rename({ agent: "desk" }, { target: { kind: "pane", id: "p1" }, title: "Same" });
    await repeat.tap("k", rename);
    await repeat.tap("k", rename);
    expect(sent.map((s) => s.body.requestId)).toEqual([sent[0]!.body.requestId, sent[0]!.body.requestId]);
  });

  it("once the outbox's own resend settled the kept tap, the next tap is new", async () => {
    const { sent, actions, outbox } = rig(["network", 200, 200]);
    const repeat = new RepeatUntilSure(actions);
    let started = 0;
    const start = () => {
      started++;
      return actions.close({ agent: "desk" }, { target: { kind: "pane", id: "p1" } });
    };
    await repeat.tap(start);
    await outbox.flush(); // the reconnect sent it again: 200
    await repeat.tap(start);
    expect(started).toBe(2);
    expect(sent).toHaveLength(3);
    expect(sent[2]!.body.requestId).not.toBe(sent[0]!.body.requestId);
  });
});

describe("RepeatUntilSure after the outbox let the request go", () => {
  it("an unsure tap with 200 later actions after it is sent again as it was, same id", async () => {
    const { sent, actions } = rig([503, 200]);
    const repeat = new RepeatUntilSure(actions);
    let started = 0;
    const start = () => {
      started++;
      return actions.reopen({ agent: "desk" }, { target: { kind: "pane", id: "old-1" } });
    };
    const first = await repeat.tap(start);
    expect(unsure(first)).toBe(true);
    const id = sent[0]!.body.requestId as string;
    await Promise.all(Array.from({ length: 201 }, (_, n) => actions.stop({ agent: "desk", pane: `p${n}` }, { turnId: null }).result));
    expect(actions.unsure(id)).toBe(true); // an unsure tap stays in the outbox, however many came after
    const again = await repeat.tap(start);
    expect(again.kind === "reply" && again.reply.status).toBe(200);
    expect(started).toBe(1);
    const last = sent[sent.length - 1]!;
    expect(last.path).toBe("/api/agents/desk/reopen");
    expect(last.body).toEqual(sent[0]!.body);
  });

  it("retry with the kept request of another id sends nothing", async () => {
    const { sent, actions } = rig([200]);
    const tap = actions.close({ agent: "desk" }, { target: { kind: "pane", id: "p1" } });
    await tap.result;
    sent.length = 0;
    expect(await actions.retry("other-id", tap.request)).toEqual({ kind: "no-reply" });
    expect(sent).toEqual([]);
  });
});
