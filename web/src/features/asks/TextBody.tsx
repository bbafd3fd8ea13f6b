/**
 * A `text` ask (P-10): one input line, a counter like `12 of 500` (characters as code points),
 * `Send`. The limit is the agent's (500 unless set, at most 2000); typing never goes over it.
 */
import { useState, type FormEvent } from "react";
import { STRINGS } from "@colliepwa/shared";
import type { TextAsk } from "@colliepwa/durable-sdk/wire";
import type { BodyProps } from "./body-props.ts";
import { PendingClock } from "../../ui/PendingClock.tsx";
import { charCount, clampText, textLimit } from "./text-limit.ts";

export function TextBody({ ask, enabled, busy, onAnswer }: BodyProps<TextAsk>) {
  const limit = textLimit(ask.limit);
  const [raw, setText] = useState("");
  const text = clampText(raw, limit);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (enabled) onAnswer({ kind: "text", text });
  };
  return (
    <form className="ask-text" onSubmit={submit}>
      <input
        type="text"
        className="ask-input"
        aria-label={ask.title}
        placeholder={ask.placeholder}
        value={text}
        disabled={!enabled}
        onChange={(e) => setText(clampText(e.target.value, limit))}
      />
      <div className="ask-send-line">
        <span className="ask-counter" aria-live="polite">{STRINGS.counter(charCount(text), limit)}</span>
        {/* An empty text is an answer the wire allows: the agent decides what nothing means. */}
        <button type="submit" className="ask-send" disabled={!enabled} aria-busy={busy !== null || undefined}>
          {STRINGS.send}{busy && <PendingClock inside />}
        </button>
      </div>
    </form>
  );
}
