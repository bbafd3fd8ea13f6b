/**
 * Generators of durable-wire messages an agent sends (docs/wire.md), valid by construction, for the
 * daemon's fuzz suites to serve as they are, with hostile text, or mutated (L-2).
 */
import { hostileString, type Rng } from "../../../sdk/test/helpers/fuzz.ts";

export const hex = (rng: Rng, n: number): string => Array.from({ length: n }, () => "0123456789abcdef"[rng.int(16)]).join("");
const ISO = "2026-12-02T14:00:00.000Z";

/** Text for a field: plain, hostile (control, bidi, lone surrogates …) or over its limit. */
export function text(rng: Rng, hostile: boolean, maxLen = 100): string {
  if (!hostile || rng.chance(0.5)) return `text ${rng.int(1000)}`.slice(0, Math.max(1, maxLen));
  return rng.chance(0.85) ? hostileString(rng, 80_000) || "x" : "w".repeat(rng.pick([300, 3000, 70_000]));
}

export function summary(rng: Rng, id: string, tabId: string, hostile: boolean): Record<string, unknown> {
  const s: Record<string, unknown> = {
    id, tabId, title: text(rng, hostile), harness: rng.chance(0.8) ? "fuzz" : text(rng, hostile, 64), sessionId: rng.chance(0.5) ? id : null,
    state: rng.pick(["idle", "working", "waiting"]), actions: [], openAsks: rng.int(3), turnId: rng.chance(0.5) ? `t-${rng.int(50)}` : null, activeAt: ISO,
  };
  if (rng.chance(0.3)) s.subtitle = text(rng, hostile);
  if (rng.chance(0.2)) s.progress = rng.chance(0.5) ? { kind: "steps", current: 1, total: rng.range(1, 5), label: text(rng, hostile) } : { kind: "percent", value: rng.int(101), label: text(rng, hostile) };
  if (rng.chance(0.2)) s.badge = rng.chance(0.5) ? "VIP" : text(rng, hostile, 16);
  if (rng.chance(0.3)) s.actions = Array.from({ length: rng.range(1, 4) }, (_, i) => ({ id: `a${i}`, label: rng.chance(0.7) ? `Act ${i}` : text(rng, hostile, 16), ...(rng.chance(0.5) ? { icon: rng.pick(["play", "flag", "nope"]) } : {}), ...(rng.chance(0.2) ? { busy: true } : {}) }));
  if (rng.chance(0.2)) s.cwd = "/srv/fuzz";
  return s;
}

export function item(rng: Rng, id: string, hostile: boolean): Record<string, unknown> {
  const kind = rng.pick(["user", "reply", "thinking", "notice", "markdown", "code", "link", "tool"]);
  const base: Record<string, unknown> = { kind, id, ...(rng.chance(0.5) ? { ts: ISO } : {}) };
  switch (kind) {
    case "link": return { ...base, href: rng.chance(0.9) ? "https://example.com/x" : "javascript:alert(1)", ...(rng.chance(0.5) ? { label: text(rng, hostile) } : {}) };
    case "tool": return { ...base, name: rng.chance(0.7) ? "refund" : text(rng, hostile), status: rng.pick(["running", "done", "failed", "denied"]), ...(rng.chance(0.5) ? { call: text(rng, hostile) } : {}), ...(rng.chance(0.3) ? { output: text(rng, hostile) } : {}) };
    case "code": return { ...base, text: text(rng, hostile, 2000), ...(rng.chance(0.5) ? { lang: rng.pick(["ts", "python", "c++", "no pe"]) } : {}) };
    default: return { ...base, text: text(rng, hostile, 2000), ...(kind !== "user" && kind !== "code" && rng.chance(0.2) ? { partial: true } : {}) };
  }
}

export function ask(rng: Rng, paneId: string, hostile: boolean, id = hex(rng, 32)): Record<string, unknown> {
  const kind = rng.pick(["permission", "choice", "text", "form"]);
  const base: Record<string, unknown> = {
    id, revision: hex(rng, 16), kind, paneId, toolCallId: `call-${rng.int(100)}`, itemId: `item-${rng.int(100)}`,
    title: rng.chance(0.7) ? "refund wants to run" : text(rng, hostile) || "t", createdAt: ISO,
  };
  if (rng.chance(0.4)) base.reason = text(rng, hostile, 2000);
  if (rng.chance(0.5)) base.tool = { name: "refund", ...(rng.chance(0.5) ? { call: text(rng, hostile) } : {}) };
  if (rng.chance(0.3)) base.push = { title: text(rng, hostile, 60), line: text(rng, hostile, 120) };
  if (rng.chance(0.2)) base.expiresAt = "2026-12-02T14:10:00.000Z";
  switch (kind) {
    case "permission": return { ...base, options: [{ id: "allow", kind: "allow", label: "Allow" }, { id: "deny", kind: "deny", label: rng.chance(0.8) ? "Deny" : text(rng, hostile) || "Deny" }] };
    case "choice": return { ...base, options: [{ id: "a", label: "A" }, { id: "b", label: text(rng, hostile) || "B", ...(rng.chance(0.3) ? { description: text(rng, hostile) } : {}) }], ...(rng.chance(0.3) ? { multiple: true } : {}) };
    case "text": return { ...base, limit: rng.range(1, 2000), ...(rng.chance(0.3) ? { placeholder: text(rng, hostile) || "p" } : {}) };
    default: return { ...base, fields: [{ id: "f1", type: "text", label: "Note", required: true }, { id: "f2", type: "select", label: text(rng, hostile) || "L", options: [{ id: "o1", label: "One" }] }, { id: "f3", type: "toggle", label: "Agree" }] };
  }
}

export interface PageState {
  instance: string;
  seq: number;
  panes: string[];
}

export function layout(rng: Rng, panes: Record<string, unknown>[], hostile: boolean): Record<string, unknown> {
  return {
    ready: rng.chance(0.9),
    workspaces: [{ id: "w", title: text(rng, hostile) }],
    tabs: [{ id: "w:t", workspaceId: "w", title: text(rng, hostile) }],
    panes,
  };
}

export function view(rng: Rng, s: Record<string, unknown>, hostile: boolean, big = false): Record<string, unknown> {
  const n = big ? rng.pick([500, 2000]) : rng.int(6);
  return {
    pane: s,
    items: Array.from({ length: n }, (_, i) => item(rng, `i${i}`, hostile && !big)),
    itemsCut: rng.chance(0.2),
    asks: Array.from({ length: rng.int(3) }, () => ask(rng, s.id as string, hostile)),
  };
}

/** A reset page: a new layout and a view of every pane. */
export function resetPage(rng: Rng, st: PageState, hostile: boolean, big = false): Record<string, unknown> {
  st.panes = Array.from({ length: rng.range(0, big ? 20 : 5) }, (_, i) => `hp${i}`);
  const sums = st.panes.map((id) => summary(rng, id, "w:t", hostile));
  st.seq += rng.range(1, 10);
  return { cursor: `${st.instance}.${st.seq}`, reset: true, layout: layout(rng, sums, hostile), views: sums.map((s) => view(rng, s, hostile, big && rng.chance(0.2))), events: [] };
}

/** An incremental page: events of every type after the cursor, sometimes a layout or views. */
export function nextPage(rng: Rng, st: PageState, hostile: boolean, big = false): Record<string, unknown> {
  const page: Record<string, unknown> = { cursor: "", reset: false, views: [], events: [] };
  if (rng.chance(0.1) || st.panes.length === 0) {
    st.panes = Array.from({ length: rng.range(1, 5) }, (_, i) => `hp${i}`);
    page.layout = layout(rng, st.panes.map((id) => summary(rng, id, "w:t", hostile)), hostile);
  }
  const events: Record<string, unknown>[] = [];
  const n = big ? 5000 : rng.range(0, 12);
  for (let i = 0; i < n; i++) {
    const pane = rng.pick(st.panes);
    // seq grows, with the odd repeat or step back a reader must ignore (W-3).
    st.seq += rng.chance(0.05) ? rng.pick([0, -1, -5]) : 1;
    const seq = Math.max(1, st.seq);
    const type = rng.pick(["item", "item", "item", "ask", "ask-closed", "state"]);
    if (type === "item") events.push({ seq, type, pane, item: item(rng, `i${rng.int(20)}`, hostile) });
    else if (type === "ask") events.push({ seq, type, pane, ask: ask(rng, pane, hostile) });
    else if (type === "ask-closed") events.push({ seq, type, pane, askId: hex(rng, 32), decidedBy: rng.pick(["phone", "program", "timeout"]), title: text(rng, hostile), decidedAt: ISO });
    else events.push({ seq, type, pane, summary: summary(rng, pane, "w:t", hostile) });
  }
  page.events = events;
  if (rng.chance(0.05)) page.views = [view(rng, summary(rng, rng.pick(st.panes), "w:t", hostile), hostile)];
  st.seq = Math.max(st.seq, 1);
  page.cursor = `${st.instance}.${st.seq}`;
  return page;
}

export function hello(rng: Rng, instance: string, hostile: boolean): Record<string, unknown> {
  return {
    wire: [1], sdk: { name: hostile ? text(rng, true, 128) || "s" : "fuzz-sdk", version: "0.0.1" }, runtime: hostile ? text(rng, true, 64) || "r" : "node 22.19.0",
    name: hostile ? text(rng, true) : "hostile",
    caps: { asks: true, send: true, steer: true, stop: true, actions: true, rename: true, close: true, reopen: true, starters: true, history: true, terminal: false },
    descendantCheck: false, allowAlways: false, instance, limits: { tailLimit: 500, viewItems: 2000 },
  };
}
