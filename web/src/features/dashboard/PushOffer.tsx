/**
 * The push offer, once, after pairing (issue 21: push was off by default and only in Settings):
 * a card on the dashboard that asks whether this phone should get a notification when an agent
 * needs an answer. `Turn on` does what the Settings switch does (with the same progress and words);
 * `Not now` puts it away for good (Settings keeps the switch). Offered only where this browser can
 * take push and it is off; a browser without push just never sees it.
 */
import { useEffect, useMemo, useState } from "react";
import { usePhone } from "../../app/react.ts";
import { browserPushEnv, PUSH_WORDS, PushError, pushState, turnPushOn, type PushEnv } from "../../app/push.ts";

/** Set by a successful pairing; cleared by an answer to the offer. */
export const OFFER_KEY = "collie.offerPush";

export function markPushOffer(storage: Pick<Storage, "setItem"> | undefined = globalThis.localStorage): void {
  try {
    storage?.setItem(OFFER_KEY, "1");
  } catch {
    // private mode: no offer, Settings still has the switch
  }
}

export function PushOffer({ env: given }: { env?: PushEnv }) {
  const phone = usePhone();
  const env = useMemo(() => given ?? browserPushEnv(phone.api), [given, phone.api]);
  const [show, setShow] = useState(false);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);

  useEffect(() => {
    if (env.storage.getItem(OFFER_KEY) !== "1") return;
    let live = true;
    pushState(env).then(
      (s) => {
        if (!live) return;
        if (s === "off") setShow(true);
        // On already, or blocked: nothing to offer. "unsupported" may only mean the service worker
        // is not registered yet (the first load after pairing): the offer waits for a later visit.
        else if (s === "on" || s === "denied") env.storage.removeItem(OFFER_KEY);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [env]);

  if (!show) return null;
  const done = () => {
    env.storage.removeItem(OFFER_KEY);
    setShow(false);
  };
  const yes = async () => {
    setBusy(true);
    setNote(PUSH_WORDS.turningOn);
    try {
      const s = await turnPushOn(env);
      env.storage.removeItem(OFFER_KEY);
      setNote(PUSH_WORDS[s]);
      if (s === "on") setShow(false);
    } catch (err) {
      setNote(err instanceof PushError ? err.message : PUSH_WORDS.failed(PUSH_WORDS.refused));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="push-offer" aria-label={PUSH_WORDS.label}>
      <p>{PUSH_WORDS.offer}</p>
      <div className="push-offer-choices">
        <button type="button" onClick={done} disabled={busy}>{PUSH_WORDS.offerNo}</button>
        <button type="button" className="push-offer-yes button-primary" onClick={() => void yes()} disabled={busy} aria-busy={busy || undefined}>{PUSH_WORDS.offerYes}</button>
      </div>
      {note && <p className="setting-note" role="status">{note}</p>}
    </section>
  );
}
