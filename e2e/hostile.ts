/**
 * Hostile text for the XSS journey (X-2, L-2): strings that would run script if the phone ever
 * treated agent text as markup, a link target, or a template. Each one calls `__pwn(tag)` (or `x()`,
 * where a label allows only 16 characters) when it runs; the journey defines both on the page and
 * fails on any call. Shared by the hostile agent (hostile-agent.ts) and the journey (xss.spec.ts).
 */
export const H = {
  script: `<script>__pwn("script")</script>`,
  img: `<img src=x onerror=__pwn("img")>`,
  svg: `<svg/onload=__pwn("svg")>`,
  iframe: `"><iframe srcdoc="<script>parent.__pwn('iframe')</script>"></iframe>`,
  attr: `' onmouseover='__pwn("attr")' autofocus onfocus='__pwn("focus")`,
  anchor: `<a href="javascript:__pwn('a')">open</a>`,
  jsUrl: `javascript:__pwn("js-url")`,
  dataUrl: `data:text/html,<script>__pwn("data-url")</script>`,
  style: `<style>*{display:none}</style>gone?`,
  template: `{{constructor.constructor('__pwn("tpl")')()}} \${__pwn("tpl2")}`,
  entity: `&lt;img src=x onerror=__pwn("entity")&gt; &amp;`,
  proto: `__proto__ constructor prototype`,
} as const;

/** Markdown whose links point at script: they must stay plain text (only https: links become links). */
export const MD = {
  jsLink: `[open the refund](javascript:__pwn("md-js"))`,
  dataLink: `[see it](data:text/html,<script>__pwn("md-data")</script>)`,
  autolink: `<javascript:__pwn("md-auto")>`,
  image: `![x](https://example.com/x.png" onerror="__pwn('md-img'))`,
  html: `<details open ontoggle=__pwn("md-html")>`,
} as const;

/** 16 characters at most (labels of the agent's buttons, badges). */
export const SHORT = {
  action: `<svg/onload=x()>`,
  badge: `<b onclick=x()>`,
} as const;

/** A markdown item that carries every hostile string, one per paragraph, plus a safe https link. */
export const HOSTILE_MARKDOWN = [
  "## Report " + H.img,
  ...Object.values(H),
  ...Object.values(MD),
  "**bold " + H.svg + "** and `code " + H.script + "`",
  "A safe link: [the docs](https://example.com/docs)",
].join("\n\n");

/** The conversations of the hostile agent and what each holds. */
export const PANES = {
  items: "items",
  permission: "permission",
  choice: "choice",
  text: "text",
  form: "form",
} as const;

/** https, as the wire demands, but with markup in its path and query (an attribute breakout). */
export const HOSTILE_HREF = `https://example.com/a"><svg/onload=__pwn("href")>?q='><script>__pwn("q")</script>`;
