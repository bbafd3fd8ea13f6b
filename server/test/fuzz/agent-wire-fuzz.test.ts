/**
 * The daemon fed by a hostile agent (L-2, D-2, W-5): a fake agent answers the daemon's hello and
 * events reads with generated garbage — malformed JSON, wrong types, huge strings and arrays, deep
 * nesting, unknown event types, invalid UTF-8, control and bidi characters, prototype keys, wrong
 * statuses, reset connections — and a second one answers the phone's actions and read-throughs the
 * same way. Meanwhile a real SDK agent (desk) and the phone API are watched.
 *
 * Oracle: the daemon never sees an uncaught error; the phone API answers every probe in bounded
 * time; desk stays `ready` and unchanged; what Collie holds of the hostile agent always passes the
 * wire's own checkers and shows no control or bidi characters; every phone reply is JSON with a
 * status the phone can read, never a 500 of Collie's own or a stack trace; once the hostile agent
 * behaves, Collie shows exactly what it says.
 *
 * Cases: FUZZ_CASES (default 10 000: 70% agent pages, 30% phone actions), seed FUZZ_SEED.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Conversation, PaneDetail, Snapshot } from "@colliepwa/shared";
import { hasInvisible, MESSAGE_CHECKERS, parseWith } from "@colliepwa/durable-sdk/wire";
import {
  damageBytes, deepJson, fuzzCases, garbageBody, hostileString, hostileValue, mutate, nested, prototypeFingerprint, report,
  Rng, SEED, seedOf, setOwn, STACK_TRACE,
} from "../../../sdk/test/helpers/fuzz.ts";
import { killAllAgents, startAgent } from "../helpers/child-agent.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { HostileAgent, type HostileReply, type HostileRequest } from "../helpers/hostile-agent.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { authHeaders } from "../helpers/tokens.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";
import * as gen from "./wire-gen.ts";

const CASES = fuzzCases(10_000);
const PAGE_CASES = Math.ceil(CASES * 0.7);
const ACTION_CASES = CASES - PAGE_CASES;
const PROBE_DEADLINE_MS = 10_000;

const json = (v: unknown): HostileReply => ({ status: 200, body: JSON.stringify(v) });

/** A JSON text with prototype keys on every object. */
function polluted(v: unknown): string {
  const walk = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(walk);
    if (x !== null && typeof x === "object") {
      const o: Record<string, unknown> = {};
      for (const [k, val] of Object.entries(x)) setOwn(o, k, walk(val));
      setOwn(o, "__proto__", { polluted: true });
      setOwn(o, "constructor", { prototype: { polluted: true } });
      return o;
    }
    return x;
  };
  return JSON.stringify(walk(v));
}

/** `v` as JSON text with one more key whose value is nested thousands of levels deep (made as text). */
function withDeepKey(rng: Rng, v: Record<string, unknown>, key: string): string {
  const text = JSON.stringify(v);
  return `{${JSON.stringify(key)}:${deepJson(rng.pick([100, 2000, 20_000, 100_000]), rng.chance(0.5) ? "array" : "object")}${text === "{}" ? "}" : `,${text.slice(1)}`}`;
}

/** What the hostile agent answers to a hello or events read: one case each. */
function hostileRead(rng: Rng, st: gen.PageState, req: HostileRequest): HostileReply {
  const isHello = req.url.pathname === "/durable/hello";
  const valid = (hostile: boolean): Record<string, unknown> => {
    if (isHello) {
      if (rng.chance(0.1)) st.instance = `inst${gen.hex(rng, 8)}`;
      return gen.hello(rng, st.instance, hostile);
    }
    const first = !req.url.searchParams.has("after");
    return first || rng.chance(0.05) ? gen.resetPage(rng, st, hostile) : gen.nextPage(rng, st, hostile);
  };
  const pick = rng.weighted<() => HostileReply>([
    [30, () => json(valid(false))],
    [18, () => json(valid(true))],
    [14, () => {
      let v: unknown = valid(rng.chance(0.5));
      for (let i = rng.range(1, 3); i > 0; i--) v = mutate(rng, v);
      return { status: 200, body: JSON.stringify(v) ?? "null" };
    }],
    [7, () => ({ status: 200, body: garbageBody(rng) })],
    [5, () => ({ status: 200, body: damageBytes(rng, JSON.stringify(valid(false))) })],
    [5, () => {
      // A valid frame with bad events among good ones: the bad ones are dropped, the rest kept.
      const page = isHello ? valid(false) : { ...gen.nextPage(rng, st, false) };
      if (!isHello) (page.events as unknown[]).push(...Array.from({ length: rng.range(1, 4) }, () => rng.pick([hostileValue(rng, 3), { seq: st.seq + 1, type: rng.pick(["unknown", "__proto__", "ASK", ""]), pane: "hp0" }, { seq: "1", type: "item", pane: "hp0", item: {} }, nested(rng.range(10, 300))])));
      return json(page);
    }],
    [3, () => ({ status: rng.pick([204, 301, 404, 409, 500, 503, 600, 999]), body: rng.chance(0.5) ? JSON.stringify(valid(false)) : JSON.stringify({ error: "internal", message: "x" }) })],
    [2, () => json(isHello ? { ...gen.hello(rng, st.instance, false), wire: rng.pick([[2], [0], [], ["1"], [1.5], Array(17).fill(1)]) } : valid(false))],
    [3, () => ({ destroy: true })],
    [2, () => ({ delayMs: rng.range(1, 30), then: json(valid(false)) })],
    [2, () => ({ status: 200, body: withDeepKey(rng, valid(false), rng.pick(["x", "__proto__", "extra"])) })],
    [2, () => ({ status: 200, body: polluted(valid(rng.chance(0.5))) })],
    [0.4, () => json(isHello ? { ...gen.hello(rng, st.instance, false), name: "n".repeat(rng.pick([300, 2_000_000])) } : gen.resetPage(rng, st, false, true))],
    [1, () => ({ status: 200, body: JSON.stringify(valid(false)), headers: { "content-type": rng.pick(["text/html", "application/octet-stream"]) } })],
  ]);
  return pick();
}

/** Replies forced for a request id (the regression cases). */
const FORCED = new Map<string, HostileReply[]>();

/** A reply to a phone action or read-through the hostile writer agent sends. */
function hostileWrite(rng: Rng, req: HostileRequest): HostileReply {
  const isAnswer = req.url.pathname.endsWith("/answer");
  const errorBody = (code: string) => ({ error: code, message: rng.chance(0.8) ? "nope" : hostileString(rng, 5000) });
  const pick = rng.weighted<() => HostileReply>([
    [20, () => json(rng.chance(0.5) ? { ok: true } : { ok: true, replayed: true, ...(isAnswer ? { decidedAt: "2026-12-02T14:00:00.000Z" } : { turnId: "t-1" }) })],
    [10, () => {
      const [code, status] = rng.pick([["moved-on", 409], ["refused", 409], ["not-found", 404], ["bad-request", 400], ["receipt-dropped", 500], ["internal", 500], ["ask-changed", 409], ["ask-answered", 409], ["not-supported", 409], ["caller-refused", 403], ["too-large", 413]] as const);
      return { status, body: JSON.stringify({ ...errorBody(code), ...(code === "refused" ? { reason: "busy" } : {}), ...(code === "ask-changed" ? { revision: "0123456789abcdef" } : {}) }) };
    }],
    [4, () => ({ status: 409, body: JSON.stringify(errorBody("ask-not-open")) })],
    [12, () => {
      let v: unknown = rng.chance(0.5) ? { ok: true } : errorBody("refused");
      for (let i = rng.range(1, 3); i > 0; i--) v = mutate(rng, v);
      return { status: rng.pick([200, 409, 500]), body: JSON.stringify(v) ?? "null" };
    }],
    [8, () => ({ status: rng.pick([200, 409, 500]), body: garbageBody(rng) })],
    [6, () => {
      // A valid error body carrying a huge or deeply nested extra key.
      const body = errorBody(rng.pick(["refused", "moved-on", "internal"]));
      const key = rng.pick(["extra", "__proto__", "revision", "reason"]);
      if (rng.chance(0.5)) return { status: rng.pick([409, 500]), body: withDeepKey(rng, body, key) };
      setOwn(body, key, rng.pick(["r".repeat(300_000), Array(50_000).fill(0), nested(200)]));
      return { status: rng.pick([409, 500]), body: JSON.stringify(body) };
    }],
    // (1xx other than 101 make node wait for a final reply: a stall, which the stall suite covers.)
    [4, () => ({ status: rng.pick([101, 201, 204, 302, 304, 600, 999]), body: JSON.stringify(errorBody("refused")) })],
    [3, () => ({ status: 200, body: polluted({ ok: true, replayed: true }) })],
    [4, () => ({ destroy: true })],
    [2, () => ({ delayMs: rng.range(1, 50), then: json({ ok: true }) })],
    [3, () => ({ status: 200, body: JSON.stringify(isAnswer ? { ok: "yes" } : { rows: "x", starters: [{}], items: null }) })],
  ]);
  return pick();
}

/** The strings the phone draws from a conversation (P-2, P-5, P-21), to check they were cleaned. */
function drawnTexts(c: Conversation): string[] {
  return [c.title, c.subtitle ?? "", c.harness, c.badge ?? "", c.progress?.label ?? "", c.workspaceTitle, c.pendingQuestion ?? "", ...c.actions.map((a) => a.label)];
}

function detailTexts(d: PaneDetail): string[] {
  const out: string[] = [];
  for (const i of d.items) {
    const r = i as unknown as Record<string, unknown>;
    for (const k of ["name", "call", "label"]) if (typeof r[k] === "string") out.push(r[k] as string);
  }
  for (const a of d.asks) {
    out.push(a.title, a.reason ?? "", a.tool?.name ?? "", a.tool?.call ?? "", a.push?.title ?? "", a.push?.line ?? "");
    const r = a as unknown as { options?: { label: string; description?: string }[]; fields?: { label: string }[]; placeholder?: string };
    for (const o of r.options ?? []) out.push(o.label, o.description ?? "");
    for (const f of r.fields ?? []) out.push(f.label);
    out.push(r.placeholder ?? "");
  }
  return out;
}

describe("the daemon under a hostile agent (L-2)", () => {
  const dir = tempDir();
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => void uncaught.push(err);
  const fingerprint = prototypeFingerprint();
  let d: TestDaemon;
  let reader: HostileAgent;
  let writer: HostileAgent;
  let live: LiveClient;
  let deskBefore: Conversation[];
  const rng = new Rng(SEED ^ 0xa9e7);
  const st: gen.PageState = { instance: "inst0", seq: 0, panes: [] };
  const probe = { samples: 0, slowest: 0, failures: [] as string[], notReady: [] as string[], corrupt: [] as string[] };
  let fuzzing = false;
  let pageCases = 0;

  before(async () => {
    process.on("uncaughtException", onUncaught);
    process.on("unhandledRejection", onUncaught);
    await startAgent("desk-agent.ts", ["--socket", join(dir, "desk.sock")]);
    reader = new HostileAgent((req) => {
      if (!fuzzing) {
        // Until the fuzz starts: a valid, ready, empty agent whose long-poll waits.
        if (req.url.pathname === "/durable/hello") return json(gen.hello(new Rng(4), st.instance, false));
        const empty = { cursor: `${st.instance}.1`, reset: !req.url.searchParams.has("after"), views: [], events: [] };
        if (empty.reset) return json({ ...empty, layout: { ready: true, workspaces: [], tabs: [], panes: [] } });
        return { delayMs: Number(req.url.searchParams.get("wait") ?? 0), then: json(empty) };
      }
      pageCases++;
      return hostileRead(rng, st, req);
    });
    await reader.listen(join(dir, "reader.sock"));
    // The writer's hello and events are valid (it stays ready); its replies to actions are not.
    const wst = { cursor: "winst.1" };
    const attempts = new Map<string, number>();
    const wPane = gen.summary(new Rng(1), "w1", "w:t", false);
    const wAsk = { ...gen.ask(new Rng(2), "w1", false), id: "a".repeat(32), revision: "b".repeat(16), kind: "permission", options: [{ id: "allow", kind: "allow", label: "Allow" }] };
    wPane.actions = [{ id: "go", label: "Go" }];
    writer = new HostileAgent((req) => {
      if (req.url.pathname === "/durable/hello") return json(gen.hello(new Rng(3), "winst", false));
      if (req.url.pathname.endsWith("/events")) {
        const page = { cursor: wst.cursor, reset: true, layout: { ready: true, workspaces: [{ id: "w", title: "W" }], tabs: [{ id: "w:t", workspaceId: "w", title: "T" }], panes: [wPane] }, views: [{ pane: wPane, items: [], itemsCut: false, asks: [wAsk] }], events: [] };
        if (!req.url.searchParams.has("after")) return json(page);
        const wait = Number(req.url.searchParams.get("wait") ?? 0);
        return { delayMs: wait, then: json({ cursor: wst.cursor, reset: false, views: [], events: [] }) };
      }
      // Each reply from its own stream: the request id (or the read's cursor) and the attempt,
      // so a case gets the same reply whatever ran concurrently with it.
      let key = req.url.searchParams.get("after") ?? req.url.pathname;
      try {
        key = (JSON.parse(req.body.toString("utf8")) as { requestId: string }).requestId;
      } catch {
        // a read: keyed by its cursor
      }
      const attempt = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, attempt);
      const forced = FORCED.get(key);
      if (forced) return forced[Math.min(attempt - 1, forced.length - 1)]!;
      return hostileWrite(new Rng(seedOf("writer", key, attempt)), req);
    });
    await writer.listen(join(dir, "writer.sock"));
    const source = (name: string, sock: string) => ({ name, endpoint: { kind: "socket" as const, path: join(dir, sock) }, key: name });
    d = await TestDaemon.start({
      sources: { fixed: [source("desk", "desk.sock"), source("reader", "reader.sock"), source("writer", "writer.sock")] },
      tuning: { waitMs: 1000, retryDelaysMs: [0] },
    });
    await d.waitState("desk", "ready");
    await d.waitState("writer", "ready");
    await d.waitState("reader", "ready");
    live = await LiveClient.connect(d.wsUrl);
    live.send({ type: "watch", agent: "reader", pane: "hp0" });
    deskBefore = (await d.snapshot()).conversations.filter((c) => c.agent === "desk");
  });

  after(async () => {
    fuzzing = false;
    process.off("uncaughtException", onUncaught);
    process.off("unhandledRejection", onUncaught);
    await closeAllLive();
    await closeAllDaemons();
    await reader?.close();
    await writer?.close();
    await killAllAgents();
    removeTempDirs();
  });

  /** Reads the phone API with a deadline; checks that desk and the writer stay ready and nothing held is corrupt. */
  async function probeOnce(): Promise<void> {
    const t0 = Date.now();
    let snap: Snapshot;
    try {
      const res = await fetch(`${d.url}/api/snapshot`, { headers: authHeaders(d.url), signal: AbortSignal.timeout(PROBE_DEADLINE_MS) });
      const text = await res.text();
      if (res.status !== 200) {
        probe.failures.push(`snapshot ${res.status}: ${text.slice(0, 300)}`);
        return;
      }
      snap = JSON.parse(text) as Snapshot;
      const health = await fetch(`${d.url}/api/health`, { signal: AbortSignal.timeout(PROBE_DEADLINE_MS) });
      if (health.status !== 200) probe.failures.push(`health ${health.status}`);
    } catch (err) {
      probe.failures.push(`the phone API did not answer: ${String(err)}`);
      return;
    }
    probe.samples++;
    probe.slowest = Math.max(probe.slowest, Date.now() - t0);
    for (const name of ["desk", "writer"]) {
      const row = snap.agents.find((a) => a.name === name);
      if (row?.state !== "ready") probe.notReady.push(`${name}: ${row?.state} ${row?.problem ?? ""}`);
    }
    for (const c of snap.conversations.filter((x) => x.agent === "reader")) {
      const { agent: _a, workspaceTitle: _w, pendingQuestion: _p, ...summary } = c;
      const checked = parseWith(MESSAGE_CHECKERS.PaneSummary, summary);
      if (!checked.ok) probe.corrupt.push(`conversation ${c.id}: ${checked.error}`);
      for (const s of drawnTexts(c)) if (hasInvisible(s)) probe.corrupt.push(`conversation ${c.id}: uncleaned text ${JSON.stringify(s.slice(0, 40))}`);
    }
    const pane = snap.conversations.find((x) => x.agent === "reader");
    if (pane) {
      try {
        const res = await fetch(`${d.url}/api/agents/reader/panes/${encodeURIComponent(pane.id)}`, { headers: authHeaders(d.url), signal: AbortSignal.timeout(PROBE_DEADLINE_MS) });
        if (res.status === 200) {
          const detail = (await res.json()) as PaneDetail;
          for (const i of detail.items) {
            const checked = parseWith(MESSAGE_CHECKERS.Item, i);
            if (!checked.ok) probe.corrupt.push(`item ${i.id}: ${checked.error}`);
          }
          for (const a of detail.asks) {
            const checked = parseWith(MESSAGE_CHECKERS.Ask, a);
            if (!checked.ok) probe.corrupt.push(`ask ${a.id}: ${checked.error}`);
          }
          for (const s of detailTexts(detail)) if (hasInvisible(s)) probe.corrupt.push(`pane ${pane.id}: uncleaned text ${JSON.stringify(s.slice(0, 40))}`);
        } else if (res.status !== 404) probe.failures.push(`pane detail ${res.status}`);
      } catch (err) {
        probe.failures.push(`pane detail did not answer: ${String(err)}`);
      }
    }
  }

  test(`${PAGE_CASES} hostile hello and events replies: Collie stays up, the others stay ready, nothing corrupt is kept`, { timeout: 120_000 + CASES * 10 }, async () => {
    const started = Date.now();
    fuzzing = true;
    d.daemon.agents.get("reader")!.retryNow();
    let probing = true;
    const prober = (async () => {
      while (probing) {
        await probeOnce();
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await until(() => pageCases >= PAGE_CASES, () => `${PAGE_CASES} page cases (served ${pageCases})`, 60_000 + PAGE_CASES * 20);
    fuzzing = false;
    probing = false;
    await prober;
    const ms = Date.now() - started;

    // The hostile agent behaves again, as a new process: Collie shows exactly what it says.
    const good = new Rng(99);
    const goodState: gen.PageState = { instance: "goodinst", seq: 0, panes: [] };
    const goodPage = gen.resetPage(good, goodState, false);
    (goodPage.layout as { ready: boolean }).ready = true;
    const goodHello = gen.hello(good, "goodinst", false);
    reader.respond = (req) => {
      if (req.url.pathname === "/durable/hello") return json(goodHello);
      if (req.url.searchParams.get("after") === goodPage.cursor) return { delayMs: Number(req.url.searchParams.get("wait") ?? 0), then: json({ cursor: goodPage.cursor, reset: false, views: [], events: [] }) };
      return json(goodPage);
    };
    d.daemon.agents.get("reader")!.retryNow();
    // Ids and titles: a fuzz page still in flight may name the same pane ids (hp0, hp1 …), so the
    // ids alone could match before the good page is applied.
    const expected = ((goodPage.layout as { panes: { id: string; title: string }[] }).panes).map((p) => `${p.id} ${p.title}`).sort();
    await until(async () => {
      const snap = await d.snapshot();
      const row = snap.agents.find((a) => a.name === "reader");
      const shown = snap.conversations.filter((c) => c.agent === "reader").map((c) => `${c.id} ${c.title}`).sort();
      return row?.state === "ready" && JSON.stringify(shown) === JSON.stringify(expected);
    }, "the reader shows exactly its good page");
    const snap = await d.snapshot();
    for (const v of goodPage.views as { pane: { id: string; title: string }; items: { id: string }[] }[]) {
      const conv = snap.conversations.find((c) => c.agent === "reader" && c.id === v.pane.id)!;
      assert.equal(conv.title, v.pane.title);
      const detail = (await d.get<PaneDetail>(`/api/agents/reader/panes/${v.pane.id}`)).body;
      assert.deepEqual(detail.items.map((i) => i.id), v.items.map((i) => i.id));
    }
    // desk is unchanged and still takes a normal action.
    assert.deepEqual(snap.conversations.filter((c) => c.agent === "desk"), deskBefore);
    const sent = await d.post("/api/agents/desk/panes/p2/send", { requestId: requestId("after-fuzz"), text: "hello after the fuzz" });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(prototypeFingerprint(), fingerprint, "Object.prototype was polluted");
    assert.equal(live.closed, false, "the phone's WebSocket stayed open");

    report("daemon-agent-pages-fuzz", {
      cases: pageCases, crashes: uncaught.length, "probe-failures": probe.failures.length, "not-ready": probe.notReady.length,
      corrupt: probe.corrupt.length, probes: probe.samples, "slowest-probe-ms": probe.slowest,
      hello: reader.counts.hello, events: reader.counts.events, ms,
    });
    assert.equal(uncaught.length, 0, `uncaught: ${uncaught.map((e) => String((e as Error)?.stack ?? e)).join("\n")}`);
    assert.deepEqual(probe.failures.slice(0, 10), []);
    assert.deepEqual(probe.notReady.slice(0, 10), []);
    assert.deepEqual([...new Set(probe.corrupt)].slice(0, 20), []);
  });

  test(`${ACTION_CASES} hostile replies to phone actions and read-throughs: documented statuses, never a 500 of Collie's own`, { timeout: 120_000 + CASES * 10 }, async () => {
    const started = Date.now();
    const violations = new Map<string, { count: number; example: string }>();
    const statuses = new Map<number, number>();
    const bad = (kind: string, example: string) => {
      const v = violations.get(kind);
      if (v) v.count++;
      else violations.set(kind, { count: 1, example });
    };
    const before = writer.counts.write + writer.counts.read;
    let n = 0;
    const ROUTES = ["answer", "send", "steer", "stop", "action", "rename", "close", "reopen", "starter", "history", "historyItems", "starters"] as const;
    const one = async (n: number, forced?: { route: (typeof ROUTES)[number]; reply: HostileReply | HostileReply[] }) => {
      const rng = new Rng(seedOf("phone-case", n));
      const route = forced?.route ?? rng.pick(ROUTES);
      const id = forced ? `hw-regression-${n}` : `hw-${n}`;
      // (A starters read carries no id of its own: its path is its key.)
      const forcedKey = route === "starters" ? "/durable/v1/starters" : id;
      if (forced) FORCED.set(forcedKey, [forced.reply].flat());
      const [method, path, body] = ((): [string, string, unknown] => {
        switch (route) {
          case "answer": return ["POST", `/api/agents/writer/panes/w1/asks/${"a".repeat(32)}/answer`, { requestId: id, revision: "b".repeat(16), answer: { kind: "permission", optionId: "allow" } }];
          case "send": return ["POST", "/api/agents/writer/panes/w1/send", { requestId: id, text: "hi" }];
          case "steer": return ["POST", "/api/agents/writer/panes/w1/steer", { requestId: id, text: "hi", turnId: null }];
          case "stop": return ["POST", "/api/agents/writer/panes/w1/stop", { requestId: id, turnId: null }];
          case "action": return ["POST", "/api/agents/writer/panes/w1/actions/go", { requestId: id, turnId: null }];
          case "rename": return ["POST", "/api/agents/writer/rename", { requestId: id, target: { kind: "pane", id: "w1" }, title: "T" }];
          case "close": return ["POST", "/api/agents/writer/close", { requestId: id, target: { kind: "pane", id: "w1" } }];
          case "reopen": return ["POST", "/api/agents/writer/reopen", { requestId: id, target: { kind: "pane", id: "w1" } }];
          case "starter": return ["POST", "/api/agents/writer/starters/s1", { requestId: id }];
          case "history": return ["GET", `/api/agents/writer/history?limit=5&after=${id}`, undefined];
          case "historyItems": return ["GET", `/api/agents/writer/history/w1/items?after=${id}`, undefined];
          case "starters": return ["GET", "/api/agents/writer/starters", undefined];
        }
      })();
      let status: number;
      let text: string;
      try {
        const res = await fetch(`${d.url}${path}`, {
          method, signal: AbortSignal.timeout(20_000),
          headers: { ...authHeaders(d.url), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        status = res.status;
        text = await res.text();
      } catch (err) {
        bad(`${route}: no reply`, String(err));
        return;
      }
      if (forced && !Array.isArray(forced.reply)) FORCED.delete(forcedKey);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const example = `${route} → ${status} ${text.slice(0, 200)}`;
      if (STACK_TRACE.test(text)) return bad(`${route}: a stack trace`, example);
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return bad(`${route}: not JSON`, example);
      }
      if (status < 200 || status > 599) return bad(`${route}: status ${status}`, example);
      if (status >= 200 && status < 300) {
        // Held for the agent (D-5): an answer, or a message whose reply never came (docs/decisions.md).
        const ok = (route === "answer" || route === "send") && status === 202 ? parsed.held === true
          : route === "history" ? parseWith(MESSAGE_CHECKERS.HistoryPage, parsed).ok
          : route === "historyItems" ? parseWith(MESSAGE_CHECKERS.HistoryItemsPage, parsed).ok
          : route === "starters" ? parseWith(MESSAGE_CHECKERS.StartersPage, parsed).ok
          : parsed.ok === true;
        if (!ok) return bad(`${route}: a ${status} the wire's checker refuses`, example);
        return;
      }
      if (typeof parsed.error !== "string" || typeof parsed.message !== "string") return bad(`${route}: not {error, message}`, example);
      // Collie's own failure would be Fastify's body (`statusCode`, "Internal Server Error"); an
      // agent's own error passes through with the catalog's keys only.
      if ("statusCode" in parsed || !/^[a-z][a-z-]*$/.test(parsed.error)) return bad(`${route}: not an error of the wire or of Collie (${status})`, example);
      const extra = Object.keys(parsed).filter((k) => !["error", "message", "revision", "reason", "speaks"].includes(k));
      if (extra.length > 0) return bad(`${route}: keys the catalog does not name reached the phone`, example);
      if (parsed.error === "agent-failed" && status !== 502) return bad(`${route}: agent-failed with ${status}`, example);
    };
    // First the replies that once broke Collie (each was a 500 of its own, or worse), then the fuzz.
    const deep = (status: number) => ({ status, body: `{"error":"refused","message":"m","extra":${deepJson(50_000)}}` });
    const regressions: { route: (typeof ROUTES)[number]; reply: HostileReply | HostileReply[] }[] = [
      // Held (the reply never came), then answered `409 null` when Collie delivers it again.
      { route: "answer", reply: [{ destroy: true }, { status: 409, body: "null" }] },
      { route: "answer", reply: { status: 409, body: "null" } },
      { route: "send", reply: { status: 409, body: "null" } },
      { route: "send", reply: { status: 600, body: JSON.stringify({ error: "refused", message: "m" }) } },
      { route: "close", reply: { status: 999, body: JSON.stringify({ ok: true }) } },
      { route: "rename", reply: deep(409) },
      { route: "starter", reply: deep(500) },
      { route: "answer", reply: deep(409) },
      { route: "history", reply: { status: 200, body: `{"rows":[],"x":${deepJson(50_000)}}` } },
      { route: "starters", reply: { status: 500, body: JSON.stringify({ ok: true, starters: [] }) } },
      { route: "historyItems", reply: { status: 204, body: "" } },
      { route: "send", reply: { status: 409, body: JSON.stringify({ error: "refused", message: "m", reason: "r".repeat(300_000) }) } },
    ];
    for (const [i, r] of regressions.entries()) await one(i, r);
    const workers = Array.from({ length: 6 }, async () => {
      while (n < ACTION_CASES) await one(n++);
    });
    await Promise.all(workers);
    // Held answers keep being re-sent to the writer and answered with garbage for a page or two.
    await new Promise((r) => setTimeout(r, 2500));
    await probeOnce();
    const ms = Date.now() - started;
    assert.equal(live.closed, false, "the phone's WebSocket stayed open");
    const fresh = await LiveClient.connect(d.wsUrl);
    assert.equal(fresh.messages[0]?.type, "snapshot");
    const sent = await d.post("/api/agents/desk/panes/p2/send", { requestId: requestId("after-fuzz"), text: "hello again" });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));

    report("daemon-agent-replies-fuzz", {
      cases: ACTION_CASES, "agent-replies": writer.counts.write + writer.counts.read - before, crashes: uncaught.length,
      violations: [...violations.values()].reduce((s, v) => s + v.count, 0), held: d.daemon.held.count(), ms,
      statuses: [...statuses].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}:${v}`).join(","),
      "held-outcomes": live.of("held-outcome").length,
    });
    assert.equal(uncaught.length, 0, `uncaught: ${uncaught.map((e) => String((e as Error)?.stack ?? e)).join("\n")}`);
    assert.deepEqual([...violations].map(([k, v]) => `${v.count}× ${k} — e.g. ${v.example}`), []);
    assert.deepEqual(probe.failures.slice(0, 10), []);
    assert.deepEqual(probe.notReady.slice(0, 10), []);
  });
});
