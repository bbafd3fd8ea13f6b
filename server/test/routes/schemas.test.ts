/**
 * The phone API's schema table (`@colliepwa/shared/schemas`) as Fastify uses it: a reply's schema
 * never changes what is sent. For every route, a reply with every optional field, extra properties
 * on every object and wire objects with fields Collie does not name goes through the route's own
 * reply serializer (fast-json-stringify, which drops what a schema does not allow) and comes out
 * the same; so do error bodies with the wire's extras. And the table covers exactly PHONE_ROUTES.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify from "fastify";
import { PHONE_ROUTES, type PhoneRouteName } from "@colliepwa/shared";
import { PHONE_SCHEMAS } from "@colliepwa/shared/schemas";

const AT = "2026-12-02T14:00:00.000Z";
/** A wire object as the SDK's checkers pass it: fields Collie's schemas never name, nested. */
const wireObject = (id: string) => ({ id, kind: "reply", text: "hi", partial: true, at: AT, nested: { deep: [1, { x: null }] }, future: "field" });
const conversation = { ...wireObject("p1"), agent: "desk", workspaceTitle: "W", pendingQuestion: "Allow?", progress: { kind: "steps", current: 1, total: 3, label: "l" } };
const agent = {
  name: "desk", state: "unreachable", reach: "remote", runtime: "node 22", selfName: "bot", machine: "m1",
  caps: { asks: true, send: false, terminal: false, later: 1 }, wire: { agent: 1, collie: 1, extra: "w" },
  counts: { open: 3, waiting: 1, extra: 2 }, notShown: 7, problem: "down", later: { a: 1 },
};
const agentNulls = { ...agent, runtime: null, selfName: null, machine: null, caps: null, wire: { agent: null, collie: 1 } };
const decision = { askId: "a1", paneId: "p1", itemId: "i1", kind: "permission", title: "T", tool: "refund", optionKind: "allow", device: "Pixel", at: AT, later: true };
const errorBody = { error: "refused", message: "No.", reason: "why", revision: "0123456789abcdef", speaks: [1], later: { a: 1 } };

/** Every route's 2xx replies, each with every optional field and more. */
const REPLIES: Record<PhoneRouteName, Record<number, unknown>> = {
  health: { 200: { ok: true, later: 1 } },
  me: { 200: { paired: true, device: { id: "d1", name: "Pixel", later: 1 } } },
  pair: { 200: { paired: true, device: null, later: 1 } },
  snapshot: { 200: { seq: 5, collie: { version: "0.1.0", wire: 1, later: 1 }, agents: [agent, agentNulls], conversations: [conversation], later: 1 } },
  agents: { 200: { agents: [agent, agentNulls], later: 1 } },
  live: {},
  conversations: { 200: { conversations: [conversation], next: "100", later: 1 } },
  pane: { 200: { conversation, items: [wireObject("i1"), wireObject("i2")], itemsCut: true, asks: [{ ...wireObject("a1"), kind: "permission", options: [{ id: "o", kind: "allow", label: "Allow" }] }], decisions: [decision], later: 1 } },
  alwaysAllowed: { 200: { tools: [{ tool: "refund", device: "Pixel", at: AT, later: 1 }], later: 1 } },
  history: { 200: { rows: [{ ...wireObject("s1"), subtitle: "s", workspaceId: "w", tabId: "t", endedAt: AT }], next: "c2", later: 1 } },
  historyItems: { 200: { items: [wireObject("i1")], next: "c3", later: 1 } },
  starters: { 200: { starters: [{ id: "go", title: "Go", subtitle: "s", icon: "play", later: 1 }], later: 1 } },
  answer: { 200: { ok: true, replayed: true, decidedAt: AT, later: 1 }, 202: { held: true, later: 1 } },
  send: { 200: { ok: true, replayed: true, turnId: "t-1", later: 1 }, 202: { held: true } },
  steer: { 200: { ok: true, turnId: "t-1" }, 202: { held: true } },
  stop: { 200: { ok: true }, 202: { held: true } },
  action: { 200: { ok: true, turnId: "t-1", paneId: "p9" }, 202: { held: true } },
  rename: { 200: { ok: true }, 202: { held: true } },
  close: { 200: { ok: true, replayed: true }, 202: { held: true } },
  reopen: { 200: { ok: true, paneId: "p2" }, 202: { held: true } },
  starter: { 200: { ok: true, paneId: "p3", turnId: "t-2", later: 1 }, 202: { held: true } },
  pushKey: { 200: { publicKey: "BAbc", later: 1 } },
  pushSubscribe: { 200: { ok: true, replaced: false, later: 1 }, 201: { ok: true, replaced: true } },
  pushUnsubscribe: { 200: { removed: true, later: 1 } },
  crewHello: { 200: { crew: 1, collie: "0.1.0", later: 1 } },
  crewJoin: { 200: { joined: true, crew: 1, device: { id: "d1", name: "lead", later: 1 }, token: "tok", later: 1 } },
};

test("the schema table covers exactly the phone route table", () => {
  assert.deepEqual(Object.keys(PHONE_SCHEMAS).sort(), Object.keys(PHONE_ROUTES).sort());
});

test("a reply with every optional field, extra properties and whole wire objects survives its route's serializer", async () => {
  const app = Fastify();
  const cases: { url: string; status: number; body: unknown }[] = [];
  for (const [name, replies] of Object.entries(REPLIES) as [PhoneRouteName, Record<number, unknown>][]) {
    const response = PHONE_SCHEMAS[name].response as Record<string, unknown>;
    for (const status of Object.keys(response).filter((s) => /^2\d\d$/.test(s))) {
      assert.ok(replies[Number(status)] !== undefined, `a sample for ${name} ${status}`);
    }
    for (const [status, body] of [...Object.entries(replies), ["404", errorBody], ["503", errorBody]] as [string, unknown][]) {
      const url = `/${name}/${status}`;
      cases.push({ url, status: Number(status), body });
      app.get(url, { schema: { response } }, async (_req, reply) => reply.code(Number(status)).send(body));
    }
  }
  await app.ready();
  for (const c of cases) {
    const r = await app.inject({ method: "GET", url: c.url });
    assert.equal(r.statusCode, c.status, c.url);
    assert.deepEqual(JSON.parse(r.body), c.body, c.url);
  }
  await app.close();
});
