/**
 * Helpers for the ask-card journeys (e2e/asks-*.spec.ts): each spec file runs its own Collie (a
 * worker of its own, with a fresh desk store), so its refunds, exchanges and restarts leave the
 * seeded conversations of the other journeys as they were; a card by its title; the answers the
 * phone posts; the asks Collie announces on the live WebSocket.
 */
import type { Page, Request, Response } from "@playwright/test";
import { onActs, type SentAct } from "./acts.ts";
import { startCollie, type CollieOptions, type CollieServer } from "./collie.ts";
import { chatParts } from "./desk.ts";
import { test as base, expect } from "./fixtures.ts";

/**
 * The journeys' `test`, with a Collie of the spec file's own (started with `options`, e.g. the
 * example agent's `DESK_ASK_EXPIRY_MS`). Overriding the worker fixture gives the file a worker, and
 * so a daemon and a desk store, of its own; fixtures.ts pairs the pages with it as usual.
 */
export function askTest(options: CollieOptions = {}) {
  return base.extend<object, { collie: CollieServer }>({
    collie: [
      async ({}, use) => {
        const collie = await startCollie(options);
        await use(collie);
        await collie.stop();
      },
      { scope: "worker" },
    ],
  });
}

/** An ask card in the chat, by its title (the card is a region named by it). */
export const askCard = (page: Page, title: string) => chatParts(page).log.getByRole("region", { name: title });

/** The line a card shows after a tap (P-15). */
export const cardLine = (page: Page, title: string) => askCard(page, title).getByRole("status");

/** Sends a message from the composer (before any card with its own `Send` is on screen). */
export async function say(page: Page, text: string): Promise<void> {
  const chat = chatParts(page);
  await chat.composer.fill(text);
  await chat.send.click();
  await expect(chat.composer).toHaveValue("");
}

/** Whether a request is an answer to an ask (P-14). */
export const isAnswer = (r: Request) => r.method() === "POST" && /\/asks\/[^/]+\/answer$/.test(new URL(r.url()).pathname);

/** Whether an act on the live socket is an answer to an ask (docs/phone-api.md "Actions on the live socket"). */
export const isAnswerAct = (act: SentAct) => /\/asks\/[^/]+\/answer$/.test(act.path);

/**
 * Every answer the page sends from now on (P-14): its request id and answer, in order, whichever
 * way it went — as an act on the live socket (while it is open) or a POST.
 */
export function answersPosted(page: Page): Array<{ requestId: string; answer: Record<string, unknown> }> {
  const posted: Array<{ requestId: string; answer: Record<string, unknown> }> = [];
  const add = (body: { requestId: string; answer: Record<string, unknown> }) => posted.push({ requestId: body.requestId, answer: body.answer });
  page.on("request", (r) => {
    if (isAnswer(r)) add(r.postDataJSON() as { requestId: string; answer: Record<string, unknown> });
  });
  onActs(page, { sent: (act) => isAnswerAct(act) && add(act.body as { requestId: string; answer: Record<string, unknown> }) });
  return posted;
}

/** The reply to the page's next answer, whichever way it went (an act-reply or a POST's response). */
export function nextAnswerReply(page: Page): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve) => {
    const answerActs = new Set<number>();
    const off = onActs(page, {
      sent: (act) => isAnswerAct(act) && answerActs.add(act.id),
      replied: (reply) => {
        if (!answerActs.has(reply.id)) return;
        done();
        resolve({ status: reply.status, body: reply.body });
      },
    });
    const onResponse = (r: Response) => {
      if (!isAnswer(r.request())) return;
      done();
      void r.json().then((body: Record<string, unknown>) => resolve({ status: r.status(), body }));
    };
    const done = () => {
      off();
      page.off("response", onResponse);
    };
    page.on("response", onResponse);
  });
}

/** A message Collie sent on the live WebSocket (LiveMessage in @colliepwa/shared), loosely typed. */
export type LiveNews = { type: string; paneId?: string; ask?: { id: string }; requestId?: string; status?: number } & Record<string, unknown>;

/**
 * Every message Collie sends on the page's live WebSockets, in order. Call before the page opens
 * (page.goto): it listens to the sockets the page opens from then on.
 */
export function liveNews(page: Page): LiveNews[] {
  const news: LiveNews[] = [];
  page.on("websocket", (ws) => {
    ws.on("framereceived", ({ payload }) => {
      try {
        news.push(JSON.parse(String(payload)) as LiveNews);
      } catch {
        // not JSON
      }
    });
  });
  return news;
}

/** The ids of the asks announced for a conversation (`ask` messages), in order. */
export const asksAnnounced = (news: LiveNews[], pane: string): string[] =>
  news.flatMap((m) => (m.type === "ask" && m.paneId === pane && m.ask ? [m.ask.id] : []));
