/**
 * What a page sends as acts on its live WebSocket (docs/phone-api.md "Actions on the live socket":
 * the phone's answers while its socket is open) and the act-replies it gets, for the journeys that
 * count a phone's answers whichever way they went. Every page of the journeys is watched from its
 * start (fixtures.ts), so a socket opened before a test asks is seen too.
 */
import type { Page } from "@playwright/test";

export interface SentAct {
  id: number;
  path: string;
  body: Record<string, unknown>;
}
export interface ActReplyFrame {
  id: number;
  status: number;
  body: Record<string, unknown>;
}
interface Listener {
  sent?(act: SentAct): void;
  replied?(reply: ActReplyFrame): void;
}

const listeners = new WeakMap<Page, Set<Listener>>();

/** Starts watching a page's live sockets (before it opens one). */
export function watchActs(page: Page): void {
  const set = new Set<Listener>();
  listeners.set(page, set);
  page.on("websocket", (ws) => {
    const read = (payload: string | Buffer): Record<string, unknown> | null => {
      try {
        return JSON.parse(String(payload)) as Record<string, unknown>;
      } catch {
        return null;
      }
    };
    ws.on("framesent", ({ payload }) => {
      const m = read(payload);
      if (m?.type === "act") for (const l of set) l.sent?.(m as unknown as SentAct);
    });
    ws.on("framereceived", ({ payload }) => {
      const m = read(payload);
      if (m?.type === "act-reply") for (const l of set) l.replied?.(m as unknown as ActReplyFrame);
    });
  });
}

/** Calls `listener` for every act the page sends and every act-reply it gets from now on. */
export function onActs(page: Page, listener: Listener): () => void {
  const set = listeners.get(page);
  if (!set) throw new Error("this page's acts are not watched (fixtures.ts watches every journey's page)");
  set.add(listener);
  return () => set.delete(listener);
}
