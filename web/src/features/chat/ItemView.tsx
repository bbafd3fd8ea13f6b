/**
 * One item of a conversation (P-18, P-19), for the chat and the read-only closed view alike.
 * Agent text is data: it is rendered as React text nodes, never as markup. A growing item
 * (`partial`) shows a cursor at its end and no time; a finished one shows its time small.
 */
import { memo, type ReactNode } from "react";
import { STRINGS } from "@colliepwa/shared";
import type { Item, ToolStatus } from "@colliepwa/durable-sdk/wire";
import { shortTime } from "../../app/rules.ts";
import { AWAY_WORDS, useAgentAway } from "../../ui/AgentAway.tsx";
import { Cursor } from "./cursor.tsx";
import { ExternalLink, Markdown, safeHref } from "./markdown.tsx";
import { WORDS } from "@colliepwa/shared/strings";

/** The words for a tool call's status (P-18). */
export const TOOL_STATUS_WORDS: Readonly<Record<ToolStatus, string>> = {
  running: "Running",
  done: "Done",
  failed: "Failed",
  denied: "Denied",
};

export const isPartial = (item: Item): boolean => "partial" in item && item.partial === true;

export interface ItemViewProps {
  item: Item;
  /** A moment of today (ms): times of today read `14:05`, older ones `2 Dec`. */
  today: number;
  /**
   * False when the next item shows the same time: like a messaging app, a run of items written in
   * the same minute shows its time once, on its last item.
   */
  showTime?: boolean;
}

function ItemViewImpl({ item, today, showTime = true }: ItemViewProps) {
  const away = useAgentAway();
  const partial = isPartial(item);
  const cursor = partial ? <Cursor /> : null;
  let body: ReactNode;
  switch (item.kind) {
    case "user":
      // A line steered into a running turn says so: it is not a new message (P-22).
      body = item.steered
        ? <div className="bubble bubble-own bubble-steered text"><span className="steered-label">{WORDS.screen.steered}</span>{item.text}</div>
        : <div className="bubble bubble-own text">{item.text}</div>;
      break;
    case "reply":
      body = <div className="bubble bubble-agent text">{item.text}{cursor}</div>;
      break;
    case "thinking":
      body = (
        <div className="thinking">
          <span className="item-label">{WORDS.screen.thinking}</span>
          <div className="text">{item.text}{cursor}</div>
        </div>
      );
      break;
    case "notice":
      body = <div className="notice">{item.stopped ? STRINGS.stopped : item.text}{cursor}</div>;
      break;
    case "markdown":
      body = <div className="bubble bubble-agent"><Markdown text={item.text} cursor={partial} /></div>;
      break;
    case "code":
      body = (
        <figure className="code-block">
          {item.lang && <figcaption className="code-lang">{item.lang}</figcaption>}
          {/* Focusable: a keyboard scrolls a long line into view (axe scrollable-region-focusable). */}
          <pre tabIndex={0}><code>{item.text}</code></pre>
        </figure>
      );
      break;
    case "link": {
      const href = safeHref(item.href);
      const label = item.label || item.href;
      body = href
        ? <ExternalLink className="link-row" href={href}><span className="link-label">{label}</span>{item.label && <span className="link-address muted">{item.href}</span>}</ExternalLink>
        : <span className="link-row link-plain">{label}</span>; // not https: text, nothing to tap (X-2)
      break;
    }
    case "tool":
      body = (
        <div className={`tool tool-${item.status}`} data-status={item.status}>
          <div className="tool-head">
            <span className="tool-name">{item.name}</span>
            <span className={`tool-status status-${item.status}`}>
              {/* Its agent is away: the call is not known to run now, so no spinner says it does. */}
              {item.status === "running" && !away && <span className="spinner" aria-hidden="true" />}
              {item.status === "running" && away ? AWAY_WORDS.toolLastSeen : TOOL_STATUS_WORDS[item.status]}
            </span>
          </div>
          {item.call && <code className="tool-call">{item.call}</code>}
          {/* Focusable: a long output scrolls, and a keyboard must reach it too (issue 32, item 7). */}
          {item.output && <pre className="tool-output" tabIndex={0}>{item.output}</pre>}
        </div>
      );
      break;
    default:
      // A kind this phone does not know (a newer agent): nothing to draw.
      return null;
  }
  const time = showTime && !partial && item.ts ? shortTime(item.ts, today) : "";
  const own = item.kind === "user";
  return (
    <div className={`item item-${item.kind}${own ? " own" : ""}${partial ? " partial" : ""}`} data-item-id={item.id} data-kind={item.kind}>
      {body}
      {(time || item.textShortened) && (
        <div className="item-meta">
          {item.textShortened && <span className="shortened">{STRINGS.textShortened}</span>}
          {time && <time dateTime={item.ts}>{time}</time>}
        </div>
      )}
    </div>
  );
}

/** Memoized: items are replaced, never mutated, so a long chat re-renders only what changed. */
export const ItemView = memo(ItemViewImpl);
