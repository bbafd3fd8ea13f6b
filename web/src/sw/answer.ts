/**
 * Answering from a notification (issue 30; docs/push.md), the parts that decide, as pure
 * functions so the tests run them without a browser:
 *
 * - `pickedAnswer`: which ask and option a pressed button stands for (null for a plain tap);
 * - `answerRoute`: the answer route's parameters and body, the same ones a tap on the card sends
 *   (the ask's id and revision, the option's id): no text of the notification is needed;
 * - `outcomePlan`: the notification that says what came of it, in the card's own words (P-15):
 *   `Allowed: refund` (quiet), `This ask changed. Read it again, then tap an answer.`, a held
 *   answer, no network … Its tap opens the card, which then shows the same line;
 * - `goesWithAsk`: an outcome still waiting on the ask (held, not sent yet, changed …) goes when
 *   the ask ends elsewhere; a final one (`Allowed: refund`, `Decided in the durable agent.`) stays.
 */
import { answerOutcome, STRINGS, WORDS, type PushAnswerOption, type PushAnswers, type TapReply } from "@colliepwa/shared";
import type { Answer } from "@colliepwa/durable-sdk/wire";
import type { AnswerNotice, NotificationAnswer } from "../app/notification-answers.ts";
import { readAction, readAnswers, readData, type NotifiedAsk, type ShowPlan } from "./push.ts";

const ICON = "/icons/icon-192.png";

/** The ask and option a pressed button stands for. */
export interface PickedAnswer {
  /** The agent's notification tag. */
  tag: string;
  agent: string;
  ask: NotifiedAsk & { answers: PushAnswers };
  option: PushAnswerOption;
}

/**
 * What a press of `action` on a notification with `data` answers; null for a plain tap, or for a
 * button that names an ask or option the notification does not hold (nothing is guessed).
 */
export function pickedAnswer(data: unknown, action: string, tag: string): PickedAnswer | null {
  const named = readAction(action);
  const d = readData(data);
  if (!named || !d || d.kind !== "ask" || d.agent === null) return null;
  const ask = d.asks.find((a) => a.askId === named.askId);
  const answers = readAnswers(ask?.answers);
  const option = answers?.options[named.index];
  if (!ask || !answers || !option) return null;
  return { tag, agent: d.agent, ask: { ...ask, answers }, option };
}

/** The answer route's parameters and body (without the request id, which the action layer makes). */
export function answerRoute(p: PickedAnswer): { params: { agent: string; pane: string; ask: string }; body: { revision: string; answer: Answer } } {
  const answer: Answer = p.ask.answers.kind === "permission"
    ? { kind: "permission", optionId: p.option.id }
    : { kind: "choice", optionIds: [p.option.id] };
  return { params: { agent: p.agent, pane: p.ask.paneId, ask: p.ask.askId }, body: { revision: p.ask.answers.revision, answer } };
}

/** What the notifications about this answer say. */
export function noticeOf(p: PickedAnswer): AnswerNotice {
  return {
    tag: p.tag,
    title: p.ask.title,
    url: p.ask.url,
    word: p.option.title,
    what: p.ask.answers.what,
    ...(p.option.optionKind ? { optionKind: p.option.optionKind } : {}),
  };
}

/** The tag of the notification that tells one ask's answer: beside the agent's, so a clear of the agent's leaves it. */
export function answerTag(tag: string, askId: string): string {
  return `${tag}:answer:${askId}`;
}

/** The outcome's words: a title and a body, and whether it waits on the ask (and goes when the ask ends elsewhere). */
export function outcomeWords(notice: AnswerNotice, reply: TapReply, resent = false): { title: string; body: string; endsWithAsk: boolean } {
  // No reply: the outbox keeps the request and sends it when the phone is back (P-26).
  if (reply === null) return { title: notice.title, body: WORDS.push.answerOffline(notice.word), endsWithAsk: true };
  const view = answerOutcome(reply, { retry: resent });
  switch (view.outcome) {
    case "accepted":
      return { title: WORDS.chat.decided(notice.optionKind, notice.what), body: notice.title, endsWithAsk: false };
    case "held":
      return { title: notice.title, body: WORDS.asks.held(notice.word), endsWithAsk: true };
    default:
      // The card's own line (P-15); a frozen one is final, the others wait on the ask.
      return { title: notice.title, body: view.line ?? STRINGS.answerRefused, endsWithAsk: !view.frozen };
  }
}

/** The quiet notification that says what an answer given from a notification came to. */
export function outcomePlan(a: NotificationAnswer): ShowPlan {
  const { title, body, endsWithAsk } = outcomeWords(a.notice, a.reply, a.resent === true);
  const ask: NotifiedAsk = { askId: a.askId, paneId: a.request.pane ?? "", url: a.notice.url, title, body };
  return {
    title,
    options: {
      icon: ICON,
      badge: ICON,
      // The user pressed a button a moment ago: the outcome is there to read, not to ring.
      silent: true,
      body,
      tag: answerTag(a.notice.tag, a.askId),
      timestamp: a.at,
      data: {
        collie: 1, kind: "answer", agent: a.request.agent, asks: [ask], url: a.notice.url.replace(/\/pane\/.*$/, "") || "/",
        answer: { requestId: a.request.requestId, endsWithAsk },
      },
    },
  };
}

/** Whether an outcome notification goes when a clear push says its ask ended. */
export function goesWithAsk(data: unknown, askId: string): boolean {
  const d = readData(data);
  return d?.kind === "answer" && d.answer?.endsWithAsk === true && d.asks[0]?.askId === askId;
}
