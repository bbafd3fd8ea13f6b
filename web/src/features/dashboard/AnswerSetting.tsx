/**
 * The switch for answering from notifications (issue 30): `Allow` and `Deny` on an ask's
 * notification, on by default, with one line on what that means on a locked phone. Kept in
 * IndexedDB, where the service worker reads it (app/notification-answers.ts). Not drawn where the
 * browser shows no buttons on a notification (an iPhone): there a notification opens the card.
 */
import { useEffect, useId, useMemo, useState } from "react";
import { WORDS } from "@colliepwa/shared/strings";
import { answeringOn, idbSettings, setAnswering, type SettingStorage } from "../../app/notification-answers.ts";

/** Whether this browser shows buttons on a notification (Chromium and Firefox: 2; Safari: none). */
export function browserShowsButtons(): boolean {
  const n = typeof Notification === "undefined" ? undefined : (Notification as unknown as { maxActions?: number });
  return (n?.maxActions ?? 0) >= 2;
}

export function AnswerSetting({ settings, buttonsShown }: { settings?: SettingStorage; buttonsShown?: boolean }) {
  const shown = buttonsShown ?? browserShowsButtons();
  const store = useMemo(() => settings ?? (shown ? idbSettings() : null), [settings, shown]);
  const [on, setOn] = useState<boolean | null>(null);
  const noteId = useId();

  useEffect(() => {
    if (!store) return;
    let live = true;
    void answeringOn(store).then((v) => live && setOn(v));
    return () => {
      live = false;
    };
  }, [store]);

  if (!shown || !store) return null;
  const toggle = (next: boolean) => {
    setOn(next);
    // Not kept (private mode): the switch goes back, so it never shows what the worker does not read.
    setAnswering(store, next).catch(() => setOn(!next));
  };
  return (
    <div className="answer-setting">
      <label className="row toggle-row">
        <span>{WORDS.push.answerLabel}</span>
        <input type="checkbox" role="switch" checked={on === true} disabled={on === null} aria-describedby={noteId} onChange={(e) => toggle(e.target.checked)} />
      </label>
      <p className="setting-note" id={noteId}>{WORDS.push.answerLocked}</p>
    </div>
  );
}
