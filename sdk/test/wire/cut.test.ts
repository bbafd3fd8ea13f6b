/**
 * The checkers' cutting mode (`{cut: true}`, check.ts `ReadOptions`): how Collie reads an agent
 * (L-2). Text over its limit is cut at the limit, on a character boundary, after control and
 * invisible characters are removed; an item or ask whose text changed is marked `textShortened`
 * (P-12); a masked text over its limit is masked whole before the cut (R-1). The SDK's own reads
 * stay strict.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  LIMITS, parseAsk, parseEventsPage, parseHello, parseHistoryItemsPage, parseHistoryPage, parseItem, parseMessage,
  parseStartersPage, parseWith, sendBodyChecker, utf8Bytes,
} from "../../src/wire/index.ts";

const CUT = { cut: true } as const;
const ASK = {
  id: "894b66639256daba7959cab175d2bb9e", revision: "9f86d081884c7d65", paneId: "p", toolCallId: "c", itemId: "i",
  createdAt: "2026-12-02T14:00:00.000Z", kind: "text", title: "What is the order number?", limit: 50,
};
const SUMMARY = {
  id: "p", tabId: "w:t", title: "Refund", harness: "bot", sessionId: null, state: "idle", actions: [], openAsks: 0, turnId: null,
  activeAt: "2026-12-02T14:00:00.000Z",
};
const value = <T>(r: { ok: true; value: T } | { ok: false; error: string }): T => {
  if (!r.ok) assert.fail(r.error);
  return r.value;
};

describe("a strict read refuses what a cutting read cuts", () => {
  test("an item text over its limit", () => {
    const item = { kind: "user", id: "u", text: "ж".repeat(LIMITS.userTextBytes) }; // 2 bytes each: twice the limit
    const strict = parseItem(item);
    assert.ok(!strict.ok);
    assert.match(strict.error, /^text: must be at most 16384 bytes$/);
    const cut = value(parseItem(item, CUT)) as { text: string; textShortened?: boolean };
    assert.equal(utf8Bytes(cut.text), LIMITS.userTextBytes);
    assert.equal(cut.text, "ж".repeat(LIMITS.userTextBytes / 2));
    assert.equal(cut.textShortened, true);
  });

  test("a cut never splits a character (4-byte emoji at a 256-byte limit)", () => {
    const ask = value(parseAsk({ ...ASK, title: `ab${"😀".repeat(100)}` }, CUT));
    assert.ok(ask.title.isWellFormed());
    assert.equal(utf8Bytes(ask.title), 254); // 2 + 63 × 4: the 64th emoji would end at byte 258
    assert.equal(ask.textShortened, true);
  });

  test("limits in characters are cut in code points (badge, action label)", () => {
    const summary = value(parseMessage("PaneSummary", { ...SUMMARY, badge: "🎫".repeat(20), actions: [{ id: "a", label: "Escalate to a lead" }] }, CUT)) as { badge: string; actions: { label: string }[] };
    assert.equal(summary.badge, "🎫".repeat(LIMITS.badgeChars));
    assert.equal(summary.actions[0]!.label, "Escalate to a le");
  });

  test("the SDK's own reads, and a write body, stay strict", () => {
    assert.ok(!parseWith(sendBodyChecker, { requestId: "r", text: "x".repeat(LIMITS.userTextBytes + 1) }).ok);
    assert.ok(!parseWith(sendBodyChecker, { requestId: "r", text: "x".repeat(LIMITS.userTextBytes + 1) }, CUT).ok, "a body is no agent text: never cut");
    assert.ok(!parseItem({ kind: "user", id: "u", text: "x".repeat(LIMITS.userTextBytes + 1) }).ok, "strict after a cutting read");
  });
});

describe("what a cutting read cleans", () => {
  const HOSTILE = "gnp\u202E.exe \u0007bell \u001b[31mred\u200B";
  test("control, bidi and zero-width characters go from every text; titles are folded to one line", () => {
    const page = value(parseStartersPage({ starters: [{ id: "s", title: `${HOSTILE}\nsecond line`, subtitle: HOSTILE }] }, CUT));
    assert.equal(page.starters[0]!.title, "gnp.exe bell [31mred second line");
    assert.equal(page.starters[0]!.subtitle, "gnp.exe bell [31mred");
  });
  test("a multi-line text keeps its lines; a cleaned item is marked", () => {
    const item = value(parseItem({ kind: "reply", id: "r", text: `one\ntwo\u0007` }, CUT)) as { text: string; textShortened?: boolean };
    assert.equal(item.text, "one\ntwo");
    assert.equal(item.textShortened, true);
  });
  test("a clean text within its limit is untouched and not marked", () => {
    const item = value(parseItem({ kind: "reply", id: "r", text: "one\ntwo" }, CUT)) as { textShortened?: boolean };
    assert.equal(item.textShortened, undefined);
    const kept = value(parseItem({ kind: "reply", id: "r", text: "one", textShortened: true }, CUT)) as { textShortened?: boolean };
    assert.equal(kept.textShortened, true, "the SDK's own mark stays");
  });
  test("ids, URLs, cursors and counts stay errors", () => {
    assert.ok(!parseItem({ kind: "link", id: "l", href: "javascript:alert(1)" }, CUT).ok);
    assert.ok(!parseItem({ kind: "reply", id: "a b", text: "x" }, CUT).ok);
    assert.ok(!parseHistoryPage({ rows: [], next: "has space" }, CUT).ok);
    assert.ok(!parseMessage("PaneSummary", { ...SUMMARY, actions: Array.from({ length: 5 }, (_, i) => ({ id: `a${i}`, label: "x" })) }, CUT).ok);
  });
  test("a text cleaned to nothing where one is required is still refused", () => {
    const r = parseItem({ kind: "tool", id: "t", name: "\u200B\u0007", status: "done" }, CUT);
    assert.ok(!r.ok);
    assert.match(r.error, /^name: must have at least 1 character/);
  });
});

describe("marking (P-12)", () => {
  test("each item and ask is marked for its own text only", () => {
    const page = value(parseEventsPage({
      cursor: "c", reset: false, views: [], events: [
        { seq: 1, type: "item", pane: "p", item: { kind: "reply", id: "a", text: "fine" } },
        { seq: 2, type: "item", pane: "p", item: { kind: "tool", id: "b", name: "x", status: "done", output: "o".repeat(LIMITS.toolOutputBytes + 1) } },
        { seq: 3, type: "ask", pane: "p", ask: { ...ASK, reason: "r\u202E" } },
        { seq: 4, type: "ask", pane: "p", ask: ASK },
      ],
    }, CUT));
    const marks = page.events.map((e) => (e.type === "item" ? e.item.textShortened : e.type === "ask" ? e.ask.textShortened : null));
    assert.deepEqual(marks, [undefined, true, true, undefined]);
    assert.equal(page.events.length, 4);
  });
  test("a cut push title or line (the lock screen's words) does not mark the card", () => {
    const ask = value(parseAsk({ ...ASK, push: { title: "t".repeat(70), line: "l".repeat(130) } }, CUT));
    assert.equal(ask.push?.title, "t".repeat(LIMITS.pushTitleChars));
    assert.equal(ask.push?.line, "l".repeat(LIMITS.pushLineChars));
    assert.equal(ask.textShortened, undefined);
  });
  test("a conversation's title is cut without a mark (a summary has none); history and hello too", () => {
    const long = "T".repeat(LIMITS.titleBytes + 10);
    const row = value(parseHistoryPage({ rows: [{ id: "s", title: long, startedAt: "2026-12-02T14:00:00.000Z", state: "closed", items: 1 }] }, CUT)).rows[0]!;
    assert.equal(row.title, "T".repeat(LIMITS.titleBytes));
    const items = value(parseHistoryItemsPage({ items: [{ kind: "user", id: "u", text: "x".repeat(LIMITS.userTextBytes + 1) }] }, CUT));
    assert.equal(items.items[0]!.textShortened, true);
  });
});

describe("masking before a cut (R-1)", () => {
  const SECRET = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
  const mask = (text: string) => text.replaceAll(SECRET, "ghp_***");
  const straddling = `${"t".repeat(LIMITS.titleBytes - 10)} ${SECRET} more`;

  test("a masked field over its limit is masked whole, then cut", () => {
    const hello = value(parseHello({
      wire: [1], sdk: { name: "s", version: "1" }, runtime: "node", name: straddling,
      caps: { asks: true, send: true, steer: true, stop: true, actions: true, rename: true, close: true, reopen: true, starters: true, history: true, terminal: false },
      descendantCheck: false, allowAlways: true, instance: "i", limits: { tailLimit: 500, viewItems: 2000 },
    }, { cut: true, mask }));
    assert.equal(hello.name, `${"t".repeat(LIMITS.titleBytes - 10)} ghp_*** m`);
    assert.ok(!hello.name!.includes("ghp_A1"));
  });
  test("without a mask the cut is the plain cut; within its limit a masked field is left for the presentation", () => {
    const plain = value(parseAsk({ ...ASK, title: straddling }, CUT));
    assert.equal(plain.title, straddling.slice(0, LIMITS.askTitleBytes));
    const short = value(parseAsk({ ...ASK, title: `Deploy ${SECRET}` }, { cut: true, mask }));
    assert.equal(short.title, `Deploy ${SECRET}`);
  });
  test("a field that is not masked is cut plainly even with a mask (a workspace's title)", () => {
    const layout = value(parseMessage("Layout", { ready: true, workspaces: [{ id: "w", title: straddling }], tabs: [], panes: [] }, { cut: true, mask })) as { workspaces: { title: string }[] };
    assert.equal(layout.workspaces[0]!.title, straddling.slice(0, LIMITS.titleBytes));
  });
});

describe("a pane's cwd and a closed ask's title in a cutting read", () => {
  const SECRET = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
  const mask = (text: string) => text.replaceAll(SECRET, "ghp_***");
  const CWD_BYTES = 4096; // docs/wire.md §9: PaneSummary.cwd, an absolute path of at most 4096 bytes
  const summary = (cwd: unknown) => parseMessage("PaneSummary", { ...SUMMARY, cwd }, CUT) as { ok: true; value: { cwd?: string } } | { ok: false; error: string };

  test("a cwd over its limit is cut, not refused; strictly it is refused", () => {
    const long = `/${"d".repeat(CWD_BYTES + 50)}`;
    assert.equal(value(summary(long)).cwd, long.slice(0, CWD_BYTES));
    const strict = parseMessage("PaneSummary", { ...SUMMARY, cwd: long });
    assert.ok(!strict.ok);
    assert.equal(strict.error, `cwd: must be at most ${CWD_BYTES} bytes`);
  });
  test("a cwd is cleaned like a one-line text: control and invisible characters go, line breaks fold", () => {
    assert.equal(value(summary("/srv/\u202Edesk\u200B\nlogs")).cwd, "/srv/desk logs");
    assert.equal(value(summary("/srv/desk")).cwd, "/srv/desk");
  });
  test("the cleaned cwd must still start with /; strict reads are unchanged", () => {
    const relative = summary("srv/desk");
    assert.ok(!relative.ok);
    assert.equal(relative.error, "cwd: has the wrong format");
    const cleanedRelative = summary("\n\u200Bsrv");
    assert.ok(!cleanedRelative.ok);
    assert.equal(cleanedRelative.error, "cwd: has the wrong format");
    assert.equal(value(summary("\u200B/srv")).cwd, "/srv", "what is left after cleaning is checked");
    const strict = parseMessage("PaneSummary", { ...SUMMARY, cwd: "/srv/\u200Bdesk" });
    assert.ok(strict.ok, "a strict read takes the text as it is");
    assert.deepEqual(parseMessage("PaneSummary", { ...SUMMARY, cwd: "srv" }), { ok: false, error: "cwd: has the wrong format" });
    assert.deepEqual(parseMessage("PaneSummary", { ...SUMMARY, cwd: 7 }), { ok: false, error: "cwd: must be a string" });
  });
  test("an ask-closed title over its limit is masked whole before its cut, as the ask's own title", () => {
    const straddling = `${"t".repeat(LIMITS.askTitleBytes - 10)} ${SECRET} more`;
    const closed = {
      seq: 3, type: "ask-closed", pane: "p", askId: ASK.id, decidedBy: "timeout", title: straddling, decidedAt: "2026-12-02T14:05:00.000Z",
    };
    const page = value(parseEventsPage({ cursor: "c", reset: false, views: [], events: [closed] }, { cut: true, mask }));
    const event = page.events[0] as { type: string; title: string };
    assert.equal(event.type, "ask-closed");
    assert.equal(event.title, `${"t".repeat(LIMITS.askTitleBytes - 10)} ghp_*** m`);
    const ask = value(parseAsk({ ...ASK, title: straddling }, { cut: true, mask }));
    assert.equal(event.title, ask.title, "the same words as the ask's title read the same way");
    // Within its limit it is left for the presentation, as the ask's title is.
    const short = value(parseEventsPage({ cursor: "c", reset: false, views: [], events: [{ ...closed, title: `Deploy ${SECRET}` }] }, { cut: true, mask }));
    assert.equal((short.events[0] as { title: string }).title, `Deploy ${SECRET}`);
  });
});
