/**
 * The sends of one chat (P-20, P-26): what you sent from this page, plus the outbox's pending sends
 * for this pane (they survive a reload and show as your lines, sending), each with what its last
 * attempt came to. Sends go through the action layer (`phone.actions.send`, one request id each,
 * P-14); a retry is `phone.actions.retry`, the same id again. A send that was refused or moved on
 * gives its text back once and is dropped from the outbox. The display rules are in own-lines.ts.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { PendingAction, SendResult } from "../../app/actions.ts";
import type { Phone } from "../../app/phone.ts";
import { useActions, usePhone, usePhoneState } from "../../app/react.ts";
import { paneKey } from "../../app/store.ts";
import { OWN_LINE_HIDE_MS, ownLineState, type OwnSend } from "./own-lines.ts";

interface SendRecord {
  requestId: string;
  text: string;
  createdAt: number;
  /** Its text already went back into the composer. */
  returned?: boolean;
}

/** Sends made on this page, per phone and pane: they outlive the chat screen (back and forth). */
const memory = new WeakMap<Phone, Map<string, SendRecord[]>>();

function remembered(phone: Phone, key: string): SendRecord[] {
  return memory.get(phone)?.get(key) ?? [];
}

function remember(phone: Phone, key: string, records: SendRecord[]): void {
  let m = memory.get(phone);
  if (!m) memory.set(phone, (m = new Map()));
  m.set(key, records);
}

/** What a send that an earlier page left held shows until it is sent again (P-26). */
const HELD: SendResult = { kind: "reply", reply: { status: 202, body: { held: true } } };

/** A pending send as one of your lines. */
function toRecord(p: PendingAction): SendRecord {
  return { requestId: p.requestId, text: typeof p.body.text === "string" ? p.body.text : "", createdAt: p.createdAt };
}

export interface OwnSends {
  sends: OwnSend[];
  /** Sends new text with a new request id. */
  send: (text: string) => Promise<SendResult>;
  /** Sends a line again with its own request id. */
  retry: (requestId: string) => Promise<SendResult>;
}

export function useOwnSends(agent: string, pane: string, onTextBack: (text: string) => void): OwnSends {
  const phone = usePhone();
  const actions = useActions();
  const { heldOutcomes } = usePhoneState();
  const key = paneKey(agent, pane);
  const [records, setRecords] = useState<SendRecord[]>(() => remembered(phone, key));
  /** Request ids whose text went back already (guards against effects running twice). */
  const given = useRef(new Set<string>());

  useEffect(() => remember(phone, key, records), [phone, key, records]);

  // Pending sends from an earlier page (P-26) show as your lines until they are answered.
  const known = new Set(records.map((r) => r.requestId));
  const adopted: SendRecord[] = actions.pending("send", { agent, pane }).filter((p) => !known.has(p.requestId)).map(toRecord);
  const adoptedIds = adopted.map((a) => a.requestId).join(" ");
  useEffect(() => {
    if (!adoptedIds) return;
    const ids = new Set(adoptedIds.split(" "));
    const found = actions.pending("send", { agent, pane }).filter((p) => ids.has(p.requestId)).map(toRecord);
    setRecords((rs) => [...rs, ...found.filter((f) => !rs.some((r) => r.requestId === f.requestId))]);
  }, [adoptedIds, actions, agent, pane]);

  const all = [...records, ...adopted];
  const sends: OwnSend[] = all.map((r) => {
    const s: OwnSend = { requestId: r.requestId, text: r.text, createdAt: r.createdAt, inFlight: actions.sending(r.requestId) };
    // A held message's outcome, once Collie delivered it, says more than the 202 that held it.
    const delivered = heldOutcomes.get(r.requestId);
    const result: SendResult | undefined = delivered
      ? { kind: "reply", reply: delivered }
      : actions.result(r.requestId) ?? (actions.held(r.requestId) ? HELD : undefined);
    if (result) s.result = result;
    return s;
  });

  // A held message Collie delivered: the outbox lets it go (its outcome is known now).
  const settled = all.filter((r) => heldOutcomes.has(r.requestId) && actions.isPending(r.requestId)).map((r) => r.requestId).join(" ");
  useEffect(() => {
    if (!settled) return;
    for (const id of settled.split(" ")) void actions.discard(id);
  }, [settled, actions]);

  // Refused or moved on (P-20): `Not sent`, the text goes back into the composer, once.
  const toReturn = sends.filter((s) => ownLineState(s) === "not-sent" && !all.find((r) => r.requestId === s.requestId)?.returned);
  const toReturnIds = toReturn.map((s) => s.requestId).join(" ");
  useEffect(() => {
    if (!toReturnIds) return;
    const ids = new Set(toReturnIds.split(" "));
    setRecords((rs) => rs.map((r) => (ids.has(r.requestId) ? { ...r, returned: true } : r)));
    setRecords((rs) => [...rs, ...all.filter((a) => ids.has(a.requestId) && !rs.some((r) => r.requestId === a.requestId)).map((a) => ({ ...a, returned: true }))]);
    for (const r of all) {
      if (!ids.has(r.requestId) || given.current.has(r.requestId)) continue;
      given.current.add(r.requestId);
      onTextBack(r.text);
      void actions.discard(r.requestId);
    }
    // Runs once per newly refused send: `returned` keeps it from running again.
  }, [toReturnIds]);

  const send = useCallback(
    (text: string) => {
      const tap = actions.send({ agent, pane }, { text });
      const now = phone.now();
      setRecords((rs) => [...rs.filter((r) => now - r.createdAt < OWN_LINE_HIDE_MS), { requestId: tap.requestId, text, createdAt: now }]);
      return tap.result;
    },
    [phone, actions, agent, pane],
  );

  // The same request id and text again; the agent's receipt keeps it to one run (S-28).
  const retry = useCallback((requestId: string) => actions.retry(requestId), [actions]);

  return { sends, send, retry };
}

/**
 * Lets the outbox forget sends whose fate the chat shows (issue 37: an unsure send is kept, so a
 * reload still says `Sending, not confirmed`): one the agent's copy replaced has landed; an unsure
 * one hidden after 10 minutes (P-20) is given up. A send still on its way, or one Collie holds,
 * stays; so does one that never reached Collie (the outbox sends it when the connection is back).
 */
export function useForgetSettled(replaced: ReadonlyMap<string, string>, expired: ReadonlySet<string>): void {
  const actions = useActions();
  const done = [...replaced.keys(), ...[...expired].filter((id) => actions.unsure(id))]
    .filter((id) => actions.isPending(id) && !actions.sending(id) && !actions.held(id))
    .join(" ");
  useEffect(() => {
    if (!done) return;
    for (const id of done.split(" ")) void actions.discard(id);
  }, [done, actions]);
}
