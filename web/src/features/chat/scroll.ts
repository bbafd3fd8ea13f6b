/**
 * Keeps a chat pinned to its newest line while new items arrive, as long as the reader is at the
 * bottom (P-18); a reader who scrolled up stays where they are. Adding earlier items above keeps
 * the lines on screen in place.
 */
import { useCallback, useLayoutEffect, useRef, type RefObject } from "react";

/** Within this many pixels of the end counts as "at the bottom". */
export const PIN_SLACK_PX = 48;

export function usePinnedScroll(ref: RefObject<HTMLElement | null>) {
  const atBottom = useRef(true);
  /** Distance from the end to keep when content is added above (Show earlier). */
  const keepFromEnd = useRef<number | null>(null);

  const onScroll = useCallback(() => {
    const el = ref.current;
    if (!el) return;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight <= PIN_SLACK_PX;
  }, [ref]);

  /** Follow the end again (you sent something: you want to see it). */
  const pin = useCallback(() => {
    atBottom.current = true;
  }, []);

  /** Call before adding content above the lines on screen. */
  const holdPosition = useCallback(() => {
    const el = ref.current;
    if (el) keepFromEnd.current = el.scrollHeight - el.scrollTop;
  }, [ref]);

  // After every render: restore a held position, or follow the end while pinned.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (keepFromEnd.current !== null) {
      el.scrollTop = el.scrollHeight - keepFromEnd.current;
      keepFromEnd.current = null;
      atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight <= PIN_SLACK_PX;
    } else if (atBottom.current) {
      el.scrollTop = el.scrollHeight;
    }
  });

  // The box itself changes size (the keyboard opens, the composer grows), or what it holds grows
  // without a new item (an ask card shows its outcome line and Retry, a form names a field to
  // fix): stay at the end.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(() => {
      if (atBottom.current) el.scrollTop = el.scrollHeight;
    });
    ro.observe(el);
    for (const child of el.children) ro.observe(child);
    return () => ro.disconnect();
  }, [ref]);

  return { onScroll, holdPosition, pin };
}
