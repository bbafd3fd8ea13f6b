/**
 * The Pi desk (docs/pi.md): the durable agent that puts every running `pi` on the phone. Collie
 * starts it on the first `pi` that asks (its admin socket's `POST /pi`) and shows it as the agent
 * `pi` (`pi-durable, local`). Each `pi` process links to it (link.ts) and is one conversation,
 * grouped by folder (a workspace per folder); the history is every session Pi saved.
 *
 * The desk lays out and relays; Pi's events become items in the `pi` process, through the same
 * mapping `piPane` uses (live.ts), and a risky call's card is raised here with the same builder
 * (asks.ts), so the phone cannot tell a `pi` from a program using `piPane`. A `pi` that quits or
 * dies ends its conversation at once: its link closes, its pane closes, its session reads on as
 * history.
 */
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { createServer, type Server, type Socket } from "node:net";
import { basename, dirname, join } from "node:path";
import type { Approval } from "../core/approval.ts";
import { Refusal } from "../core/hooks.ts";
import type { Pane, Tab } from "../core/layout.ts";
import { clearStaleSocket, openCollie, preparePrivateDir, type Collie } from "../transport/unix-socket.ts";
import { isSelfOrDescendant, peerPids } from "../transport/peer.ts";
import { askForCall, DEFAULT_CARD_TIMEOUT_MS } from "./asks.ts";
import { PI_HARNESS, PI_HOST_NAME } from "./constants.ts";
import { piHistory } from "./history.ts";
import { wireId } from "./items.ts";
import { LINK_VERSION, LineReader, linkLine, parsePiLine, type DeskLinkMessage, type LinkSession, type PiLinkMessage } from "./link.ts";

export interface PiDeskOptions {
  /** The durable socket Collie reads (S-5). */
  socket: string;
  /** The link socket `pi` processes connect to. */
  link: string;
  /** Where the desk remembers the session folders it saw, so history outlives it; none: memory only. */
  stateDir?: string;
  /** The one process whose writes the desk takes (Collie, which started it); see `writesOnlyFrom`. */
  writesOnlyFrom?: number;
  /** How long a card waits before it closes as `timeout`; default one hour. */
  cardTimeoutMs?: number;
  /** Where the desk says what it refused (default: stderr, which Collie logs). */
  log?: (line: string) => void;
}

/** How long a phone's stop waits for `pi` to say its run ended. */
const STOP_WAIT_MS = 10_000;

export interface PiDesk {
  readonly collie: Collie;
  readonly linkPath: string;
  /** The sessions linked now, by pane id. */
  readonly linked: ReadonlyMap<string, { session: LinkSession; pid: number | null }>;
  close(): Promise<void>;
}

/** A folder as the phone shows it: under the home folder as `~/…`. */
export function folderLabel(cwd: string, home: string = homedir()): string {
  return home.length > 1 && (cwd === home || cwd.startsWith(`${home}/`)) ? `~${cwd.slice(home.length)}` : cwd;
}

/** Malformed lines a link may send before the desk refuses it; the first LOGGED_BAD_LINES are logged. */
export const MAX_BAD_LINES = 100;
const LOGGED_BAD_LINES = 5;

/** Opens the desk: its durable socket for Collie, its link socket for `pi`. */
export async function openPiDesk(opts: PiDeskOptions): Promise<PiDesk> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`pi desk: ${line}\n`));
  const dirs = new SessionDirs(opts.stateDir);
  const collie = await openCollie({
    socket: opts.socket,
    hostName: PI_HOST_NAME,
    // A send while a pi works is Pi's own follow-up (`deliverAs: "followUp"`): `followUp` lets it go on at once.
    caps: { asks: true, send: true, followUp: true, steer: true, stop: true, history: true },
    ...(opts.writesOnlyFrom !== undefined ? { writesOnlyFrom: opts.writesOnlyFrom } : {}),
  });
  collie.history(piHistory({ sessionDirs: () => dirs.list(), folderLabel: (cwd) => folderLabel(cwd) }));
  collie.ready();
  const links = new Set<DeskLink>();
  const ctx: DeskContext = {
    collie,
    log,
    dirs,
    links,
    cardTimeoutMs: opts.cardTimeoutMs ?? DEFAULT_CARD_TIMEOUT_MS,
  };

  preparePrivateDir(dirname(opts.link));
  await clearStaleSocket(opts.link);
  const server = createServer((socket) => {
    const link = new DeskLink(ctx, socket);
    links.add(link);
    socket.once("close", () => links.delete(link));
  });
  const previous = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ path: opts.link }, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } finally {
    process.umask(previous);
  }
  chmodSync(opts.link, 0o600);
  return {
    collie,
    linkPath: opts.link,
    get linked() {
      const out = new Map<string, { session: LinkSession; pid: number | null }>();
      for (const l of links) if (l.session && l.pane) out.set(l.pane.id, { session: l.session, pid: l.pid });
      return out;
    },
    async close() {
      await closeServer(server, links);
      await collie.close();
    },
  };
}

function closeServer(server: Server, links: Set<DeskLink>): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    for (const l of links) l.end();
  });
}

interface DeskContext {
  collie: Collie;
  log: (line: string) => void;
  dirs: SessionDirs;
  links: Set<DeskLink>;
  cardTimeoutMs: number;
}

/** One `pi` process on the link: its pane, its cards, what the phone sends it. */
class DeskLink {
  readonly #ctx: DeskContext;
  readonly #socket: Socket;
  session: LinkSession | undefined;
  pane: Pane | undefined;
  /** The pid of the `pi` process, when the system can tell. */
  pid: number | null = null;
  readonly #peer: Promise<number[] | null>;
  /** `Always allow` answers in this conversation (S-27). */
  readonly #always = new Set<string>();
  /** Open cards by Pi's tool call id: aborting one closes it as decided in the agent. */
  readonly #asks = new Map<string, AbortController>();
  #running = false;
  /** The first line was read (it must be the hello). */
  #greeted = false;
  /** Messages are handled in order, each after the hello. */
  #queue: Promise<void> = Promise.resolve();
  #idleWaiters: (() => void)[] = [];
  #ended = false;
  /** Malformed lines this link sent (bounded: MAX_BAD_LINES). */
  #badLines = 0;

  constructor(ctx: DeskContext, socket: Socket) {
    this.#ctx = ctx;
    this.#socket = socket;
    this.#peer = peerPids(socket).catch(() => null);
    const reader = new LineReader((line) => this.#line(line), () => this.#refuse("a line longer than the link allows"));
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      try {
        reader.push(chunk);
      } catch (err) {
        // Nothing a `pi` sends may throw out of this handler (issue 33): the link ends, the desk stays.
        this.#ctx.log(`a link message could not be handled: ${(err as Error).message}`);
        this.end();
      }
    });
    socket.on("error", () => {});
    socket.on("close", () => this.#closed());
  }

  end(): void {
    this.#socket.destroy();
  }

  #send(message: DeskLinkMessage): void {
    if (!this.#socket.destroyed) this.#socket.write(linkLine(message));
  }

  #refuse(reason: string): void {
    this.#send({ type: "refused", reason });
    this.#socket.end();
    setTimeout(() => this.#socket.destroy(), 1000).unref();
  }

  #line(line: string): void {
    if (this.#ended || this.#badLines > MAX_BAD_LINES) return;
    const parsed = parsePiLine(line);
    if (!parsed.ok) {
      // Bounded, as a crew member's bad frames are: the first few are logged, a link that keeps
      // sending them is refused, so a hostile process can neither flood the log nor hold the desk.
      this.#badLines++;
      if (this.#badLines <= LOGGED_BAD_LINES) this.#ctx.log(`dropped a link line from ${this.session ? `session ${this.session.id}` : "a pi"}: ${parsed.error}`);
      if (this.#badLines > MAX_BAD_LINES) {
        this.#ctx.log(`refused a link that sent ${this.#badLines} malformed lines`);
        this.#refuse("too many malformed lines");
      }
      return;
    }
    const message = parsed.value;
    if (!this.#greeted) {
      this.#greeted = true;
      if (message.type !== "hello") return this.#refuse("the link starts with hello");
      // What follows the hello (the first page) waits for it: the hello looks up who is calling.
      this.#queue = this.#hello(message).catch((err: unknown) => {
        this.#ctx.log(`a hello could not be taken: ${(err as Error).message}`);
        this.end();
      });
      return;
    }
    this.#queue = this.#queue.then(() => {
      if (this.pane && !this.pane.closed && !this.#ended) this.#message(message, this.pane);
    }).catch((err: unknown) => {
      this.#ctx.log(`a link message could not be handled: ${(err as Error).message}`);
      this.end();
    });
  }

  async #hello(hello: Extract<PiLinkMessage, { type: "hello" }>): Promise<void> {
    if (hello.v !== LINK_VERSION) {
      return this.#refuse(`this pi's Collie extension speaks link v${hello.v} and the desk v${LINK_VERSION}: update the one that is older`);
    }
    const session = hello.session;
    this.session = session;
    const paneId = wireId(session.id);
    const peer = await this.#peer;
    // The pi may have gone while its caller was looked up: no conversation for a link that ended.
    if (this.#ended) return;
    // A process inside another linked pi (its tool, its shell) may not show itself as a pi.
    for (const other of this.#ctx.links) {
      if (other === this || other.pid === null || peer === null) continue;
      if (peer.some((pid) => pid !== other.pid && isSelfOrDescendant(pid, other.pid!))) return this.#refuse("a process started by another pi cannot link as a pi");
    }
    for (const other of this.#ctx.links) {
      if (other !== this && other.pane && !other.pane.closed && other.pane.id === paneId) return this.#refuse("this session is on the phone already, from another pi");
    }
    this.pid = peer?.length === 1 ? peer[0]! : null;
    if (session.sessionDir) this.#ctx.dirs.add(session.sessionDir);
    const pane = this.#tabFor(session.cwd).pane(paneId, {
      title: session.title || basename(session.cwd) || session.cwd,
      harness: PI_HARNESS,
      cwd: session.cwd,
      sessionId: paneId,
    });
    this.pane = pane;
    pane.state({ subtitle: folderLabel(session.cwd) });
    pane.on({
      onSend: ({ text }) => this.#phoneSend(pane, text, false),
      onSteer: ({ text }) => this.#phoneSend(pane, text, true),
      onStop: () => this.#phoneStop(),
    });
    if (hello.working) this.#working(pane);
    this.#send({ type: "welcome", v: LINK_VERSION, paneId });
  }

  /** A workspace per folder, so the sessions of one folder sit together. */
  #tabFor(cwd: string): Tab {
    const id = `f-${createHash("sha256").update(cwd).digest("hex").slice(0, 16)}`;
    return this.#ctx.collie.workspace(id, { title: folderLabel(cwd) }).tab("sessions", { title: "Sessions" });
  }

  #message(message: PiLinkMessage, pane: Pane): void {
    switch (message.type) {
      case "item":
        try {
          pane.item(message.item);
        } catch (err) {
          this.#ctx.log(`dropped an item of session ${this.session!.id}: ${(err as Error).message}`);
        }
        break;
      case "working":
        this.#working(pane);
        break;
      case "idle":
        this.#running = false;
        pane.flushPartials();
        pane.endTurn();
        for (const done of this.#idleWaiters.splice(0)) done();
        break;
      case "title":
        if (message.title) pane.setTitle(message.title);
        break;
      case "ask":
        this.#ask(pane, message);
        break;
      case "ask-end":
        this.#asks.get(message.toolCallId)?.abort();
        break;
      case "bye":
        this.end();
        break;
      case "hello":
        break;
    }
  }

  #working(pane: Pane): void {
    if (this.#running && pane.currentState() !== "idle") return;
    this.#running = true;
    pane.beginTurn();
  }

  #ask(pane: Pane, message: Extract<PiLinkMessage, { type: "ask" }>): void {
    const toolCallId = message.toolCallId;
    if (this.#asks.has(toolCallId)) return;
    const controller = new AbortController();
    this.#asks.set(toolCallId, controller);
    let approval: Promise<Approval>;
    try {
      approval = askForCall(pane, { toolName: message.toolName, toolCallId, args: message.args }, {
        timeoutMs: this.#ctx.cardTimeoutMs,
        offerAlways: true,
        alwaysAllowed: this.#always,
        signal: controller.signal,
        words: { title: message.title ?? `${message.toolName} wants to run`, push: { line: `${message.toolName} needs a yes` } },
      });
    } catch (err) {
      this.#asks.delete(toolCallId);
      this.#ctx.log(`no card for ${message.toolName}: ${(err as Error).message}`);
      return;
    }
    void approval.then((a) => {
      this.#asks.delete(toolCallId);
      this.#send({ type: "answer", toolCallId, approved: a.approved, decidedBy: a.decidedBy, always: a.allowAlways === true || a.alwaysAllowed === true });
    }, (err: unknown) => {
      this.#asks.delete(toolCallId);
      this.#ctx.log(`the card for ${message.toolName} failed: ${(err as Error).message}`);
    });
  }

  #phoneSend(pane: Pane, text: string, steer: boolean): { turnId?: string } {
    if (this.#ended || this.#socket.destroyed) throw new Refusal("This pi has ended; start it again to go on.");
    this.#send({ type: "send", text, steer });
    if (!steer && pane.currentState() === "idle") {
      this.#running = true;
      return { turnId: pane.beginTurn() };
    }
    return pane.turnId === null ? {} : { turnId: pane.turnId };
  }

  /** Stops the run in `pi` and waits (a while) for it to say the run ended, so the `stopped` note comes last. */
  async #phoneStop(): Promise<void> {
    if (this.#ended || this.#socket.destroyed) return;
    if (!this.#running) return;
    const idle = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, STOP_WAIT_MS);
      timer.unref();
      this.#idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.#send({ type: "stop" });
    await idle;
  }

  #closed(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const done of this.#idleWaiters.splice(0)) done();
    this.#asks.clear();
    // The conversation ends with its process; its session reads on as history.
    if (this.pane && !this.pane.closed) this.pane.close();
  }
}

/** The session folders the desk has seen, kept in `<stateDir>/session-dirs.json` (owner-only). */
class SessionDirs {
  readonly #file: string | undefined;
  readonly #dirs = new Set<string>();

  constructor(stateDir: string | undefined) {
    this.#file = stateDir ? join(stateDir, "session-dirs.json") : undefined;
    if (!this.#file) return;
    try {
      const saved = JSON.parse(readFileSync(this.#file, "utf8")) as unknown;
      if (Array.isArray(saved)) for (const d of saved) if (typeof d === "string" && d.startsWith("/") && d.length < 4096) this.#dirs.add(d);
    } catch {
      // none yet, or not ours to read: start empty
    }
  }

  list(): string[] {
    return [...this.#dirs];
  }

  add(dir: string): void {
    if (this.#dirs.has(dir) || this.#dirs.size >= 1000) return;
    this.#dirs.add(dir);
    if (!this.#file) return;
    try {
      mkdirSync(dirname(this.#file), { recursive: true, mode: 0o700 });
      const tmp = `${this.#file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(this.list()), { mode: 0o600 });
      renameSync(tmp, this.#file);
    } catch {
      // the list is a convenience: the sessions of this run are listed all the same
    }
  }
}
