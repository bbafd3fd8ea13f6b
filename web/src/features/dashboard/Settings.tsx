/**
 * Settings (P-4, P-27): "Show only what needs you", kept on this device, the push opt-in, and
 * whether a notification's buttons answer (issue 30).
 */
import { useState } from "react";
import { STRINGS } from "@colliepwa/shared";
import { href } from "../../app/router.ts";
import { readOnlyNeedsYou, writeOnlyNeedsYou } from "./settings.ts";
import { PushSetting } from "./PushSetting.tsx";
import { AnswerSetting } from "./AnswerSetting.tsx";
import { WORDS } from "@colliepwa/shared/strings";

export function Settings() {
  const [on, setOn] = useState(readOnlyNeedsYou);
  return (
    <main className="screen settings">
      <header className="topbar">
        <a className="icon-button" href={href({ name: "dashboard" })} aria-label={WORDS.screen.back}>‹</a>
        <h1>{WORDS.screen.settings}</h1>
      </header>
      <label className="row toggle-row">
        <span>{STRINGS.showOnlyWhatNeedsYou}</span>
        <input
          type="checkbox"
          role="switch"
          checked={on}
          onChange={(e) => {
            setOn(e.target.checked);
            writeOnlyNeedsYou(e.target.checked);
          }}
        />
      </label>
      <PushSetting />
      <AnswerSetting />
    </main>
  );
}
