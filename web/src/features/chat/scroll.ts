/**
 * Keeps a chat pinned to its newest line while new items arrive, as long as the reader is at the
 * bottom (P-18); a reader who scrolled up stays where they are, and the chat offers a way back
 * (`pinned` false: the jump-to-newest pill). Adding earlier items above keeps the lines on screen
 * in place; scrolling near the top asks for them by itself.
 */
import { useCallback, useLayoutEffect, useRef, useState, type RefObject } from "react";

/** Within this many pixels of the end counts as "at the bottom". */
export const PIN_SLACK_PX = 48;
/** Within this many pixels of the top, earlier items load by themselves (issue 37). */
export const LOAD_EARLIER_PX = 400;

export interface PinnedScroll {
  onScroll: () => void;
  /** Call before adding content above the lines on screen. */
  holdPosition: () => void;
  /** Follow the end again (you sent something: you want to see it). */
  pin: () => void;
  /** Scrolls to the newest line and follows it again (the jump-to-newest pill). */
  jumpToEnd: () => void;
  /** Whether the reader is at the end (then new lines keep it in view); a state, for drawing. */
  pinned: boolean;
  /** Whether the reader is more than a screen above the end. */
  far: boolean;
}

/**
 * `nearTop` runs when a scroll brings the reader near the top; it returns true when it adds
 * earlier items above, and the place on screen is kept (issue 37: no tap on `Show earlier`).
 */
export function usePinnedScroll(ref: RefObject<HTMLElement | null>, nearTop?: () => boolean): PinnedScroll {
  const atBottom = useRef(true);
  /**
   * Where following the end last put the view. A scroll event this code caused arrives later, and
   * by then more may have grown or the box shrunk (an ask card's `Not sure` line and `Retry` as the
   * connection banner opens): that is no reader scrolling up, so it must not stop the following.
   */
  const followedTo = useRef<number | null>(null);
  const followEnd = useCallback((el: HTMLElement) => {
    el.scrollTop = el.scrollHeight;
    followedTo.current = el.scrollTop;
  }, []);
  const [pinned, setPinned] = useState(true);
  const [far, setFar] = useState(false);
  /** Distance from the end to keep when content is added above (Show earlier). */
  const keepFromEnd = useRef<number | null>(null);
  const topHandler = useRef(nearTop);
  topHandler.current = nearTop;

  const setAtBottom = useCallback((at: boolean) => {
    atBottom.current = at;
    setPinned(at);
  }, []);

  const onScroll = useCallback(() => {
    const el = ref.current;
    if (!el) return;
    let fromEnd = el.scrollHeight - el.scrollTop - el.clientHeight;
    // Following the end, and the view is still where following put it: the event is that follow's,
    // and since then only the content or the box moved, no reader; follow on. A reader who
    // scrolled is somewhere else.
    if (atBottom.current && followedTo.current !== null && Math.abs(el.scrollTop - followedTo.current) <= 1) {
      if (fromEnd > PIN_SLACK_PX) followEnd(el);
      fromEnd = 0;
    } else {
      setAtBottom(fromEnd <= PIN_SLACK_PX);
    }
    setFar(fromEnd > el.clientHeight);
    // Near the top of a chat that scrolls: earlier items, if any, come by themselves. Once per
    // render: the held place is restored (and this guard cleared) when they are drawn.
    if (el.scrollTop <= LOAD_EARLIER_PX && keepFromEnd.current === null && el.scrollHeight > el.clientHeight && topHandler.current?.()) {
      keepFromEnd.current = el.scrollHeight - el.scrollTop;
    }
  }, [ref, setAtBottom, followEnd]);

  const pin = useCallback(() => setAtBottom(true), [setAtBottom]);

  const jumpToEnd = useCallback(() => {
    const el = ref.current;
    setAtBottom(true);
    setFar(false);
    if (el) followEnd(el);
  }, [ref, setAtBottom, followEnd]);

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
      setAtBottom(el.scrollHeight - el.scrollTop - el.clientHeight <= PIN_SLACK_PX);
    } else if (atBottom.current) {
      followEnd(el);
    }
  });

  // The box itself changes size (the keyboard opens, the composer grows), or what it holds grows
  // without a new item (an ask card shows its outcome line and Retry, a form names a field to
  // fix): stay at the end.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(() => {
      if (atBottom.current) followEnd(el);
    });
    ro.observe(el);
    for (const child of el.children) ro.observe(child);
    return () => ro.disconnect();
  }, [ref, followEnd]);

  return { onScroll, holdPosition, pin, jumpToEnd, pinned, far };
}
