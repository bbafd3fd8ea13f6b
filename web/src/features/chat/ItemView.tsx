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
import { CopyButton } from "./CopyButton.tsx";
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
   * False but at the end of a burst: like a messaging app, items written close together show one
   * time, on the last of them (list.ts `burstEnds`).
   */
  showTime?: boolean;
}

function ItemViewImpl({ item, today, showTime = true }: ItemViewProps) {
  const away = useAgentAway();
  const partial = isPartial(item);
  const cursor = partial ? <Cursor /> : null;
  let body: ReactNode;
  switch (item.kind) {
    // Every text an agent (or you) wrote takes its direction from its own first strong letter
    // (`dir="auto"`, issue 37): Hebrew and Arabic read right to left, with punctuation in place.
    case "user":
      // A line steered into a running turn says so: it is not a new message (P-22).
      body = item.steered
        ? <div className="bubble bubble-own bubble-steered text"><span className="steered-label">{WORDS.screen.steered}</span><span dir="auto">{item.text}</span></div>
        : <div className="bubble bubble-own text" dir="auto">{item.text}</div>;
      break;
    case "reply":
      body = <div className="bubble bubble-agent text" dir="auto">{item.text}{cursor}</div>;
      break;
    case "thinking":
      body = (
        <div className="thinking">
          <span className="item-label">{WORDS.screen.thinking}</span>
          <div className="text" dir="auto">{item.text}{cursor}</div>
        </div>
      );
      break;
    case "notice":
      body = <div className="notice" dir="auto">{item.stopped ? STRINGS.stopped : item.text}{cursor}</div>;
      break;
    case "markdown":
      body = <div className="bubble bubble-agent" dir="auto"><Markdown text={item.text} cursor={partial} /></div>;
      break;
    case "code":
      // Code reads left to right whatever its comments say; it scrolls sideways (focusable, so a
      // keyboard can too) and copies whole (issue 37).
      body = (
        <figure className="code-block">
          <figcaption className="code-head">
            {item.lang ? <span className="code-lang">{item.lang}</span> : <span />}
            {item.text && <CopyButton text={item.text} />}
          </figcaption>
          <pre dir="ltr" tabIndex={0}><code>{item.text}</code></pre>
        </figure>
      );
      break;
    case "link": {
      const href = safeHref(item.href);
      const label = item.label || item.href;
      body = href
        ? <ExternalLink className="link-row" href={href}><span className="link-label" dir="auto">{label}</span>{item.label && <span className="link-address muted" dir="ltr">{item.href}</span>}</ExternalLink>
        : <span className="link-row link-plain" dir="auto">{label}</span>; // not https: text, nothing to tap (X-2)
      break;
    }
    case "tool":
      body = (
        <div className={`tool tool-${item.status}`} data-status={item.status}>
          <div className="tool-head">
            <bdi className="tool-name">{item.name}</bdi>
            <span className={`tool-status status-${item.status}`}>
              {/* Its agent is away: the call is not known to run now, so no spinner says it does. */}
              {item.status === "running" && !away && <span className="spinner" aria-hidden="true" />}
              {item.status === "running" && away ? AWAY_WORDS.toolLastSeen : TOOL_STATUS_WORDS[item.status]}
            </span>
          </div>
          {item.call && <code className="tool-call" dir="ltr">{item.call}</code>}
          {/* Long output scrolls inside its box: focusable, so it can be scrolled without a pointer. */}
          {item.output && <pre className="tool-output" dir="auto" tabIndex={0}>{item.output}</pre>}
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

/**
 * An item's time drawn after what sits under it (its ask cards, its answer lines), on the item's
 * side: the end of a burst whose last item has a card (issue 32: never between the call and its card).
 */
export function ItemTime({ item, today }: { item: Item; today: number }) {
  if (!item.ts) return null;
  return (
    <div className={`item-meta slot-time${item.kind === "user" ? " own" : ""}`} data-time-of={item.id}>
      <time dateTime={item.ts}>{shortTime(item.ts, today)}</time>
    </div>
  );
}

/** Memoized: items are replaced, never mutated, so a long chat re-renders only what changed. */
export const ItemView = memo(ItemViewImpl);
