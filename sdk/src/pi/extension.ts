/**
 * Collie's extension for the `pi` command (docs/pi.md, issue 29): every running `pi` on the phone.
 *
 *   pi install /path/to/collie/sdk/src/pi/extension.ts      (or: pi -e <that path>)
 *
 * At each session start the extension asks the Collie of this machine (its owner-only admin
 * socket, `POST /pi`) for the Pi desk and links to it (link.ts). The session is then one
 * conversation on the phone: Pi's events become items through the same mapping `piPane` uses
 * (live.ts); `bash`, `write` and `edit` (`--collie-ask`, `COLLIE_PI_ASK`) wait for Allow, Always
 * allow or Deny, on the phone or in the terminal, whichever answers first; the phone's Send, Steer
 * and Stop reach Pi through its own entry points (`sendUserMessage`, `abort`).
 *
 * When Collie is not running or goes away, `pi` works exactly as without this extension (nothing
 * is asked) and says so once; the session shows again when Collie is back. Nothing here can stop
 * or hang `pi`: every failure of the link is a line in the terminal at most.
 */
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { basename, isAbsolute } from "node:path";
import type { ExtensionAPI, ExtensionContext, ToolCallEvent, ToolCallEventResult } from "@mariozechner/pi-coding-agent";
import type { ItemInput } from "../core/items.ts";
import { refusalText, type RefusedBy } from "./asks.ts";
import { adminSocketPath } from "./collie-place.ts";
import { contentText } from "./items.ts";
import { LINK_VERSION, LineReader, linkItem, linkLine, parseDeskLine, type DeskLinkMessage, type PiLinkMessage } from "./link.ts";
import { PiLive, type PiEvent, type PiSurface } from "./live.ts";
import { DENIED_ENTRY, sessionItems } from "./transcript.ts";

/** The tools asked by default: the ones that change things. */
export const DEFAULT_ASKED = ["bash", "write", "edit"] as const;
/** The flag and the variable that name the asked tools (`none`: none, `all`: every tool). */
export const ASK_FLAG = "collie-ask";
export const ASK_ENV = "COLLIE_PI_ASK";
/** `off` turns the extension off for one run. */
export const OFF_ENV = "COLLIE_PI";
/** How long a card waits for Collie to come back when no terminal can answer it (ms). */
export const AWAY_ENV = "COLLIE_PI_AWAY_MS";
const DEFAULT_AWAY_MS = 60_000;
/** Retries of the link, in ms; the last repeats (the project's fixed retry table). */
const RETRY_MS: readonly number[] = [1000, 2000, 5000];
/** Partial text is sent at most this often per item (the desk coalesces further, S-15). */
const PARTIAL_MS = 100;
/** How long the admin socket gets to answer (it may start the desk first). */
const ADMIN_TIMEOUT_MS = 30_000;

const LIVE_EVENTS = [
  "agent_start", "agent_end", "message_start", "message_update", "message_end",
  "tool_execution_start", "tool_execution_update", "tool_execution_end",
] as const;

/** Which tools a value of `--collie-ask` / `COLLIE_PI_ASK` names. */
export function askedTools(value: string | undefined): { all: boolean; names: Set<string> } {
  if (value === undefined || value.trim() === "") return { all: false, names: new Set(DEFAULT_ASKED) };
  const words = value.split(",").map((w) => w.trim()).filter(Boolean);
  if (words.length === 1 && words[0] === "none") return { all: false, names: new Set() };
  if (words.length === 1 && words[0] === "all") return { all: true, names: new Set() };
  return { all: false, names: new Set(words) };
}

/** Pi loads this: `export default function (pi: ExtensionAPI)`. */
export default function collieExtension(pi: ExtensionAPI): void {
  if (process.env[OFF_ENV] === "off") return;
  pi.registerFlag(ASK_FLAG, {
    description: `Tools whose calls wait for a yes on the phone: a comma list, none or all (default ${DEFAULT_ASKED.join(",")}; also ${ASK_ENV})`,
    type: "string",
  });
  let link: CollieLink | undefined;
  pi.on("session_start", (_event, ctx) => {
    link?.close(false);
    const flag = pi.getFlag(ASK_FLAG);
    link = new CollieLink(pi, ctx, askedTools(typeof flag === "string" && flag !== "" ? flag : process.env[ASK_ENV]));
    link.start();
  });
  pi.on("session_shutdown", () => {
    link?.close(true);
    link = undefined;
  });
  for (const type of LIVE_EVENTS) {
    (pi.on as (event: string, handler: (event: PiEvent) => void) => void)(type, (event) => link?.event(event));
  }
  pi.on("tool_call", (event, ctx) => link?.gate(event, ctx));
}

/** How a pending card ended. */
interface Decision {
  approved: boolean;
  by: RefusedBy;
  always: boolean;
}

/** A risky call waiting for an answer: on the phone (through the desk), in the terminal, or both. */
class Card {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: unknown;
  readonly decided: Promise<Decision>;
  /** Dismisses the terminal's dialog once the card is decided elsewhere. */
  readonly dialog = new AbortController();
  #decide!: (d: Decision) => void;
  #done = false;
  #awayTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(event: ToolCallEvent) {
    this.toolCallId = event.toolCallId;
    this.toolName = event.toolName;
    this.args = event.input;
    this.decided = new Promise((resolve) => (this.#decide = resolve));
  }

  get done(): boolean {
    return this.#done;
  }

  decide(d: Decision): void {
    if (this.#done) return;
    this.#done = true;
    this.stopAwayTimer();
    this.dialog.abort();
    this.#decide(d);
  }

  startAwayTimer(ms: number): void {
    if (this.#awayTimer || this.#done) return;
    this.#awayTimer = setTimeout(() => this.decide({ approved: false, by: "away", always: false }), ms);
    this.#awayTimer.unref?.();
  }

  stopAwayTimer(): void {
    if (this.#awayTimer) clearTimeout(this.#awayTimer);
    this.#awayTimer = undefined;
  }
}

/** One Pi session's link to Collie's Pi desk. */
class CollieLink implements PiSurface {
  readonly #pi: ExtensionAPI;
  readonly #ctx: ExtensionContext;
  readonly #asked: { all: boolean; names: Set<string> };
  readonly #live: PiLive;
  /** `Always allow` answers in this session (S-27), from the phone or the terminal. */
  readonly #always = new Set<string>();
  readonly #cards = new Map<string, Card>();
  #socket: Socket | undefined;
  /** Linked and welcomed: the desk shows this session. */
  #up = false;
  #closed = false;
  #attempt = 0;
  #retry: ReturnType<typeof setTimeout> | undefined;
  /** Said once per run: Collie absent, gone away, refused. */
  readonly #said = new Set<string>();
  #title = "";
  /** Partial items waiting for their next send, by id. */
  readonly #partials = new Map<string, ItemInput & { id: string }>();
  #partialTimer: ReturnType<typeof setTimeout> | undefined;
  /** Settles when the first try to reach Collie has an outcome: a call made before waits for it. */
  readonly #firstTry: Promise<void>;
  #firstTried!: () => void;

  constructor(pi: ExtensionAPI, ctx: ExtensionContext, asked: { all: boolean; names: Set<string> }) {
    this.#pi = pi;
    this.#ctx = ctx;
    this.#asked = asked;
    this.#live = new PiLive(this);
    this.#firstTry = new Promise((resolve) => (this.#firstTried = resolve));
  }

  start(): void {
    // Never longer than Collie gets to answer: a link that neither welcomes nor fails lets calls run.
    setTimeout(() => this.#firstTried(), ADMIN_TIMEOUT_MS + 5000).unref?.();
    void this.#connect();
  }

  /** Ends the link; `bye` tells the desk the session ended (a quit), so its conversation ends at once. */
  close(bye: boolean): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    if (this.#partialTimer) clearTimeout(this.#partialTimer);
    for (const card of this.#cards.values()) card.decide({ approved: false, by: "program", always: false });
    const socket = this.#socket;
    if (socket && !socket.destroyed) {
      if (bye && this.#up) socket.end(linkLine({ type: "bye" }));
      else socket.destroy();
    }
  }

  // ---- the mapping's surface: what the phone sees of this session

  get closed(): boolean {
    return this.#closed;
  }

  item(item: ItemInput & { id: string }): void {
    if (!this.#up) return;
    if ("partial" in item && item.partial === true) {
      this.#partials.set(item.id, item);
      this.#partialTimer ??= setTimeout(() => this.#flushPartials(), PARTIAL_MS);
      this.#partialTimer.unref?.();
      return;
    }
    this.#partials.delete(item.id);
    this.#sendItem(item);
  }

  working(): void {
    this.#flushPartials();
    this.#send({ type: "working" });
  }

  idle(): void {
    this.#flushPartials();
    this.#send({ type: "idle" });
    this.#sendTitle();
  }

  event(event: PiEvent): void {
    this.#live.event(event);
    if (event.type === "message_end" && (event.message as { role?: unknown } | undefined)?.role === "user") this.#sendTitle();
  }

  #flushPartials(): void {
    if (this.#partialTimer) clearTimeout(this.#partialTimer);
    this.#partialTimer = undefined;
    for (const item of this.#partials.values()) this.#sendItem(item);
    this.#partials.clear();
  }

  #sendItem(item: unknown): void {
    const cut = linkItem(item);
    if (cut) this.#send({ type: "item", item: cut });
  }

  #send(message: PiLinkMessage): void {
    const socket = this.#socket;
    if (!this.#up || !socket || socket.destroyed) return;
    socket.write(linkLine(message));
  }

  // ---- the card

  #isAsked(toolName: string): boolean {
    return this.#asked.all || this.#asked.names.has(toolName);
  }

  /**
   * Pi's `tool_call`: a risky call waits here for the first answer; anything but Allow blocks it.
   * While it waits, it keeps `pi` alive: the link is left out of Node's count of work (it must not
   * hold a `pi` that is done), so `pi -p` would otherwise exit in the middle of a card.
   */
  async gate(event: ToolCallEvent, ctx: ExtensionContext): Promise<ToolCallEventResult | undefined> {
    if (this.#closed || !this.#isAsked(event.toolName) || this.#always.has(event.toolName)) return undefined;
    const alive = setInterval(() => {}, 1 << 30);
    try {
      return await this.#gate(event, ctx);
    } finally {
      clearInterval(alive);
    }
  }

  async #gate(event: ToolCallEvent, ctx: ExtensionContext): Promise<ToolCallEventResult | undefined> {
    // A call as pi starts (`pi -p …`) waits for the first try to reach Collie, so a running Collie is asked.
    await this.#firstTry;
    // Collie away: exactly as without the extension (said once when it went).
    if (!this.#up || this.#closed) return undefined;
    const card = new Card(event);
    this.#cards.set(card.toolCallId, card);
    this.#sendAsk(card);
    const signal = ctx.signal;
    const onAbort = () => card.decide({ approved: false, by: "program", always: false });
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    if (ctx.hasUI) void this.#askTerminal(card, ctx);
    const decision = await card.decided;
    signal?.removeEventListener("abort", onAbort);
    this.#cards.delete(card.toolCallId);
    // Decided here (the terminal, a stop, Collie gone): the phone's card closes as decided in the agent.
    if (decision.by !== "phone" && decision.by !== "timeout") this.#send({ type: "ask-end", toolCallId: card.toolCallId });
    if (decision.approved) {
      if (decision.always) this.#always.add(card.toolName);
      return undefined;
    }
    this.#live.deny(card.toolCallId);
    try {
      this.#pi.appendEntry(DENIED_ENTRY, { toolCallId: card.toolCallId });
    } catch {
      // a session without a file keeps no note; the call is refused all the same
    }
    return { block: true, reason: refusalText(card.toolName, decision.by) };
  }

  #sendAsk(card: Card): void {
    this.#send({ type: "ask", toolCallId: card.toolCallId, toolName: card.toolName, args: card.args, title: `${card.toolName} wants to run` });
  }

  /** The same question in the terminal; the first answer, here or on the phone, wins. */
  async #askTerminal(card: Card, ctx: ExtensionContext): Promise<void> {
    const allow = "Allow";
    const always = `Always allow ${card.toolName} in this session`;
    const deny = "Deny";
    let summary = "";
    try {
      summary = JSON.stringify(card.args);
    } catch {
      summary = "";
    }
    if (summary.length > 300) summary = `${summary.slice(0, 300)}…`;
    try {
      const choice = await ctx.ui.select(`${card.toolName} wants to run ${summary} (or answer on your phone)`, [allow, always, deny], { signal: card.dialog.signal });
      if (card.done) return;
      card.decide(choice === allow ? { approved: true, by: "terminal", always: false }
        : choice === always ? { approved: true, by: "terminal", always: true }
        : { approved: false, by: "terminal", always: false });
    } catch {
      // no dialog here (a mode without one): the phone answers
    }
  }

  // ---- the link

  async #connect(): Promise<void> {
    if (this.#closed) return;
    let linkPath: string;
    try {
      linkPath = await askCollie();
    } catch (err) {
      this.#away(err instanceof CollieRefused ? err.message : null);
      return;
    }
    if (this.#closed) return;
    const socket = connect({ path: linkPath });
    this.#socket = socket;
    socket.setEncoding("utf8");
    socket.unref();
    const reader = new LineReader((line) => this.#line(line), () => socket.destroy());
    socket.on("connect", () => this.#hello(socket));
    socket.on("data", (chunk: string) => {
      try {
        reader.push(chunk);
      } catch {
        socket.destroy();
      }
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      if (this.#socket !== socket) return;
      const wasUp = this.#up;
      this.#up = false;
      this.#socket = undefined;
      if (this.#closed) return;
      if (wasUp) this.#cardsAway();
      this.#away(null, wasUp);
    });
  }

  /** The session as it stands: hello, then its first page (the session's entries), then its open cards. */
  #hello(socket: Socket): void {
    const sm = this.#ctx.sessionManager;
    const dir = sm.getSessionDir();
    this.#title = this.#currentTitle();
    socket.write(linkLine({
      type: "hello",
      v: LINK_VERSION,
      session: { id: sm.getSessionId(), cwd: this.#ctx.cwd, title: this.#title, ...(dir && isAbsolute(dir) ? { sessionDir: dir } : {}) },
      working: !this.#ctx.isIdle(),
    }));
  }

  #line(line: string): void {
    const parsed = parseDeskLine(line);
    if (!parsed.ok) return; // not the desk's: nothing to act on
    const message: DeskLinkMessage = parsed.value;
    switch (message.type) {
      case "welcome":
        this.#welcomed();
        break;
      case "refused":
        this.#firstTried();
        this.#sayOnce("refused", `Collie refused this pi: ${message.reason}`, "warning");
        this.#closed = true; // a refusal does not change by retrying
        this.#socket?.destroy();
        break;
      case "answer": {
        const card = this.#cards.get(message.toolCallId);
        card?.decide({ approved: message.approved, by: message.decidedBy, always: message.always });
        break;
      }
      case "send":
        this.#phoneSend(message.text, message.steer);
        break;
      case "stop":
        this.#ctx.abort();
        if (this.#ctx.isIdle()) this.#send({ type: "idle" });
        break;
    }
  }

  #welcomed(): void {
    const back = this.#said.has("away");
    this.#up = true;
    this.#firstTried();
    this.#attempt = 0;
    this.#said.delete("away");
    for (const item of sessionItems(this.#ctx.sessionManager)) this.#sendItem(item);
    // Cards still waiting (Collie came back): raised again with the same ask id (S-23).
    for (const card of this.#cards.values()) {
      card.stopAwayTimer();
      this.#sendAsk(card);
    }
    if (back) this.#say("Collie is back: this pi is on your phone again.", "info");
  }

  /** Collie went away with cards open: a terminal keeps asking; without one a card waits a while, then is refused. */
  #cardsAway(): void {
    const ms = Number(process.env[AWAY_ENV] ?? DEFAULT_AWAY_MS);
    for (const card of this.#cards.values()) {
      if (!this.#ctx.hasUI) card.startAwayTimer(Number.isFinite(ms) && ms >= 0 ? ms : DEFAULT_AWAY_MS);
    }
  }

  #away(refused: string | null, wasUp = false): void {
    this.#firstTried();
    if (refused !== null) {
      this.#sayOnce("refused", `Collie refused this pi: ${refused}`, "warning");
      return;
    }
    if (wasUp) this.#sayOnce("away", "Collie went away: this pi works as without the Collie extension until Collie is back (nothing is asked on the phone).", "warning");
    else this.#sayOnce("absent", "Collie is not running: this pi works as without the Collie extension (nothing is asked on the phone). It shows on your phone once Collie runs.", "warning");
    if (wasUp) this.#said.add("away");
    const delay = RETRY_MS[Math.min(this.#attempt, RETRY_MS.length - 1)]!;
    this.#attempt++;
    this.#retry = setTimeout(() => void this.#connect(), delay);
    this.#retry.unref?.();
  }

  #phoneSend(text: string, steer: boolean): void {
    this.#live.expectEcho(text);
    if (this.#ctx.isIdle()) this.#pi.sendUserMessage(text);
    else this.#pi.sendUserMessage(text, { deliverAs: steer ? "steer" : "followUp" });
  }

  #currentTitle(): string {
    const sm = this.#ctx.sessionManager;
    const named = sm.getSessionName();
    if (named) return named;
    for (const entry of sm.getBranch()) {
      if (entry.type === "message" && entry.message.role === "user") {
        const text = contentText(entry.message.content).trim();
        if (text) return text;
      }
    }
    return basename(this.#ctx.cwd) || this.#ctx.cwd;
  }

  #sendTitle(): void {
    const title = this.#currentTitle();
    if (title === this.#title) return;
    this.#title = title;
    this.#send({ type: "title", title });
  }

  #say(text: string, level: "info" | "warning"): void {
    try {
      if (this.#ctx.hasUI) this.#ctx.ui.notify(text, level);
      else process.stderr.write(`collie: ${text}\n`);
    } catch {
      // a terminal that went away cannot be told
    }
  }

  #sayOnce(key: string, text: string, level: "info" | "warning"): void {
    if (this.#said.has(key)) return;
    this.#said.add(key);
    this.#say(text, level);
  }
}

/** Collie answered, but no: its reason (e.g. the desk could not start). */
class CollieRefused extends Error {}

/** Asks the Collie of this machine for the Pi desk (`POST /pi` on its admin socket); resolves with the link socket's path. */
function askCollie(): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: adminSocketPath(), method: "POST", path: "/pi", timeout: ADMIN_TIMEOUT_MS }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
        if (body.length > 64 * 1024) req.destroy();
      });
      res.on("end", () => {
        let json: { link?: unknown; message?: unknown } = {};
        try {
          json = JSON.parse(body) as typeof json;
        } catch {
          // not JSON: a Collie too old for pi, or something else on the socket
        }
        if (res.statusCode === 200 && typeof json.link === "string" && isAbsolute(json.link)) resolve(json.link);
        else if (res.statusCode === 404) reject(new CollieRefused("this Collie has no Pi desk; update Collie"));
        else reject(new CollieRefused(typeof json.message === "string" ? json.message.slice(0, 300) : `Collie answered ${res.statusCode}`));
      });
    });
    req.on("timeout", () => req.destroy(new Error("Collie did not answer")));
    req.on("error", reject);
    req.end();
  });
}
