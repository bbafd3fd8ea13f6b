/**
 * The live hub's resume buffer (D-4, P-26) is bounded in bytes as well as in count, whoever sends
 * large messages (a crew member among them: the security issues), and it keeps only what a resume
 * replays: items and views go to watching phones and are read again, never replayed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Conversation, LiveMessage } from "@colliepwa/shared";
import { LiveHub, RESUME_BUFFER, RESUME_BUFFER_BYTES, type LiveClient } from "../../src/agents/live.ts";

const conversation = (id: string, title: string): Conversation => ({
  id, tabId: "w:t", title, harness: "h", sessionId: null, state: "idle", actions: [], openAsks: 0, turnId: null,
  activeAt: "2026-12-02T14:00:00.000Z", agent: "desk", workspaceTitle: "w",
});

test("large messages keep the resume buffer within its bytes; a phone resuming from before what was dropped gets a snapshot", () => {
  const hub = new LiveHub();
  const start = hub.seq;
  const big = "x".repeat(1024 * 1024);
  for (let i = 0; i < 100; i++) hub.publish({ type: "conversation", conversation: conversation(`c${i}`, big) });
  const { bytes, messages } = hub.buffered;
  assert.ok(bytes <= RESUME_BUFFER_BYTES, `${bytes} bytes buffered`);
  assert.ok(messages < 100 && messages > 0);
  assert.equal(hub.since(start), null, "the oldest are gone: a snapshot");
  const recent = hub.since(hub.seq - 1);
  assert.deepEqual(recent?.map((m) => m.seq), [hub.seq]);
});

test("the buffer keeps at most RESUME_BUFFER messages", () => {
  const hub = new LiveHub();
  for (let i = 0; i < RESUME_BUFFER + 10; i++) hub.publish({ type: "agent-removed", name: `a${i}` });
  assert.equal(hub.buffered.messages, RESUME_BUFFER);
  assert.equal(hub.since(hub.seq - RESUME_BUFFER - 1), null);
  assert.equal(hub.since(hub.seq - RESUME_BUFFER)?.length, RESUME_BUFFER);
});

test("items and views reach the phones that watch their chat but are not kept for a resume; a resume across them still works", () => {
  const hub = new LiveHub();
  const got: LiveMessage[] = [];
  const phone: LiveClient = { watching: new Set(["desk\nc0"]), deviceId: null, close: () => {}, send: (m) => void got.push(m) };
  hub.add(phone);
  const since = hub.seq;
  hub.publish({ type: "conversation", conversation: conversation("c0", "t") });
  for (let i = 0; i < 50; i++) hub.publish({ type: "item", agent: "desk", paneId: "c0", item: { kind: "reply", id: `r${i}`, text: "x".repeat(100_000) } });
  hub.publish({ type: "conversation-removed", agent: "desk", id: "c0" });
  assert.equal(got.length, 52, "the watching phone got every message");
  assert.equal(hub.buffered.messages, 2);
  assert.deepEqual(hub.since(since)?.map((m) => m.type), ["conversation", "conversation-removed"]);
});
