/**
 * A small, safe markdown renderer for `markdown` items (P-18, X-2). It builds React elements from
 * the text and never markup: raw HTML shows as text, and only `https:` links become links (other
 * schemes, `javascript:` included, show their label as text). Covers what chat text needs:
 * headings, lists (nested by indentation), block quotes, rules, fenced code (with a copy button),
 * tables, emphasis, strong, strikethrough, inline code, links and bare https addresses. Unclosed
 * fences (a growing item, P-19) run to the end.
 *
 * Hostile input stays cheap: delimiter searches remember a failed search, so a text full of
 * unmatched `*`, `[` or backticks costs linear time, and nesting stops at a fixed depth.
 */
import { Fragment, useMemo, type ReactNode } from "react";
import { CopyButton } from "./CopyButton.tsx";
import { Cursor } from "./cursor.tsx";

const MAX_DEPTH = 8;

/** An address a link may open: `https:` with a host and no user or password (X-2, wire.md §7.1). */
export function safeHref(raw: string): string | null {
  const s = raw.trim();
  if (!/^https:/i.test(s) || /[\s\u0000-\u001f\u007f]/.test(s)) return null;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return null;
  }
  if (u.protocol !== "https:" || !u.hostname || u.username || u.password) return null;
  return u.href;
}

/** A link that opens outside the app, never with access to it. */
export function ExternalLink({ href, children, className }: { href: string; children: ReactNode; className?: string }) {
  return (
    <a href={href} className={className} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

// ---- blocks ----------------------------------------------------------------------------------

export type Block =
  | { t: "p"; text: string }
  | { t: "h"; level: number; text: string }
  | { t: "code"; lang: string; text: string }
  | { t: "hr" }
  | { t: "quote"; blocks: Block[] }
  | { t: "list"; ordered: boolean; start: number; items: Block[][] }
  | { t: "table"; head: string[]; rows: string[][] };

const FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}>[ \t]?/;
const BULLET = /^( {0,3})([-*+])[ \t]+(.*)$/;
const ORDERED = /^( {0,3})(\d{1,9})([.)])[ \t]+(.*)$/;

const isBlank = (l: string) => l.trim() === "";

/** A table's delimiter row: `| --- | :---: |` (pipes at the ends optional). */
const TABLE_RULE = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
/** A table wider than this stays text; rows past the limit are read as text again (hostile input). */
const MAX_TABLE_COLUMNS = 32;
const MAX_TABLE_ROWS = 1000;

/** The cells of a table row, split on pipes that are not escaped or inside inline code. */
function tableCells(line: string): string[] {
  let s = line.trim();
  if (s.startsWith("|")) s = s.slice(1);
  if (s.endsWith("|") && !s.endsWith("\\|")) s = s.slice(0, -1);
  const cells: string[] = [];
  let cell = "";
  let code = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === "\\" && s[i + 1] === "|") {
      cell += "|";
      i++;
    } else if (ch === "`") {
      code = !code;
      cell += ch;
    } else if (ch === "|" && !code) {
      cells.push(cell.trim());
      cell = "";
    } else cell += ch;
  }
  cells.push(cell.trim());
  return cells;
}

/** Whether lines[i] starts a table: a row with a pipe, then a delimiter row with as many columns. */
function tableAt(lines: readonly string[], i: number): number {
  const head = lines[i]!;
  const rule = lines[i + 1];
  if (rule === undefined || !head.includes("|") || !TABLE_RULE.test(rule) || !rule.includes("-")) return 0;
  const n = tableCells(head).length;
  return n >= 1 && n <= MAX_TABLE_COLUMNS && tableCells(rule).length === n ? n : 0;
}

function listMarker(line: string): { ordered: boolean; start: number; marker: string; indent: number; rest: string } | null {
  const b = BULLET.exec(line);
  if (b) return { ordered: false, start: 1, marker: b[2]!, indent: b[1]!.length + b[2]!.length + 1, rest: b[3]! };
  const o = ORDERED.exec(line);
  if (o) return { ordered: true, start: Number(o[2]), marker: o[3]!, indent: o[1]!.length + o[2]!.length + 2, rest: o[4]! };
  return null;
}

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || listMarker(line) !== null;
}

/** Removes up to `n` leading spaces (a tab counts as 4). */
function dedent(line: string, n: number): string {
  let i = 0;
  let col = 0;
  while (i < line.length && col < n) {
    if (line[i] === " ") col++;
    else if (line[i] === "\t") col += 4;
    else break;
    i++;
  }
  return line.slice(i);
}

const leadingSpaces = (line: string): number => {
  let col = 0;
  for (const ch of line) {
    if (ch === " ") col++;
    else if (ch === "\t") col += 4;
    else break;
  }
  return col;
};

export function parseBlocks(text: string, depth = 0): Block[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const out: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line)) {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const mark = fence[1]!;
      const body: string[] = [];
      i++;
      while (i < lines.length) {
        const l = lines[i]!;
        const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(l);
        if (close && close[1]![0] === mark[0] && close[1]!.length >= mark.length) {
          i++;
          break;
        }
        body.push(l);
        i++;
      }
      out.push({ t: "code", lang: fence[2] ?? "", text: body.join("\n") });
      continue;
    }
    const columns = tableAt(lines, i);
    if (columns > 0) {
      const head = tableCells(line);
      const rows: string[][] = [];
      i += 2;
      while (i < lines.length && !isBlank(lines[i]!) && lines[i]!.includes("|") && rows.length < MAX_TABLE_ROWS) {
        // A row with fewer cells is padded, one with more is cut (GFM).
        const cells = tableCells(lines[i]!).slice(0, columns);
        while (cells.length < columns) cells.push("");
        rows.push(cells);
        i++;
      }
      out.push({ t: "table", head, rows });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      out.push({ t: "h", level: heading[1]!.length, text: heading[2] ?? "" });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push({ t: "hr" });
      i++;
      continue;
    }
    if (QUOTE.test(line) && depth < MAX_DEPTH) {
      const inner: string[] = [];
      while (i < lines.length && !isBlank(lines[i]!) && (QUOTE.test(lines[i]!) || inner.length > 0 && !startsBlock(lines[i]!))) {
        inner.push(lines[i]!.replace(QUOTE, ""));
        i++;
      }
      out.push({ t: "quote", blocks: parseBlocks(inner.join("\n"), depth + 1) });
      continue;
    }
    const first = listMarker(line);
    if (first && depth < MAX_DEPTH) {
      const items: string[][] = [];
      let current: string[] | null = null;
      let indent = first.indent;
      while (i < lines.length) {
        const l = lines[i]!;
        const m = listMarker(l);
        if (m && m.ordered === first.ordered && (m.ordered ? m.marker === first.marker : m.marker === first.marker) && leadingSpaces(l) < indent) {
          current = [m.rest];
          items.push(current);
          indent = m.indent;
          i++;
          continue;
        }
        if (isBlank(l)) {
          // A blank line continues the list only when more of it follows.
          const next = lines[i + 1];
          if (next === undefined || isBlank(next)) break;
          const nm = listMarker(next);
          const continues = leadingSpaces(next) >= indent || (nm !== null && nm.ordered === first.ordered && nm.marker === first.marker);
          if (!continues) break;
          current?.push("");
          i++;
          continue;
        }
        if (leadingSpaces(l) >= indent) {
          current?.push(dedent(l, indent));
          i++;
          continue;
        }
        // A lazy continuation of the item's paragraph, unless the line starts something else.
        if (startsBlock(l)) break;
        current?.push(l.trim());
        i++;
      }
      out.push({ t: "list", ordered: first.ordered, start: first.start, items: items.map((it) => parseBlocks(it.join("\n"), depth + 1)) });
      continue;
    }
    const para: string[] = [line.trim()];
    i++;
    while (i < lines.length && !isBlank(lines[i]!) && !startsBlock(lines[i]!) && tableAt(lines, i) === 0) {
      para.push(lines[i]!.trim());
      i++;
    }
    out.push({ t: "p", text: para.join("\n") });
  }
  return out;
}

// ---- inline ----------------------------------------------------------------------------------

const PUNCT = /[!-/:-@[-`{-~]/;
const WORD = /[\p{L}\p{N}]/u;

/** One pass over a span of text; remembers failed searches so unmatched delimiters stay linear. */
class Inline {
  readonly #s: string;
  readonly #depth: number;
  #key = 0;
  readonly #failed = new Set<string>();
  /** False inside a link's label: no link within a link. */
  readonly #links: boolean;

  constructor(s: string, depth: number, links = true) {
    this.#s = s;
    this.#depth = depth;
    this.#links = links;
  }

  #k(): string {
    return `i${this.#key++}`;
  }

  render(): ReactNode[] {
    const s = this.#s;
    const out: ReactNode[] = [];
    let text = "";
    const flush = () => {
      if (!text) return;
      pushText(out, text, () => this.#k());
      text = "";
    };
    let i = 0;
    while (i < s.length) {
      const ch = s[i]!;
      if (ch === "\\" && i + 1 < s.length && PUNCT.test(s[i + 1]!)) {
        text += s[i + 1];
        i += 2;
        continue;
      }
      if (ch === "`") {
        let n = 1;
        while (s[i + n] === "`") n++;
        const close = this.#findRun("`", n, i + n);
        if (close >= 0) {
          flush();
          let code = s.slice(i + n, close).replace(/\n/g, " ");
          if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ") && code.trim()) code = code.slice(1, -1);
          out.push(<code key={this.#k()}>{code}</code>);
          i = close + n;
        } else {
          text += s.slice(i, i + n);
          i += n;
        }
        continue;
      }
      if (ch === "[" && this.#links) {
        const link = this.#link(i);
        if (link) {
          flush();
          const href = safeHref(link.url);
          const label = this.#depth < MAX_DEPTH ? new Inline(link.label, this.#depth + 1, false).render() : link.label;
          if (href) out.push(<ExternalLink key={this.#k()} href={href}>{label}</ExternalLink>);
          // Not https (`javascript:`, `http:`, `data:`): the label alone, as text, nothing to tap
          // the raw `[label](url)` read as noise (issue 37).
          else out.push(<span key={this.#k()} className="md-unlinked">{label}</span>);
          i = link.end;
          continue;
        }
      }
      if (ch === "<" && this.#links) {
        const m = /^<(https:[^\s<>]*)>/i.exec(s.slice(i, i + 2100));
        const href = m ? safeHref(m[1]!) : null;
        if (m && href) {
          flush();
          out.push(<ExternalLink key={this.#k()} href={href}>{m[1]}</ExternalLink>);
          i += m[0].length;
          continue;
        }
      }
      if ((ch === "h" || ch === "H") && this.#links && (i === 0 || !WORD.test(s[i - 1]!)) && /^https:\/\//i.test(s.slice(i, i + 8))) {
        const m = /^https:\/\/[^\s<>"'`]+/i.exec(s.slice(i, i + 2100))!;
        let url = m[0];
        // Trailing punctuation ends the sentence, not the address; an unbalanced `)` too.
        while (/[.,;:!?*_~)\]]$/.test(url)) {
          if (url.endsWith(")") && (url.match(/\(/g)?.length ?? 0) >= (url.match(/\)/g)?.length ?? 0)) break;
          url = url.slice(0, -1);
        }
        const href = safeHref(url);
        if (href) {
          flush();
          out.push(<ExternalLink key={this.#k()} href={href}>{url}</ExternalLink>);
          i += url.length;
          continue;
        }
      }
      if (ch === "*" || ch === "_" || ch === "~") {
        const em = this.#emphasis(i);
        if (em) {
          flush();
          const inner = this.#depth < MAX_DEPTH ? new Inline(s.slice(em.from, em.to), this.#depth + 1, this.#links).render() : s.slice(em.from, em.to);
          const Tag = em.tag;
          out.push(<Tag key={this.#k()}>{inner}</Tag>);
          i = em.to + em.width;
          continue;
        }
        // An unmatched run is literal text.
        let n = 1;
        while (s[i + n] === ch) n++;
        text += s.slice(i, i + n);
        i += n;
        continue;
      }
      text += ch;
      i++;
    }
    flush();
    return out;
  }

  /** The next run of exactly `n` of `ch` at or after `from`, or -1. */
  #findRun(ch: string, n: number, from: number): number {
    const key = `${ch}${n}`;
    if (this.#failed.has(key)) return -1;
    const s = this.#s;
    let at = s.indexOf(ch, from);
    while (at >= 0) {
      let len = 1;
      while (s[at + len] === ch) len++;
      if (len === n) return at;
      at = s.indexOf(ch, at + len);
    }
    this.#failed.add(key);
    return -1;
  }

  /** `[label](url)` or `[label](url "title")` starting at `i`; no nested brackets in the label. */
  #link(i: number): { label: string; url: string; end: number } | null {
    const s = this.#s;
    const close = this.#next("]", i + 1);
    if (close < 0) return null;
    const open = this.#next("[", i + 1);
    if (open >= 0 && open < close) return null;
    if (s[close + 1] !== "(") return null;
    const m = /^\(\s*(<[^<>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+"[^"\n]*")?\s*\)/.exec(s.slice(close + 1, close + 2200));
    if (!m) return null;
    let url = m[1]!;
    if (url.startsWith("<")) url = url.slice(1, -1);
    return { label: s.slice(i + 1, close), url, end: close + 1 + m[0].length };
  }

  #nextCache = new Map<string, { from: number; at: number }>();

  /** indexOf with memory: no `ch` lies between an earlier query's start and its answer. */
  #next(ch: string, from: number): number {
    const c = this.#nextCache.get(ch);
    if (c && from >= c.from && (c.at < 0 || from <= c.at)) return c.at;
    const at = this.#s.indexOf(ch, from);
    this.#nextCache.set(ch, { from, at });
    return at;
  }

  /** `*em*`, `_em_`, `**strong**`, `__strong__`, `~~del~~` opening at `i`. */
  #emphasis(i: number): { tag: "em" | "strong" | "del"; from: number; to: number; width: number } | null {
    const s = this.#s;
    const ch = s[i]!;
    let run = 1;
    while (s[i + run] === ch) run++;
    const candidates: { width: number; tag: "em" | "strong" | "del" }[] =
      ch === "~" ? (run === 2 ? [{ width: 2, tag: "del" }] : []) : run >= 2 ? [{ width: 2, tag: "strong" }, { width: 1, tag: "em" }] : [{ width: 1, tag: "em" }];
    for (const c of candidates) {
      const from = i + c.width;
      const after = s[from];
      if (after === undefined || /\s/.test(after)) continue;
      // `_` inside a word (snake_case) is not emphasis.
      if (ch === "_" && i > 0 && WORD.test(s[i - 1]!)) continue;
      const to = this.#closer(ch, c.width, from);
      if (to > from) return { tag: c.tag, from, to, width: c.width };
    }
    return null;
  }

  #closer(ch: string, width: number, from: number): number {
    const key = `${ch}${width}`;
    if (this.#failed.has(key)) return -1;
    const s = this.#s;
    const token = ch.repeat(width);
    let at = s.indexOf(token, from + 1);
    while (at >= 0) {
      const before = s[at - 1]!;
      const next = s[at + width];
      const okBefore = !/\s/.test(before);
      const okAfter = ch !== "_" || next === undefined || !WORD.test(next);
      // A single `*` that is part of `**` is not the end of an `*em*`.
      const exact = width === 2 || (s[at + 1] !== ch && s[at - 1] !== ch);
      if (okBefore && okAfter && exact) return at;
      at = s.indexOf(token, at + 1);
    }
    this.#failed.add(key);
    return -1;
  }
}

function pushText(out: ReactNode[], text: string, key: () => string): void {
  const parts = text.split("\n");
  parts.forEach((p, n) => {
    if (n > 0) out.push(<br key={key()} />);
    if (p) out.push(p);
  });
}

export function renderInline(text: string): ReactNode[] {
  return new Inline(text, 0).render();
}

// ---- render ----------------------------------------------------------------------------------

/**
 * The page level of each markdown heading level an item uses: the chat's title is the page's h1,
 * so the item's topmost heading is an h2 and each deeper level it uses one more, whatever `#`s
 * the agent wrote (`##` then `####` reads h2, h3): a screen reader's outline never skips a level.
 */
function headingLevels(blocks: readonly Block[]): Map<number, number> {
  const used = new Set<number>();
  const walk = (bs: readonly Block[]): void => {
    for (const b of bs) {
      if (b.t === "h") used.add(b.level);
      else if (b.t === "quote") walk(b.blocks);
      else if (b.t === "list") b.items.forEach(walk);
    }
  };
  walk(blocks);
  return new Map([...used].sort((a, b) => a - b).map((level, n) => [level, Math.min(6, n + 2)]));
}

function renderBlocks(blocks: Block[], tail: ReactNode, prefix: string, levels: Map<number, number>): ReactNode[] {
  return blocks.map((b, n) => {
    const last = n === blocks.length - 1;
    const t = last ? tail : null;
    const key = `${prefix}${n}`;
    switch (b.t) {
      case "p":
        return <p key={key}>{renderInline(b.text)}{t}</p>;
      case "h": {
        const Tag = `h${levels.get(b.level) ?? 6}` as "h2" | "h3" | "h4" | "h5" | "h6";
        return <Tag key={key} className={`md-h md-h${b.level}`}>{renderInline(b.text)}{t}</Tag>;
      }
      case "code":
        return (
          <div key={key} className="md-code-block">
            {b.text && <CopyButton text={b.text} />}
            <pre className="md-code" data-lang={b.lang || undefined} tabIndex={0}>
              <code>{b.text}</code>{t}
            </pre>
          </div>
        );
      case "table":
        // Wider than the bubble: it scrolls sideways inside it (focusable, so a keyboard can too).
        return (
          <Fragment key={key}>
            <div className="md-table-wrap" tabIndex={0}>
              <table className="md-table">
                <thead><tr>{b.head.map((c, n) => <th key={n} scope="col">{renderInline(c)}</th>)}</tr></thead>
                <tbody>{b.rows.map((r, m) => <tr key={m}>{r.map((c, n) => <td key={n}>{renderInline(c)}</td>)}</tr>)}</tbody>
              </table>
            </div>
            {t}
          </Fragment>
        );
      case "hr":
        return <Fragment key={key}><hr />{t}</Fragment>;
      case "quote":
        return <blockquote key={key}>{renderBlocks(b.blocks, t, `${key}.`, levels)}</blockquote>;
      case "list": {
        const items = b.items.map((item, m) => (
          <li key={m}>{renderBlocks(item, m === b.items.length - 1 ? t : null, `${key}.${m}.`, levels)}</li>
        ));
        return b.ordered
          ? <ol key={key} start={b.start === 1 ? undefined : b.start}>{items}</ol>
          : <ul key={key}>{items}</ul>;
      }
    }
  });
}

/**
 * Renders markdown text as React elements. With `cursor` (a growing item, P-19) the cursor goes at
 * the end of the last block, where the text stops. Memoized on the text: a long item re-parses
 * only when it changes.
 */
export function Markdown({ text, cursor = false }: { text: string; cursor?: boolean }) {
  const rendered = useMemo(() => {
    const blocks = parseBlocks(text);
    const tail = cursor ? <Cursor /> : null;
    return blocks.length === 0 ? tail : renderBlocks(blocks, tail, "b", headingLevels(blocks));
  }, [text, cursor]);
  return <div className="markdown">{rendered}</div>;
}
