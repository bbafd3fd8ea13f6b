/**
 * The Pi link (docs/pi.md, "The link"): how a running `pi` (Collie's extension in it) and the Pi
 * desk (the durable agent Collie starts) talk, one JSON object per line over the desk's owner-only
 * Unix socket. Its one checker per direction is built from the wire's own checkers (an item is the
 * wire's item, read by the wire's item checker), and both ends read every line through it before
 * anything else looks at it: a `pi` process is outside bytes to the desk, and the desk to `pi`.
 *
 *   pi → desk: hello, item, working, idle, title, ask, ask-end, bye
 *   desk → pi: welcome, refused, answer, send, stop
 */
import { bool, int, literal, obj, parseWith, str, text, union, WireShapeError, type Checker, type Parsed } from "../wire/check.ts";
import { LIMITS } from "../wire/constants.ts";
import { itemChecker } from "../wire/messages.ts";
import type { DecidedBy, Item } from "../wire/types.ts";

/** The link's version; a hello of another version is refused with a line that says so. */
export const LINK_VERSION = 1;
/** The longest line either end reads (an item is cut to the wire's limits before it is sent). */
export const LINK_LINE_BYTES = 1024 * 1024;
/** How many calls' arguments an ask may carry, in bytes of JSON. */
const ARGS_JSON_BYTES = 64 * 1024;

/** One running Pi session as its `pi` process introduces it. */
export interface LinkSession {
  /** Pi's session id (a UUID). */
  id: string;
  /** The folder `pi` runs in. */
  cwd: string;
  title: string;
  /** Where Pi saves this session's file: the desk lists it in its history. */
  sessionDir?: string;
}

export type PiLinkMessage =
  | { type: "hello"; v: number; session: LinkSession; working: boolean }
  | { type: "item"; item: Item }
  | { type: "working" }
  | { type: "idle" }
  | { type: "title"; title: string }
  | { type: "ask"; toolCallId: string; toolName: string; args?: unknown; title?: string }
  | { type: "ask-end"; toolCallId: string }
  | { type: "bye" };

export type DeskLinkMessage =
  | { type: "welcome"; v: number; paneId: string }
  | { type: "refused"; reason: string }
  | { type: "answer"; toolCallId: string; approved: boolean; decidedBy: DecidedBy; always: boolean }
  | { type: "send"; text: string; steer: boolean }
  | { type: "stop" };

const shapeFail = (path: string, reason: string): never => {
  throw new WireShapeError(path, reason);
};

/** A Pi id (session, tool call): any short printable text; the desk turns it into a wire id. */
const piId = str({ min: 1, maxBytes: 512 });
const absolutePath: Checker<string> = (v, path) => {
  const p = str({ min: 1, maxBytes: 4096 })(v, path);
  return p.startsWith("/") && !p.includes("\0") ? p : shapeFail(path, "must be an absolute path");
};
const title = text({ maxBytes: LIMITS.titleBytes, line: true });
const version = int({ min: 1, max: 1_000_000 });

/** Any JSON value (the call's arguments), within a size. */
const jsonValue: Checker<unknown> = (v, path) => {
  let json: string | undefined;
  try {
    json = JSON.stringify(v);
  } catch {
    return shapeFail(path, "must be JSON of a sane depth"); // a nesting past the stack
  }
  if (json === undefined) return shapeFail(path, "must be JSON");
  if (Buffer.byteLength(json) > ARGS_JSON_BYTES) return shapeFail(path, `must be at most ${ARGS_JSON_BYTES} bytes of JSON`);
  return JSON.parse(json) as unknown;
};

const piLinkChecker: Checker<PiLinkMessage> = union<PiLinkMessage>("type", {
  hello: obj({
    type: literal("hello"),
    v: version,
    session: obj({ id: piId, cwd: absolutePath, title }, { sessionDir: absolutePath }),
    working: bool,
  }),
  item: obj({ type: literal("item"), item: itemChecker }),
  working: obj({ type: literal("working") }),
  idle: obj({ type: literal("idle") }),
  title: obj({ type: literal("title"), title }),
  ask: obj(
    { type: literal("ask"), toolCallId: piId, toolName: text({ maxBytes: LIMITS.toolNameBytes, min: 1, line: true }) },
    { args: jsonValue, title: text({ maxBytes: LIMITS.askTitleBytes, line: true }) },
  ),
  "ask-end": obj({ type: literal("ask-end"), toolCallId: piId }),
  bye: obj({ type: literal("bye") }),
});

const deskLinkChecker: Checker<DeskLinkMessage> = union<DeskLinkMessage>("type", {
  welcome: obj({ type: literal("welcome"), v: version, paneId: str({ min: 1, maxBytes: LIMITS.idBytes }) }),
  refused: obj({ type: literal("refused"), reason: text({ maxBytes: 1024, line: true }) }),
  answer: obj({ type: literal("answer"), toolCallId: piId, approved: bool, decidedBy: literal("phone", "program", "timeout"), always: bool }),
  send: obj({ type: literal("send"), text: str({ min: 1, maxBytes: LIMITS.userTextBytes }), steer: bool }),
  stop: obj({ type: literal("stop") }),
});

/**
 * One line from a `pi` process, read the way Collie reads an agent (L-2): text over its limit is
 * cut and cleaned, an item so changed says `textShortened`; anything else out of shape is refused.
 */
export function parsePiLine(line: string): Parsed<PiLinkMessage> {
  return parseLine(line, piLinkChecker, true);
}

/** One line from the desk, read strictly (the desk writes what fits). */
export function parseDeskLine(line: string): Parsed<DeskLinkMessage> {
  return parseLine(line, deskLinkChecker, false);
}

function parseLine<T>(line: string, checker: Checker<T>, cut: boolean): Parsed<T> {
  if (Buffer.byteLength(line) > LINK_LINE_BYTES) return { ok: false, error: `line: must be at most ${LINK_LINE_BYTES} bytes` };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, error: "line: is not JSON" };
  }
  return parseWith(checker, value, { cut });
}

/** An item as the link carries it: cut to the wire's limits before it is sent, so a line stays small. */
export function linkItem(item: unknown): Item | null {
  const parsed = parseWith(itemChecker, item, { cut: true });
  return parsed.ok ? parsed.value : null;
}

/** Reads a byte stream as lines, refusing one that grows past the limit (a flood ends the connection). */
export class LineReader {
  #buffer = "";
  readonly #onLine: (line: string) => void;
  readonly #onTooLong: () => void;

  constructor(onLine: (line: string) => void, onTooLong: () => void) {
    this.#onLine = onLine;
    this.#onTooLong = onTooLong;
  }

  push(chunk: string): void {
    this.#buffer += chunk;
    let at: number;
    while ((at = this.#buffer.indexOf("\n")) >= 0) {
      const line = this.#buffer.slice(0, at);
      this.#buffer = this.#buffer.slice(at + 1);
      if (line.length > 0) this.#onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
    }
    // UTF-16 length is at most the byte length: a buffer longer than the limit in characters is over it in bytes.
    if (this.#buffer.length > LINK_LINE_BYTES) {
      this.#buffer = "";
      this.#onTooLong();
    }
  }
}

/** A message as one line. */
export const linkLine = (message: PiLinkMessage | DeskLinkMessage): string => `${JSON.stringify(message)}\n`;
