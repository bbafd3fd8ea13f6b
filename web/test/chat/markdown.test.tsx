/**
 * The markdown renderer (P-18, X-2): agent text is data, never markup. Raw HTML shows as text;
 * only https links are links; the structure a chat needs renders as elements.
 */
import { afterEach, describe, expect, test } from "vitest";
import { cleanup, render } from "@testing-library/react";
import { Markdown, parseBlocks, safeHref } from "../../src/features/chat/markdown.tsx";

afterEach(() => cleanup());

const md = (text: string, cursor = false) => render(<Markdown text={text} cursor={cursor} />).container.querySelector(".markdown")!;

describe("safety (X-2)", () => {
  test("a script tag and raw HTML show as text; no element is made from them", () => {
    const el = md('Hello <script>alert("x")</script> and <b onclick="x()">bold</b>\n\n<img src=x onerror=alert(1)>');
    expect(el.querySelector("script, b, img")).toBeNull();
    expect(el.textContent).toContain('<script>alert("x")</script>');
    expect(el.textContent).toContain('<b onclick="x()">bold</b>');
    expect(el.textContent).toContain("<img src=x onerror=alert(1)>");
  });

  test("javascript:, data: and http: links are not clickable; their source stays as text", () => {
    const el = md("[click](javascript:alert(1)) [data](data:text/html,hi) [plain](http://example.com) <http://example.com>");
    expect(el.querySelector("a")).toBeNull();
    expect(el.textContent).toContain("[click](javascript:alert(1))");
    expect(el.textContent).toContain("[plain](http://example.com)");
  });

  test("https links are links, opening outside without access to the app", () => {
    const el = md("See [the order](https://shop.example.com/orders/5521) or <https://example.com/a> or https://example.com/b.");
    const links = [...el.querySelectorAll("a")];
    expect(links.map((a) => a.getAttribute("href"))).toEqual([
      "https://shop.example.com/orders/5521",
      "https://example.com/a",
      "https://example.com/b",
    ]);
    expect(links[0]!.textContent).toBe("the order");
    for (const a of links) {
      expect(a.getAttribute("rel")).toBe("noopener noreferrer");
      expect(a.getAttribute("target")).toBe("_blank");
    }
  });

  test("an https link with a user or password is not a link", () => {
    expect(safeHref("https://user:pw@example.com/")).toBeNull();
    expect(safeHref("https://example.com/ok")).toBe("https://example.com/ok");
    expect(safeHref("JavaScript:alert(1)")).toBeNull();
    expect(safeHref("https://exa mple.com")).toBeNull();
  });

  test("a link label cannot hide another link or markup", () => {
    const el = md("[https://evil.example <i>x</i>](https://good.example/)");
    const links = el.querySelectorAll("a");
    expect(links).toHaveLength(1);
    expect(links[0]!.getAttribute("href")).toBe("https://good.example/");
    expect(el.querySelector("i")).toBeNull();
  });

  // No wall-clock assertion (a loaded machine makes one flaky): a parser that backtracks on
  // unmatched delimiters does not finish these at all, so the test's own timeout is the net.
  test("hostile input (thousands of unmatched delimiters) renders as text", { timeout: 60_000 }, () => {
    const texts = [
      "*a ".repeat(8000) + "[".repeat(8000) + "`".repeat(3000) + "_x ".repeat(5000),
      "**a ".repeat(8000) + "~~a ".repeat(5000),
      "[a](".repeat(8000) + "<https:".repeat(3000),
      ">".repeat(20_000) + " deep",
      Array.from({ length: 2000 }, (_, n) => `${"  ".repeat(n)}- level ${n}`).join("\n"),
    ];
    for (const text of texts) {
      const el = md(text);
      expect(el.textContent!.length).toBeGreaterThan(1000);
      cleanup();
    }
  });
});

describe("structure (P-18)", () => {
  test("headings, emphasis, strong, strikethrough and inline code", () => {
    const el = md("# Refund issued\n\n**Amount** is *40 EUR*, ~~50~~, ref `r-8812` and snake_case_name stays");
    expect(el.querySelector("h2")!.textContent).toBe("Refund issued");
    expect(el.querySelector("strong")!.textContent).toBe("Amount");
    expect(el.querySelector("em")!.textContent).toBe("40 EUR");
    expect(el.querySelector("del")!.textContent).toBe("50");
    expect(el.querySelector("code")!.textContent).toBe("r-8812");
    expect(el.textContent).toContain("snake_case_name");
  });

  test("headings sit under the chat's h1 and never skip a level, whatever the agent's #s (axe heading-order)", () => {
    const el = md("## What I can do\n\ntext\n\n#### Refund\n\n> ###### Quoted\n\n## Next");
    expect([...el.querySelectorAll("h1, h2, h3, h4, h5, h6")].map((h) => `${h.tagName} ${h.textContent}`)).toEqual([
      "H2 What I can do", "H3 Refund", "H4 Quoted", "H2 Next",
    ]);
  });

  test("bulleted and numbered lists, nested by indentation", () => {
    const el = md("- Amount: 40 EUR\n- Reference: `r-8812`\n  - nested\n\n3. third\n4. fourth");
    const ul = el.querySelector("ul")!;
    expect(ul.children).toHaveLength(2);
    expect(ul.querySelector(":scope ul li")!.textContent).toBe("nested");
    const ol = el.querySelector("ol")!;
    expect(ol.getAttribute("start")).toBe("3");
    expect([...ol.querySelectorAll("li")].map((li) => li.textContent)).toEqual(["third", "fourth"]);
  });

  test("fenced code blocks keep their text verbatim, with the language", () => {
    const el = md("Before\n\n```ts\nconst a = <div>{x}</div>;\n**not bold**\n```\nAfter");
    const pre = el.querySelector("pre")!;
    expect(pre.getAttribute("data-lang")).toBe("ts");
    expect(pre.textContent).toBe("const a = <div>{x}</div>;\n**not bold**");
    expect(pre.querySelector("strong")).toBeNull();
    expect(el.textContent).toContain("After");
  });

  test("an unclosed fence (a growing item) runs to the end", () => {
    expect(parseBlocks("```py\nprint(1)\nprint(2)")).toEqual([{ t: "code", lang: "py", text: "print(1)\nprint(2)" }]);
  });

  test("quotes and rules; line breaks inside a paragraph are kept", () => {
    const el = md("> quoted *text*\n\n---\nline one\nline two");
    expect(el.querySelector("blockquote em")!.textContent).toBe("text");
    expect(el.querySelector("hr")).not.toBeNull();
    expect(el.querySelector("p br")).not.toBeNull();
  });

  test("the cursor of a growing item sits at the end of the last block", () => {
    const el = md("- one\n- two", true);
    const cursor = el.querySelector("[data-cursor]")!;
    expect(cursor.closest("li")!.textContent).toBe("two");
  });
});
