/**
 * The one look of a tap on its way (issue 37: one pending look for a tap): P-20's small clock,
 * drawn by your own line, by the ask card's control you tapped and by a belt button whose tap is
 * on its way, so "sent, not answered yet" reads the same everywhere. An agent's own `busy` button
 * keeps P-22's spinner: that is the agent working, not your tap.
 */
import { WORDS } from "@colliepwa/shared/strings";

/**
 * `inside` a control that says `aria-busy` itself, the clock is hidden from assistive technology,
 * so the control keeps its name (`Stop`, `Allow`); on your own line it is an image named `Sending`.
 */
export function PendingClock({ inside = false }: { inside?: boolean }) {
  const a11y = inside ? { "aria-hidden": true } : { role: "img", "aria-label": WORDS.screen.sending };
  return (
    <svg className="pending-clock" data-clock="" viewBox="0 0 16 16" width="12" height="12" {...a11y}
      fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round">
      <circle cx="8" cy="8" r="6.2" />
      <path d="M8 4.5V8l2.4 1.6" />
    </svg>
  );
}
