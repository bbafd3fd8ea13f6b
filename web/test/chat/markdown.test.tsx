/**
 * The markdown renderer (P-18, X-2): agent text is data, never markup. Raw HTML shows as text;
 * only https links are links; the structure a chat needs renders as elements.
 */
import { afterEach, describe, expect, test } from "vitest";
import { act, cleanup, fireEvent, render } from "@testing-library/react";
import { Markdown, parseBlocks, renderInline, safeHref } from "../../src/features/chat/markdown.tsx";

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

  test("javascript:, data: and http: links are not clickable: their label shows, unlinked (issue 37)", () => {
    const el = md("[click](javascript:alert(1)) [data](data:text/html,hi) [plain **bold**](http://example.com) <http://example.com>");
    expect(el.querySelector("a")).toBeNull();
    expect(el.textContent).toBe("click data plain bold <http://example.com>");
    expect(el.textContent).not.toContain("javascript:");
    // The label keeps its emphasis, as a link's would.
    expect(el.querySelector(".md-unlinked strong")!.textContent).toBe("bold");
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

  test("hostile input (thousands of unmatched delimiters) renders as text, with work that grows linearly", () => {
    // No clock (the machine is shared): the parser's searches are counted instead. Four times the
    // text may cost about four times the searches, never sixteen (a quadratic scan).
    const texts = [
      (n: number) => "*a ".repeat(n) + "[".repeat(n) + "`".repeat(n / 2) + "_x ".repeat(n / 2),
      (n: number) => "**a ".repeat(n) + "~~a ".repeat(n),
      (n: number) => "[a](".repeat(n) + "<https:".repeat(n / 2),
      (n: number) => "| a ".repeat(n) + "\n" + "|-".repeat(n) + "\n" + "| b ".repeat(n),
    ];
    const searches = (text: string): number => {
      const indexOf = String.prototype.indexOf;
      let calls = 0;
      String.prototype.indexOf = function (this: string, ...args: Parameters<string["indexOf"]>) {
        calls++;
        return indexOf.apply(this, args);
      };
      try {
        parseBlocks(text);
        renderInline(text);
        return calls;
      } finally {
        String.prototype.indexOf = indexOf;
      }
    };
    for (const text of texts) {
      const small = searches(text(1000));
      const large = searches(text(4000));
      expect(large).toBeLessThan(small * 6 + 100);
      const el = md(text(2000));
      expect(el.textContent!.length).toBeGreaterThan(1000);
      cleanup();
    }
    expect(md(">".repeat(20_000) + " deep").textContent).toContain("deep");
    cleanup();
    expect(md(Array.from({ length: 2000 }, (_, n) => `${"  ".repeat(n)}- level ${n}`).join("\n")).textContent).toContain("level 1999");
  }, 60_000);
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

describe("tables (issue 37: raw pipes read as noise)", () => {
  test("a table renders as one, with its header, cells padded or cut to the header's columns, inline markdown in cells", () => {
    const el = md("Here are the orders:\n| Order | Amount | State |\n|---|--:|:-:|\n| 5521 | **40 EUR** | lost |\n| 5530 | 20 EUR |\n| 7781 | 649 EUR | in transit | extra |\n\nDone.");
    expect(el.querySelector("p")!.textContent).toBe("Here are the orders:");
    const table = el.querySelector("table")!;
    expect([...table.querySelectorAll("th")].map((t) => t.textContent)).toEqual(["Order", "Amount", "State"]);
    expect([...table.querySelectorAll("tbody tr")].map((r) => [...r.querySelectorAll("td")].map((c) => c.textContent))).toEqual([
      ["5521", "40 EUR", "lost"], ["5530", "20 EUR", ""], ["7781", "649 EUR", "in transit"],
    ]);
    expect(table.querySelector("strong")!.textContent).toBe("40 EUR");
    expect(el.textContent).not.toContain("|---");
    expect(el.querySelectorAll("p")[1]!.textContent).toBe("Done.");
    // Wide tables scroll inside their box, which a keyboard can reach.
    expect(table.parentElement!.getAttribute("tabindex")).toBe("0");
  });

  test("escaped pipes and pipes in inline code stay in their cell; a line of pipes without a rule row is text", () => {
    const el = md("| a | b |\n|---|---|\n| x \\| y | `p|q` |");
    expect([...el.querySelectorAll("td")].map((c) => c.textContent)).toEqual(["x | y", "p|q"]);
    expect(md("a | b | c\nno rule here").querySelector("table")).toBeNull();
  });

  test("HTML in a cell is text (X-2)", () => {
    const el = md("| a |\n|---|\n| <img src=x onerror=alert(1)> |");
    expect(el.querySelector("img")).toBeNull();
    expect(el.querySelector("td")!.textContent).toBe("<img src=x onerror=alert(1)>");
  });
});

describe("code blocks copy (issue 37)", () => {
  test("a fenced block has a copy button that copies its text exactly", async () => {
    const written: string[] = [];
    Object.defineProperty(navigator, "clipboard", { value: { writeText: async (t: string) => void written.push(t) }, configurable: true });
    const code = Array.from({ length: 150 }, (_, n) => `line ${n}`).join("\n");
    const el = md("```ts\n" + code + "\n```");
    const button = el.querySelector<HTMLButtonElement>(".copy-button")!;
    expect(button.getAttribute("aria-label")).toBe("Copy the code");
    await act(async () => fireEvent.click(button));
    expect(written).toEqual([code]);
    expect(button.textContent).toBe("Copied");
  });

  test("a browser that refuses the clipboard: the code is selected for the phone's own Copy, and the button says so", async () => {
    Object.defineProperty(navigator, "clipboard", { value: { writeText: async () => { throw new Error("denied"); } }, configurable: true });
    const el = md("```\nrm -rf build\n```");
    await act(async () => fireEvent.click(el.querySelector(".copy-button")!));
    expect(el.querySelector(".copy-button")!.textContent).toBe("Selected: copy it from the menu");
    expect(window.getSelection()!.toString()).toContain("rm -rf build");
  });
});
