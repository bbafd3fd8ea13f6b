/**
 * What a push says (U-2): `Permission needed in <pane>`, with the agent's own title added, the
 * agent's line else the ask's title, masked before it is cut; the data that opens the right
 * card; a Topic Apple accepts; the TTL of an ask.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { STRINGS } from "@colliepwa/shared";
import { mask, MASK } from "../../src/push/mask.ts";
import {
  ACTION_TITLE_MAX, agentTag, askAnswers, askPayload, askTopic, askTtlSeconds, clearPayload, cut, DEFAULT_ASK_TTL_S, manyAsksPayload,
  manyAsksTopic, PAYLOAD_MAX_BYTES, safeTopic, withAnswers,
} from "../../src/push/payload.ts";

const ask = (over: Record<string, unknown> = {}) => ({ id: "a1b2", title: "refund wants to run", ...over });
const base = { agent: "desk", machine: null, paneId: "ticket-5521", paneTitle: "Maria Lopez", mask };

describe("the ask's push (U-2)", () => {
  test("Permission needed in <pane>, the ask's title as the body, and where a tap goes", () => {
    const p = askPayload({ ...base, ask: ask() });
    assert.deepEqual(p, {
      v: 1, type: "ask", tag: "collie:desk", agent: "desk", machine: null,
      title: "Permission needed in Maria Lopez", body: "refund wants to run",
      paneId: "ticket-5521", askId: "a1b2", url: "/#/agent/desk/pane/ticket-5521/ask/a1b2",
    });
    assert.equal(p.title, STRINGS.permissionNeededIn("Maria Lopez"));
  });
  test("the agent's own title is added to Collie's, never in its place (≤ 60); its line (≤ 120) is the body", () => {
    const p = askPayload({ ...base, ask: ask({ push: { title: "Refund for Maria?", line: "refund needs a yes" } }) });
    assert.equal(p.title, "Permission needed in Maria Lopez · Refund for Maria?");
    assert.ok(p.title.startsWith(STRINGS.permissionNeededIn("Maria Lopez")));
    assert.equal(p.body, "refund needs a yes");
    const long = askPayload({ ...base, ask: ask({ push: { title: "T".repeat(80), line: "L".repeat(200) } }) });
    assert.equal(long.title, `Permission needed in Maria Lopez · ${"T".repeat(59)}…`);
    assert.equal([...long.body].length, 120);
    assert.ok(long.body.endsWith("…"));
    // A long pane name is cut on its own; the agent's title still follows it.
    const both = askPayload({ ...base, paneTitle: "x".repeat(300), ask: ask({ push: { title: "Refund for Maria?" } }) });
    assert.equal(both.title, `${STRINGS.permissionNeededIn("x".repeat(300)).slice(0, 79)}… · Refund for Maria?`);
  });
  test("a line without a title keeps Collie's title; empty ones fall back", () => {
    const p = askPayload({ ...base, ask: ask({ push: { line: "refund needs a yes" } }) });
    assert.equal(p.title, "Permission needed in Maria Lopez");
    assert.equal(p.body, "refund needs a yes");
    const blank = askPayload({ ...base, ask: ask({ push: { title: "  ", line: "" } }) });
    assert.equal(blank.title, "Permission needed in Maria Lopez");
    assert.equal(blank.body, "refund wants to run");
  });
  test("an unnamed pane reads Untitled conversation; a long one is cut", () => {
    assert.equal(askPayload({ ...base, paneTitle: "", ask: ask() }).title, `Permission needed in ${STRINGS.untitledConversation}`);
    const t = askPayload({ ...base, paneTitle: "x".repeat(300), ask: ask() }).title;
    assert.equal([...t].length, 80);
  });
  test("title and body are masked before they are cut, so no half secret survives", () => {
    const key = "sk-proj-4fT9xQ2mL7vB1nR8kW3zY6hJ0cD5eA";
    const p = askPayload({ ...base, paneTitle: `Deploy ${key}`, ask: ask({ push: { line: `use ${key} to deploy ${"x".repeat(120)}` } }) });
    assert.ok(!p.title.includes("4fT9") && p.title.includes(`sk-p${MASK}`));
    assert.ok(!p.body.includes("4fT9") && p.body.startsWith(`use sk-p${MASK}`));
    const own = askPayload({ ...base, ask: ask({ push: { title: `token=Zx81Lm9qWw` } }) });
    assert.equal(own.title, `Permission needed in Maria Lopez · token=${MASK.repeat(10)}`);
  });
  test("masking off leaves the text", () => {
    const key = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    assert.equal(askPayload({ ...base, mask: (s) => s, ask: ask({ title: key }) }).body, key);
  });
  test("text is one line", () => {
    assert.equal(askPayload({ ...base, paneTitle: "Maria\nLopez", ask: ask({ title: "a\tb\u0007c" }) }).body, "a b c");
  });
  test("ids are encoded into the url; a crew member's agent carries its machine", () => {
    const p = askPayload({ ...base, machine: "workshop", paneId: "a/b c", ask: ask({ id: "x#y" }) });
    assert.equal(p.url, "/#/agent/desk/pane/a%2Fb%20c/ask/x%23y");
    assert.equal(p.tag, "collie:workshop/desk");
    assert.equal(p.machine, "workshop");
  });
});

describe("the many-asks push and the clear push", () => {
  test("A durable agent on {host} is raising many asks, to the agent's home", () => {
    const p = manyAsksPayload({ agent: "desk", machine: null, host: "studio", mask });
    assert.equal(p.title, "A durable agent on studio is raising many asks");
    assert.equal(p.title, STRINGS.manyAsks("studio"));
    assert.equal(p.type, "many-asks");
    assert.equal(p.tag, "collie:desk");
    assert.equal(p.url, "/#/agent/desk");
    assert.ok(p.body.length > 0 && p.body.length <= 120);
  });
  test("clear names the tag and the ask", () => {
    assert.deepEqual(clearPayload({ agent: "desk", machine: null, paneId: "p1", askId: "a1" }), {
      v: 1, type: "clear", tag: "collie:desk", agent: "desk", machine: null, paneId: "p1", askId: "a1",
    });
    assert.equal(agentTag(null, "desk"), agentTag(null, "desk"));
    assert.notEqual(agentTag("workshop", "desk"), agentTag(null, "desk"));
  });
});

describe("Topic and TTL", () => {
  test("a Topic Apple accepts: ≤ 32 URL-safe base64 characters, length not 1 mod 4", () => {
    for (let i = 0; i < 2000; i++) {
      for (const t of [safeTopic(`seed-${i}`), askTopic(i % 2 ? null : "m", `agent-${i}`, `ask-${i}`), manyAsksTopic(null, `a${i}`)]) {
        assert.match(t, /^[A-Za-z0-9_-]{1,32}$/);
        assert.notEqual(t.length % 4, 1, t);
      }
    }
  });
  test("an ask's push and its clear share a topic; different asks do not", () => {
    assert.equal(askTopic(null, "desk", "a1"), askTopic(null, "desk", "a1"));
    assert.notEqual(askTopic(null, "desk", "a1"), askTopic(null, "desk", "a2"));
    assert.notEqual(askTopic(null, "desk", "a1"), askTopic("m", "desk", "a1"));
  });
  test("TTL: until the ask expires, else the default; 0 once expired", () => {
    const now = Date.parse("2026-12-02T14:00:00Z");
    assert.equal(askTtlSeconds({}, now), DEFAULT_ASK_TTL_S);
    assert.equal(askTtlSeconds({ expiresAt: "2026-12-02T14:02:00.000Z" }, now), 120);
    assert.equal(askTtlSeconds({ expiresAt: "2026-12-02T13:59:00.000Z" }, now), 0);
    assert.equal(askTtlSeconds({ expiresAt: "2027-12-02T14:00:00.000Z" }, now), DEFAULT_ASK_TTL_S);
  });
  test("cut counts characters and marks the cut", () => {
    assert.equal(cut("abc", 3), "abc");
    assert.equal(cut("abcd", 3), "ab…");
    assert.equal(cut("😀😀😀😀", 3), "😀😀…");
  });
});

describe("answering from the notification (issue 30)", () => {
  const REV = "0123456789abcdef";
  const permission = (options: { id: string; kind: string; label: string }[], over: Record<string, unknown> = {}) =>
    ask({ kind: "permission", revision: REV, tool: { name: "refund", call: "refund(order: 5521)" }, options, ...over });
  const allowDeny = [{ id: "allow", kind: "allow", label: "Allow" }, { id: "deny", kind: "deny", label: "Deny" }];

  test("a permission offers Allow and Deny, in the specification's words, never Always allow", () => {
    const a = askAnswers(permission([
      { id: "ok", kind: "allow", label: "Yes, refund it" },
      { id: "always", kind: "allow-always", label: "Always" },
      { id: "cancel", kind: "cancel", label: "Cancel" },
      { id: "no", kind: "deny", label: "No" },
    ]), mask);
    assert.deepEqual(a, {
      kind: "permission", revision: REV, what: "refund",
      options: [{ id: "ok", title: STRINGS.allow, optionKind: "allow" }, { id: "no", title: STRINGS.deny, optionKind: "deny" }],
    });
  });
  test("a permission without both Allow and Deny, text, form and unknown kinds keep the plain tap", () => {
    assert.equal(askAnswers(permission([{ id: "allow", kind: "allow", label: "Allow" }, { id: "cancel", kind: "cancel", label: "Cancel" }]), mask), undefined);
    assert.equal(askAnswers(permission([{ id: "always", kind: "allow-always", label: "Always" }, { id: "deny", kind: "deny", label: "Deny" }]), mask), undefined);
    assert.equal(askAnswers(ask({ kind: "text", revision: REV, limit: 500 }), mask), undefined);
    assert.equal(askAnswers(ask({ kind: "form", revision: REV, fields: [] }), mask), undefined);
    assert.equal(askAnswers(ask({ kind: "vote", revision: REV, options: allowDeny }), mask), undefined);
    // Without a revision the answer could not say which ask it answers.
    assert.equal(askAnswers(permission(allowDeny, { revision: undefined }), mask), undefined);
  });
  test("a choice of one or two single options offers its labels; a multiple or a longer one does not", () => {
    const two = ask({ kind: "choice", revision: REV, title: "Which courier?", options: [{ id: "dhl", label: "DHL Express" }, { id: "ups", label: "UPS" }] });
    assert.deepEqual(askAnswers(two, mask), {
      kind: "choice", revision: REV, what: "Which courier?", options: [{ id: "dhl", title: "DHL Express" }, { id: "ups", title: "UPS" }],
    });
    assert.equal(askAnswers({ ...two, options: [{ id: "a", label: "A" }] }, mask)?.options.length, 1);
    assert.equal(askAnswers({ ...two, multiple: true }, mask), undefined);
    assert.equal(askAnswers({ ...two, options: [{ id: "a", label: "A" }, { id: "b", label: "B" }, { id: "c", label: "C" }] }, mask), undefined);
    assert.equal(askAnswers({ ...two, options: [] }, mask), undefined);
  });
  test("the words are masked before they are cut; the ids and the revision are not touched", () => {
    const key = "sk-proj-4fT9xQ2mL7vB1nR8kW3zY6hJ0cD5eA";
    const p = askAnswers(permission(allowDeny, { tool: { name: `deploy ${key} ${"x".repeat(80)}` } }), mask)!;
    assert.ok(!p.what.includes("4fT9") && p.what.startsWith(`deploy sk-p${MASK}`) && [...p.what].length === 60);
    const untooled = askAnswers(permission(allowDeny, { tool: undefined, title: "refund wants to run" }), mask)!;
    assert.equal(untooled.what, "refund wants to run");
    const c = askAnswers(ask({ kind: "choice", revision: REV, title: `use ${key}`, options: [{ id: "k", label: `${key} ${key}` }] }), mask)!;
    assert.ok(!JSON.stringify(c).includes("4fT9"));
    assert.equal([...c.options[0]!.title].length, ACTION_TITLE_MAX);
    assert.equal(c.options[0]!.id, "k");
  });
  test("withAnswers adds them to the ask's push; a push that would not fit one Web Push record goes without", () => {
    const payload = askPayload({ ...base, ask: ask() });
    const perm = permission(allowDeny);
    assert.deepEqual(withAnswers(payload, perm, mask), { ...payload, answers: askAnswers(perm, mask) });
    assert.equal(withAnswers(payload, ask(), mask), payload);
    const huge = { ...payload, url: `/#/${"x".repeat(PAYLOAD_MAX_BYTES)}` };
    assert.equal(withAnswers(huge, perm, mask), huge);
  });
  test("the largest ask the limits allow, with its buttons, fits one Web Push record", () => {
    // Every field at its limit, in 4-byte characters, with ids full of characters JSON escapes.
    const wide = "😀".repeat(300);
    const id = `"\\`.repeat(42).slice(0, 126);
    const agent = `${"a".repeat(64)}@${"m".repeat(64)}`;
    const choice = {
      id: "f".repeat(32), kind: "choice", revision: REV, title: wide, push: { title: wide, line: wide },
      options: [{ id, label: wide }, { id: `${id}2`, label: wide }],
    };
    const payload = withAnswers(askPayload({ agent, machine: "m".repeat(64), paneId: id, paneTitle: wide, ask: choice, mask }), choice, mask);
    assert.ok(payload.answers, "the buttons fit");
    assert.ok(Buffer.byteLength(JSON.stringify(payload)) <= PAYLOAD_MAX_BYTES);
  });
});
