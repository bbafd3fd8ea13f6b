/** The ask's reason, folded when long (P-9), with `Show more` / `Show less`. Plain text only. */
import { useState } from "react";
import { foldReason } from "./reason.ts";
import { WORDS } from "./words.ts";

export function Reason({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  const { long, short } = foldReason(text);
  return (
    <div className="ask-reason-box">
      <p className="ask-reason" dir="auto">{long && !open ? short : text}</p>
      {long && (
        <button type="button" className="ask-fold" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
          {open ? WORDS.showLessReason : WORDS.showMoreReason}
        </button>
      )}
    </div>
  );
}
