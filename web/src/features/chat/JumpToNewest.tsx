/**
 * The jump-to-newest pill (issue 37: scrolled up in a long chat, new replies streamed below with
 * no sign): while the reader is away from the end, new items the agent writes are counted, and a
 * pill at the bottom says how many (`3 new`) and takes the reader there. Your own lines are not
 * counted: you know you wrote them.
 */
import { useEffect, useState } from "react";
import type { Item } from "@colliepwa/durable-sdk/wire";
import { WORDS } from "@colliepwa/shared/strings";

/** How many items after `seenId` the agent wrote (not your own lines). */
export function unreadAfter(items: readonly Item[], seenId: string | null): number {
  if (seenId === null) return 0;
  const at = items.findIndex((i) => i.id === seenId);
  if (at < 0) return 0;
  let n = 0;
  for (let i = at + 1; i < items.length; i++) if (items[i]!.kind !== "user") n++;
  return n;
}

/** New items since the reader left the end; 0 while at the end. */
export function useUnread(items: readonly Item[], pinned: boolean): number {
  const [seen, setSeen] = useState<string | null>(null);
  const last = items.at(-1)?.id ?? null;
  useEffect(() => {
    // Leaving the end notes the newest item then; coming back clears it.
    setSeen((s) => (pinned ? null : (s ?? last)));
    // Only a change of `pinned` moves the mark: new items while away are what it counts.
  }, [pinned]);
  return pinned ? 0 : unreadAfter(items, seen);
}

export function JumpToNewest({ unread, onJump }: { unread: number; onJump: () => void }) {
  return (
    <button type="button" className="jump-newest" data-unread={unread} aria-label={WORDS.chat.jumpToNewest(unread)} onClick={onJump}>
      <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        <path d="M8 3v10M3.5 8.5 8 13l4.5-4.5" />
      </svg>
      <span>{unread > 0 ? WORDS.chat.newCount(unread) : WORDS.chat.newest}</span>
    </button>
  );
}
