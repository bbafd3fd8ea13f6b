/** The text and id rules both ends apply (S-10, S-11, S-16, S-22, S-31, X-2). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  assertId, cleanChars, cleanText, hasInvisible, idRuleViolation, isHttpsUrl, isIsoWithZone, isValidCursor,
  isValidId, isValidLang, LIMITS, truncateChars, truncateUtf8, utf8Bytes,
} from "../../src/wire/index.ts";

const RULE_TEXT = "(1 to 128 bytes, no control character, no white space, none of / ? #)";

describe("ID rule (S-11)", () => {
  const table: [label: string, id: unknown, violation: string | null][] = [
    ["a plain ASCII id", "support-1", null],
    ["a one-character id", "a", null],
    ["punctuation other than / ? #", "a.b_c-d~e!$&'()*+,;=@%41", null],
    ["a colon (the rule allows it; only workspace and tab ids refuse it)", "desk:inbox", null],
    ["CJK characters", "会话-1", null],
    ["an emoji", "ticket-🎫", null],
    ["128 ASCII bytes", "a".repeat(128), null],
    ["129 ASCII bytes", "a".repeat(129), "must be at most 128 bytes"],
    ["64 two-byte characters (128 bytes)", "é".repeat(64), null],
    ["64 two-byte characters and one ASCII byte (129 bytes)", "é".repeat(64) + "a", "must be at most 128 bytes"],
    ["42 three-byte characters and two bytes (128 bytes)", "€".repeat(42) + "ab", null],
    ["43 three-byte characters (129 bytes in 43 characters)", "€".repeat(43), "must be at most 128 bytes"],
    ["32 four-byte emoji (128 bytes)", "😀".repeat(32), null],
    ["32 four-byte emoji and one byte (129 bytes)", "😀".repeat(32) + "a", "must be at most 128 bytes"],
    ["the empty string", "", "must not be empty"],
    ["a number", 42, "must be a string"],
    ["null", null, "must be a string"],
    ["undefined", undefined, "must be a string"],
    ["a lone surrogate", "a\ud800b", "must be valid Unicode"],
    ["a NUL byte", "a\u0000b", "must not contain a control character"],
    ["an escape character", "a\u001bb", "must not contain a control character"],
    ["DEL", "a\u007fb", "must not contain a control character"],
    ["a C1 control (NEL)", "a\u0085b", "must not contain a control character"],
    ["a tab (a control character first)", "a\tb", "must not contain a control character"],
    ["a newline", "a\nb", "must not contain a control character"],
    ["a zero-width space (format character)", "a\u200bb", "must not contain a control character"],
    ["a bidi override (format character)", "a\u202eb", "must not contain a control character"],
    ["a byte order mark", "\ufeffab", "must not contain a control character"],
    ["a space", "a b", "must not contain white space"],
    ["a no-break space", "a\u00a0b", "must not contain white space"],
    ["an em space", "a\u2003b", "must not contain white space"],
    ["an ideographic space", "a\u3000b", "must not contain white space"],
    ["a line separator", "a\u2028b", "must not contain white space"],
    ["a slash", "a/b", "must not contain / ? or #"],
    ["a question mark", "a?b", "must not contain / ? or #"],
    ["a hash", "a#b", "must not contain / ? or #"],
    ["only a slash", "/", "must not contain / ? or #"],
  ];

  for (const [label, id, violation] of table) {
    test(`${violation === null ? "accepts" : "refuses"} ${label}`, () => {
      assert.equal(idRuleViolation(id), violation);
      assert.equal(isValidId(id), violation === null);
      if (violation === null) assert.doesNotThrow(() => assertId(id, "pane id"));
      else assert.throws(() => assertId(id, "pane id"), TypeError);
    });
  }

  test("assertId's TypeError names the id, the broken part and the whole rule", () => {
    assert.throws(() => assertId("a b", "pane id"), (err: unknown) => {
      assert.ok(err instanceof TypeError);
      assert.ok(err.message.startsWith('pane id "a b" breaks the ID rule: must not contain white space'), err.message);
      assert.ok(err.message.includes(RULE_TEXT), err.message);
      return true;
    });
  });

  test("assertId refuses a non-string id with a TypeError", () => {
    assert.throws(() => assertId(undefined, "request id"), /^TypeError: request id "undefined" breaks the ID rule: must be a string/);
    assert.throws(() => assertId(42, "request id"), /request id "42" breaks the ID rule: must be a string/);
    assert.throws(() => assertId(Object.create(null), "request id"), TypeError);
  });

  test("assertId keeps the message short for a huge id", () => {
    assert.throws(() => assertId("x".repeat(100_000), "pane id"), (err: unknown) => {
      assert.ok(err instanceof TypeError);
      assert.ok(err.message.length < 300, `message is ${err.message.length} characters`);
      return true;
    });
  });

  test("a colon passes the rule but assertId with noColon refuses it for workspace and tab ids", () => {
    assert.equal(idRuleViolation("desk:inbox"), null);
    assert.doesNotThrow(() => assertId("desk:inbox", "pane id"));
    assert.throws(() => assertId("desk:inbox", "workspace id", { noColon: true }), (err: unknown) => {
      assert.ok(err instanceof TypeError);
      assert.match(err.message, /^workspace id "desk:inbox" must not contain ":"/);
      assert.match(err.message, /<workspace>:<tab>/);
      return true;
    });
    assert.doesNotThrow(() => assertId("desk", "workspace id", { noColon: true }));
  });

  test("noColon does not hide a broken rule: the ID rule message comes first", () => {
    assert.throws(() => assertId("a b:c", "tab id", { noColon: true }), /breaks the ID rule: must not contain white space/);
  });
});

describe("truncateUtf8 (S-10)", () => {
  test("returns text that fits unchanged, also at exactly the limit", () => {
    assert.equal(truncateUtf8("hello", 5), "hello");
    assert.equal(truncateUtf8("hello", 100), "hello");
    assert.equal(truncateUtf8("€€", 6), "€€");
    assert.equal(truncateUtf8("", 0), "");
  });

  test("cuts ASCII at the byte limit", () => {
    assert.equal(truncateUtf8("hello world", 5), "hello");
    assert.equal(truncateUtf8("hello", 0), "");
  });

  const cuts: [label: string, text: string, limit: number, expected: string][] = [
    ["2-byte: steps back over a split é", "aéé", 4, "aé"],
    ["2-byte: keeps a whole é", "aéé", 3, "aé"],
    ["2-byte: drops a lone first byte", "éé", 1, ""],
    ["3-byte: steps back from 1 byte into €", "a€€", 5, "a€"],
    ["3-byte: steps back from 2 bytes into €", "a€€", 6, "a€"],
    ["3-byte: keeps a whole €", "a€€", 4, "a€"],
    ["3-byte: CJK", "日本語", 8, "日本"],
    ["4-byte: steps back from 1, 2 and 3 bytes into an emoji", "😀😀", 7, "😀"],
    ["4-byte: keeps a whole emoji", "😀😀", 4, "😀"],
    ["4-byte: drops an emoji that does not fit", "😀", 3, ""],
    ["4-byte: a rare CJK ideograph outside the BMP", "a𠀀b", 4, "a"],
    ["emoji ZWJ sequence: cuts between code points, never inside one", "👩‍💻", 10, "👩‍"],
    ["flag: cuts between the two regional indicators", "🇩🇪", 6, "🇩"],
  ];
  for (const [label, text, limit, expected] of cuts) {
    test(`${label} (limit ${limit})`, () => {
      const out = truncateUtf8(text, limit);
      assert.equal(out, expected);
      assert.ok(utf8Bytes(out) <= limit);
      assert.ok(out.isWellFormed());
    });
  }

  test("for every limit the result is the longest whole-code-point prefix within the limit", () => {
    const samples = ["aé€😀b", "😀😀😀", "€a€a€", "é".repeat(9), "👩‍👩‍👧‍👦 family", "x🇩🇪y日本語z", "𠀀é"];
    for (const text of samples) {
      const points = Array.from(text);
      const total = utf8Bytes(text);
      for (let limit = 0; limit <= total + 2; limit++) {
        const out = truncateUtf8(text, limit);
        const where = `${JSON.stringify(text)} at ${limit}`;
        assert.ok(out.isWellFormed(), `${where}: broken character`);
        assert.ok(utf8Bytes(out) <= limit, `${where}: ${utf8Bytes(out)} bytes`);
        assert.ok(text.startsWith(out), `${where}: not a prefix`);
        const kept = Array.from(out).length;
        if (kept < points.length) assert.ok(utf8Bytes(out + points[kept]) > limit, `${where}: cut too early`);
      }
    }
  });

  test("the fast path never skips a cut: text of 3-byte characters just over the limit is cut", () => {
    const text = "€".repeat(100); // 300 bytes in 100 UTF-16 units
    assert.equal(truncateUtf8(text, 300), text);
    assert.equal(truncateUtf8(text, 299), "€".repeat(99));
    const emoji = "😀".repeat(50); // 200 bytes in 100 UTF-16 units
    assert.equal(truncateUtf8(emoji, 199), "😀".repeat(49));
  });

  test("truncateChars counts code points, not UTF-16 units", () => {
    assert.equal(truncateChars("😀😀😀", 2), "😀😀");
    assert.equal(truncateChars("abc", 3), "abc");
    assert.equal(truncateChars("a😀b", 2), "a😀");
  });
});

describe("cleanText (S-16)", () => {
  test("leaves clean text alone and reports no change", () => {
    const text = "Refund done.\n\tLine two with émoji 👍 and 日本語";
    assert.deepEqual(cleanText(text, 1000), { text, changed: false });
  });

  test("removes C0 and C1 control characters but keeps tab and newline", () => {
    assert.deepEqual(cleanText("a\u0000b\u0007c\u001bd\u007fe\u0085f\u009fg\th\ni", 1000), { text: "abcdefg\th\ni", changed: true });
  });

  test("removes bidi overrides, isolates and marks", () => {
    const bidi = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c";
    assert.deepEqual(cleanText(`pay${bidi}ment`, 1000), { text: "payment", changed: true });
  });

  test("removes zero-width and invisible format characters", () => {
    assert.deepEqual(cleanText("a\u200bb\u200cc\u2060d\ufeffe\u00adf\u2061g\u180eh", 1000), { text: "abcdefgh", changed: true });
  });

  test("keeps newlines in multi-line text and turns CR LF and lone CR into LF", () => {
    assert.deepEqual(cleanText("one\ntwo", 1000), { text: "one\ntwo", changed: false });
    assert.deepEqual(cleanText("one\r\ntwo\rthree", 1000), { text: "one\ntwo\nthree", changed: true });
  });

  test("singleLine folds each run of line breaks and tabs into one space", () => {
    assert.deepEqual(cleanText("refund\nwants\r\nto\t\trun\u2028now\n\n\nok", 1000, { singleLine: true }), {
      text: "refund wants to run now ok",
      changed: true,
    });
    assert.deepEqual(cleanText("one line", 1000, { singleLine: true }), { text: "one line", changed: false });
  });

  test("keeps emoji ZWJ sequences, variation selectors, keycaps, flags and tag sequences", () => {
    for (const emoji of ["👩‍💻", "👨‍👩‍👧‍👦", "🏳️‍🌈", "❤️", "1️⃣", "🇩🇪", "🏴󠁧󠁢󠁥󠁮󠁧󠁿", "👍🏽"]) {
      assert.deepEqual(cleanText(`a${emoji}b`, 1000), { text: `a${emoji}b`, changed: false }, emoji);
    }
  });

  test("repairs lone surrogates with U+FFFD and reports the change", () => {
    assert.deepEqual(cleanText("a\ud800b", 1000), { text: "a\ufffdb", changed: true });
    assert.deepEqual(cleanText("\udc00", 1000), { text: "\ufffd", changed: true });
    assert.deepEqual(cleanText("end\ud83d", 1000), { text: "end\ufffd", changed: true });
    assert.ok(cleanText("x\udfff\ud800y", 1000).text.isWellFormed());
  });

  test("cuts to the byte limit after cleaning, so removed characters do not count", () => {
    assert.deepEqual(cleanText("\u200b".repeat(10) + "abc", 3), { text: "abc", changed: true });
    assert.deepEqual(cleanText("abcdef", 3), { text: "abc", changed: true });
    const cut = cleanText("€€€", 8);
    assert.deepEqual(cut, { text: "€€", changed: true });
  });

  test("its output has nothing left that hasInvisible finds", () => {
    const hostile = "x\u0000\u202e\u200b\ud800\u00ad\ufeffy\r\n";
    assert.equal(hasInvisible(hostile), true);
    assert.equal(hasInvisible(cleanText(hostile, 1000).text), false);
    assert.equal(hasInvisible(cleanText(hostile, 1000, { singleLine: true }).text), false);
  });

  test("hasInvisible answers the same on repeated calls (no sticky regex state)", () => {
    for (let i = 0; i < 3; i++) {
      assert.equal(hasInvisible("a\u200bb"), true);
      assert.equal(hasInvisible("ab"), false);
    }
  });

  test("cleanChars cleans and then cuts by code points", () => {
    assert.deepEqual(cleanChars("a\u200b😀😀😀", 3), { text: "a😀😀", changed: true });
    assert.deepEqual(cleanChars("line\nbreak", 60, { singleLine: true }), { text: "line break", changed: true });
    assert.deepEqual(cleanChars("fits", 60), { text: "fits", changed: false });
  });
});

describe("isValidCursor (S-31)", () => {
  test("accepts 1 to 512 bytes of printable ASCII", () => {
    for (const c of ["a", "i-8f3a2c.44", "page:2~after=support-0", "!~\"'{}[]", "c".repeat(512)]) assert.equal(isValidCursor(c), true, c);
  });
  test("refuses empty, too long, space, controls, non-ASCII and non-strings", () => {
    for (const c of ["", "c".repeat(513), "a b", "a\tb", "a\nb", "a\u007fb", "seite-ü", "😀", 42, null, undefined, ["a"]]) {
      assert.equal(isValidCursor(c), false, JSON.stringify(c));
    }
  });
});

describe("isHttpsUrl (S-14, X-2)", () => {
  test("accepts https URLs with a host, path, query and fragment", () => {
    for (const u of [
      "https://example.com",
      "https://shop.example.com/orders/5521?tab=refund#top",
      "https://example.com:8443/x",
      "HTTPS://EXAMPLE.COM/",
      "https://例え.jp/パス",
      "https://[::1]/",
      "https://127.0.0.1/",
      "https://a.com/%20x",
    ]) assert.equal(isHttpsUrl(u), true, u);
  });

  test("refuses other schemes", () => {
    for (const u of [
      "http://example.com",
      "javascript:alert(1)",
      "JavaScript:alert(1)",
      "javascript://example.com/%0aalert(1)",
      "data:text/html,<script>alert(1)</script>",
      "ftp://example.com/",
      "wss://example.com/",
      "file:///etc/passwd",
      "blob:https://example.com/uuid",
    ]) assert.equal(isHttpsUrl(u), false, u);
  });

  test("refuses credentials in the URL", () => {
    for (const u of ["https://ada:secret@example.com/", "https://ada@example.com/", "https://:secret@example.com/"]) {
      assert.equal(isHttpsUrl(u), false, u);
    }
  });

  test("refuses a URL without a host and strings that are not URLs", () => {
    for (const u of ["https://", "https:", "//example.com", "/orders/5521", "example.com", "", 42, null, undefined]) {
      assert.equal(isHttpsUrl(u), false, JSON.stringify(u));
    }
  });

  test("refuses white space, control and bidi characters the URL parser would strip silently", () => {
    for (const u of [
      " https://example.com",
      "https://example.com ",
      "\u0000https://example.com",
      "https://example.com/\norders",
      "https://exa\tmple.com/",
      "https://example.com/\u202egpj.exe",
      "https://example.com/\u200b",
      "https://example.com/\u00a0x",
    ]) assert.equal(isHttpsUrl(u), false, JSON.stringify(u));
  });

  test("refuses a URL over 2048 bytes", () => {
    const base = "https://example.com/";
    assert.equal(isHttpsUrl(base + "a".repeat(LIMITS.hrefBytes - base.length)), true);
    assert.equal(isHttpsUrl(base + "a".repeat(LIMITS.hrefBytes - base.length + 1)), false);
  });
});

describe("isValidLang (S-16)", () => {
  test("accepts short language tokens", () => {
    for (const l of ["ts", "python3", "c++", "c#", "objective-c", "f#", "x86_64", "vue.js", "a".repeat(32)]) assert.equal(isValidLang(l), true, l);
  });
  test("refuses empty, long, spaced, leading punctuation, injection and non-ASCII", () => {
    for (const l of ["", "a".repeat(33), "type script", "-ts", ".ts", "sql; rm -rf /", "ts\n", "<script>", "日本語", 42, null]) {
      assert.equal(isValidLang(l), false, JSON.stringify(l));
    }
  });
});

describe("isIsoWithZone (S-22)", () => {
  test("accepts date-times with Z", () => {
    for (const t of ["2026-12-02T14:00:00.000Z", "2026-12-02T14:00:00Z", "2026-12-02T14:00Z", "2026-12-02T14:00:00.123456789Z"]) {
      assert.equal(isIsoWithZone(t), true, t);
    }
  });
  test("accepts date-times with an offset", () => {
    for (const t of ["2026-12-02T16:00:00+02:00", "2026-12-02T08:30:00-05:30", "2026-12-02T16:00:00.5+02:00", "2026-12-02T16:00:00+0200"]) {
      assert.equal(isIsoWithZone(t), true, t);
    }
  });
  test("refuses date-times without a zone", () => {
    for (const t of ["2026-12-02T14:00:00", "2026-12-02T14:00:00.000", "2026-12-02T14:00"]) assert.equal(isIsoWithZone(t), false, t);
  });
  test("refuses other shapes and non-strings", () => {
    for (const t of ["2026-12-02", "2026-12-02 14:00:00Z", "2026-12-02t14:00:00z", "Wed, 02 Dec 2026 14:00:00 GMT", "1796220000000", "", 1796220000000, new Date(0), null]) {
      assert.equal(isIsoWithZone(t), false, String(t));
    }
  });
  test("refuses impossible dates and times", () => {
    for (const t of [
      "2026-13-01T00:00:00Z",
      "2026-12-32T00:00:00Z",
      "2026-02-30T00:00:00Z",
      "2026-02-29T00:00:00Z",
      "2026-04-31T00:00:00Z",
      "1900-02-29T00:00:00Z",
      "2100-02-29T00:00:00Z",
      "2026-00-10T00:00:00Z",
      "2026-06-00T00:00:00Z",
      "2026-12-02T25:00:00Z",
      "2026-12-02T23:60:00Z",
      "2026-12-02T14:00:00+25:00",
    ]) assert.equal(isIsoWithZone(t), false, t);
  });
  test("accepts 29 February in a leap year", () => {
    assert.equal(isIsoWithZone("2028-02-29T12:00:00Z"), true);
    assert.equal(isIsoWithZone("2000-02-29T12:00:00Z"), true);
    assert.equal(isIsoWithZone("2024-02-29T12:00:00+05:30"), true);
    assert.equal(isIsoWithZone("0000-02-29T00:00:00Z"), true, "year 0 is a leap year, as Date has it");
  });
  test("accepts the last day of every month, and refuses the day after", () => {
    const last = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    last.forEach((days, i) => {
      const month = String(i + 1).padStart(2, "0");
      assert.equal(isIsoWithZone(`2026-${month}-${days}T08:00:00Z`), true, `2026-${month}-${days}`);
      assert.equal(isIsoWithZone(`2026-${month}-${days + 1}T08:00:00Z`), false, `2026-${month}-${days + 1}`);
    });
  });
});
