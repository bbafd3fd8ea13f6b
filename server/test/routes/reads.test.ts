/**
 * Reads through to the agent (P-7) are cleaned like the live path (the security issue, items 3 and
 * 5): history rows, a closed conversation's items and starters reach the phone without control or
 * bidi characters, an over-long history title is cut as it would be live (never a 502), and a
 * secret straddling that cut is masked whole.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { LIMITS } from "@colliepwa/durable-sdk/wire";
import { closeAllDaemons, TestDaemon } from "../helpers/daemon.ts";
import { FakeAgent, fakeHello, fakeSummary, resetPage } from "../helpers/fake-agent.ts";
import type { Snapshot } from "@colliepwa/shared";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

const HOSTILE = "gnp\u202E.exe \u0007bell \u001b[31mred";
const BAD_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;
const GHP = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
/** A title over its limit (300 bytes of three-byte characters): the same pane, live and in history. */
const LONG_TITLE = `退款 ${"订单".repeat(50)}`;

let d: TestDaemon;
let fake: FakeAgent;

before(async () => {
  const dir = tempDir();
  fake = new FakeAgent({ hello: fakeHello({ name: `ops bot ${GHP}` }) });
  fake.initial = () => {
    const page = resetPage(["f1"]) as { layout: { panes: Record<string, unknown>[] }; views: { pane: Record<string, unknown> }[] };
    const pane = { ...fakeSummary("f1"), title: LONG_TITLE, progress: { kind: "steps", current: 1, total: 3, label: `pushing with ${GHP}` } };
    page.layout.panes = [pane];
    page.views[0]!.pane = pane;
    return page;
  };
  fake.read = (path) => {
    if (path.startsWith("/durable/v1/history/s1/items")) {
      return { status: 200, body: { items: [{ id: "i1", kind: "reply", text: HOSTILE, at: "2026-12-02T14:00:00.000Z" }] } };
    }
    if (path.startsWith("/durable/v1/history")) {
      const long = `${"t".repeat(LIMITS.titleBytes - 12)} ${GHP}`;
      return { status: 200, body: { rows: [{ id: "s1", title: HOSTILE, subtitle: long, startedAt: "2026-12-02T14:00:00.000Z", state: "closed", items: 1 }, { id: "s2", title: long, startedAt: "2026-12-02T14:00:00.000Z", state: "closed", items: 0 }, { id: "f1", title: LONG_TITLE, startedAt: "2026-12-02T14:00:00.000Z", state: "open", items: 3 }] } };
    }
    if (path.startsWith("/durable/v1/starters")) return { status: 200, body: { starters: [{ id: "go", title: HOSTILE, subtitle: HOSTILE }] } };
    return undefined;
  };
  await fake.listen({ socket: join(dir, "fake.sock") });
  d = await TestDaemon.inject({ sources: { fixed: [{ name: "f", endpoint: { kind: "socket", path: join(dir, "fake.sock") }, key: "f" }] } });
  await d.waitState("f", "ready");
});

after(async () => {
  await closeAllDaemons();
  await fake.close();
  removeTempDirs();
});

test("history rows are cleaned, cut like live text, and a secret across the cut is masked", async () => {
  const r = await d.get<{ rows: { title: string; subtitle?: string }[] }>("/api/agents/f/history");
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const [s1, s2] = r.body.rows;
  assert.doesNotMatch(s1!.title, BAD_CHARS);
  assert.ok(Buffer.byteLength(s2!.title) <= LIMITS.titleBytes);
  for (const text of [s1!.subtitle!, s2!.title]) {
    assert.ok(text.includes("ghp_A"), text.slice(-30));
    assert.ok(!text.includes("1b2C3d"), `masked: ${text.slice(-30)}`);
  }
});

test("a closed conversation's items and the starters carry no control or bidi characters", async () => {
  const items = await d.get<{ items: { text: string }[] }>("/api/agents/f/history/s1/items");
  assert.equal(items.status, 200);
  assert.doesNotMatch(items.body.items[0]!.text, BAD_CHARS);
  const starters = await d.get<{ starters: { title: string; subtitle: string }[] }>("/api/agents/f/starters");
  assert.equal(starters.status, 200);
  assert.doesNotMatch(starters.body.starters[0]!.title + starters.body.starters[0]!.subtitle, BAD_CHARS);
});

test("the agent's self-name and a progress label are masked where the phone shows them (R-1)", async () => {
  const snap = await d.snapshot();
  const json = JSON.stringify(snap satisfies Snapshot);
  assert.ok(!json.includes("1b2C3d"), json);
  assert.match(snap.agents.find((a) => a.name === "f")!.selfName ?? "", /^ops bot ghp_A•+$/);
  assert.match(snap.conversations.find((c) => c.id === "f1")!.progress?.label ?? "", /^pushing with ghp_A•+$/);
});

test("an over-long title reads the same, cut on a character boundary, live and from history (one rule, L-2)", async () => {
  const live = (await d.snapshot()).conversations.find((c) => c.id === "f1")!.title;
  const history = (await d.get<{ rows: { id: string; title: string }[] }>("/api/agents/f/history")).body.rows.find((r) => r.id === "f1")!.title;
  assert.equal(history, live);
  assert.ok(Buffer.byteLength(live) <= LIMITS.titleBytes && Buffer.byteLength(live) > LIMITS.titleBytes - 3, `${Buffer.byteLength(live)} bytes`);
  assert.ok(LONG_TITLE.startsWith(live) && live.isWellFormed());
});
