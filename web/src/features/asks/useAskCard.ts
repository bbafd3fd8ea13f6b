/**
 * One ask card's taps (P-14, P-15): each tap is `phone.actions.answer` (a new request id, saved in
 * the outbox, sent to the answer route); `Retry` is `phone.actions.retry`, the same request id
 * again. The replies go through the pure card state (card-state.ts); a held answer (202) waits for
 * its `held-outcome` in the store. A tap the outbox still holds from an earlier page shows as not
 * sure, with Retry.
 */
import { useCallback, useEffect, useSyncExternalStore } from "react";
import type { Answer, Ask } from "@colliepwa/durable-sdk/wire";
import type { PhoneActions, SendResult } from "../../app/actions.ts";
import type { Phone } from "../../app/phone.ts";
import { useActions, usePhoneState, useRead } from "../../app/react.ts";
import { asksStoreFor } from "./asks-store.ts";
import { canRetry, canTap, cardLook, heldState, IDLE, pendingState, type CardLook, type CardState, type Sent } from "./card-state.ts";
import { paneKey } from "../../app/store.ts";
import { heldAnswerOf } from "./held-answer.ts";

export interface AskCardControl {
  state: CardState;
  look: CardLook;
  /** Sends an answer (a tap). Does nothing while the card takes no taps. */
  answer(answer: Answer): void;
  /** Sends the last tap again with the same request id. */
  retry(): void;
}

/** The tap the outbox still holds for this ask from an earlier page, if any. */
function pendingFor(actions: PhoneActions, agent: string, pane: string, ask: Ask): CardState | null {
  const p = actions.pending("answer", { agent, pane, ask: ask.id })[0];
  if (!p) return null;
  const { revision, answer } = p.body as { revision?: unknown; answer?: unknown };
  if (typeof revision !== "string" || typeof answer !== "object" || answer === null) return null;
  return pendingState({ requestId: p.requestId, revision, answer: answer as Answer });
}

export function useAskCard(phone: Phone, agent: string, ask: Ask): AskCardControl {
  const pane = ask.paneId;
  const store = asksStoreFor(phone);
  useSyncExternalStore(store.subscribe, () => store.version);
  const actions = useActions();
  const reader = useRead();
  const { heldOutcomes, decisions } = usePhoneState();
  // An answer Collie holds for this ask, as Collie told it (issue #34): after a reload, or on
  // another phone, the card still says which answer waits instead of offering the buttons again.
  const heldBy = heldAnswerOf(decisions.get(paneKey(agent, pane)), ask.id);
  const heldId = heldBy?.requestId;
  const heldAnswer = heldBy?.answer;

  const base = useCallback((): CardState => {
    const held = heldId !== undefined && heldAnswer !== undefined ? heldState({ requestId: heldId, revision: ask.revision, answer: heldAnswer }) : null;
    return pendingFor(actions, agent, pane, ask) ?? held ?? IDLE;
  }, [actions, agent, pane, ask, heldId, heldAnswer]);
  const state = store.card(agent, pane, ask.id) ?? base();
  const dispatch = useCallback(
    (e: Parameters<typeof store.dispatch>[3]) => store.dispatch(agent, pane, ask.id, e, base()),
    [store, agent, pane, ask.id, base],
  );

  const sent = state.sent;
  const sendingNow = sent !== null && actions.sending(sent.requestId);

  // Replies to sends the card did not start itself (the outbox re-sends after a reconnect).
  const result = sent ? actions.result(sent.requestId) : undefined;
  useEffect(() => {
    if (result && !sendingNow && result !== state.handled) dispatch({ type: "result", result });
  }, [result, sendingNow, state.handled, dispatch]);

  // A held answer's outcome, delivered later by Collie (D-5).
  const held = state.phase === "held" && sent ? heldOutcomes.get(sent.requestId) : undefined;
  useEffect(() => {
    if (held) dispatch({ type: "held-outcome", reply: held });
  }, [held, dispatch]);

  // `This ask changed` (P-15): the card shows the ask's current content. The live `ask` message
  // brings it; should the store still hold the revision that was answered, read the chat again.
  const stale = state.phase === "outcome" && state.view?.outcome === "changed" && sent !== null && sent.revision === ask.revision;
  useEffect(() => {
    if (!stale) return;
    void reader.fresh("pane", { agent, pane }).then((r) => {
      if (r.kind === "reply" && r.reply.status === 200) phone.store.setDetail(agent, r.reply.body);
    });
    return () => reader.drop();
  }, [stale, phone, reader, agent, pane]);

  const settle = useCallback(
    (requestId: string, p: Promise<SendResult>) => {
      p.then(
        (r) => dispatch({ type: "result", result: actions.result(requestId) ?? r }),
        () => dispatch({ type: "result", result: { kind: "no-reply" } }),
      );
    },
    [dispatch, actions],
  );

  const answer = useCallback(
    (a: Answer) => {
      if (!canTap(store.card(agent, pane, ask.id) ?? base())) return;
      // The outbox shows the tap once it is saved: the card takes it first, by its request id.
      const tap = actions.answer({ agent, pane, ask: ask.id }, { revision: ask.revision, answer: a });
      const s: Sent = { requestId: tap.requestId, revision: ask.revision, answer: a };
      dispatch({ type: "tap", sent: s });
      settle(s.requestId, tap.result);
    },
    [store, actions, agent, pane, ask.id, ask.revision, base, dispatch, settle],
  );

  const retry = useCallback(() => {
    const now = store.card(agent, pane, ask.id) ?? base();
    if (!canRetry(now) || !now.sent) return;
    const s = now.sent;
    dispatch({ type: "retry" });
    // The same request id and body again; the agent's receipt keeps it to one answer (S-28).
    settle(s.requestId, actions.retry(s.requestId));
  }, [store, agent, pane, ask.id, base, dispatch, actions, settle]);

  return { state, look: cardLook(state, sendingNow), answer, retry };
}
