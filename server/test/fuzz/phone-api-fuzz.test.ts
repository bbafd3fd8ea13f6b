/**
 * The phone API fuzzed (D-4, D-5, X-1, L-2): raw HTTP to the daemon with bodies of the wrong shape,
 * huge bodies, invalid JSON and UTF-8, bad request ids, hostile path parameters, wrong content
 * types and methods, missing or wrong device tokens, foreign hosts and origins; and garbage on the
 * WebSocket.
 *
 * Oracle, for every case: a reply within a deadline; a JSON body; a 4xx with a code the API
 * documents (docs/phone-api.md), or the 5xx Collie documents for an agent it cannot reach
 * (502/503), never a 500 and never a stack trace; an answer or message held (202) is counted,
 * and the held tables hold exactly those. After the cases: the snapshot is what it was, the fake agent
 * received the writes it was sent, a normal send works, and a new WebSocket gets its snapshot.
 *
 * Cases: FUZZ_CASES (default 10 000) HTTP requests plus a tenth as many WebSocket messages; seed
 * FUZZ_SEED.
 */
import assert from "node:assert/strict";
import { createECDH, randomBytes } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import { ACT_LIMITS, API_ERRORS, type Snapshot } from "@colliepwa/shared";
import { jsonDeeperThan } from "@colliepwa/shared/live";
import { MAX_BODY_DEPTH } from "../../src/routes/json-body.ts";
import { MESSAGE_CHECKERS, parseWith } from "@colliepwa/durable-sdk/wire";
import {
  clone, damageBytes, fuzzCases, garbageBody, hostileString, mutate, PROTO_KEYS, prototypeFingerprint, report, Rng, SEED,
  setOwn, STACK_TRACE,
} from "../../../sdk/test/helpers/fuzz.ts";
import { pool, rawRequest, RawHang, RawNoReply, requestBytes } from "../../../sdk/test/helpers/raw-http.ts";
import { checkSubscription, MAX_SUBSCRIPTIONS } from "../../src/push/subscriptions.ts";
import { publicOnly } from "../../src/push/endpoints.ts";
import { NO_NAMES } from "../helpers/resolver.ts";
import { closeAllDaemons, requestId, TestDaemon } from "../helpers/daemon.ts";
import { FakeAgent } from "../helpers/fake-agent.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";
import { oddForms } from "../helpers/odd-paths.ts";
import { readdirSync } from "node:fs";

/** The open file descriptors of this process, where the daemon under test runs. */
const openFiles = () => readdirSync("/proc/self/fd").length;

const CASES = fuzzCases(10_000);
const WS_CASES = Math.max(100, Math.ceil(CASES / 10));

/**
 * The codes Collie may answer: its whole catalog (shared API_ERRORS, one status each), and the fake
 * agent's own answer to a write, passed through as the agent said it (D-5).
 */
const DOCUMENTED: Record<string, readonly number[]> = {
  ...Object.fromEntries(Object.entries(API_ERRORS).map(([code, e]) => [code, [e.status]])),
  refused: [409],
};
const enc = (s: string): string => encodeURIComponent(s.toWellFormed());
const ASK_ID = "0123456789abcdef0123456789abcdef";
/** Valid wire ids at the ID rule's 128-byte limit (S-11): 384 characters once percent-encoded. */
const LONG_ID = "L".repeat(128);
const WIDE_ID = "é".repeat(64);
/** A well-formed push subscription's keys (P-256 public key, 16-byte secret), for the push routes (U-4). */
const P256DH = createECDH("prime256v1").generateKeys().toString("base64url");
const AUTH = randomBytes(16).toString("base64url");

describe("the phone API under hostile requests (D-4, X-1, L-2)", () => {
  const dir = tempDir();
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => void uncaught.push(err);
  const fingerprint = prototypeFingerprint();
  let d: TestDaemon;
  let fake: FakeAgent;
  let before0: Omit<Snapshot, "seq">;
  const writesSeen: { path: string; ok: boolean; why?: string; requestId?: string }[] = [];
  let host: string;

  before(async () => {
    process.on("uncaughtException", onUncaught);
    process.on("unhandledRejection", onUncaught);
    fake = new FakeAgent({ panes: ["f1", "f2", LONG_ID, WIDE_ID] });
    // Every write the daemon forwards must be a well-formed wire body; the agent refuses them all.
    fake.write = (path, body) => {
      let ok = false;
      let why = "";
      let requestId: string | undefined;
      try {
        const value = JSON.parse(body) as unknown;
        const id = (value as { requestId?: unknown } | null)?.requestId;
        if (typeof id === "string") requestId = id;
        const route = /\/answer$/.test(path) ? "AnswerBody" : /\/send$/.test(path) ? "SendBody" : /\/steer$/.test(path) ? "SteerBody"
          : /\/stop$/.test(path) ? "StopBody" : /\/actions\//.test(path) ? "ActionBody" : /\/rename$/.test(path) ? "RenameBody"
          : /\/close$/.test(path) ? "CloseBody" : /\/reopen$/.test(path) ? "ReopenBody" : "StarterBody";
        const parsed = parseWith(MESSAGE_CHECKERS[route], value);
        ok = parsed.ok || /\/answer$/.test(path); // an answer's shape is the agent's to judge (bad-request or invalid-answer)
        if (!parsed.ok) why = parsed.error;
      } catch (err) {
        why = String(err);
      }
      writesSeen.push({ path, ok, why, ...(requestId !== undefined ? { requestId } : {}) });
      return { status: 409, body: { error: "refused", message: "The fuzz agent takes nothing.", reason: "fuzz" } };
    };
    await fake.listen({ socket: join(dir, "fake.sock") });
    d = await TestDaemon.start({
      sources: {
        fixed: [
          { name: "f", endpoint: { kind: "socket", path: join(dir, "fake.sock") }, key: "f" },
          { name: "down", endpoint: { kind: "socket", path: join(dir, "nobody.sock") }, key: "down" },
        ],
      },
    });
    await d.waitState("f", "ready");
    await d.waitState("down", "unreachable");
    host = `127.0.0.1:${d.port}`;
    const { seq: _s, ...rest } = await d.snapshot();
    before0 = rest;
  });

  after(async () => {
    process.off("uncaughtException", onUncaught);
    process.off("unhandledRejection", onUncaught);
    await closeAllLive();
    await closeAllDaemons();
    await fake?.close();
    removeTempDirs();
  });

  test(`${CASES} hostile HTTP requests: documented 4xx (or Collie's documented 5xx for an agent it cannot reach), never a 500 or a stack trace`, { timeout: 120_000 + CASES * 10 }, async () => {
    const rng = new Rng(SEED ^ 0x9a0e);
    const violations = new Map<string, { count: number; example: string }>();
    const byCode = new Map<string, number>();
    const heldIds = new Set<string>();
    let hangs = 0;
    let oddUnpaired = 0;
    const fdsBefore = openFiles();
    const bad = (kind: string, example: string) => {
      const v = violations.get(kind);
      if (v) v.count++;
      else violations.set(kind, { count: 1, example });
    };
    const agentName = () => rng.weighted<string>([[10, "f"], [3, "down"], [1, "nobody"], [1, rng.pick(PROTO_KEYS)], [1, hostileString(rng, 300)]]);
    const paneName = () => rng.weighted<string>([[10, "f1"], [1, "nope"], [1, rng.pick(PROTO_KEYS)], [1, hostileString(rng, 600)]]);
    const rid = () => rng.weighted<unknown>([[10, requestId("fz")], [1, ""], [1, "x".repeat(129)], [1, "a b"], [1, "a/b"], [1, "a\u202eb"], [1, "a\u0000b"], [1, 42], [1, null], [1, ["r"]], [1, hostileString(rng, 300)]]);
    const turn = () => rng.pick<unknown>([null, "t-1", "", 5, "x".repeat(600), hostileString(rng, 100)]);
    const target = () => rng.pick<unknown>([{ kind: "pane", id: "f1" }, { kind: "tab", id: "w:t" }, { kind: "workspace", id: "w" }, { kind: "nope", id: "x" }, { kind: "pane" }, "f1", null]);

    const makeCase = (): { method: string; path: string; headers: Record<string, string | Buffer>; body?: Buffer; what: string; unpairedOdd: boolean } => {
      const a = enc(agentName());
      const p = enc(paneName());
      const route = rng.pick(["answer", "send", "steer", "stop", "action", "rename", "close", "reopen", "starter", "snapshot", "agents", "health", "pane", "history", "historyItems", "starters", "me", "pair", "unknown", "live", "pushKey", "pushSubscribe", "pushUnsubscribe"] as const);
      const endpoint = () => rng.weighted<unknown>([
        [10, `https://push.invalid/send/${rng.range(0, 200)}`], [2, "http://push.invalid/x"], [1, "https://user:pw@push.invalid/x"],
        [1, "javascript:alert(1)//"], [1, "not a url at all"], [1, "https://"], [1, `https://push.invalid/${"x".repeat(3000)}`],
        [1, hostileString(rng, 300)], [1, ""], [1, 5], [1, null],
      ]);
      const templates: Record<string, [string, string, Record<string, unknown> | undefined]> = {
        answer: ["POST", `/api/agents/${a}/panes/${p}/asks/${rng.chance(0.8) ? ASK_ID : enc(hostileString(rng, 100))}/answer`, { requestId: rid(), revision: rng.pick(["0123456789abcdef", "nothex", ""]), answer: rng.pick<unknown>([{ kind: "permission", optionId: "allow" }, { kind: "x" }, {}, null, "allow", { kind: "form", values: { __proto__: 1 } }]) }],
        send: ["POST", `/api/agents/${a}/panes/${p}/send`, { requestId: rid(), text: rng.pick<unknown>(["hi", "", "x".repeat(16_385), hostileString(rng, 20_000), 1, null]) }],
        steer: ["POST", `/api/agents/${a}/panes/${p}/steer`, { requestId: rid(), text: "steer", turnId: turn() }],
        stop: ["POST", `/api/agents/${a}/panes/${p}/stop`, { requestId: rid(), turnId: turn() }],
        action: ["POST", `/api/agents/${a}/panes/${p}/actions/${enc(rng.pick(["go", hostileString(rng, 200)]))}`, { requestId: rid(), turnId: turn() }],
        rename: ["POST", `/api/agents/${a}/rename`, { requestId: rid(), target: target(), title: rng.pick<unknown>(["T", "", "x".repeat(1025), hostileString(rng, 2000)]) }],
        close: ["POST", `/api/agents/${a}/close`, { requestId: rid(), target: target() }],
        reopen: ["POST", `/api/agents/${a}/reopen`, { requestId: rid(), target: target() }],
        starter: ["POST", `/api/agents/${a}/starters/${enc(rng.pick(["s1", hostileString(rng, 200)]))}`, { requestId: rid() }],
        snapshot: ["GET", "/api/snapshot", undefined],
        agents: ["GET", "/api/agents", undefined],
        health: ["GET", "/api/health", undefined],
        me: ["GET", "/api/me", undefined],
        pane: ["GET", `/api/agents/${a}/panes/${p}`, undefined],
        history: ["GET", `/api/agents/${a}/history?${rng.pick(["", "limit=5", "limit=abc", `after=${enc(hostileString(rng, 600))}`, "limit=-1&after=", "limit=99999999999999999999"])}`, undefined],
        historyItems: ["GET", `/api/agents/${a}/history/${p}/items?limit=${rng.pick(["1", "x", "-5"])}`, undefined],
        starters: ["GET", `/api/agents/${a}/starters`, undefined],
        pair: ["POST", "/api/pair", { code: rng.pick<unknown>(["000000", "", "x".repeat(40), 5, null]), name: rng.pick<unknown>(["phone", hostileString(rng, 300), 1]) }],
        unknown: [rng.pick(["GET", "POST", "PUT", "DELETE", "PATCH"]), `/api/${enc(hostileString(rng, 100))}${rng.pick(["", "/x", "?a=1"])}`, rng.chance(0.5) ? { requestId: rid() } : undefined],
        pushKey: ["GET", "/api/push/key", undefined],
        pushSubscribe: ["POST", "/api/push/subscriptions", {
          subscription: {
            endpoint: endpoint(),
            ...(rng.chance(0.3) ? { expirationTime: rng.pick<unknown>([null, 0, -1, 1e308, "soon"]) } : {}),
            keys: {
              p256dh: rng.weighted<unknown>([[10, P256DH], [1, P256DH.replace(/^./, "A")], [1, "A".repeat(87)], [1, "AAAA"], [1, "+/+/".repeat(22)], [1, hostileString(rng, 90)], [1, 1]]),
              auth: rng.weighted<unknown>([[10, AUTH], [1, "AAAAAAAAAAAAAAAAAAAAAAAAAAA"], [1, "short"], [1, hostileString(rng, 20)], [1, null]]),
            },
          },
          ...(rng.chance(0.2) ? { replaces: endpoint() } : {}),
        }],
        pushUnsubscribe: ["DELETE", "/api/push/subscriptions", { endpoint: endpoint() }],
        live: ["GET", `/api/live?since=${rng.pick(["", "-1", "x", "1e400", String(Date.now() * 1000)])}`, undefined],
      };
      let [method, path, value] = templates[route]!;
      const headers: Record<string, string | Buffer> = { Host: host };
      // The gate (X-1): a paired device, this Collie's host, its own origin.
      if (rng.chance(0.93)) headers.Authorization = rng.weighted<string>([[40, `Bearer ${d.token}`], [1, "Bearer wrong"], [1, `Bearer ${d.token}x`], [1, "Basic x"], [1, ""]]);
      if (rng.chance(0.03)) headers.Host = rng.pick(["evil.example", "127.0.0.1", "localhost:1", "127.0.0.1:99999", "[::1]:x", ""]);
      if (rng.chance(0.05)) headers.Origin = rng.pick([`http://${host}`, "http://evil.example", "null", "file://", `http://${host}.evil`, "%%%"]);
      if (rng.chance(0.02)) headers.Cookie = rng.pick([`collie_device=${d.token}`, "collie_device=", "collie_device=x; a=b", "=;;="]);
      let body: Buffer | undefined;
      let what: string = route;
      if (value !== undefined || (method !== "GET" && rng.chance(0.5))) {
        const kind = rng.weighted<string>([[50, "mutated"], [15, "valid"], [15, "garbage"], [10, "damaged"], [5, "huge"], [5, "empty"]]);
        what = `${route} ${kind}`;
        if (kind === "garbage") body = garbageBody(rng);
        else if (kind === "huge") body = Buffer.from(JSON.stringify({ ...(value ?? {}), pad: "x".repeat(rng.pick([262_000, 300_000, 2_000_000])) }));
        else if (kind === "empty") body = Buffer.alloc(0);
        else {
          let v: unknown = clone(value ?? {});
          if (kind !== "valid") for (let i = rng.range(1, 3); i > 0; i--) v = mutate(rng, v);
          if (rng.chance(0.05) && v !== null && typeof v === "object") setOwn(v as Record<string, unknown>, rng.pick(PROTO_KEYS), { polluted: true });
          const text = JSON.stringify(v) ?? "null";
          body = kind === "damaged" ? damageBytes(rng, text) : Buffer.from(text);
        }
        headers["Content-Type"] = rng.weighted<string>([[20, "application/json"], [1, "text/plain"], [1, "application/json; charset=utf-16"], [1, "multipart/form-data; boundary=x"], [1, "application/x-www-form-urlencoded"], [1, ""]]);
        if (headers["Content-Type"] === "") delete headers["Content-Type"];
        if (rng.chance(0.02)) method = rng.pick(["GET", "PUT", "DELETE"]);
      }
      // The gate decides on the matched route (X-1): the same route spelled oddly (`/%61pi/…`,
      // `//api/…`, `/api;x/…`, the absolute form …) must get no further than the plain spelling.
      let odd = false;
      if (rng.chance(0.08)) {
        const [bare, query] = [path.split("?")[0]!, path.includes("?") ? `?${path.split("?").slice(1).join("?")}` : ""];
        path = rng.pick(oddForms(bare, `http://${host}`)) + query;
        what = `${what} odd-path`;
        odd = true;
      }
      if (rng.chance(0.02)) path = path.replace(/\/[^/?]*(\?|$)/, rng.pick(["/%", "/%E0%A4%A", "/%zz", "/%2F%2F", "/..%2F..%2F"]) + "$1");
      if (rng.chance(0.01)) path = `${path}${"/x".repeat(rng.pick([100, 5000]))}`;
      const paired = headers.Authorization === `Bearer ${d.token}` || headers.Cookie === `collie_device=${d.token}`;
      return { method, path, headers, ...(body !== undefined ? { body } : {}), what, unpairedOdd: odd && !paired && route !== "health" && route !== "pair" };
    };

    const started = Date.now();
    const cases = function* () {
      for (let n = 0; n < CASES; n++) yield { n, c: makeCase() };
    };
    await pool(cases(), 8, async ({ n, c }) => {
      let reply;
      try {
        reply = await rawRequest({ port: d.port }, requestBytes(c.method, c.path, c.headers, c.body), 15_000);
      } catch (err) {
        if (err instanceof RawHang) hangs++;
        if (err instanceof RawHang || err instanceof RawNoReply) return bad(`${c.what}: ${err.name}`, `case ${n} ${c.method} ${c.path.slice(0, 100)}: ${err.message}`);
        throw err;
      }
      const { status, text } = reply;
      const example = `case ${n} ${c.method} ${c.path.slice(0, 100)} → ${status} ${text.slice(0, 200)}`;
      if (STACK_TRACE.test(text)) return bad(`${c.what}: a stack trace`, example);
      if (status === 500) return bad(`${c.what}: 500`, example);
      if (status === 101) return bad(`${c.what}: an upgrade without asking`, example);
      if (c.unpairedOdd) oddUnpaired++;
      if (c.unpairedOdd && status < 400) return bad(`${c.what}: an oddly spelled path passed the gate without a device (${status})`, example);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // The app's pages for a path outside /api (a climbing path can leave it): not the API's concern.
        if (!/^\/api(\/|$|\?)/.test(decodeURIComponent(c.path.split("?")[0]!.replace(/%(?![0-9a-f]{2})/gi, "%25")))) return;
        return bad(`${c.what}: not JSON (${status})`, example);
      }
      if (status >= 200 && status < 300) {
        byCode.set(String(status), (byCode.get(String(status)) ?? 0) + 1);
        if (status === 202 && body.held === true) {
          // Collie's JSON parser takes a body that starts with a byte order mark, as JSON.parse does not.
          // As the route read it: Fastify's schema coerces a number to its text (1 and "1" are one hold).
          const id = (JSON.parse(c.body!.toString("utf8").replace(/^\uFEFF/, "")) as { requestId: unknown }).requestId;
          heldIds.add(String(id));
        }
        return;
      }
      const code = body.error;
      if (typeof code !== "string" || typeof body.message !== "string") return bad(`${c.what}: not {error, message} (${status})`, example);
      byCode.set(`${status} ${code}`, (byCode.get(`${status} ${code}`) ?? 0) + 1);
      const allowed = DOCUMENTED[code];
      if (!allowed) return bad(`${c.what}: undocumented code ${code} (${status})`, example);
      if (!allowed.includes(status)) return bad(`${c.what}: ${code} with status ${status}`, example);
    });
    const ms = Date.now() - started;

    // Nothing changed: the same snapshot; the agent got only well-formed writes; the held answers are exactly the 202s.
    const { seq: _s, ...now } = await d.snapshot();
    assert.deepEqual(now, before0, "the snapshot changed under the fuzz");
    // Collie's schemas are looser than the wire's ID rule (a C1 control or a space in a turn id
    // passes them): such a write goes to the agent, whose validators answer 400 bad-request, and
    // that reaches the phone as it is. Counted, not refused here.
    const malformed = writesSeen.filter((w) => !w.ok);
    // Every write answered 202 is still held, or was delivered meanwhile: a write to the reachable
    // agent held because its reply was late (a loaded machine) is handed to it once it answers
    // again, and leaves the store then. Nothing else is held.
    const stillHeld = [...heldIds].filter((id) => d.daemon.held.get("f", id) ?? d.daemon.held.get("down", id));
    const delivered = new Set(writesSeen.flatMap((w) => (w.requestId !== undefined ? [w.requestId] : [])));
    assert.deepEqual([...heldIds].filter((id) => !stillHeld.includes(id) && !delivered.has(id)), [], "a write answered 202 is held or delivered");
    assert.equal(d.daemon.held.count(), stillHeld.length, "held answers and messages are exactly the writes answered 202");
    assert.equal(prototypeFingerprint(), fingerprint, "Object.prototype was polluted");
    // Push (U-4): only well-formed subscriptions were kept, never more than the cap.
    const subscriptions = d.daemon.push!.subscriptions.all();
    assert.ok(subscriptions.length <= MAX_SUBSCRIPTIONS, `${subscriptions.length} subscriptions kept`);
    for (const sub of subscriptions) assert.doesNotThrow(() => checkSubscription(sub, publicOnly(NO_NAMES)), `kept ${sub.endpoint.slice(0, 80)}`);
    fake.write = () => ({ status: 200, body: { ok: true, turnId: "t-1" } });
    const sent = await d.post("/api/agents/f/panes/f1/send", { requestId: requestId("after"), text: "after the fuzz" });
    assert.deepEqual(sent, { status: 200, body: { ok: true, turnId: "t-1" } });
    // Panes whose ids are at the ID rule's limit are reachable (their encoded ids are long).
    for (const id of [LONG_ID, WIDE_ID]) {
      assert.equal((await d.get(`/api/agents/f/panes/${encodeURIComponent(id)}`)).status, 200, `pane ${id}`);
      assert.equal((await d.post(`/api/agents/f/panes/${encodeURIComponent(id)}/send`, { requestId: requestId("long"), text: "hi" })).status, 200);
    }

    // Every connection the fuzz opened is gone again: none is left open on Collie's side (the
    // sockets issue: a refused upgrade used to stay in CLOSE-WAIT for good).
    await until(() => openFiles() <= fdsBefore, () => `open files ${openFiles()} > ${fdsBefore} before the fuzz`);
    report("phone-api-fuzz", {
      cases: CASES, "odd-paths-unpaired": oddUnpaired, "open-files": `${fdsBefore}→${openFiles()}`, crashes: uncaught.length, hangs, violations: [...violations.values()].reduce((s, v) => s + v.count, 0),
      "push-subscriptions-kept": subscriptions.length, forwarded: writesSeen.length, "forwarded-for-the-agent-to-refuse": malformed.length, held: heldIds.size, ms,
      codes: [...byCode].sort((x, y) => y[1] - x[1]).slice(0, 16).map(([k, v]) => `${k.replace(" ", "/")}:${v}`).join(","),
    });
    assert.equal(uncaught.length, 0, `uncaught: ${uncaught.map((e) => String((e as Error)?.stack ?? e)).join("\n")}`);
    assert.deepEqual([...violations].map(([k, v]) => `${v.count}× ${k} — e.g. ${v.example}`), []);
  });

  test(`${WS_CASES} hostile WebSocket messages: the socket survives or closes cleanly, Collie stays up`, { timeout: 120_000 + WS_CASES * 20 }, async () => {
    const rng = new Rng(SEED ^ 0x3e5);
    let closedCleanly = 0;
    let sent = 0;
    const open = () => new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`${d.wsUrl}/api/live`, { headers: { authorization: `Bearer ${d.token}` } });
      ws.once("open", () => resolve(ws));
      ws.once("error", reject);
    });
    // Acts (docs/phone-api.md "Actions on the live socket"): every reply Collie sends to one is a
    // documented one, as a POST's is; never a 500 or a stack trace.
    let acts = 0;
    let actReplies = 0;
    const actViolations: string[] = [];
    const listen = (socket: WebSocket) => socket.on("message", (data) => {
      const text = String(data);
      let m: { type?: unknown; status?: unknown; body?: { error?: unknown } };
      try {
        m = JSON.parse(text) as typeof m;
      } catch {
        return void actViolations.push(`not JSON: ${text.slice(0, 200)}`);
      }
      if (m.type !== "act-reply") return;
      actReplies++;
      replied((m as { id: number }).id);
      const status = m.status as number;
      const code = m.body?.error;
      if (STACK_TRACE.test(text)) actViolations.push(`a stack trace: ${text.slice(0, 200)}`);
      else if (status === 500) actViolations.push(`500: ${text.slice(0, 200)}`);
      else if (status >= 400 && !(typeof code === "string" && DOCUMENTED[code]?.includes(status))) actViolations.push(`undocumented ${status}: ${text.slice(0, 200)}`);
    });
    const actPaths = [
      `/api/agents/f/panes/f1/asks/${ASK_ID}/answer`, "/api/agents/f/panes/f1/send", "/api/agents/f/panes/f1/stop", "/api/agents/f/panes/f1/actions/go",
      "/api/agents/down/panes/f1/send", `/api/agents/nobody/panes/f1/asks/${ASK_ID}/answer`, "/api/agents/f/rename", "/api/agents/f/starters/s",
    ];
    const actBodies = [
      { requestId: "r", revision: "0123456789abcdef", answer: { kind: "permission", optionId: "allow" } },
      { requestId: "r", text: "hello" }, { requestId: "r", turnId: null },
      { requestId: "r", target: { kind: "pane", id: "f1" }, title: "t" },
    ];
    /** The act whose reply the loop waits for before it sends on (a phone has a few waiting, not hundreds). */
    let awaited: number | null = null;
    const act = (): string => {
      const path = rng.chance(0.85) ? rng.pick(actPaths) : `/api/agents/${rng.pick([enc(hostileString(rng, 200)), "f", "%zz", "f/../f"])}/panes/${enc(hostileString(rng, 100))}/${rng.pick(["send", "stop", "x", `asks/${ASK_ID}/answer`])}`;
      const mutated = mutate(rng, clone(rng.pick(actBodies)));
      const body = mutated !== null && typeof mutated === "object" && !Array.isArray(mutated) ? { ...(mutated as Record<string, unknown>) } : {};
      if (rng.chance(0.7)) body.requestId = requestId("fz");
      const id = acts++;
      const frame: Record<string, unknown> = { type: "act", id, path, body };
      if (rng.chance(0.1)) return JSON.stringify(mutate(rng, frame)) ?? "null";
      // Only an act of the contract is answered (a hostile path may run past its length, a
      // mutated body nest deeper than a POST's may).
      const text = JSON.stringify(frame);
      if (path.length <= ACT_LIMITS.pathChars && !jsonDeeperThan(text, MAX_BODY_DEPTH + 1)) awaited = id;
      return text;
    };
    let replied: (id: number) => void = () => {};
    let ws = await open();
    listen(ws);
    for (let i = 0; i < WS_CASES; i++) {
      if (ws.readyState !== WebSocket.OPEN) {
        closedCleanly++;
        ws = await open();
        listen(ws);
      }
      awaited = null;
      const msg = rng.weighted<() => string | Buffer>([
        [5, () => JSON.stringify({ type: "watch", agent: rng.pick(["f", "down", hostileString(rng, 300)]), pane: rng.pick(["f1", hostileString(rng, 600)]) })],
        [2, () => JSON.stringify({ type: "unwatch", agent: "f", pane: "f1" })],
        [3, () => { let v: unknown = { type: "watch", agent: "f", pane: "f1" }; v = mutate(rng, v); return JSON.stringify(v) ?? "null"; }],
        [3, () => garbageBody(rng).subarray(0, rng.chance(0.9) ? 60_000 : 70_000)],
        [1, () => `{"__proto__":{"polluted":true},"type":"watch","agent":"f","pane":"f1"}`],
        [1, () => Buffer.from([0xff, 0xfe, 0x00])],
        [6, act],
        [1, () => `{"type":"act","id":${acts++},"path":"/api/agents/f/panes/f1/send","body":{"__proto__":{"polluted":true},"requestId":"${requestId("fz")}","text":"x"}}`],
      ])();
      const message = msg;
      const id = awaited as number | null;
      const answered = id === null ? null : new Promise<void>((resolve) => {
        const socket = ws;
        const done = () => {
          clearTimeout(timer);
          socket.off("close", done);
          replied = () => {};
          resolve();
        };
        const timer = setTimeout(done, 5000);
        replied = (r) => r === id && done();
        socket.once("close", done);
      });
      await new Promise<void>((resolve) => ws.send(message, () => resolve()));
      if (answered) await answered;
      sent++;
    }
    const gone = new Promise((r) => ws.once("close", r));
    ws.close();
    await gone;
    const fresh = await LiveClient.connect(d.wsUrl);
    assert.equal(fresh.messages[0]?.type, "snapshot");
    fresh.send({ type: "watch", agent: "f", pane: "f1" });
    await fresh.waitFor((m) => m.type === "view" && m.paneId === "f1", "a view of f1");
    assert.equal((await d.get("/api/health")).status, 200);
    assert.equal(prototypeFingerprint(), fingerprint, "Object.prototype was polluted");
    report("phone-live-fuzz", { cases: sent, crashes: uncaught.length, "closed-by-collie": closedCleanly, acts, "act-replies": actReplies });
    assert.equal(uncaught.length, 0, `uncaught: ${uncaught.map(String).join("\n")}`);
    assert.deepEqual(actViolations.slice(0, 5), []);
    assert.ok(actReplies > 0, "no act was answered");
  });
});
