/**
 * The composer's text of one conversation, kept as its draft (P-26, web/src/app/drafts.ts): the
 * chat opens with what was typed there last, and every change is kept at once, so a reload, a
 * restart or an agent that is down loses nothing typed. Text that comes back into the composer (a
 * `Not sent` line, a refused Steer) is a change like any other.
 */
import { useCallback, useState } from "react";
import { usePhone } from "../../app/react.ts";
import { paneKey } from "../../app/store.ts";

export type SetText = (update: string | ((prev: string) => string)) => void;

export function useDraft(agent: string, pane: string): [string, SetText] {
  const phone = usePhone();
  const key = paneKey(agent, pane);
  const [text, setState] = useState(() => phone.drafts.get(key));
  const setText = useCallback<SetText>(
    (update) =>
      setState((prev) => {
        const next = typeof update === "function" ? update(prev) : update;
        if (next !== prev) phone.drafts.set(key, next);
        return next;
      }),
    [phone, key],
  );
  return [text, setText];
}
