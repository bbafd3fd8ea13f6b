/**
 * The sends of one chat (P-20, P-26): what you sent from this page, plus the outbox's pending sends
 * for this pane (they survive a reload and show as your lines, sending), each with what its last
 * attempt came to. Sends go through the outbox with one request id each (P-14); a retry sends the
 * same id again. A send that was refused or moved on gives its text back once and is dropped from
 * the outbox. The display rules themselves are in own-lines.ts.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { actionPath } from "../../app/api.ts";
import { newRequestId, type SendResult } from "../../app/outbox.ts";
import type { Phone } from "../../app/phone.ts";
import { useOutbox, usePhone, usePhoneState } from "../../app/react.ts";
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

export interface OwnSends {
  sends: OwnSend[];
  /** Sends new text with a new request id. */
  send: (text: string) => Promise<SendResult>;
  /** Sends a line again with its own request id. */
  retry: (requestId: string) => Promise<SendResult>;
}

export function useOwnSends(agent: string, pane: string, onTextBack: (text: string) => void): OwnSends {
  const phone = usePhone();
  const outbox = useOutbox();
  const { heldOutcomes } = usePhoneState();
  const key = paneKey(agent, pane);
  const [records, setRecords] = useState<SendRecord[]>(() => remembered(phone, key));
  /** Request ids whose text went back already (guards against effects running twice). */
  const given = useRef(new Set<string>());

  useEffect(() => remember(phone, key, records), [phone, key, records]);

  // Pending sends from an earlier page (P-26) show as your lines until they are answered.
  const known = new Set(records.map((r) => r.requestId));
  const adopted: SendRecord[] = outbox.pending
    .filter((p) => p.kind === "send" && p.agent === agent && p.pane === pane && !known.has(p.requestId))
    .map((p) => ({ requestId: p.requestId, text: typeof p.body.text === "string" ? p.body.text : "", createdAt: p.createdAt }));
  const adoptedIds = adopted.map((a) => a.requestId).join(" ");
  useEffect(() => {
    if (!adoptedIds) return;
    const ids = new Set(adoptedIds.split(" "));
    const found = outbox.pending
      .filter((p) => ids.has(p.requestId))
      .map((p) => ({ requestId: p.requestId, text: typeof p.body.text === "string" ? p.body.text : "", createdAt: p.createdAt }));
    setRecords((rs) => [...rs, ...found.filter((f) => !rs.some((r) => r.requestId === f.requestId))]);
  }, [adoptedIds, outbox]);

  const all = [...records, ...adopted];
  const sends: OwnSend[] = all.map((r) => {
    const s: OwnSend = { requestId: r.requestId, text: r.text, createdAt: r.createdAt, inFlight: outbox.sending(r.requestId) };
    // A held message's outcome, once Collie delivered it, says more than the 202 that held it.
    const delivered = heldOutcomes.get(r.requestId);
    const result: SendResult | undefined = delivered
      ? { kind: "reply", reply: delivered }
      : outbox.result(r.requestId) ?? (outbox.held(r.requestId) ? HELD : undefined);
    if (result) s.result = result;
    return s;
  });

  // A held message Collie delivered: the outbox lets it go (its outcome is known now).
  const settled = all.filter((r) => heldOutcomes.has(r.requestId) && outbox.pending.some((p) => p.requestId === r.requestId)).map((r) => r.requestId).join(" ");
  useEffect(() => {
    if (!settled) return;
    for (const id of settled.split(" ")) void outbox.discard(id);
  }, [settled, outbox]);

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
      void outbox.discard(r.requestId);
    }
    // Runs once per newly refused send: `returned` keeps it from running again.
  }, [toReturnIds]);

  const submit = useCallback(
    (requestId: string, text: string) =>
      outbox.submit({ requestId, kind: "send", agent, pane, path: actionPath.send(agent, pane), body: { requestId, text } }),
    [outbox, agent, pane],
  );

  const send = useCallback(
    (text: string) => {
      const requestId = newRequestId();
      const now = phone.now();
      setRecords((rs) => [...rs.filter((r) => now - r.createdAt < OWN_LINE_HIDE_MS), { requestId, text, createdAt: now }]);
      return submit(requestId, text);
    },
    [phone, submit],
  );

  const retry = useCallback(
    (requestId: string) => {
      // Still pending (no reply yet): the outbox has it. Answered 5xx: the outbox let it go, so it
      // is saved again under the same request id; the agent's receipt keeps it to one run (S-28).
      if (outbox.pending.some((p) => p.requestId === requestId)) return outbox.send(requestId);
      const r = all.find((x) => x.requestId === requestId);
      if (!r) return Promise.resolve<SendResult>({ kind: "no-reply" });
      return submit(requestId, r.text);
    },
    [outbox, all, submit],
  );

  return { sends, send, retry };
}
