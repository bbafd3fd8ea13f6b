/**
 * Text from an agent, as Collie reads it (the wire's checkers with `agentReads`, agents/gateway.ts;
 * the security issue's items 3 and 5): a secret straddling any cut is masked whole before the cut,
 * on every field Collie masks, so no part of it survives in clear; and history, a closed
 * conversation's items and starters are cleaned of control and bidi characters like every live read.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  LIMITS, parseAsk, parseHello, parseHistoryItemsPage, parseHistoryPage, parseMessage, parseStartersPage,
  type Ask, type Hello, type Parsed, type PaneSummary,
} from "@colliepwa/durable-sdk/wire";
import { agentReads } from "../../src/agents/gateway.ts";
import { mask } from "../../src/push/mask.ts";

const GHP = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
const AWS = "AKIAIOSFODNN7EXAMPLE";
const BAD_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

/** True when any 6 characters of the secret past its kept prefix show in clear. */
function leaks(text: string, secret: string, kept: number): boolean {
  const hidden = secret.slice(kept);
  for (let i = 0; i + 6 <= hidden.length; i++) if (text.includes(hidden.slice(i, i + 6))) return true;
  return false;
}

const value = <T>(r: Parsed<T>): T => {
  if (!r.ok) assert.fail(r.error);
  return r.value;
};
const ASK = {
  id: "894b66639256daba7959cab175d2bb9e", revision: "9f86d081884c7d65", paneId: "p", toolCallId: "c", itemId: "i",
  createdAt: "2026-12-02T14:00:00.000Z", kind: "text", title: "x", limit: 50,
};
const SUMMARY = {
  id: "p", tabId: "w:t", title: "x", harness: "bot", sessionId: null, state: "idle", actions: [], openAsks: 0, turnId: null,
  activeAt: "2026-12-02T14:00:00.000Z",
};
const HELLO = {
  wire: [1], sdk: { name: "s", version: "1" }, runtime: "node", name: null, descendantCheck: false, allowAlways: true, instance: "i",
  caps: { asks: true, send: true, steer: true, stop: true, actions: true, rename: true, close: true, reopen: true, starters: true, history: true, terminal: false },
  limits: { tailLimit: 500, viewItems: 2000 },
};
const ROW = { id: "s1", title: "x", startedAt: "2026-12-02T14:00:00.000Z", state: "closed", items: 1 };
const masked = agentReads(mask);
const summary = (s: object, reads = masked) => value(parseMessage("PaneSummary", { ...SUMMARY, ...s }, reads)) as PaneSummary;
const ask = (a: object, reads = masked): Ask => value(parseAsk({ ...ASK, ...a }, reads));
const hello = (h: object): Hello => value(parseHello({ ...HELLO, ...h }, masked));
const row = (r: object, reads = masked) => value(parseHistoryPage({ rows: [{ ...ROW, ...r }] }, reads)).rows[0]!;

/** Texts whose cut, at `limit` (bytes or characters, ASCII filler), falls at every point inside the secret. */
function straddling(limit: number, secret: string): string[] {
  return Array.from({ length: secret.length - 1 }, (_, k) => `${"t".repeat(limit - 2 - k)} ${secret} and more after it`);
}

describe("a secret straddling a cut is masked whole, then cut (R-1)", () => {
  const fields: { name: string; limit: number; run: (text: string) => string }[] = [
    { name: "conversation title", limit: LIMITS.titleBytes, run: (t) => summary({ title: t }).title },
    { name: "subtitle", limit: LIMITS.subtitleBytes, run: (t) => summary({ subtitle: t }).subtitle! },
    { name: "progress label", limit: LIMITS.titleBytes, run: (t) => summary({ progress: { kind: "steps", current: 1, total: 2, label: t } }).progress!.label },
    { name: "ask title (the pending question)", limit: LIMITS.askTitleBytes, run: (t) => ask({ title: t }).title },
    { name: "push title", limit: LIMITS.pushTitleChars, run: (t) => ask({ push: { title: t } }).push!.title! },
    { name: "push line", limit: LIMITS.pushLineChars, run: (t) => ask({ push: { line: t } }).push!.line! },
    { name: "the agent's self-name", limit: LIMITS.titleBytes, run: (t) => hello({ name: t }).name! },
    { name: "history row title", limit: LIMITS.titleBytes, run: (t) => row({ title: t }).title },
    { name: "history row subtitle", limit: LIMITS.subtitleBytes, run: (t) => row({ subtitle: t }).subtitle! },
  ];
  for (const f of fields) {
    test(`${f.name}: a GitHub token or an AWS key cut at any point shows none of its secret part`, () => {
      for (const [secret, kept] of [[GHP, 5], [AWS, 5]] as const) {
        for (const text of straddling(f.limit, secret)) {
          const out = f.run(text);
          assert.ok(!leaks(out, secret, kept), `${f.name}: ${JSON.stringify(out.slice(-40))}`);
          assert.ok(out.length < text.length, "it was cut");
        }
      }
    });
  }

  test("without masking (COLLIE_REDACT=off) the cut is the plain cut", () => {
    const a = ask({ push: { title: `${"t".repeat(49)} ${GHP}` } }, agentReads());
    assert.equal(a.push!.title, `${"t".repeat(49)} ${GHP}`.slice(0, LIMITS.pushTitleChars), "the head of the token, in clear");
  });

  test("a text under its limit is left for the presentation to mask (not masked twice, not changed here)", () => {
    const s = summary({ title: `Deploy ${GHP}` });
    assert.equal(s.title, `Deploy ${GHP}`);
  });
});

describe("history, closed conversations and starters are cleaned like live reads (L-2)", () => {
  const HOSTILE = "gnp\u202E.exe \u0007bell \u001b[31mred\u200B";
  test("history rows", () => {
    const page = value(parseHistoryPage({ rows: [{ id: "s1", title: HOSTILE, subtitle: HOSTILE, startedAt: "2026-12-02T14:00:00.000Z", state: "closed", items: 1 }] }, agentReads()));
    assert.doesNotMatch(page.rows[0]!.title, BAD_CHARS);
    assert.doesNotMatch(page.rows[0]!.subtitle!, BAD_CHARS);
  });
  test("a closed conversation's items, marked shortened when cut", () => {
    const page = value(parseHistoryItemsPage({ items: [{ id: "i1", kind: "reply", text: HOSTILE }, { id: "i2", kind: "user", text: "x".repeat(LIMITS.userTextBytes + 10) }] }, agentReads()));
    assert.doesNotMatch((page.items[0] as { text: string }).text, BAD_CHARS);
    assert.equal((page.items[1] as { textShortened?: boolean }).textShortened, true);
  });
  test("starters", () => {
    const page = value(parseStartersPage({ starters: [{ id: "s", title: HOSTILE, subtitle: HOSTILE }] }, agentReads()));
    assert.doesNotMatch(page.starters[0]!.title, BAD_CHARS);
    assert.doesNotMatch(page.starters[0]!.subtitle!, BAD_CHARS);
  });
});
