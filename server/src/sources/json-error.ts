/**
 * Where a JSON text first goes wrong, said without quoting it (the security issue, item 7): a
 * sources.json may hold inline tokens, and the JSON parser's own message quotes the text around
 * the error (`… "b4a3921"},]}`), which ended up in the log. This scanner finds the line, the
 * column and the field (`durable[0].token`) of the first error, and describes it in words that
 * never include the file's characters.
 */
export interface JsonErrorPlace {
  line: number;
  column: number;
  /** The path of the value being read, e.g. `durable[1].url`; "top level" at the start. */
  field: string;
  /** What was wrong, in words (never the text itself). */
  problem: string;
}

class Stop extends Error {
  readonly at: number;
  readonly problem: string;
  constructor(at: number, problem: string) {
    super(problem);
    this.at = at;
    this.problem = problem;
  }
}

/** The first syntax error of `text`, or null when it is valid JSON. */
export function locateJsonError(text: string): JsonErrorPlace | null {
  const path: (string | number)[] = [];
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const fail = (problem: string): never => {
    throw new Stop(i, i >= text.length ? "the file ends too early" : problem);
  };
  const string = (): string => {
    const start = ++i;
    while (i < text.length && text[i] !== '"') {
      const c = text.charCodeAt(i);
      if (c < 0x20) fail("a control character inside a string");
      if (text[i] === "\\") {
        i++;
        if (text[i] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail("a bad \\u escape");
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? "")) fail("a bad escape");
      }
      i++;
    }
    if (i >= text.length) fail("a string that is not closed");
    return text.slice(start, i++);
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail(text[i] === "}" ? "a comma before '}'" : "a field name that is not in double quotes");
        path.push(string());
        ws();
        if (text[i] !== ":") fail("a missing ':' after a field name");
        i++;
        value();
        path.pop();
        ws();
        if (text[i] === ",") { i++; continue; }
        if (text[i] === "}") return void i++;
        fail("a missing ',' or '}' after a value");
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (let n = 0; ; n++) {
        path.push(n);
        value();
        path.pop();
        ws();
        if (text[i] === ",") {
          i++;
          ws();
          if (text[i] === "]") fail("a comma before ']'");
          continue;
        }
        if (text[i] === "]") return void i++;
        fail("a missing ',' or ']' after a value");
      }
    }
    if (c === '"') return void string();
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (literal) return void (i += literal[0].length);
    fail("a value that is not JSON (text must be in double quotes)");
  };
  try {
    value();
    ws();
    if (i < text.length) fail("more after the end of the JSON value");
    return null;
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    const before = text.slice(0, err.at);
    const line = before.split("\n").length;
    const column = err.at - (before.lastIndexOf("\n") + 1) + 1;
    const field = path.length === 0 ? "top level" : path.map((p, k) => (typeof p === "number" ? `[${p}]` : `${k === 0 ? "" : "."}${p}`)).join("");
    return { line, column, field, problem: err.problem };
  }
}
