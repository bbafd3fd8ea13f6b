/**
 * The durable wire fuzzed from Collie's side (L-2, W-5, S-28): a fake Collie sends the real core
 * hostile requests as raw bytes over its Unix socket — malformed JSON, wrong types, huge strings
 * and arrays, deep nesting, unknown routes and kinds, invalid UTF-8, control and bidi characters,
 * prototype keys, broken framing, replays of kept and dropped request ids, bad tokens.
 *
 * Oracle, for every case: a reply within a deadline (no hang), JSON `{error, message}` with a code
 * of WIRE_ERRORS and its status, or a 200 that the wire's own checkers accept (reads, and replays
 * of a kept receipt); nothing runs for a replayed id; the process never sees an uncaught error.
 * After the cases: the event log did not move, layout, views, starters and receipts are what they
 * were, Object.prototype is untouched, and normal requests still work.
 *
 * Cases: FUZZ_CASES (default 10 000), seed FUZZ_SEED; see docs/reliability.md.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createCore, type DurableCore } from "../../src/core/core.ts";
import { Refusal } from "../../src/core/hooks.ts";
import { AskClosed, type Pane } from "../../src/core/layout.ts";
import { MemoryReceiptStore } from "../../src/core/receipts.ts";
import { openCollie, type Collie } from "../../src/transport/unix-socket.ts";
import { connectPhone, type FakePhone } from "../../src/testing/index.ts";
import { WIRE_ERRORS } from "../../src/wire/errors.ts";
import { answerBodyChecker, isKnownAsk, MESSAGE_CHECKERS, parseEventsPage } from "../../src/wire/messages.ts";
import { checkAnswer } from "../../src/core/asks.ts";
import { parseWith } from "../../src/wire/check.ts";
import type { Ask } from "../../src/wire/types.ts";
import { privateDir, serveCore, type SocketCoreRig } from "../helpers/agent.ts";
import {
  clone, damageBytes, FUZZ_FROM, fuzzCases, garbageBody, hostileString, hostileValue, mutate, PROTO_KEYS, prototypeFingerprint,
  report, Rng, SEED, setOwn, STACK_TRACE,
} from "../helpers/fuzz.ts";
import { pool, rawRequest, RawHang, RawNoReply, requestBytes, type Where } from "../helpers/raw-http.ts";

const CASES = fuzzCases(10_000);
const CONCURRENCY = 12;
const TOKEN = "fuzz-token-0123456789abcdef";
const SEEDED_SENDS = 1100; // beyond RECEIPTS_PER_GROUP: the oldest 100 are dropped (S-28)

/** What the fuzzed agent does: every handler and hook counts its calls and, while fuzzing, refuses. */
interface Agent {
  core: DurableCore;
  p1: Pane;
  asks: Record<"perm" | "choice" | "form", Ask>;
  calls: { route: string; requestId: string }[];
  accepting: boolean;
  warnings: string[];
}

function buildAgent(core: DurableCore, warnings: string[]): Agent {
  const agent = { core, calls: [], accepting: true, warnings } as unknown as Agent;
  const gate = (route: string, requestId: string) => {
    agent.calls.push({ route, requestId });
    if (!agent.accepting) throw new Refusal("fuzzing");
  };
  const tab = core.workspace("ws", { title: "Work" }).tab("tb", { title: "Tab" });
  const p1 = tab.pane("p1", { title: "Fuzzed pane", harness: "fuzz", cwd: "/srv" });
  p1.state({ actions: [{ id: "go", label: "Go", icon: "play" }, { id: "busy", label: "Busy", busy: true }, { id: "off", label: "Off", disabled: true }] });
  p1.state({ progress: { kind: "steps", current: 1, total: 3, label: "Step" } });
  p1.on({
    onSend: ({ requestId }) => gate("send", requestId),
    onSteer: ({ requestId }) => gate("steer", requestId),
    onStop: ({ requestId }) => gate("stop", requestId),
    onAction: ({ requestId }) => gate("action", requestId),
  });
  p1.item({ id: "i1", kind: "reply", text: "Hello \u202e there" });
  p1.item({ id: "tool-1", kind: "tool", name: "refund", status: "running", call: 'refund(order: "1")' });
  p1.beginTurn("t1");
  const pending = (p: Promise<unknown>) => p.catch((err: unknown) => {
    if (!(err instanceof AskClosed)) throw err;
  });
  pending(p1.ask({ kind: "permission", toolCallId: "c-perm", itemId: "tool-1", title: "refund wants to run", tool: { name: "refund", call: 'refund(order: "1")' }, options: [{ kind: "allow" }, { kind: "deny" }] }));
  pending(p1.ask({ kind: "choice", toolCallId: "c-choice", itemId: "tool-1", title: "Which?", options: [{ id: "opt-a", label: "A" }, { id: "opt-b", label: "B" }] }));
  pending(p1.ask({
    kind: "form", toolCallId: "c-form", itemId: "tool-1", title: "Form",
    fields: [
      { id: "agree", type: "toggle", label: "I agree", required: true },
      { id: "note", type: "text", label: "Note", required: true, limit: 20 },
      { id: "level", type: "select", label: "Level", options: [{ id: "lo", label: "Low" }, { id: "hi", label: "High" }] },
    ],
  }));
  const byCall = (id: string) => p1.asks.find((a) => a.toolCallId === id)!;
  agent.p1 = p1;
  agent.asks = { perm: byCall("c-perm"), choice: byCall("c-choice"), form: byCall("c-form") };
  tab.pane("p2", { title: "No handlers", harness: "fuzz" });
  const p3 = tab.pane("p3", { title: "Receipts", harness: "fuzz" });
  p3.on({ onSend: ({ requestId }) => gate("send", requestId) });
  return agent;
}

function hooksFor(get: () => Agent) {
  const gate = (route: string, requestId: string) => {
    const agent = get();
    agent.calls.push({ route, requestId });
    if (!agent.accepting) throw new Refusal("fuzzing");
  };
  return {
    onRename: ({ requestId }: { requestId: string }) => gate("rename", requestId),
    onClose: ({ requestId }: { requestId: string }) => gate("close", requestId),
    onReopen: ({ requestId }: { requestId: string }) => {
      gate("reopen", requestId);
      return null;
    },
    onStarter: ({ requestId }: { requestId: string }) => {
      gate("starter", requestId);
      return null;
    },
  };
}

const HISTORY = {
  list: () => ({ rows: [{ id: "p1", title: "Fuzzed pane", startedAt: "2026-12-02T14:00:00.000Z", state: "open" as const, items: 2 }] }),
  items: (session: string) => (session === "p1" ? { items: [{ kind: "user" as const, id: "h1", text: "hi" }] } : null),
};

/** The state the fuzz must leave alone (S-28 receipts are checked by replays). */
type PhoneLike = Pick<FakePhone, "hello" | "layout" | "pane" | "starters" | "history" | "send" | "rename" | "answer" | "disconnect">;

async function stateOf(phone: PhoneLike, core: DurableCore): Promise<unknown> {
  return {
    cursor: core.log.cursor(),
    hello: await phone.hello(),
    layout: await phone.layout(),
    panes: await Promise.all(["p1", "p2", "p3"].map(async (id) => phone.pane(id))),
    starters: (await phone.starters()).body,
    history: (await phone.history()).body,
  };
}

interface Target {
  name: string;
  where: Where;
  agent: Agent;
  token?: string;
  kept: string[];
  dropped: string[];
  store?: MemoryReceiptStore;
}

interface Case {
  method: string;
  path: string | Buffer;
  headers: Record<string, string | Buffer>;
  body?: Buffer;
  /** The request id the body names, when it parses. */
  requestId?: string;
  deadlineMs: number;
  what: string;
  /** Ends the sending side after the request (a body shorter than its Content-Length). */
  halfClose?: boolean;
}

/** Percent-encodes any string, lone surrogates included (as U+FFFD, the way UTF-8 carries them). */
const enc = (s: string): string => encodeURIComponent(s.toWellFormed());

const WRITES = ["answer", "send", "steer", "stop", "action", "rename", "close", "reopen", "starter"] as const;
const READS = ["hello", "layout", "events", "pane", "history", "historyItems", "starters"] as const;

function template(rng: Rng, t: Target, route: (typeof WRITES)[number]): { path: string; body: Record<string, unknown> } {
  const requestId = rng.weighted<() => string>([
    [6, () => `fz-${rng.int(1e9)}`],
    [1, () => rng.pick(t.kept)],
    [1, () => rng.pick(t.dropped)],
    [1, () => hostileString(rng, 200)],
  ])();
  const pane = rng.weighted<string>([[8, "p1"], [1, "p2"], [1, "p3"], [1, hostileString(rng, 200)]]);
  const target = rng.pick([{ kind: "pane", id: "p1" }, { kind: "tab", id: "ws:tb" }, { kind: "workspace", id: "ws" }, { kind: "pane", id: "gone" }]);
  switch (route) {
    case "answer": {
      const which = rng.pick(["perm", "choice", "form"] as const);
      const ask = t.agent.asks[which];
      const answer = which === "perm" ? { kind: "permission", optionId: rng.pick(["nope", "allow-always", "cancel"]) }
        : which === "choice" ? { kind: "choice", optionIds: rng.pick([["opt-a", "opt-b"], ["opt-z"], ["opt-a", "opt-a"]]) }
        : { kind: "form", values: rng.pick([{ agree: false, note: "x" }, { agree: true, note: "" }, { agree: true, note: "x".repeat(21) }, { note: "x", extra: "y" }, { agree: "yes", note: "x" }]) };
      return { path: `/durable/v1/panes/${enc(rng.chance(0.9) ? "p1" : pane)}/asks/${rng.chance(0.9) ? ask.id : "0".repeat(32)}/answer`, body: { requestId, revision: rng.chance(0.8) ? ask.revision : "0123456789abcdef", answer } };
    }
    case "send": return { path: `/durable/v1/panes/${enc(pane)}/send`, body: { requestId, text: rng.chance(0.7) ? "hello" : hostileString(rng, 20_000) } };
    case "steer": return { path: `/durable/v1/panes/${enc(pane)}/steer`, body: { requestId, text: "steer", turnId: rng.pick(["t1", null, "t0"]) } };
    case "stop": return { path: `/durable/v1/panes/${enc(pane)}/stop`, body: { requestId, turnId: rng.pick(["t1", null, "t0"]) } };
    case "action": return { path: `/durable/v1/panes/${enc(pane)}/actions/${enc(rng.pick(["go", "busy", "off", "nope", hostileString(rng, 200)]))}`, body: { requestId, turnId: rng.pick(["t1", null, "t0"]) } };
    case "rename": return { path: "/durable/v1/rename", body: { requestId, target, title: rng.chance(0.7) ? "New title" : hostileString(rng, 1000) } };
    case "close": return { path: "/durable/v1/close", body: { requestId, target } };
    case "reopen": return { path: "/durable/v1/reopen", body: { requestId, target } };
    case "starter": return { path: `/durable/v1/starters/${enc(rng.pick(["s1", "nope", hostileString(rng, 200)]))}`, body: { requestId } };
  }
}

function readPath(rng: Rng, t: Target, route: (typeof READS)[number]): string {
  const q = (pairs: [string, string][]) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${rng.chance(0.8) ? enc(v) : v}`).join("&")}` : "");
  const cursor = () => rng.pick([t.agent.core.log.cursor(), `${t.agent.core.log.instance}.1`, `${t.agent.core.log.instance}.999999999`, "x.1", "", hostileString(rng, 600)]);
  const limit = () => rng.pick(["1", "100", "500", "501", "0", "-1", "1.5", "1e2", "abc", "2000", "2001", ""]);
  switch (route) {
    case "hello": return "/durable/hello";
    case "layout": return "/durable/v1/layout";
    case "events": {
      const pairs: [string, string][] = [];
      if (rng.chance(0.7)) pairs.push(["after", cursor()]);
      if (rng.chance(0.7)) pairs.push(["wait", rng.pick(["0", "1", "5", "-1", "60001", "abc", "1.5", "", "1e2", "0x10", "99999999999"])]);
      return `/durable/v1/events${q(pairs)}`;
    }
    case "pane": return `/durable/v1/panes/${enc(rng.pick(["p1", "p2", "nope", hostileString(rng, 300)]))}`;
    case "history": return `/durable/v1/history${q([...(rng.chance(0.5) ? [["after", hostileString(rng, 600)] as [string, string]] : []), ...(rng.chance(0.5) ? [["limit", limit()] as [string, string]] : [])])}`;
    case "historyItems": return `/durable/v1/history/${enc(rng.pick(["p1", "gone", hostileString(rng, 300)]))}/items${q(rng.chance(0.5) ? [["limit", limit()]] : [])}`;
    case "starters": return "/durable/v1/starters";
  }
}

/** Damage to a path: raw hostile bytes, broken percent-encoding, another version, extra segments. */
function damagePath(rng: Rng, path: string): string | Buffer {
  switch (rng.int(9)) {
    case 0: return path.replace("/v1/", rng.pick(["/v2/", "/v0/", "/v01/", "/v99999999999999999999/", "/V1/", "//v1/", "/v1//"]));
    case 1: return `${path}/${rng.pick(["x", "", "..", "%2e%2e"])}`;
    case 2: return path.replace(/\/[^/]*$/, `/${rng.pick(["%", "%E0%A4%A", "%zz", "%00", "%2F", "%ED%A0%80", "%C0%AF"])}`);
    case 3: return Buffer.concat([Buffer.from(path), Buffer.from([0xff, 0xfe])]);
    case 4: return `${path}?${"a=1&".repeat(rng.pick([1, 500]))}`;
    case 5: return path.replace(/^\//, rng.pick(["", "http://evil/", "//evil/", "*", "/./", "http://[", "http://[::1/", "//[/", "http://%zz/", "http://x:99999/", "https://"]));
    case 6: return `${path}#frag`;
    case 7: return `${path}${enc(hostileString(rng, 300))}`;
    default: return path.replace(/p1/, enc(rng.pick(PROTO_KEYS)));
  }
}

function hostileHeaders(rng: Rng, t: Target, hasBody: boolean): Record<string, string | Buffer> {
  const h: Record<string, string | Buffer> = {};
  if (rng.chance(0.85)) h["Collie-Wire"] = rng.weighted<string>([[10, "1"], [1, "2, 1"], [1, String(rng.range(2, 9))], [1, "abc"], [1, ""], [1, "1,".repeat(300)]]);
  if (hasBody && rng.chance(0.9)) h["Content-Type"] = rng.pick(["application/json", "text/plain", "application/json; charset=latin1", "multipart/form-data"]);
  if (t.token) {
    h.Authorization = rng.weighted<string | Buffer>([
      [14, `Bearer ${t.token}`],
      [1, `bearer ${t.token}`],
      [1, `Bearer ${t.token} `],
      [1, "Bearer wrong-token-0123456789abcd"],
      [1, `Bearer ${"x".repeat(8000)}`],
      [1, "Basic dXNlcjpwYXNz"],
      [1, ""],
      [1, Buffer.from([0x42, 0x65, 0x61, 0x72, 0x65, 0x72, 0x20, 0xc3, 0xa9])],
    ]);
    if (rng.chance(0.03)) delete h.Authorization;
  }
  if (rng.chance(0.03)) h["X-Bidi"] = "a\u202eb";
  if (rng.chance(0.02)) h["X-Long"] = "y".repeat(rng.pick([1000, 20_000]));
  return h;
}

function makeCase(rng: Rng, t: Target): Case {
  // Framing errors are the transport's: only openCollie's own server is ours to judge.
  const kind = rng.weighted<string>([[55, "write"], [20, "read"], [12, "garbage-body"], [8, "path"], [t.token ? 0 : 5, "framing"]]);
  // Generous: a loaded 2-core machine must not make a slow reply look like a hang.
  const deadlineMs = 15_000;
  if (kind === "read") {
    const route = rng.pick(READS);
    const path = readPath(rng, t, route);
    return { method: rng.chance(0.95) ? "GET" : rng.pick(["POST", "PUT", "DELETE", "OPTIONS", "PATCH"]), path, headers: hostileHeaders(rng, t, false), deadlineMs: deadlineMs + 1000, what: `read ${route}` };
  }
  if (kind === "path") {
    const route = rng.pick([...READS, ...WRITES]);
    const path = (WRITES as readonly string[]).includes(route) ? template(rng, t, route as (typeof WRITES)[number]).path : readPath(rng, t, route as (typeof READS)[number]);
    const isWrite = (WRITES as readonly string[]).includes(route);
    return { method: isWrite ? "POST" : "GET", path: damagePath(rng, path), headers: hostileHeaders(rng, t, isWrite), ...(isWrite ? { body: Buffer.from('{"requestId":"r-path"}') } : {}), deadlineMs: deadlineMs + 1000, what: `path ${route}` };
  }
  if (kind === "framing") {
    const variant = rng.int(7);
    const body = Buffer.from('{"requestId":"frame","text":"x"}');
    const path = "/durable/v1/panes/p1/send";
    switch (variant) {
      case 0: return { method: "POST", path, headers: { "Content-Length": String(body.length + rng.range(1, 50)) }, body, deadlineMs, what: "framing: body shorter than Content-Length", halfClose: true };
      case 1: return { method: "POST", path, headers: { "Content-Length": String(Math.max(0, body.length - rng.range(1, 10))) }, body, deadlineMs, what: "framing: body longer than Content-Length" };
      case 2: return { method: "POST", path, headers: { "Content-Length": rng.pick(["-1", "abc", "1e3", "99999999999999999999"]) }, body, deadlineMs, what: "framing: bad Content-Length" };
      case 3: return { method: "POST", path, headers: { "Transfer-Encoding": "chunked" }, body: Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")]), deadlineMs, what: "framing: chunked" };
      case 4: return { method: "POST", path, headers: { "Transfer-Encoding": "chunked" }, body: Buffer.from("zz\r\nnope\r\n"), deadlineMs, what: "framing: bad chunk" };
      case 5: return { method: rng.pick(["G\u0000T", "GET GET", "", "\u00e9"]), path, headers: {}, deadlineMs, what: "framing: bad method" };
      default: return { method: "GET", path: "/durable/v1/layout", headers: { [rng.pick(["Bad Header", "X\u0000Y", "X:Y"])]: "1", "X-Ok": Buffer.from([0x0a, 0x41]) }, deadlineMs, what: "framing: bad header" };
    }
  }
  // A write: a valid template, mutated; sometimes damaged as bytes, sometimes replaced by garbage.
  const route = rng.pick(WRITES);
  const tpl = template(rng, t, route);
  let body: Buffer;
  let value: unknown = clone(tpl.body);
  if (kind === "garbage-body") body = garbageBody(rng);
  else {
    const n = rng.weighted<number>([[3, 0], [5, 1], [2, 2], [1, 4]]);
    for (let i = 0; i < n; i++) value = mutate(rng, value);
    if (rng.chance(0.05) && value !== null && typeof value === "object") setOwn(value as Record<string, unknown>, rng.pick(PROTO_KEYS), { polluted: true, toString: "x" });
    if (rng.chance(0.04)) value = { ...(value as object), extra: hostileValue(rng, 3) };
    const text = JSON.stringify(value) ?? "null";
    body = rng.chance(0.15) ? damageBytes(rng, text) : Buffer.from(text, "utf8");
  }
  const path = rng.chance(0.97) ? tpl.path : damagePath(rng, tpl.path);
  let requestId: string | undefined;
  try {
    const parsed = JSON.parse(body.toString("utf8")) as { requestId?: unknown };
    if (parsed && typeof parsed.requestId === "string") requestId = parsed.requestId;
  } catch {
    // not JSON: no request id
  }
  return { method: rng.chance(0.98) ? "POST" : rng.pick(["GET", "PUT"]), path, headers: hostileHeaders(rng, t, true), body, ...(requestId !== undefined ? { requestId } : {}), deadlineMs, what: `${kind} ${route}` };
}

/** True when the case is an answer the ask would take: the fuzz keeps the asks open, so those are skipped. */
function wouldBeAccepted(t: Target, c: Case): boolean {
  if (c.body === undefined) return false;
  const path = Buffer.isBuffer(c.path) ? c.path.toString("utf8") : c.path;
  const m = /\/asks\/([^/?#]+)\/answer/.exec(path);
  if (!m) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(c.body.toString("utf8"));
  } catch {
    return false;
  }
  const body = parseWith(answerBodyChecker, parsed);
  if (!body.ok) return false;
  return Object.values(t.agent.asks).some((ask) => ask.id === m[1] && ask.revision === body.value.revision && isKnownAsk(ask) && checkAnswer(ask, body.value.answer).ok);
}

const READ_CHECKERS: Record<string, (v: unknown) => boolean> = {
  "/durable/hello": (v) => parseWith(MESSAGE_CHECKERS.Hello, v).ok,
  "/durable/v1/layout": (v) => parseWith(MESSAGE_CHECKERS.Layout, v).ok,
  "/durable/v1/events": (v) => parseEventsPage(v).ok && (parseEventsPage(v) as { dropped: string[] }).dropped.length === 0,
  "/durable/v1/starters": (v) => parseWith(MESSAGE_CHECKERS.StartersPage, v).ok,
  "/durable/v1/history": (v) => parseWith(MESSAGE_CHECKERS.HistoryPage, v).ok,
};

interface Tally {
  /** Each kind of violation once, with its first example and how often it came. */
  kinds: Map<string, { example: string; count: number }>;
  cases: number;
  crashes: number;
  hangs: number;
  violations: string[];
  byCode: Map<string, number>;
  replayed: number;
  receiptDropped: number;
  skipped: number;
}

function violation(tally: Tally, kind: string, example: string): void {
  tally.violations.push(kind);
  const seen = tally.kinds.get(kind);
  if (seen) seen.count++;
  else tally.kinds.set(kind, { example, count: 1 });
}

function judge(t: Target, c: Case, status: number, headers: Record<string, string>, text: string, tally: Tally, n: number): void {
  const fail = (why: string) => violation(tally, `${t.name}, ${c.what}: ${why}`, `case ${n} (${Buffer.isBuffer(c.path) ? "<bytes>" : c.path.slice(0, 120)}): reply ${status} ${text.slice(0, 300)}`);
  if (STACK_TRACE.test(text)) return fail("a stack trace in the reply");
  if (t.token && headers["content-type"] === undefined && (status === 400 || status === 431) && text === "") {
    // createCore is mounted in the agent's own server: a request node:http cannot parse is
    // refused there, before the core sees it (openCollie's own server answers it as JSON).
    tally.byCode.set(`transport-${status}`, (tally.byCode.get(`transport-${status}`) ?? 0) + 1);
    return;
  }
  if (!/^application\/json/.test(headers["content-type"] ?? "")) return fail(`content-type ${headers["content-type"]}`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return fail("the reply is not JSON");
  }
  if (status === 200) {
    tally.byCode.set("200", (tally.byCode.get("200") ?? 0) + 1);
    if (c.body !== undefined && c.method === "POST") {
      if (body.ok !== true || body.replayed !== true) return fail("a write succeeded while every handler refuses");
      if (c.requestId === undefined || !t.kept.includes(c.requestId)) return fail("a replay for an id that has no receipt");
      tally.replayed++;
      return;
    }
    const pathname = (Buffer.isBuffer(c.path) ? c.path.toString("latin1") : c.path).split("?")[0]!;
    const check = READ_CHECKERS[pathname] ?? (pathname.includes("/history/") ? (v: unknown) => parseWith(MESSAGE_CHECKERS.HistoryItemsPage, v).ok : pathname.includes("/panes/") ? (v: unknown) => parseWith(MESSAGE_CHECKERS.PaneViewPage, v).ok : null);
    if (check && !check(body)) return fail("a 200 the wire's checker refuses");
    return;
  }
  const code = body.error;
  if (typeof code !== "string" || !Object.hasOwn(WIRE_ERRORS, code)) return fail(`error code ${JSON.stringify(code)} is not in WIRE_ERRORS`);
  if (typeof body.message !== "string") return fail("no message");
  const expected = WIRE_ERRORS[code as keyof typeof WIRE_ERRORS].status;
  if (status !== expected) return fail(`status ${status} for ${code} (documented ${expected})`);
  if (code === "internal") return fail("500 internal: the core failed on this input");
  if (code === "unauthorized" && !/^Bearer/.test(headers["www-authenticate"] ?? "")) return fail("401 without WWW-Authenticate: Bearer");
  if (code === "receipt-dropped") {
    if (c.requestId === undefined || !t.dropped.includes(c.requestId)) return fail("receipt-dropped for an id that was not dropped");
    tally.receiptDropped++;
  }
  tally.byCode.set(code, (tally.byCode.get(code) ?? 0) + 1);
}

describe("the durable wire under hostile input from Collie's side (L-2, W-5)", () => {
  const targets: Target[] = [];
  const closers: (() => Promise<void>)[] = [];
  const before0 = new Map<string, unknown>();
  const phones = new Map<string, PhoneLike>();
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => void uncaught.push(err);
  const fingerprint = prototypeFingerprint();
  let collie: Collie;
  let rig: SocketCoreRig;

  before(async () => {
    process.on("uncaughtException", onUncaught);
    process.on("unhandledRejection", onUncaught);
    // Target 1: openCollie on its private socket (descendant check off: the fake Collie is this process).
    const warnings: string[] = [];
    let a1!: Agent;
    const dir = privateDir();
    collie = await openCollie({ socket: join(dir, "fuzz.sock"), descendantCheck: false, hostName: "fuzz \u202e agent", warn: (l) => void warnings.push(l), hooks: hooksFor(() => a1), starters: [{ id: "s1", title: "New" }] });
    collie.history(HISTORY);
    a1 = buildAgent(collie, warnings);
    collie.ready();
    closers.push(async () => {
      await collie.close();
      rmSync(dir, { recursive: true, force: true });
    });
    targets.push({ name: "openCollie", where: { socket: collie.socketPath }, agent: a1, kept: [], dropped: [] });
    // Target 2: createCore behind a bearer token, with a receipt store the test can count.
    const store = new MemoryReceiptStore();
    let a2!: Agent;
    const core = createCore({ token: TOKEN, receipts: store, hostName: "token-agent", warn: (l) => void warnings.push(l), hooks: hooksFor(() => a2), starters: [{ id: "s1", title: "New" }] });
    core.history(HISTORY);
    a2 = buildAgent(core, warnings);
    core.ready();
    rig = await serveCore(core, TOKEN);
    closers.push(() => rig.close());
    targets.push({ name: "createCore+token", where: { socket: rig.socketPath }, agent: a2, token: TOKEN, kept: [], dropped: [], store });

    // Receipts beyond RECEIPTS_PER_GROUP (S-28): the newest 1000 of p3 are kept, the oldest dropped.
    for (const t of targets) {
      const p: PhoneLike = t.token ? new TokenPhone(rig.socketPath, t.token) : connectPhone(t.where as { socket: string });
      phones.set(t.name, p);
      for (let i = 0; i < SEEDED_SENDS; i++) {
        const r = await p.send("p3", `seed ${i}`, { requestId: `seed-${t.name.length}-${i}` });
        assert.equal(r.status, 200);
      }
      const renamed = await p.rename({ kind: "pane", id: "p2" }, "Renamed once", { requestId: `seed-rename-${t.name.length}` });
      assert.equal(renamed.status, 200);
      t.kept = [...Array.from({ length: 1000 }, (_, i) => `seed-${t.name.length}-${SEEDED_SENDS - 1000 + i}`), `seed-rename-${t.name.length}`];
      t.dropped = Array.from({ length: SEEDED_SENDS - 1000 }, (_, i) => `seed-${t.name.length}-${i}`);
      t.agent.accepting = false;
      t.agent.calls.length = 0;
      before0.set(t.name, await stateOf(p, t.agent.core));
    }
  });

  after(async () => {
    process.off("uncaughtException", onUncaught);
    process.off("unhandledRejection", onUncaught);
    for (const p of phones.values()) p.disconnect();
    for (const close of closers) await close();
  });

  it(`answers ${CASES} hostile requests with documented codes, never hangs or crashes, and changes nothing`, { timeout: 120_000 + CASES * 10 }, async () => {
    const rng = new Rng(SEED ^ 0x5d4);
    const tally: Tally = { kinds: new Map(), cases: 0, crashes: 0, hangs: 0, violations: [], byCode: new Map(), replayed: 0, receiptDropped: 0, skipped: 0 };
    const storeSize = targets[1]!.store!.size;
    const cases = function* () {
      for (let n = 0; n < CASES; n++) {
        const t = rng.chance(0.75) ? targets[0]! : targets[1]!;
        let c = makeCase(rng, t);
        while (wouldBeAccepted(t, c)) {
          tally.skipped++;
          c = makeCase(rng, t);
        }
        if (n >= FUZZ_FROM) yield { t, c, n };
      }
    };
    const started = Date.now();
    let largest = 0;
    await pool(cases(), CONCURRENCY, async ({ t, c, n }) => {
      tally.cases++;
      const bytes = requestBytes(c.method, c.path, c.headers, c.body);
      largest = Math.max(largest, bytes.length);
      try {
        const reply = await rawRequest(t.where, bytes, c.deadlineMs, { halfClose: c.halfClose === true });
        judge(t, c, reply.status, reply.headers, reply.text, tally, n);
      } catch (err) {
        if (err instanceof RawHang) {
          tally.hangs++;
          violation(tally, `${t.name}, ${c.what}: hang`, `case ${n}: ${err.message}`);
        } else if (err instanceof RawNoReply) {
          violation(tally, `${t.name}, ${c.what}: no reply (${err.message.slice(0, 40)})`, `case ${n} ${Buffer.isBuffer(c.path) ? "<bytes>" : c.path.slice(0, 120)}: ${err.message}`);
        } else throw err;
      }
    });
    tally.crashes = uncaught.length;
    const ms = Date.now() - started;

    // Nothing ran for a replayed id (S-28): handlers saw only fresh ids, and refused them.
    const calledWithSeed = targets.flatMap((t) => t.agent.calls.filter((c) => t.kept.includes(c.requestId) || t.dropped.includes(c.requestId)));
    // No state corruption: the log did not move, every read is what it was, receipts stand.
    for (const t of targets) {
      const phone = phones.get(t.name)!;
      assert.deepEqual(await stateOf(phone, t.agent.core), before0.get(t.name), `${t.name}: the state changed under the fuzz`);
      const keptReplay = await phone.send("p3", "again", { requestId: t.kept[0]! });
      assert.equal(keptReplay.status, 200);
      assert.equal(keptReplay.body.replayed, true);
      const droppedReplay = await phone.send("p3", "again", { requestId: t.dropped[0]! });
      assert.equal(droppedReplay.status, 500);
      assert.equal(droppedReplay.body.error, "receipt-dropped");
    }
    assert.equal(targets[1]!.store!.size, storeSize, "no receipt was stored for a refused or malformed write");
    assert.equal(prototypeFingerprint(), fingerprint, "Object.prototype was polluted");
    assert.equal(({} as Record<string, unknown>).polluted, undefined);

    // A normal request still works: an answer lands, a send is taken.
    for (const t of targets) {
      const phone = phones.get(t.name)!;
      t.agent.accepting = true;
      const ask = t.agent.asks.perm;
      const answered = await phone.answer(ask, { kind: "permission", optionId: "allow" });
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      const sent = await phone.send("p1", "after the fuzz");
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
    }

    report("sdk-wire-fuzz", {
      cases: tally.cases, crashes: tally.crashes, hangs: tally.hangs, violations: tally.violations.length,
      replayed: tally.replayed, "receipt-dropped": tally.receiptDropped, "ran-for-replayed-id": calledWithSeed.length,
      "handler-calls": targets.reduce((s, t) => s + t.agent.calls.length, 0) - targets.length, "largest-case-bytes": largest, ms,
      codes: [...tally.byCode].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}:${v}`).join(","),
    });
    assert.deepEqual([...tally.kinds].map(([kind, v]) => `${v.count}× ${kind} — e.g. ${v.example}`), []);
    assert.equal(tally.hangs, 0);
    // Cases stay small enough to build and send in a moment: a giant one stalls every request in flight.
    assert.ok(largest <= 8_000_000, `the generator built a ${largest}-byte case`);
    assert.equal(tally.crashes, 0, `uncaught: ${uncaught.map(String).join("; ")}`);
    assert.deepEqual(calledWithSeed, [], "a handler ran for a replayed request id");
  });
});

/** A FakePhone for the token target: the same calls, over the Unix socket, with the bearer token. */
class TokenPhone {
  readonly #phone: FakePhone;
  constructor(socket: string, token: string) {
    this.#phone = connectPhone(socket);
    const request = this.#phone.request.bind(this.#phone);
    this.#phone.request = ((method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => request(method, path, body, { authorization: `Bearer ${token}`, ...headers })) as FakePhone["request"];
  }
  hello() { return this.#phone.hello(); }
  layout() { return this.#phone.layout(); }
  pane(id: string) { return this.#phone.pane(id); }
  starters() { return this.#phone.starters(); }
  history() { return this.#phone.history(); }
  send(...a: Parameters<FakePhone["send"]>) { return this.#phone.send(...a); }
  rename(...a: Parameters<FakePhone["rename"]>) { return this.#phone.rename(...a); }
  answer(...a: Parameters<FakePhone["answer"]>) { return this.#phone.answer(...a); }
  disconnect() { this.#phone.disconnect(); }
}
