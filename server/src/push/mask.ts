/**
 * Secret masking: finds high-confidence secret shapes in text that leaves the machine (push
 * titles and bodies) or reaches the phone's conversation list (titles, subtitles) and hides them,
 * keeping the length visible: `sk-proj-Abc123…` becomes `sk-p•••••••…`, one `•` per hidden
 * character, so a reader still sees that something was there and how long it was.
 *
 * - On by default; `COLLIE_REDACT=off` turns it off (docs/push.md).
 * - Linear time: every quantifier is bounded and every pattern starts with a literal or a word
 *   boundary, so one match attempt costs at most a constant; there is no nested or overlapping
 *   repetition that could backtrack catastrophically. A test runs each rule over large hostile
 *   inputs.
 * - Idempotent: `•` is in no secret's alphabet and every value check refuses a value that holds
 *   one, so masking masked text changes nothing.
 * - High confidence over recall: a shape must look random (digits or mixed case) before it is
 *   masked, so `sk-learn-tutorial` or `password: required` stay as they are.
 */

/** The character that replaces each hidden character. */
export const MASK = "•";

/** Whether masking is on: everything but `COLLIE_REDACT=off` (also `0`, `false`, `no`) keeps it on. */
export function redactionEnabled(env: Record<string, string | undefined> = process.env): boolean {
  const v = env.COLLIE_REDACT?.trim().toLowerCase();
  return !(v === "off" || v === "0" || v === "false" || v === "no");
}

/** Keeps the first `visible` characters of `secret` and masks the rest, one `•` each. */
function hide(secret: string, visible: number): string {
  const chars = [...secret];
  return chars.slice(0, visible).join("") + MASK.repeat(Math.max(0, chars.length - visible));
}

/** Random-looking: a digit, or both cases. Words and kebab-case names are neither. */
function looksRandom(s: string): boolean {
  const digit = /[0-9]/.test(s);
  const upper = /[A-Z]/.test(s);
  const lower = /[a-z]/.test(s);
  return digit || (upper && lower);
}

/** Values that name a secret instead of being one (`password: <your password>`). */
const PLACEHOLDERS = new Set([
  "none", "null", "nil", "undefined", "true", "false", "empty", "required", "optional", "redacted",
  "hidden", "secret", "password", "changeme", "example", "placeholder", "unknown", "missing", "notset",
  "default", "invalid", "expired", "yourpassword", "your_password", "your-password", "yourtoken",
  "your_token", "your-token", "mypassword", "my_password",
]);

/** A value after `password=` / `token:` that looks like a real secret, not a placeholder. */
function realValue(v: string): boolean {
  if (v.length < 6) return false;
  if (v.includes(MASK) || /^[$%<{*[(#]/.test(v) || /\*{3}/.test(v) || /^x{4,}$/i.test(v)) return false;
  if (/^(.)\1*$/.test(v)) return false; // one character repeated
  if (PLACEHOLDERS.has(v.toLowerCase())) return false;
  // At least two kinds of characters (lower, upper, digit, symbol): `hunter2`, `Tr0ub4dor&3`.
  const kinds = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(v)).length;
  return kinds >= 2;
}

interface Rule {
  /** A name for the docs and the tests. */
  name: string;
  re: RegExp;
  /** The replacement for one match; return the match itself to leave it. */
  replace: (match: string, ...groups: string[]) => string;
}

/** A token with a fixed prefix: keeps the prefix and one more character (`sk-o•••`). */
function prefixed(name: string, re: RegExp, prefixLength: (m: string) => number, check: (m: string) => boolean = (m) => looksRandom(m.slice(prefixLength(m)))): Rule {
  return { name, re, replace: (m) => (check(m) ? hide(m, prefixLength(m) + 1) : m) };
}

/**
 * The rules, in the order they run. Earlier rules hide whole shapes (a PEM block, a URL's
 * password, a JWT) before the narrower token rules and the assignment rule look at what is left.
 */
export const RULES: readonly Rule[] = [
  // Credentials in URLs: `scheme://user:password@host` → the password is hidden, the user stays.
  {
    name: "url-credentials",
    re: /\b([a-z][a-z0-9+.-]{0,31}:\/\/)([^\s:/?#@]{0,256}):([^\s/?#@]{1,512})@/gi,
    replace: (m, scheme: string, user: string, password: string) =>
      password.includes(MASK) ? m : `${scheme}${user}:${MASK.repeat([...password].length)}@`,
  },
  // JSON Web Tokens: header.payload.signature, both of the first two base64url JSON (`eyJ`).
  prefixed("jwt", /\beyJ[A-Za-z0-9_-]{5,4096}\.eyJ[A-Za-z0-9_-]{5,8192}\.[A-Za-z0-9_-]{0,4096}/g, () => 3, () => true),
  // OpenAI, Anthropic and similar `sk-…` keys (sk-proj-…, sk-ant-…).
  prefixed("sk-key", /\bsk-[A-Za-z0-9_-]{20,1024}/g, () => 3),
  // Stripe secret and restricted keys.
  prefixed("stripe-key", /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,1024}/g, () => 8),
  // GitHub: classic tokens (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained ones (github_pat_).
  prefixed("github-token", /\bgh[pousr]_[A-Za-z0-9]{30,255}/g, () => 4),
  prefixed("github-pat", /\bgithub_pat_[A-Za-z0-9_]{22,255}/g, () => 11),
  // Slack: xoxb-, xoxp-, xoxa-, xoxo-, xoxr-, xoxs-, xoxe-.
  prefixed("slack-token", /\bxox[abeoprs]-[A-Za-z0-9-]{10,255}/g, () => 5, (m) => /[0-9]/.test(m.slice(5))),
  // AWS access key ids: exactly 20 characters.
  prefixed("aws-access-key-id", /\b(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g, () => 4, () => true),
  // Google API keys: AIza and 35 more.
  prefixed("google-api-key", /\bAIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g, () => 4),
  // GitLab personal access tokens.
  prefixed("gitlab-token", /\bglpat-[A-Za-z0-9_-]{20,255}/g, () => 6),
  // npm tokens: npm_ and 36 more.
  prefixed("npm-token", /\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g, () => 4),
  // `Authorization: Bearer …` (any case): the token after it.
  {
    name: "bearer",
    re: /\b(bearer[ \t]{1,8})([A-Za-z0-9._~+/-]{16,4096}=*)/gi,
    replace: (m, lead: string, token: string) => (looksRandom(token) ? `${lead}${hide(token, 1)}` : m),
  },
  // password=… / token: … / "api_key": "…" / ?access_token=… with a real-looking value.
  {
    name: "assignment",
    re: /(?<![A-Za-z0-9])((?:password|passwd|passphrase|pwd|pass|secret|client[_-]?secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|token|private[_-]?key)["']?[ \t]{0,4}[:=][ \t]{0,4}["']?)([^\s"'`,;&<>(){}[\]]{1,512})/gi,
    replace: (m, lead: string, value: string) => (realValue(value) ? `${lead}${MASK.repeat([...value].length)}` : m),
  },
];

/** The end of a text, where a cut falls (Collie's own `…` after it, or an agent's `...`). */
const AT_END = String.raw`(?=(?:…|\.{3})?$)`;
const atEnd = (body: string, flags = "g") => new RegExp(`${body}${AT_END}`, flags);

/**
 * A secret cut short (issue 38, item 3). An agent's SDK cuts a push line to 120 characters, a push
 * title to 60 and a title to 256 bytes before Collie reads them (S-10, S-22), so a key across that
 * cut reaches Collie as its prefix and a few characters: `…ghp_ABCDEFGHIJKLMNO`, too short for the
 * rules above. Where a text ends, where any cut falls, a secret's recognisable prefix is enough:
 * whatever follows it to the end is masked, however short (only a prefix that is a common word,
 * `sk-`, `npm_`, `bearer`, still needs its value to look random, so `sk-proj` may show where the
 * random part was cut off). A value that may hold `.` or `…` is matched lazily, so an ellipsis after
 * the cut stays an ellipsis. Linear like the rules above.
 */
export const CUT_RULES: readonly Rule[] = [
  {
    name: "url-credentials-cut",
    // `https://user:pass` cut before its `@`; a port (digits only) is no password.
    re: atEnd(String.raw`\b([a-z][a-z0-9+.-]{0,31}:\/\/)([^\s:/?#@]{0,256}):([^\s/?#@]{1,512}?)`, "gi"),
    replace: (m, scheme: string, user: string, password: string) =>
      password.includes(MASK) || /^\d{1,5}$/.test(password) ? m : `${scheme}${user}:${MASK.repeat([...password].length)}`,
  },
  prefixed("jwt-cut", atEnd(String.raw`\beyJ[A-Za-z0-9_-]{5,4096}\.eyJ[A-Za-z0-9_-]{1,8192}`), () => 3, () => true),
  prefixed("sk-key-cut", atEnd(String.raw`\bsk-[A-Za-z0-9_-]{1,1024}`), () => 3),
  prefixed("stripe-key-cut", atEnd(String.raw`\b[rs]k_(?:live|test)_[A-Za-z0-9]{1,1024}`), () => 8, () => true),
  prefixed("github-token-cut", atEnd(String.raw`\bgh[pousr]_[A-Za-z0-9]{1,255}`), () => 4, () => true),
  prefixed("github-pat-cut", atEnd(String.raw`\bgithub_pat_[A-Za-z0-9_]{1,255}`), () => 11, () => true),
  prefixed("slack-token-cut", atEnd(String.raw`\bxox[abeoprs]-[A-Za-z0-9-]{1,255}`), () => 5, (m) => /[0-9]/.test(m.slice(5))),
  prefixed("aws-access-key-id-cut", atEnd(String.raw`\b(?:AKIA|ASIA)[A-Z0-9]{1,15}`), () => 4, () => true),
  prefixed("google-api-key-cut", atEnd(String.raw`\bAIza[A-Za-z0-9_-]{1,34}`), () => 4, () => true),
  prefixed("gitlab-token-cut", atEnd(String.raw`\bglpat-[A-Za-z0-9_-]{1,255}`), () => 6, () => true),
  prefixed("npm-token-cut", atEnd(String.raw`\bnpm_[A-Za-z0-9]{1,35}`), () => 4),
  {
    name: "bearer-cut",
    re: atEnd(String.raw`\b(bearer[ \t]{1,8})([A-Za-z0-9._~+/-]{1,4096}?=*)`, "gi"),
    replace: (m, lead: string, token: string) => (looksRandom(token) ? `${lead}${hide(token, 1)}` : m),
  },
  {
    name: "assignment-cut",
    re: atEnd(String.raw`(?<![A-Za-z0-9])((?:password|passwd|passphrase|pwd|pass|secret|client[_-]?secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|token|private[_-]?key)["']?[ \t]{0,4}[:=][ \t]{0,4}["']?)([^\s"'\`,;&<>(){}[\]]{1,512}?)`, "gi"),
    // A value cut short keeps too little to judge by its kinds of characters: all but a placeholder goes.
    replace: (m, lead: string, value: string) => (cutValue(value) ? `${lead}${MASK.repeat([...value].length)}` : m),
  },
];

/** Longer than any cut rule's longest match (a JWT's two segments). */
const CUT_TAIL = 16_384;

/** A value after `password=` at the end of a text: anything but a placeholder, a template or one repeated character. */
function cutValue(v: string): boolean {
  if (v.includes(MASK) || /^[$%<{*[(#]/.test(v) || /\*{3}/.test(v) || /^(.)\1*$/.test(v)) return false;
  return !PLACEHOLDERS.has(v.toLowerCase());
}

const PEM_BEGIN = /-----BEGIN ((?:[A-Z0-9]{1,16} ){0,3})PRIVATE KEY(?: BLOCK)?-----/g;

/**
 * PEM private-key blocks: the BEGIN and END lines stay, every other non-space character of the
 * body becomes `•`. A block cut off before its END line (a title the agent shortened) is hidden
 * to the end of the text. Found with indexOf, not a lazy regex, so it stays linear.
 */
function maskPem(text: string): string {
  if (!text.includes("PRIVATE KEY")) return text;
  let out = "";
  let from = 0;
  PEM_BEGIN.lastIndex = 0;
  for (let m = PEM_BEGIN.exec(text); m !== null; m = PEM_BEGIN.exec(text)) {
    const bodyStart = m.index + m[0].length;
    if (bodyStart <= from) continue;
    const end = text.indexOf("-----END ", bodyStart);
    const bodyEnd = end === -1 ? text.length : end;
    out += text.slice(from, bodyStart) + text.slice(bodyStart, bodyEnd).replace(/\S/gu, MASK);
    from = bodyEnd;
    PEM_BEGIN.lastIndex = bodyEnd;
  }
  return out + text.slice(from);
}

/** Masks every secret shape in `text`. Linear time, idempotent, length kept. */
export function mask(text: string): string {
  if (text.length === 0) return text;
  let out = maskPem(text);
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    out = out.replace(rule.re, rule.replace as (m: string, ...g: string[]) => string);
  }
  // A cut rule matches only where the text ends, so it reads the text's last CUT_TAIL characters:
  // a failed try costs up to its bound, and this keeps the tries to one tail's worth.
  const at = Math.max(0, out.length - CUT_TAIL);
  let tail = out.slice(at);
  for (const rule of CUT_RULES) {
    rule.re.lastIndex = 0;
    tail = tail.replace(rule.re, rule.replace as (m: string, ...g: string[]) => string);
  }
  return out.slice(0, at) + tail;
}

/** `mask`, or the text unchanged when masking is off. */
export function masker(on: boolean): (text: string) => string {
  return on ? mask : (text) => text;
}

/**
 * A conversation as the phone's list shows it: title, subtitle, progress label and the
 * pending question masked. The daemon applies it where every `Conversation` is built (agents/mirror.ts), so the
 * snapshot, the pane read and the WebSocket all send the masked copy.
 */
export function maskConversation<T extends { title: string; subtitle?: string; pendingQuestion?: string; progress?: { label?: string } }>(c: T): T {
  const out = { ...c, title: mask(c.title) };
  if (c.subtitle !== undefined) out.subtitle = mask(c.subtitle);
  if (c.pendingQuestion !== undefined) out.pendingQuestion = mask(c.pendingQuestion);
  if (c.progress?.label !== undefined) out.progress = { ...c.progress, label: mask(c.progress.label) };
  return out;
}

/** The closed conversations of the list (P-7) with their titles and subtitles masked. */
export function maskHistoryPage<T extends { rows: { title: string; subtitle?: string }[] }>(page: T, mask: (text: string) => string): T {
  return {
    ...page,
    rows: page.rows.map((row) => {
      const out = { ...row, title: mask(row.title) };
      if (row.subtitle !== undefined) out.subtitle = mask(row.subtitle);
      return out;
    }),
  };
}
