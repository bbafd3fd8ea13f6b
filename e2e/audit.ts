/**
 * The audits a journey runs on a screen (issue 32, issue 37): axe-core's rules (WCAG 2.x A and AA,
 * and axe's best practices), and a look for anything clipped at the phone's width without a
 * visible way to it.
 */
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

/** One axe finding, short enough to read in a failed assertion. */
export interface Finding {
  rule: string;
  impact: string | null | undefined;
  nodes: string[];
}

/**
 * axe-core over the whole page, every rule it runs by default (WCAG A and AA, and its best
 * practices): every violation, with the elements it names and why.
 */
export async function axeViolations(page: Page): Promise<Finding[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations.map((v) => ({
    rule: v.id,
    impact: v.impact,
    nodes: v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary?.replace(/\s+/g, " ") ?? ""}`),
  }));
}

/**
 * What is clipped without a visible way to it, read from the live page (runs in the browser):
 * - the page itself wider than the screen (a sideways scroll nobody expects on a phone);
 * - an element that reaches past the screen's left or right edge where nothing scrolls sideways
 *   to it;
 * - an element that scrolls sideways with its scrollbar hidden and no mark that more is there
 *   (a fading edge, `mask-image`, or `data-more` while part of it is out of view);
 * - text cut by its own box, unless it says it is cut (an ellipsis) and the whole text can be
 *   reached: a tooltip (`title`), or a tap on it or around it (a link or button that opens the
 *   whole, or a focusable element that shows it whole).
 * Each finding names the element by its tag, class and the start of its text.
 */
export function clippedOnScreen(): string[] {
  const found: string[] = [];
  const doc = document.documentElement;
  const width = doc.clientWidth;
  const name = (el: Element): string => {
    const cls = typeof el.className === "string" && el.className ? `.${el.className.trim().split(/\s+/).join(".")}` : "";
    const text = (el.textContent ?? "").replace(/\s+/g, " ").trim().slice(0, 40);
    return `<${el.tagName.toLowerCase()}${cls}> "${text}"`;
  };
  if (doc.scrollWidth > width + 1) found.push(`the page is ${doc.scrollWidth}px wide on a ${width}px screen`);
  const scrollsX = (el: Element): boolean => {
    const s = getComputedStyle(el);
    return (s.overflowX === "auto" || s.overflowX === "scroll") && el.scrollWidth > el.clientWidth + 1;
  };
  for (const el of Array.from(document.body.querySelectorAll("*"))) {
    const s = getComputedStyle(el);
    if (s.display === "none" || s.visibility === "hidden") continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    // Past the screen's edge, with no sideways scroller on the way up.
    if (r.right > width + 1 || r.left < -1) {
      let p = el.parentElement;
      let scroller = false;
      while (p && p !== document.body) {
        if (scrollsX(p)) scroller = true;
        p = p.parentElement;
      }
      if (!scroller && s.position !== "fixed") found.push(`${name(el)} reaches past the screen (${Math.round(r.left)}…${Math.round(r.right)} of ${width}px)`);
    }
    // A sideways scroller whose scrollbar is hidden must mark that more is there.
    if (scrollsX(el)) {
      const hidden = s.scrollbarWidth === "none" || (el as HTMLElement).offsetHeight - el.clientHeight - parseFloat(s.borderTopWidth) - parseFloat(s.borderBottomWidth) < 1;
      const end = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
      const marked = el.hasAttribute("data-more") || (s.maskImage !== "none" && s.maskImage !== "");
      if (hidden && end && !marked) found.push(`${name(el)} scrolls sideways with nothing showing there is more`);
    }
    // Text cut by its own box.
    if ((s.overflowX === "hidden" || s.overflowX === "clip") && el.scrollWidth > el.clientWidth + 1 && (el.textContent ?? "").trim() !== "") {
      const marked = s.textOverflow === "ellipsis";
      const reachable = el.closest("[title], a[href], button, [tabindex]") !== null;
      if (!marked || !reachable) found.push(`${name(el)} is cut${marked ? " (an ellipsis, but no way to the whole text)" : ""}`);
    }
  }
  return found;
}
