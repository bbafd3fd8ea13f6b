/**
 * Helpers for journeys through the example support desk (sdk/examples/durable-member): opening a
 * chat, the chat's parts by role, phone-API calls with a fresh request id, and a gate on the live
 * WebSocket that holds Collie's messages back, so a moment that passes quickly (a reply still
 * growing, a turn the phone has not heard of yet) stays on screen until the journey has seen it.
 */
import { randomUUID } from "node:crypto";
import type { APIResponse, Page, WebSocketRoute } from "@playwright/test";
import { expect } from "./fixtures.ts";

export const AGENT = "desk";

/** The seeded conversations (seed.ts): pane id, title and the subtitle the desk gives it. */
export const SEEDED = {
  maria: { pane: "ticket-5521", title: "Maria Lopez", subtitle: "Order 5521 · lost in transit", intro: "Ticket opened: the parcel for order 5521 never arrived." },
  jonas: { pane: "ticket-5530", title: "Jonas Weber", subtitle: "Order 5530 · delivered", intro: "Ticket opened: the trail jacket from order 5530 is the wrong size." },
  sofia: { pane: "vip-7781", title: "Sofia Rossi", subtitle: "Order 7781 · in transit", intro: "VIP: Sofia Rossi needs her espresso machine before Friday." },
  aiko: { pane: "inv-2207", title: "Aiko Tanaka", subtitle: "Order 6012 · delivered", intro: "Aiko Tanaka asks why invoice INV-2207 shows the wrong VAT rate." },
} as const;

/** A scripted turn can take a few seconds (streamed chunks, tool calls): wait generously for it. */
export const TURN_TIMEOUT = 15_000;

export const chatPath = (pane: string): string => `/#/agent/${AGENT}/pane/${encodeURIComponent(pane)}`;
export const panePath = (pane: string): string => `/api/agents/${AGENT}/panes/${encodeURIComponent(pane)}`;

/** The chat's parts, by role and accessible name. */
export function chatParts(page: Page) {
  const belt = page.getByRole("toolbar", { name: "Belt" });
  return {
    title: page.getByRole("heading", { level: 1 }),
    header: page.getByRole("main").locator("header"),
    log: page.getByRole("log"),
    composer: page.getByRole("textbox", { name: "Message" }),
    send: page.getByRole("button", { name: "Send", exact: true }),
    belt,
    steer: belt.getByRole("button", { name: "Steer" }),
    stop: belt.getByRole("button", { name: "Stop" }),
    menu: page.getByRole("button", { name: "Menu" }),
  };
}

/** Opens a conversation's chat and waits until its items are drawn. */
export async function openChat(page: Page, pane: string, title: string, firstItem: string): Promise<ReturnType<typeof chatParts>> {
  await page.goto(chatPath(pane));
  const chat = chatParts(page);
  await expect(chat.title).toContainText(title);
  await expect(chat.log).toContainText(firstItem);
  return chat;
}

/** Your own lines: the pending one (before the agent's copy) and every one, pending or echoed. */
export const pendingLines = (page: Page, text: string) => chatParts(page).log.locator("[data-own-line]").filter({ hasText: text });
export const ownLines = (page: Page, text: string) => chatParts(page).log.locator(".item.own").filter({ hasText: text });
export const items = (page: Page, kind: string) => chatParts(page).log.locator(`[data-kind="${kind}"]`);

/** A phone action through Collie's API, with a new request id (docs/phone-api.md). */
export async function post(page: Page, path: string, body: Record<string, unknown> = {}): Promise<APIResponse> {
  return page.request.post(path, { data: { requestId: randomUUID(), ...body } });
}

/** Opens a new conversation from a starter through the API and returns its pane id. */
export async function startConversation(page: Page, starter: "new-ticket" | "refund-check"): Promise<string> {
  const r = await post(page, `/api/agents/${AGENT}/starters/${starter}`);
  expect(r.status()).toBe(200);
  const { paneId } = (await r.json()) as { paneId: string };
  expect(paneId).toBeTruthy();
  return paneId;
}

/** The turn the conversation names now (what a phone that is up to date would send). */
export async function currentTurn(page: Page, pane: string): Promise<string | null> {
  const r = await page.request.get(panePath(pane));
  expect(r.status()).toBe(200);
  return ((await r.json()) as { conversation: { turnId: string | null } }).conversation.turnId ?? null;
}

type LiveMessage = { type: string; paneId?: string; item?: { kind: string; partial?: boolean } } & Record<string, unknown>;

export interface LiveGate {
  /** From the first message that matches on, holds every message back (in order) until release. */
  holdFrom(match: (m: LiveMessage) => boolean): void;
  /** Holds every message from now on. */
  freeze(): void;
  /**
   * The phone's next act reaches Collie, and from then on every message is held (as `freeze`); the
   * link drops right after Collie answered it: its act-reply is lost, the phone's socket closes,
   * and the live socket stays down (each reconnect is closed at once) until `release`. Requests
   * over HTTP still go, as in a network where only the long-lived connection was cut.
   */
  cutAfterNextActReply(): void;
  /** Resolves once a hold has started (the matching message arrived). */
  holding(): Promise<void>;
  /** Delivers what was held, in order, and lets messages through again (a cut socket comes back). */
  release(): void;
  /**
   * Delivers what was held, in order: the message the hold began with, then each one up to the
   * first that matches `next`, which holds again from there.
   */
  releaseUntil(next: (m: LiveMessage) => boolean): void;
}

/**
 * Routes the page's live WebSocket through the test. Call before the page opens (page.goto).
 * Messages from the phone go to Collie untouched; Collie's messages go to the phone unless held.
 */
export async function gateLive(page: Page): Promise<LiveGate> {
  let held = false;
  let match: ((m: LiveMessage) => boolean) | null = null;
  let onHold: () => void = () => {};
  let started = new Promise<void>((r) => (onHold = r));
  const buffer: Array<{ ws: WebSocketRoute; message: string | Buffer }> = [];
  const startHold = () => {
    held = true;
    match = null;
    onHold();
  };
  const matches = (message: string | Buffer): boolean => {
    if (!match) return false;
    try {
      return match(JSON.parse(String(message)) as LiveMessage);
    } catch {
      return false; // not JSON: pass it on
    }
  };
  let cutArmed = false;
  let cutAct: number | null = null;
  const actOf = (message: string | Buffer, type: "act" | "act-reply"): number | null => {
    try {
      const m = JSON.parse(String(message)) as { type?: unknown; id?: unknown };
      return m.type === type && typeof m.id === "number" ? m.id : null;
    } catch {
      return null;
    }
  };
  let linkDown = false;
  await page.routeWebSocket(/\/api\/live/, (ws) => {
    if (linkDown) return void ws.close();
    const server = ws.connectToServer();
    ws.onMessage((message) => {
      const act = actOf(message, "act");
      if (cutArmed && act !== null) {
        cutArmed = false;
        cutAct = act;
        startHold();
      }
      server.send(message);
    });
    server.onMessage((message) => {
      const replied = actOf(message, "act-reply");
      if (replied !== null) {
        if (replied !== cutAct) return ws.send(message);
        cutAct = null;
        linkDown = true;
        return ws.close();
      }
      if (!held && matches(message)) startHold();
      if (held) buffer.push({ ws, message });
      else ws.send(message);
    });
  });
  return {
    holdFrom(m) {
      match = m;
    },
    freeze: startHold,
    cutAfterNextActReply() {
      cutArmed = true;
    },
    holding: () => started,
    release() {
      held = false;
      match = null;
      linkDown = false;
      for (const { ws, message } of buffer.splice(0)) {
        try {
          ws.send(message);
        } catch {
          // that socket was cut: the phone's next one resumes from what it had
        }
      }
      started = new Promise<void>((r) => (onHold = r));
    },
    releaseUntil(next) {
      held = false;
      match = next;
      started = new Promise<void>((r) => (onHold = r));
      const waiting = buffer.splice(0);
      for (const [i, entry] of waiting.entries()) {
        if (i > 0 && matches(entry.message)) {
          startHold();
          buffer.push(...waiting.slice(i));
          return;
        }
        entry.ws.send(entry.message);
      }
    },
  };
}

/**
 * Holds a request to a path until `release()`: the phone's line shows as it is while its send is on
 * the way, however fast the agent would answer.
 */
export async function holdRequests(page: Page, path: RegExp): Promise<{ release(): void; arrived(): Promise<void> }> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let arrived!: () => void;
  const seen = new Promise<void>((r) => (arrived = r));
  await page.route(path, async (route) => {
    arrived();
    await gate;
    await route.continue();
  });
  return { release, arrived: () => seen };
}
