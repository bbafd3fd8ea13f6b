/**
 * The header's two lines (P-21). A title too long for one line is cut with an ellipsis; a tap on
 * it shows it whole, wrapped, and line 2 too (issue 32: long titles could not be read).
 */
import { useId, useState } from "react";
import { ExperimentalBadge } from "../../ui/Badge.tsx";

export function ChatTitle({ title, line2 }: { title: string; line2: string }) {
  const [expanded, setExpanded] = useState(false);
  const id = useId();
  return (
    <div id={id} className={`chat-title${expanded ? " expanded" : ""}`}>
      <h1>
        <button type="button" className="chat-title-button" aria-expanded={expanded} aria-controls={id} onClick={() => setExpanded((e) => !e)}>
          <span className="chat-title-text" dir="auto">{title}</span>
        </button>{" "}
        <ExperimentalBadge />
      </h1>
      <div className="chat-line2 muted" dir="auto">{line2}</div>
    </div>
  );
}
