/**
 * Answering from a notification (issue 30), the service worker's decisions: which ask and option a
 * button stands for, the answer route's parameters and body (the same a tap on the card sends),
 * and the notification that says what came of it, in the card's own words for every outcome.
 */
import { describe, expect, test } from "vitest";
import { STRINGS, WORDS, type PushAnswers, type TapReply } from "@colliepwa/shared";
import type { NotificationAnswer } from "../../src/app/notification-answers.ts";
import { answerRoute, answerTag, goesWithAsk, noticeOf, outcomePlan, outcomeWords, pickedAnswer } from "../../src/sw/answer.ts";
import { actionId, clickUrl, showPlan } from "../../src/sw/push.ts";

const ORIGIN = "https://collie.example.ts.net";
const REV = "0123456789abcdef";
const permission: PushAnswers = {
  kind: "permission", revision: REV, what: "refund",
  options: [{ id: "yes", title: "Allow", optionKind: "allow" }, { id: "no", title: "Deny", optionKind: "deny" }],
};
const choice: PushAnswers = { kind: "choice", revision: REV, what: "Which courier?", options: [{ id: "dhl", title: "DHL Express" }, { id: "ups", title: "UPS" }] };

const push = (askId: string, answers?: PushAnswers) => ({
  v: 1 as const, type: "ask" as const, tag: "collie:desk", agent: "desk", machine: null,
  title: "Permission needed in Maria Lopez", body: "refund needs a yes", paneId: "ticket-5521", askId,
  url: `/#/agent/desk/pane/ticket-5521/ask/${askId}`, ...(answers ? { answers } : {}),
});
const dataOf = (...asks: ReturnType<typeof push>[]) => asks.reduce<unknown[]>((existing, p) => [showPlan(p, existing, 2).options.data], [])[0];

describe("pickedAnswer: what a button stands for", () => {
  test("the option of the ask the button names, even when a newer ask came on top since", () => {
    const data = dataOf(push("a1", permission), push("a2", choice));
    const p = pickedAnswer(data, actionId(1, "a1"), "collie:desk");
    expect(p).toMatchObject({ tag: "collie:desk", agent: "desk", option: { id: "no", optionKind: "deny" } });
    expect(p?.ask.askId).toBe("a1");
    expect(pickedAnswer(data, actionId(0, "a2"), "collie:desk")?.option).toEqual({ id: "dhl", title: "DHL Express" });
  });
  test("a plain tap, a button of an ask or option it does not hold, or data that is not an ask's: nothing", () => {
    const data = dataOf(push("a1", permission), push("a2"));
    expect(pickedAnswer(data, "", "collie:desk")).toBeNull();
    expect(pickedAnswer(data, actionId(0, "a2"), "collie:desk")).toBeNull();
    expect(pickedAnswer(data, actionId(0, "gone"), "collie:desk")).toBeNull();
    expect(pickedAnswer(dataOf(push("a1", choice)), actionId(1, "a1"), "t")).not.toBeNull();
    expect(pickedAnswer(dataOf(push("a1", { ...choice, options: [choice.options[0]!] })), actionId(1, "a1"), "t")).toBeNull();
    expect(pickedAnswer(null, actionId(0, "a1"), "t")).toBeNull();
    expect(pickedAnswer({ collie: 1, kind: "answer", agent: "desk", asks: [], url: "/" }, actionId(0, "a1"), "t")).toBeNull();
  });
});

describe("answerRoute: the same route and body as a tap on the card", () => {
  test("a permission sends its option id with the ask's revision", () => {
    const p = pickedAnswer(dataOf(push("a1", permission)), actionId(0, "a1"), "collie:desk")!;
    expect(answerRoute(p)).toEqual({
      params: { agent: "desk", pane: "ticket-5521", ask: "a1" },
      body: { revision: REV, answer: { kind: "permission", optionId: "yes" } },
    });
  });
  test("a choice sends the one option picked", () => {
    const p = pickedAnswer(dataOf(push("a1", choice)), actionId(1, "a1"), "collie:desk")!;
    expect(answerRoute(p).body).toEqual({ revision: REV, answer: { kind: "choice", optionIds: ["ups"] } });
  });
});

describe("the notification that says what came of it", () => {
  const notice = noticeOf(pickedAnswer(dataOf(push("a1", permission)), actionId(0, "a1"), "collie:desk")!);
  const deny = noticeOf(pickedAnswer(dataOf(push("a1", permission)), actionId(1, "a1"), "collie:desk")!);
  const picked = noticeOf(pickedAnswer(dataOf(push("a1", choice)), actionId(1, "a1"), "collie:desk")!);
  const reply = (status: number, body: Record<string, unknown> = {}): TapReply => ({ status, body });
  const conflict = (error: string) => reply(409, { error, message: `Collie says ${error}.` });

  test("accepted: a quiet `Allowed: refund` (or Denied, or Answered for a choice) that stays", () => {
    expect(outcomeWords(notice, reply(200, { ok: true }))).toEqual({ title: "Allowed: refund", body: "Permission needed in Maria Lopez", endsWithAsk: false });
    expect(outcomeWords(deny, reply(200, { ok: true, replayed: true })).title).toBe("Denied: refund");
    expect(outcomeWords(picked, reply(200, { ok: true })).title).toBe("Answered: Which courier?");
  });
  test.each([
    ["the ask changed", conflict("ask-changed"), STRINGS.askChanged, true],
    ["decided in the agent", conflict("ask-decided"), STRINGS.decidedInAgent, false],
    ["timed out", conflict("ask-timed-out"), STRINGS.timedOut, false],
    ["another answer came first", conflict("ask-answered"), STRINGS.alreadyAnswered, false],
    ["not open, no reason given", conflict("ask-not-open"), STRINGS.notTaken, true],
    ["Collie refused, with its reason", reply(401, { error: "unpaired", message: "This device is not paired." }), "This device is not paired.", true],
    ["refused without a reason", reply(400, {}), STRINGS.answerRefused, true],
    ["an older Collie", conflict("agent-version-mismatch"), STRINGS.olderCollie, false],
    ["not sure (a 5xx)", reply(502, { error: "agent-failed" }), STRINGS.notSureArrived, true],
  ])("%s: the card's own line", (_what, r, line, endsWithAsk) => {
    expect(outcomeWords(notice, r)).toEqual({ title: "Permission needed in Maria Lopez", body: line, endsWithAsk });
  });
  test("held for an agent that is away: the held line, naming the answer; it goes with the ask", () => {
    expect(outcomeWords(notice, reply(202, { held: true }))).toEqual({ title: "Permission needed in Maria Lopez", body: WORDS.asks.held("Allow"), endsWithAsk: true });
    expect(outcomeWords(picked, reply(202, { held: true })).body).toBe(WORDS.asks.held("UPS"));
  });
  test("no network: it waits on the phone; sent again later, a closed ask may mean it landed", () => {
    expect(outcomeWords(notice, null)).toEqual({ title: "Permission needed in Maria Lopez", body: WORDS.push.answerOffline("Allow"), endsWithAsk: true });
    expect(outcomeWords(notice, conflict("ask-answered"), true).body).toBe(STRINGS.mayHaveBeenApplied);
    expect(outcomeWords(notice, reply(200, { ok: true, replayed: true }), true).title).toBe("Allowed: refund");
  });

  test("its own tag beside the agent's, quiet, and a tap opens the card", () => {
    const answer: NotificationAnswer = {
      request: { requestId: "r1", kind: "answer", agent: "desk", pane: "ticket-5521", path: "/api/x", body: { requestId: "r1" } },
      askId: "a1", reply: conflict("ask-changed"), at: 5, notice,
    };
    const plan = outcomePlan(answer);
    expect(plan.title).toBe("Permission needed in Maria Lopez");
    expect(plan.options).toMatchObject({ body: STRINGS.askChanged, tag: answerTag("collie:desk", "a1"), silent: true, timestamp: 5 });
    expect(plan.options).not.toHaveProperty("actions");
    expect(plan.options.data).toMatchObject({ kind: "answer", agent: "desk", answer: { requestId: "r1", endsWithAsk: true } });
    expect(clickUrl(plan.options.data, ORIGIN)).toBe(`${ORIGIN}/#/agent/desk/pane/ticket-5521/ask/a1`);
    // When the ask ends elsewhere, an outcome that waited on it goes; a final one stays.
    expect(goesWithAsk(plan.options.data, "a1")).toBe(true);
    expect(goesWithAsk(plan.options.data, "a2")).toBe(false);
    expect(goesWithAsk(outcomePlan({ ...answer, reply: reply(200, { ok: true }) }).options.data, "a1")).toBe(false);
    expect(goesWithAsk(outcomePlan({ ...answer, reply: conflict("ask-decided") }).options.data, "a1")).toBe(false);
    expect(goesWithAsk(dataOf(push("a1", permission)), "a1")).toBe(false);
  });
});
