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
      // Cut by a box within the screen (its overflow hidden): what shows stops at that box's edge,
      // and whether the cut is marked and reachable is that box's own check below.
      let clippedInside = false;
      while (p && p !== document.body) {
        if (scrollsX(p)) scroller = true;
        const ps = getComputedStyle(p);
        const pr = p.getBoundingClientRect();
        if ((ps.overflowX === "hidden" || ps.overflowX === "clip") && pr.right <= width + 1 && pr.left >= -1) clippedInside = true;
        p = p.parentElement;
      }
      if (!scroller && !clippedInside && s.position !== "fixed") found.push(`${name(el)} reaches past the screen (${Math.round(r.left)}…${Math.round(r.right)} of ${width}px)`);
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
      // A way to the whole text: the element is (in) something to tap or focus, or in a region that
      // a button expands (aria-expanded with aria-controls naming the region).
      const expander = (e: Element | null): boolean => {
        for (; e; e = e.parentElement) if (e.id && document.querySelector(`[aria-expanded][aria-controls~="${CSS.escape(e.id)}"]`)) return true;
        return false;
      };
      const reachable = el.closest("[title], a[href], button, [tabindex]") !== null || expander(el);
      if (!marked || !reachable) found.push(`${name(el)} is cut${marked ? " (an ellipsis, but no way to the whole text)" : ""}`);
    }
  }
  return found;
}

/**
 * Every text's contrast against what it is drawn on, read from the live page (runs in the
 * browser), beside axe-core's color-contrast rule: axe leaves out text hidden from assistive
 * technology (`aria-hidden`, such as the dashboard's small counts, whose meaning is in an
 * accessible name) and reports some text as "needs review" rather than failing it (a count on a
 * coloured pill in a list row). Each text under 4.5:1 (3:1 when large) is named with its ratio. A
 * disabled control is left out, as WCAG leaves it out.
 */
export function lowContrastText(): string[] {
  type Rgba = [number, number, number, number];
  const parse = (c: string): Rgba => {
    const m = /rgba?\(([^)]+)\)/.exec(c);
    if (!m) return [0, 0, 0, 0];
    const [r, g, b, a] = m[1]!.split(/[ ,/]+/).filter(Boolean).map(Number);
    return [r!, g!, b!, a ?? 1];
  };
  const over = (top: Rgba, under: Rgba): Rgba => {
    const a = top[3];
    return [top[0] * a + under[0] * (1 - a), top[1] * a + under[1] * (1 - a), top[2] * a + under[2] * (1 - a), 1];
  };
  const luminance = ([r, g, b]: Rgba): number => {
    const lin = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const background = (el: Element): Rgba => {
    const layers: Rgba[] = [];
    for (let e: Element | null = el; e; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor);
      if (bg[3] > 0) layers.push(bg);
      if (bg[3] >= 1) break;
    }
    let color: Rgba = [255, 255, 255, 1];
    for (const layer of layers.reverse()) color = over(layer, color);
    return color;
  };
  const found: string[] = [];
  for (const el of Array.from(document.body.querySelectorAll("*"))) {
    if (!Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== "")) continue;
    if (el.closest(":disabled, [aria-disabled='true']")) continue;
    const s = getComputedStyle(el);
    if (s.display === "none" || s.visibility === "hidden" || el.getBoundingClientRect().width === 0) continue;
    const bg = background(el);
    const fg = over(parse(s.color), bg);
    const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a) as [number, number];
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(s.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) found.push(`<${el.tagName.toLowerCase()}.${String(el.className).split(/\s+/).join(".")}> "${el.textContent!.trim().slice(0, 30)}": ${ratio.toFixed(2)}:1`);
  }
  return found;
}
