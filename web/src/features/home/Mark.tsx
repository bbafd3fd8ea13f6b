/**
 * A conversation row's state mark (P-5): working, waiting on you, idle, or closed. Each state has
 * its own shape, so the mark reads without its colour (WCAG 1.4.1): a turning arc (working), a
 * filled disc with an exclamation mark (waiting on you), an empty ring (idle), a square (closed).
 * Every shape has 3:1 against the row in both schemes (WCAG 1.4.11); its meaning is its
 * accessible name and its tooltip.
 */
import type { ReactElement } from "react";
import { MARK_LABEL, type RowMark } from "./home.ts";

export function Mark({ mark }: { mark: RowMark }) {
  return (
    <span className={`mark mark-${mark}`} role="img" aria-label={MARK_LABEL[mark]} title={MARK_LABEL[mark]} data-mark={mark}>
      <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">{SHAPES[mark]}</svg>
    </span>
  );
}

const SHAPES: Readonly<Record<RowMark, ReactElement>> = {
  working: <path className="mark-arc" d="M8 2.5a5.5 5.5 0 1 1-5.5 5.5" fill="none" strokeWidth="2.5" strokeLinecap="round" />,
  waiting: (
    <>
      <circle cx="8" cy="8" r="7" />
      <path className="mark-glyph" d="M7 3.8h2l-.35 5.4h-1.3z M8 10.4a1.1 1.1 0 1 1 0 2.2 1.1 1.1 0 1 1 0-2.2z" />
    </>
  ),
  idle: <circle cx="8" cy="8" r="5.5" fill="none" strokeWidth="2" />,
  closed: <rect x="3" y="3" width="10" height="10" rx="2" />,
};
