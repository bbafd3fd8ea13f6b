/** Held writes as tests make them (store/held.ts): an answer that waits for its ask, a send of the queue. */
import { routePath, type Answer } from "@colliepwa/durable-sdk/wire";
import type { NewHeldWrite } from "../../src/store/held.ts";

export const ASK_ID = "0123456789abcdef0123456789abcdef";
export const REVISION = "0123456789abcdef";

/** A held answer for a local agent's ask, as the gateway holds one. */
export function heldAnswer(a: { requestId: string; agent?: string; paneId?: string; askId?: string; revision?: string; answer?: Answer; heldAt?: number }): NewHeldWrite {
  const pane = a.paneId ?? "p1";
  const ask = a.askId ?? ASK_ID;
  return {
    target: a.agent ?? "desk", requestId: a.requestId, action: "answer", conversation: pane, path: routePath("answer", { pane, ask }),
    body: { requestId: a.requestId, revision: a.revision ?? REVISION, answer: a.answer ?? { kind: "permission", optionId: "allow" } },
    ask, heldAt: a.heldAt ?? Date.now(),
  };
}

/** A held send, as the gateway holds one. */
export function heldSend(s: { requestId: string; agent?: string; paneId?: string; text?: string; heldAt?: number }): NewHeldWrite {
  const pane = s.paneId ?? "p1";
  return {
    target: s.agent ?? "desk", requestId: s.requestId, action: "send", conversation: pane, path: routePath("send", { pane }),
    body: { requestId: s.requestId, text: s.text ?? `text of ${s.requestId}` }, ask: null, heldAt: s.heldAt ?? Date.now(),
  };
}
