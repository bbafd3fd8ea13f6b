/** The agent's home as pure functions (P-5…P-8, P-17). */
import { describe, expect, test } from "vitest";
import { STRINGS } from "@colliepwa/shared";
import {
  appendRows, closedRows, closedTitle, historyNote, historyOutcome, openedPane, openSetKey, refreshLimit, refusalReason, rememberClosedTitles, rowMark, versionWarning,
} from "../../src/features/home/home.ts";
import { agentSummary, conversation, historyRow } from "./fixtures.tsx";

const wire = { agent: 2, collie: 1 };

describe("home rules", () => {
  test("rowMark: waiting whenever an ask is open, else working or idle", () => {
    expect(rowMark(conversation({ state: "idle", openAsks: 1 }))).toBe("waiting");
    expect(rowMark(conversation({ state: "waiting" }))).toBe("waiting");
    expect(rowMark(conversation({ state: "working" }))).toBe("working");
    expect(rowMark(conversation({ state: "idle" }))).toBe("idle");
  });

  test("openSetKey changes only with the set of ids", () => {
    const a = conversation({ id: "a" }), b = conversation({ id: "b" });
    expect(openSetKey([a, b])).toBe(openSetKey([b, { ...a, title: "renamed", state: "working" }]));
    expect(openSetKey([a])).not.toBe(openSetKey([a, b]));
  });

  test("closedRows: closed rows in the agent's order, without any open in the store", () => {
    const rows = [historyRow({ id: "o", state: "open" }), historyRow({ id: "c2" }), historyRow({ id: "c1" }), historyRow({ id: "s" })];
    expect(closedRows(rows, [conversation({ id: "pane-x", sessionId: "s" })]).map((r) => r.id)).toEqual(["c2", "c1"]);
  });

  test("appendRows keeps one row per id", () => {
    expect(appendRows([historyRow({ id: "a" })], [historyRow({ id: "a" }), historyRow({ id: "b" }), historyRow({ id: "b" })]).map((r) => r.id)).toEqual(["a", "b"]);
  });

  test("refreshLimit: a page per page drawn, 100 to 500", () => {
    expect(refreshLimit(0)).toBe(100);
    expect(refreshLimit(1)).toBe(100);
    expect(refreshLimit(3)).toBe(300);
    expect(refreshLimit(9)).toBe(500);
  });

  test("historyOutcome: only a 200 with rows is a page", () => {
    expect(historyOutcome(200, { rows: [] }).kind).toBe("page");
    expect(historyOutcome(200, { rows: [], next: 5 }).kind).toBe("error");
    expect(historyOutcome(200, null).kind).toBe("error");
    expect(historyOutcome(409, { error: "not-supported" }).kind).toBe("error");
  });

  test("historyNote: the four notes, verbatim", () => {
    const err = (status: number, body: unknown = {}) => ({ kind: "error" as const, status, body });
    expect(historyNote(err(409, { error: "not-supported" }), wire)).toBe("This durable agent keeps no list of its conversations.");
    expect(historyNote(err(504, { error: "agent-unreachable" }), wire)).toBe("The durable agent did not answer. Try again in a moment.");
    expect(historyNote(err(503), wire)).toBe(STRINGS.historyNoAnswer);
    expect(historyNote({ kind: "network" }, wire)).toBe(STRINGS.historyNoAnswer);
    expect(historyNote(err(409, { error: "agent-version-mismatch" }), wire)).toBe("The durable agent speaks wire v2, this Collie speaks v1. Update Collie, or the agent's SDK.");
    expect(historyNote(err(404, { error: "version-mismatch", speaks: [1, 4] }), { agent: null, collie: 1 })).toBe(STRINGS.historyVersion(4, 1));
    expect(historyNote(err(409, { error: "agent-version-mismatch" }), { agent: null, collie: 1 })).toBe(STRINGS.historyFailed);
    expect(historyNote(err(409, { error: "refused" }), wire)).toBe("The conversations could not be loaded. Try again.");
    expect(historyNote(err(500, "garbage"), wire)).toBe(STRINGS.historyFailed);
    expect(historyNote(err(404, { error: "unknown-agent" }), wire)).toBe(STRINGS.historyFailed);
  });

  test("versionWarning only for a version-mismatched agent", () => {
    expect(versionWarning(agentSummary({ state: "version-mismatch", wire: { agent: 2, collie: 1 } }))).toBe(
      "Program speaks wire v2, this Collie speaks v1. Update Collie, or the durable agent's SDK.",
    );
    expect(versionWarning(agentSummary({ state: "version-mismatch", wire: { agent: null, collie: 1 } }))).toBe(STRINGS.versionMismatch);
    expect(versionWarning(agentSummary())).toBeNull();
    expect(versionWarning(undefined)).toBeNull();
  });

  test("a crew member whose Collie is older says so, unless its agent's own wire is the mismatch (C-1)", () => {
    expect(versionWarning(agentSummary({ machine: "workshop", state: "version-mismatch", wire: { agent: 1, collie: 1 } }))).toBe(STRINGS.olderCollie);
    expect(versionWarning(agentSummary({ machine: "workshop", state: "version-mismatch", wire: { agent: null, collie: 0 } }))).toBe(STRINGS.olderCollie);
    expect(versionWarning(agentSummary({ machine: "workshop", state: "version-mismatch", wire: { agent: 2, collie: 1 } }))).toMatch(/wire v2/);
  });

  test("openedPane and refusalReason read action replies", () => {
    expect(openedPane(200, { ok: true, paneId: "p9" })).toBe("p9");
    expect(openedPane(200, { ok: true })).toBeNull();
    expect(openedPane(409, { paneId: "p9" })).toBeNull();
    expect(refusalReason({ reason: " busy ", message: "m" })).toBe("busy");
    expect(refusalReason({ message: "m" })).toBe("m");
    expect(refusalReason(null)).toBeNull();
  });

  test("closedTitle: the title the home drew for a closed row, per agent; untitled rows read Untitled conversation; the oldest go past 500", () => {
    rememberClosedTitles("desk", [historyRow({ id: "old-1", title: "Maria Lopez" }), historyRow({ id: "old-2", title: "  " })]);
    expect(closedTitle("desk", "old-1")).toBe("Maria Lopez");
    expect(closedTitle("desk", "old-2")).toBe(STRINGS.untitledConversation);
    expect(closedTitle("billing", "old-1")).toBeUndefined();
    rememberClosedTitles("desk", Array.from({ length: 500 }, (_, n) => historyRow({ id: `bulk-${n}` })));
    expect(closedTitle("desk", "old-1")).toBeUndefined();
    expect(closedTitle("desk", "bulk-0")).toBe("History bulk-0");
    expect(closedTitle("desk", "bulk-499")).toBe("History bulk-499");
  });
});
