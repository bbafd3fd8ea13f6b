/**
 * Your own lines (P-20) as a pure function with an injected clock: states from the outbox's
 * results, replacement by the agent's copy (request id, or identical text within 30 s), hiding
 * after 10 minutes, the three dots, and the composer's `Sent`.
 */
import { describe, expect, test } from "vitest";
import type { Item } from "@colliepwa/durable-sdk/wire";
import type { SendResult } from "../../src/app/outbox.ts";
import {
  OWN_LINE_HIDE_MS, ownLines, SENT_NOTE_MS, stateOfResult, TEXT_MATCH_WINDOW_MS, type OwnSend,
} from "../../src/features/chat/own-lines.ts";

const T0 = Date.UTC(2026, 11, 2, 14, 0, 0);
const at = (ms: number) => new Date(T0 + ms).toISOString();
const reply = (status: number, body: Record<string, unknown> = {}): SendResult => ({ kind: "reply", reply: { status, body } });
const NO_REPLY: SendResult = { kind: "no-reply" };

const send = (over: Partial<OwnSend> = {}): OwnSend => ({ requestId: "r1", text: "Add a voucher", createdAt: T0, ...over });
const user = (over: Partial<Extract<Item, { kind: "user" }>> = {}): Item => ({ kind: "user", id: "u1", text: "Add a voucher", ts: at(1000), ...over });
const replyItem = (over: Partial<Extract<Item, { kind: "reply" }>> = {}): Item => ({ kind: "reply", id: "a1", text: "Sure", ts: at(2000), ...over });

describe("line states (P-20)", () => {
  test("sending, then sent: the clock; the composer says `Sent` once the agent took it (2xx)", () => {
    const sending = ownLines({ sends: [send()], items: [], now: T0 + 100 });
    expect(sending.lines.map((l) => l.state)).toEqual(["sending"]);
    expect(sending.composer).toBeNull();

    const sent = ownLines({ sends: [send({ result: reply(200, { ok: true }) })], items: [], now: T0 + 500 });
    expect(sent.lines.map((l) => l.state)).toEqual(["sent"]);
    expect(sent.composer).toBe("sent");
  });

  test("no reply, 503 or 504 from Collie: `Sending, not confirmed`", () => {
    expect(stateOfResult(NO_REPLY)).toBe("not-confirmed");
    expect(stateOfResult(reply(503, { error: "agent-unreachable" }))).toBe("not-confirmed");
    expect(stateOfResult(reply(504, { error: "agent-unreachable" }))).toBe("not-confirmed");
    const v = ownLines({ sends: [send({ result: NO_REPLY })], items: [], now: T0 + 1000 });
    expect(v.lines[0]!.state).toBe("not-confirmed");
    expect(v.composer).toBeNull();
  });

  test("held by Collie for an unreachable agent (202 held): its own state, no dots, no `Sent`, and never hidden", () => {
    const held = reply(202, { held: true });
    expect(stateOfResult(held)).toBe("held");
    const v = ownLines({ sends: [send({ result: held })], items: [], now: T0 + 1000 });
    expect(v.lines.map((l) => l.state)).toEqual(["held"]);
    expect(v.dots).toBe(false);
    expect(v.composer).toBeNull();
    const later = ownLines({ sends: [send({ result: held })], items: [], now: T0 + OWN_LINE_HIDE_MS * 3 });
    expect(later.lines.map((l) => l.state)).toEqual(["held"]);
    expect(later.expired.size).toBe(0);
    // Delivered later: the agent's copy replaces it like any other line.
    const echoed = ownLines({ sends: [send({ result: held })], items: [user({ requestId: "r1", ts: at(OWN_LINE_HIDE_MS * 2) })], now: T0 + OWN_LINE_HIDE_MS * 2 });
    expect(echoed.lines).toEqual([]);
  });

  test("`Sent` is a moment's note (issue 37): it goes once anything follows your line, and 10 s after sending at the latest", () => {
    const sent = send({ result: reply(200, { ok: true }) });
    const echo = user({ requestId: "r1" });
    expect(ownLines({ sends: [sent], items: [echo], now: T0 + 2000 }).composer).toBe("sent");
    // Anything after your line's copy: a reply, growing or final, a tool call, a note.
    expect(ownLines({ sends: [sent], items: [echo, replyItem({ partial: true, ts: undefined })], now: T0 + 2000 }).composer).toBeNull();
    expect(ownLines({ sends: [sent], items: [echo, replyItem()], now: T0 + 3000 }).composer).toBeNull();
    const tool: Item = { kind: "tool", id: "t1", name: "refund", status: "running" };
    expect(ownLines({ sends: [sent], items: [echo, tool], now: T0 + 3000 }).composer).toBeNull();
    // A reply before your line does not count.
    expect(ownLines({ sends: [sent], items: [replyItem({ id: "earlier" }), echo], now: T0 + 3000 }).composer).toBe("sent");
    // An agent that answers nothing: the note still goes.
    expect(ownLines({ sends: [sent], items: [echo], now: T0 + SENT_NOTE_MS - 1 }).composer).toBe("sent");
    expect(ownLines({ sends: [sent], items: [echo], now: T0 + SENT_NOTE_MS }).composer).toBeNull();
  });

  test("a retry on its way shows the clock again", () => {
    const v = ownLines({ sends: [send({ result: NO_REPLY, inFlight: true })], items: [], now: T0 + 1000 });
    expect(v.lines[0]!.state).toBe("sending");
  });

  test("refused, moved on or any other 4xx: `Not sent`", () => {
    expect(stateOfResult(reply(409, { error: "refused", reason: "busy" }))).toBe("not-sent");
    expect(stateOfResult(reply(409, { error: "moved-on" }))).toBe("not-sent");
    expect(stateOfResult(reply(409, { error: "not-supported" }))).toBe("not-sent");
    expect(stateOfResult(reply(400, { error: "bad-request" }))).toBe("not-sent");
    expect(stateOfResult(reply(404, { error: "not-found" }))).toBe("not-sent");
    const v = ownLines({ sends: [send({ result: reply(409, { error: "refused" }) })], items: [], now: T0 + 1000 });
    expect(v.lines[0]!.state).toBe("not-sent");
    expect(v.composer).toBeNull();
  });

  test("a `Not sent` line gives way to a newer send", () => {
    const v = ownLines({
      sends: [send({ result: reply(409, { error: "moved-on" }) }), send({ requestId: "r2", createdAt: T0 + 5000 })],
      items: [],
      now: T0 + 6000,
    });
    expect(v.lines.map((l) => l.requestId)).toEqual(["r2"]);
  });
});

describe("replacement by the agent's copy (P-20)", () => {
  test("a user item echoing our request id replaces the line, whatever its text or time", () => {
    const v = ownLines({
      sends: [send({ result: reply(200) })],
      items: [user({ text: "Add a voucher (cleaned)", requestId: "r1", ts: at(5 * 60_000) })],
      now: T0 + 5 * 60_000,
    });
    expect(v.lines).toEqual([]);
    expect(v.replaced.get("r1")).toBe("u1");
  });

  test("an agent that does not echo the id: identical text within 30 s replaces the line", () => {
    const v = ownLines({ sends: [send({ result: reply(200) })], items: [user({ ts: at(TEXT_MATCH_WINDOW_MS) })], now: T0 + 31_000 });
    expect(v.lines).toEqual([]);
  });

  test("identical text after 30 s does not", () => {
    const v = ownLines({ sends: [send({ result: reply(200) })], items: [user({ ts: at(TEXT_MATCH_WINDOW_MS + 1000) })], now: T0 + 32_000 });
    expect(v.lines.map((l) => l.requestId)).toEqual(["r1"]);
  });

  test("identical text from well before the send does not (an earlier message)", () => {
    const v = ownLines({ sends: [send({ result: reply(200) })], items: [user({ ts: at(-60_000) })], now: T0 + 1000 });
    expect(v.lines).toHaveLength(1);
  });

  test("other text, or a user item naming another request id, does not", () => {
    const v = ownLines({
      sends: [send({ result: reply(200) })],
      items: [user({ id: "u1", text: "Something else" }), user({ id: "u2", requestId: "someone-else" })],
      now: T0 + 3000,
    });
    expect(v.lines).toHaveLength(1);
  });

  test("one agent copy replaces one line: the same text sent twice needs two copies", () => {
    const sends = [send({ result: reply(200) }), send({ requestId: "r2", createdAt: T0 + 2000, result: reply(200) })];
    const one = ownLines({ sends, items: [user({ ts: at(3000) })], now: T0 + 4000 });
    expect(one.lines.map((l) => l.requestId)).toEqual(["r2"]);
    const two = ownLines({ sends, items: [user({ ts: at(3000) }), user({ id: "u2", ts: at(4000) })], now: T0 + 5000 });
    expect(two.lines).toEqual([]);
  });

  test("an item without a time is matched by when the phone first saw it", () => {
    const item = user({ ts: undefined });
    const soon = ownLines({ sends: [send({ result: reply(200) })], items: [item], now: T0 + 5000, seenAt: new Map([["u1", T0 + 4000]]) });
    expect(soon.lines).toEqual([]);
    const late = ownLines({ sends: [send({ result: reply(200) })], items: [item], now: T0 + 50_000, seenAt: new Map([["u1", T0 + 45_000]]) });
    expect(late.lines).toHaveLength(1);
  });
});

describe("hidden after 10 minutes (P-20)", () => {
  test("a line the agent never writes back shows for 10 minutes, then is hidden", () => {
    const sends = [send({ result: reply(200) })];
    expect(ownLines({ sends, items: [], now: T0 + OWN_LINE_HIDE_MS - 1 }).lines).toHaveLength(1);
    const later = ownLines({ sends, items: [], now: T0 + OWN_LINE_HIDE_MS });
    expect(later.lines).toEqual([]);
    expect(later.expired.has("r1")).toBe(true);
    expect(later.dots).toBe(false);
  });
});

describe("three dots (P-20)", () => {
  test("while your line is the newest and on its way or taken", () => {
    expect(ownLines({ sends: [send()], items: [replyItem({ ts: at(-5000) })], now: T0 + 10 }).dots).toBe(true);
    expect(ownLines({ sends: [send({ result: reply(200) })], items: [], now: T0 + 10 }).dots).toBe(true);
  });

  test("not for a line that is not confirmed or not sent", () => {
    expect(ownLines({ sends: [send({ result: NO_REPLY })], items: [], now: T0 + 10 }).dots).toBe(false);
    expect(ownLines({ sends: [send({ result: reply(409, { error: "refused" }) })], items: [], now: T0 + 10 }).dots).toBe(false);
  });

  test("after the agent's copy: while it is the newest item; gone once the agent answers", () => {
    const echo = user({ requestId: "r1" });
    const sends = [send({ result: reply(200) })];
    expect(ownLines({ sends, items: [echo], now: T0 + 1500, paneState: "working" }).dots).toBe(true);
    expect(ownLines({ sends, items: [echo], now: T0 + 1500, paneState: "idle" }).dots).toBe(true);
    expect(ownLines({ sends, items: [echo, replyItem({ partial: true, ts: undefined })], now: T0 + 2500, paneState: "working" }).dots).toBe(false);
  });

  test("not while the conversation waits on you, nor for an old unanswered line in an idle conversation", () => {
    const echo = user({ requestId: "r1" });
    expect(ownLines({ sends: [], items: [echo], now: T0 + 2000, paneState: "waiting" }).dots).toBe(false);
    expect(ownLines({ sends: [], items: [echo], now: T0 + OWN_LINE_HIDE_MS + 5000, paneState: "idle" }).dots).toBe(false);
    expect(ownLines({ sends: [], items: [], now: T0, paneState: "working" }).dots).toBe(false);
  });
});
