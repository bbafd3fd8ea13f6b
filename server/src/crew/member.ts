/**
 * One crew member as the lead sees it (C-1), the Upstream of the member's agents on the lead (keyed
 * `<agent>@<member>`): the member's own phone API and live WebSocket, read
 * over its front door with the crew credential, never its agents directly (the member keeps its
 * connection state, limits and masking). On connect the crew protocol version is checked
 * (`/api/crew/hello`); then the WebSocket's snapshot and deltas are kept here and passed on to the
 * lead's phones with each agent renamed to its crew key and `machine` set. A member that cannot be
 * reached keeps its last agent list, drawn Unreachable without counts; one that speaks another
 * crew protocol is drawn Version mismatch. The loop retries on the fixed delay table (reconnect.ts).
 *
 * Everything the member sends is outside input (the security issues: one `null` once took the
 * lead down, again at every restart). Each frame is read by the live contract's one reader
 * (`readLiveText`, `@colliepwa/shared/live`) before anything looks at it: its size (the socket's
 * `maxPayload`), its depth, its schema, and the wire's own checkers in the lead's reading mode
 * (`agentReads`: every text cleaned and cut, shown ones masked before a cut, R-1), then shaped for
 * the lead's phones as the lead's own agents are (`present`, `mask`). What is kept is bounded per
 * member (kept.ts). A frame the reader refuses is dropped with a log line at most every 10 s; a
 * member that keeps sending them is disconnected and drawn Unreachable, and tried again after the
 * longest delay. Nothing a member sends can throw out of the socket's handler.
 */
import WebSocket, { type RawData } from "ws";
import type { AgentState, AgentSummary, Conversation, LiveMessage, PaneDetail } from "@colliepwa/shared";
import { PHONE_ROUTES, phonePath, type PhoneRouteName } from "@colliepwa/shared";
import { SNAPSHOT_CONVERSATIONS_PER_AGENT } from "@colliepwa/shared/schemas";
import { readLiveText, type LiveRead } from "@colliepwa/shared/live";
import type { Ask, ReadOptions, WriteRouteName } from "@colliepwa/durable-sdk/wire";
import { AgentClient, AgentUnreachable, type AgentReply } from "../agents/client.ts";
import type { Unnumbered } from "../agents/live.ts";
import { Reconnect } from "../agents/reconnect.ts";
import type { Upstream, UpstreamEvents, UpstreamRead } from "../agents/upstream.ts";
import { agentReads, asOutcome, type Mask, type Outcome } from "../agents/gateway.ts";
import { apiError } from "../errors.ts";
import type { CrewSource } from "../sources/sources.ts";
import { COLLIE_WIRE_VERSIONS } from "../version.ts";
import { MEMBER_LIMITS, MemberKeep } from "./kept.ts";
import { memberRead, type MemberReadRoute } from "./replies.ts";
import { CREW_HEADER, CREW_HELLO_PATH, CREW_PROTOCOL_VERSION, crewMismatch } from "./protocol.ts";

/** The crew key of a member's agent on the lead: `<agent>@<member>` (agent names never hold `@`). */
export function crewKey(agent: string, member: string): string {
  return `${agent}@${member}`;
}

const HELLO_TIMEOUT_MS = 5_000;
/** Every request to a member names the crew protocol this lead speaks (the member checks it). */
const CREW_HEADERS = Object.freeze({ [CREW_HEADER]: String(CREW_PROTOCOL_VERSION) });
/** Malformed messages from a member are logged at most this often (a flood must not flood the log). */
const DROP_LOG_EVERY_MS = 10_000;
/** The window `MEMBER_LIMITS.badPerMinute` counts in. */
const BAD_WINDOW_MS = 60_000;
/** The `ws` error for a frame over `maxPayload` (it closes the connection with 1009). */
const TOO_BIG = "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH";
/** A member that answers no ping within this long is taken as gone (a half-open connection). */
const PING_EVERY_MS = 10_000;

/** What a member's crew does for it (crew.ts): its held writes and what follows a connect. */
export interface MemberEvents extends UpstreamEvents {
  /** A phone action for the member's agent (`agent`, its own name) to its own path: sent, or held (D-5). */
  write(member: CrewMember, agent: string, action: string, path: string, body: { requestId: string } & Record<string, unknown>, phone?: string): Promise<Outcome>;
  /** The member is connected again and its snapshot applied: held actions go now, open asks push. */
  connected(member: CrewMember): void;
}

/** How long the lead waits for a member's answer to a read. */
const READ_TIMEOUT_MS = 10_000;

export interface MemberOptions {
  retryDelaysMs?: readonly number[];
  /** Shapes every conversation for the lead's phones as the lead's own (secret masking, R-1; AgentMirror). */
  present?: (c: Conversation) => Conversation;
  /** Secret masking of one text: the self-name, and shown texts before they are cut. */
  mask?: Mask;
  now?: () => number;
}

export class CrewMember implements Upstream {
  readonly name: string;
  /** Its agents run on the member's machine: a push names it (U-3). */
  readonly machine: string;
  readonly source: CrewSource;
  readonly client: AgentClient;
  #state: AgentState = "starting";
  #problem: string | undefined;
  /** The member's agents and open conversations, in the member's names, bounded (kept.ts). */
  readonly #keep = new MemberKeep();
  /** The rows last published to the lead's phones, by crew key. */
  readonly #published = new Map<string, string>();
  /** Panes a lead phone shows (`<agent>\n<pane>`, member names): watched again after a reconnect. */
  readonly #watching = new Set<string>();
  readonly #events: MemberEvents;
  readonly #reconnect: Reconnect;
  /** How every frame is read: as the lead reads its own agents (cut, cleaned, masked before a cut). */
  readonly #reads: ReadOptions;
  readonly #present: (c: Conversation) => Conversation;
  readonly #mask: Mask | undefined;
  readonly #now: () => number;
  #socket: WebSocket | null = null;
  #droppedCount = 0;
  #droppedLoggedAt = -Infinity;
  #refusedCount = 0;
  #refusedLoggedAt = -Infinity;
  /** Malformed messages in the current window (`MEMBER_LIMITS.badPerMinute`), and when it began. */
  #bad = 0;
  #badSince = 0;
  /** Why the member was disconnected for what it sent, until the next try. */
  #misbehaved: string | null = null;
  #connection = 0;
  #loop: Promise<void> | null = null;

  constructor(source: CrewSource, events: MemberEvents, opts: MemberOptions = {}) {
    this.name = source.name;
    this.machine = source.name;
    this.source = source;
    this.#events = events;
    this.#reconnect = new Reconnect(opts.retryDelaysMs);
    this.#reads = agentReads(opts.mask);
    this.#present = opts.present ?? ((c) => c);
    this.#mask = opts.mask;
    this.#now = opts.now ?? Date.now;
    this.client = new AgentClient({ kind: "url", url: source.url, token: source.token, ...(source.ca ? { ca: source.ca } : {}) }, COLLIE_WIRE_VERSIONS, CREW_HEADERS);
  }

  get state(): AgentState {
    return this.#state;
  }

  key(agent: string): string {
    return crewKey(agent, this.name);
  }

  has(agent: string): boolean {
    return this.#keep.has(agent);
  }

  /** The member's own name of the agent a crew key names, or null for another member's key. */
  #own(key: string): string | null {
    const at = key.lastIndexOf("@");
    return at > 0 && key.slice(at + 1) === this.name ? key.slice(0, at) : null;
  }

  /** Every key `<agent>@<this member>`: the member decides what its agents are, even one not listed yet. */
  answers(key: string): boolean {
    return this.#own(key) !== null;
  }

  /** How much the lead keeps of this member (tests, docs/security.md's figures). */
  get kept(): { agents: number; conversations: number; bytes: number } {
    return { agents: this.#keep.agentCount, conversations: this.#keep.conversationCount, bytes: this.#keep.bytes };
  }

  /** The member's agents as the lead's phone draws them (C-1, P-2). */
  summaries(): AgentSummary[] {
    const rows = [...this.#keep.agents()].map((a) => this.#row(a));
    // A member never seen (no list yet) still gets a row when it is away or too old, so the phone
    // shows why its agents are missing.
    if (rows.length === 0 && (this.#state === "unreachable" || this.#state === "version-mismatch")) {
      rows.push(this.#row({ name: this.name, state: this.#state, reach: this.client.reach, runtime: null, selfName: null, machine: null, caps: null, wire: { agent: null, collie: 0 }, counts: { open: 0, waiting: 0 } }));
    }
    return rows;
  }

  /**
   * The member's open conversations for the lead's snapshot, in the lead's names: each agent's first
   * page (at most `limit`, the home's order), as for the lead's own agents. While it cannot be
   * reached they stay as it last sent them (like an unreachable agent's, docs/crew.md), so a phone
   * that reloads still finds the chat with its pending answer; none from a member on another crew
   * version.
   */
  firstPages(limit: number): Conversation[] {
    if (this.#state === "version-mismatch") return [];
    return [...this.#keep.agents()].flatMap((a) => this.#keep.firstPage(a.name, limit).map((c) => this.#lead(c)));
  }

  /** Further pages are read through the member, which keeps them all. */
  conversationsPage(key: string, offset: number, limit: number): Promise<Outcome> {
    return this.#read(key, "conversations", {}, `?${new URLSearchParams({ ...(offset > 0 ? { after: String(offset) } : {}), limit: String(limit) })}`);
  }

  pane(key: string, pane: string): Promise<Outcome> {
    return this.#read(key, "pane", { pane }, "");
  }

  read(key: string, route: UpstreamRead, params: Record<string, string>, query: string): Promise<Outcome> {
    return this.#read(key, route, params, query);
  }

  /**
   * A read through the member's own phone API (C-1), its reply read as the lead reads its own
   * agents' (replies.ts): only while it is connected.
   */
  async #read(key: string, route: MemberReadRoute, params: Record<string, string>, query: string): Promise<Outcome> {
    const agent = this.#own(key);
    if (agent === null) return apiError("unknown-agent", "No such durable agent.");
    if (this.#state === "version-mismatch") return apiError("agent-version-mismatch", VERSION_WORDS);
    if (this.#state !== "ready") return apiError("agent-unreachable", "The crew member cannot be reached right now.");
    try {
      const r = await this.client.get(memberRoutePath(route, agent, params, query), READ_TIMEOUT_MS);
      return memberRead(route, r.status, r.body, { member: this.name, key, reads: this.#reads, present: this.#present, mask: this.#mask });
    } catch (err) {
      if (err instanceof AgentUnreachable) return apiError("agent-unreachable", "The crew member did not answer.");
      throw err;
    }
  }

  /** An action goes to the member's own path for it, with the phone's request id, or is held (crew.ts). */
  write(key: string, route: WriteRouteName, params: Record<string, string>, body: { requestId: string } & Record<string, unknown>, phone?: string): Promise<Outcome> {
    const agent = this.#own(key);
    if (agent === null) return Promise.resolve(apiError("unknown-agent", `No durable agent named ${key}.`));
    if (this.#state === "version-mismatch") return Promise.resolve(apiError("agent-version-mismatch", VERSION_WORDS));
    return this.#events.write(this, agent, route, memberRoutePath(route, agent, params, ""), body, phone);
  }

  /** The member keeps its asks' decisions itself: an answer from the lead's phone leaves none here. */
  openAsk(): Ask | undefined {
    return undefined;
  }

  /** The member keeps its asks (and its decisions): nothing to wait for here. */
  asksKnown(): Promise<void> {
    return Promise.resolve();
  }

  /** The member sends the chat's view and its items on its live stream; they come back as deltas. */
  async watch(key: string, pane: string): Promise<PaneDetail | undefined> {
    const agent = this.#own(key);
    if (agent !== null) this.#watchPane(agent, pane);
    return undefined;
  }

  /** A kept conversation in the lead's names. */
  #lead(c: Conversation): Conversation {
    return { ...c, agent: this.key(c.agent) };
  }

  /** A lead phone shows this pane: its items flow from the member, starting with its view. */
  #watchPane(agent: string, pane: string): void {
    const k = `${agent}\n${pane}`;
    this.#watching.delete(k);
    this.#watching.add(k);
    // The member keeps at most 64 watched panes per connection; so does this list.
    if (this.#watching.size > 64) this.#watching.delete(this.#watching.values().next().value as string);
    this.#send({ type: "watch", agent, pane });
  }

  post(path: string, body: unknown, timeoutMs: number, headers?: Record<string, string>): Promise<AgentReply> {
    return this.client.post(path, body, timeoutMs, headers);
  }

  start(): void {
    this.#loop ??= this.#reconnect.run({ connect: (progress) => this.#session(progress), ended: (err) => this.#ended(err) });
  }

  async stop(): Promise<void> {
    this.#reconnect.stop();
    this.#socket?.terminate();
    this.client.close();
    await this.#loop;
  }

  /** Wakes a member that waits to retry (an action for it came in). */
  retryNow(): void {
    this.#reconnect.wake();
  }

  /** One connection: the crew hello, then the live WebSocket until it closes. */
  async #session(progress: () => void): Promise<void> {
    if (await this.#hello()) await this.#follow(progress);
  }

  /** Why the connection ended, drawn on the member's rows; how long until the next try. */
  #ended(err: unknown): "next" | "longest" {
    if (this.#reconnect.stopped) return "next";
    if (err !== null) {
      const why = err instanceof AgentUnreachable ? err.message : String(err);
      if (this.#state !== "unreachable" || this.#problem !== why) this.#events.log(`crew member ${this.name}: unreachable: ${why}`);
      this.#set("unreachable", why);
      return "next";
    }
    const misbehaved = this.#misbehaved;
    this.#misbehaved = null;
    if (misbehaved !== null) {
      // Disconnected for what it sent: drawn Unreachable with why, and tried again only after the
      // longest delay, however often it manages a good snapshot in between.
      this.#set("unreachable", misbehaved);
      return "longest";
    }
    if (this.#state === "ready") this.#set("unreachable", "the connection closed");
    return "next";
  }

  /**
   * The crew protocol check, both ways; false (and Version mismatch) when the member speaks
   * another one: its hello names another (or none: an older Collie answers 404), or it refused
   * this lead's (`409 agent-version-mismatch`, with the version it speaks).
   */
  async #hello(): Promise<boolean> {
    const r = await this.client.get(CREW_HELLO_PATH, HELLO_TIMEOUT_MS);
    if (r.status === 401) throw new AgentUnreachable("the member refused the crew credential (revoked? run collie crew join again)");
    const body = (r.body ?? {}) as { crew?: unknown; error?: unknown; speaks?: unknown };
    const refused = r.status === 409 && body.error === "agent-version-mismatch";
    const crew = refused ? (Array.isArray(body.speaks) ? body.speaks.filter(Number.isSafeInteger) as number[] : null) : body.crew;
    if (refused || r.status === 404 || (r.status === 200 && crew !== CREW_PROTOCOL_VERSION)) {
      const spoken = Array.isArray(crew) ? (crew.length > 0 ? crew.slice(0, 4) : null) : typeof crew === "number" && Number.isSafeInteger(crew) ? crew : null;
      const problem = `${crewMismatch(spoken, CREW_PROTOCOL_VERSION)}${refused ? " (the member refused this lead)" : ""}`;
      if (this.#state !== "version-mismatch") this.#events.log(`crew member ${this.name}: version mismatch: ${problem}`);
      this.#set("version-mismatch", problem);
      return false;
    }
    if (r.status !== 200) throw new AgentUnreachable(`crew hello answered ${r.status}`);
    return true;
  }

  /** Follows the member's live WebSocket until it closes. */
  #follow(onProgress: () => void): Promise<void> {
    const url = new URL(PHONE_ROUTES.live.path, this.source.url);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(url, {
      headers: { ...CREW_HEADERS, authorization: `Bearer ${this.source.token}` },
      ...(this.source.ca ? { ca: this.source.ca } : {}),
      handshakeTimeout: HELLO_TIMEOUT_MS,
      maxPayload: MEMBER_LIMITS.frameBytes,
    });
    this.#socket = socket;
    return new Promise<void>((resolve, reject) => {
      let opened = false;
      let alive = true;
      const ping = setInterval(() => {
        if (!alive) return socket.terminate();
        alive = false;
        socket.ping();
      }, PING_EVERY_MS);
      socket.on("pong", () => (alive = true));
      socket.on("open", () => (opened = true));
      this.#bad = 0;
      this.#badSince = this.#now();
      socket.on("message", (data, isBinary) => {
        alive = true;
        // Nothing a member sends may throw out of this handler: an exception here ends the lead
        // (and every phone, agent and held answer with it), again at each restart.
        try {
          const read = readMemberFrame(data, isBinary, this.#reads);
          if (!read.ok) return this.#refused(socket, read.error);
          if (read.value.type === "snapshot") onProgress();
          this.#apply(read.value);
        } catch (err) {
          this.#refused(socket, err instanceof Error ? err.message : "error");
        }
      });
      socket.on("error", (err) => {
        if ((err as { code?: string }).code === TOO_BIG) {
          // A frame over the limit: the connection goes with it. A pane whose view is that large is
          // not watched again on the next connection, or the member would send it again.
          this.#watching.clear();
          this.#events.log(`crew member ${this.name}: sent a frame over ${MEMBER_LIMITS.frameBytes} bytes; disconnected`);
          this.#misbehaved ??= `sent a frame over ${MEMBER_LIMITS.frameBytes} bytes; Collie disconnected it`;
        }
        if (!opened) reject(new AgentUnreachable(`live connection failed: ${(err as { code?: string }).code ?? err.message.replace(/https?:\/\/\S+/g, "")}`));
      });
      socket.on("close", (code) => {
        clearInterval(ping);
        this.#socket = null;

        // Closed by a revocation on the member (4401): say so, the user has to join again.
        if (code === 4401) reject(new AgentUnreachable("the member revoked this Collie (run collie crew join again)"));
        else if (opened) resolve();
        else reject(new AgentUnreachable("live connection failed"));
      });
    });
  }

  /** Applies one message the reader took, in the member's names; only what is kept goes on. */
  #apply(m: LiveMessage): void {
    const publish = (message: Unnumbered) => this.#events.live(this, message);
    switch (m.type) {
      case "snapshot": {
        const before = [...this.#keep.conversations()];
        this.#keep.clear();
        for (const row of m.snapshot.agents) if (ownRow(row)) this.#keep.setAgent(this.#shape(row));
        for (const c of m.snapshot.conversations) this.#keep.setConversation(this.#present(c));
        for (const c of before) {
          if (this.#keep.conversation(c.agent, c.id)) continue;
          publish({ type: "conversation-removed", agent: this.key(c.agent), id: c.id });
        }
        this.#noteRefused();
        this.#state = "ready";
        this.#problem = undefined;
        this.#connection++;
        this.#publishRows();
        for (const c of this.firstPages(SNAPSHOT_CONVERSATIONS_PER_AGENT)) publish({ type: "conversation", conversation: c });
        for (const k of this.#watching) {
          const [agent, pane] = k.split("\n") as [string, string];
          this.#send({ type: "watch", agent, pane });
        }
        this.#events.connected(this);
        return;
      }
      case "agent":
        if (!ownRow(m.agent)) return;
        if (this.#keep.setAgent(this.#shape(m.agent))) this.#publishRows();
        else this.#noteRefused();
        return;
      case "agent-removed":
        if (!this.#keep.has(m.name)) return;
        this.#keep.removeAgent(m.name);
        this.#publishRows();
        return;
      case "conversation": {
        const c = this.#present(m.conversation);
        if (this.#keep.setConversation(c)) publish({ type: "conversation", conversation: this.#lead(c) });
        else this.#noteRefused();
        return;
      }
      case "conversation-removed":
        if (!this.#keep.has(m.agent)) return;
        this.#keep.removeConversation(m.agent, m.id);
        publish({ type: "conversation-removed", agent: this.key(m.agent), id: m.id });
        return;
      case "item":
        if (this.#keep.has(m.agent)) publish({ type: "item", agent: this.key(m.agent), paneId: m.paneId, item: m.item });
        return;
      case "ask":
        if (!this.#keep.has(m.agent)) return;
        publish({ type: "ask", agent: this.key(m.agent), paneId: m.paneId, ask: m.ask });
        return;
      case "ask-closed":
        if (!this.#keep.has(m.agent)) return;
        publish({ type: "ask-closed", agent: this.key(m.agent), paneId: m.paneId, askId: m.askId, decidedBy: m.decidedBy, title: m.title });
        return;
      case "view":
        if (!this.#keep.has(m.agent)) return;
        publish({ type: "view", agent: this.key(m.agent), paneId: m.paneId, detail: { ...m.detail, conversation: this.#lead(this.#present(m.detail.conversation)) } });
        return;
      case "held-outcome": {
        // An answer the member held for its agent, delivered now: the lead's phone made it. Its
        // reply reaches the phone as an agent's would (L-2): a WriteOk or an error of the catalog.
        if (!this.#keep.has(m.agent)) return;
        const outcome = asOutcome(m.status, m.body);
        publish({ type: "held-outcome", agent: this.key(m.agent), requestId: m.requestId, status: outcome.status, body: outcome.body });
        return;
      }
      case "decision":
        // An answer held (or taken) on the member: the lead's phones see it at once (issue #37),
        // as the reader rebuilt it (its answer by the wire's own checker).
        if (this.#keep.has(m.agent)) publish({ type: "decision", agent: this.key(m.agent), decision: m.decision });
        return;
      case "resumed":
        // The lead never resumes a member's stream.
        return;
    }
  }

  /** A member's row as the lead keeps it: its self-name masked as the lead's own agents' (R-1). */
  #shape(row: AgentSummary): AgentSummary {
    return row.selfName !== null && this.#mask ? { ...row, selfName: this.#mask(row.selfName) } : row;
  }

  /** One log line at most every DROP_LOG_EVERY_MS for what the bounds did not keep. */
  #noteRefused(): void {
    const n = this.#keep.takeRefused();
    if (n === 0) return;
    this.#refusedCount += n;
    const now = this.#now();
    if (now - this.#refusedLoggedAt < DROP_LOG_EVERY_MS) return;
    this.#refusedLoggedAt = now;
    this.#events.log(`crew member ${this.name}: ${this.#refusedCount} row(s) or conversation(s) not kept, over the lead's bounds for one member (${MEMBER_LIMITS.agents} agents, ${MEMBER_LIMITS.conversationsPerAgent} conversations per agent, ${MEMBER_LIMITS.conversations} and ${MEMBER_LIMITS.bytes} bytes in all)`);
    this.#refusedCount = 0;
  }

  /**
   * A frame the reader refused: dropped, with a log line at most every DROP_LOG_EVERY_MS; past
   * `MEMBER_LIMITS.badPerMinute` in a minute the member is disconnected (`#misbehaved`).
   */
  #refused(socket: WebSocket, why: string): void {
    this.#dropped(why);
    const now = this.#now();
    if (now - this.#badSince >= BAD_WINDOW_MS) {
      this.#badSince = now;
      this.#bad = 0;
    }
    if (++this.#bad < MEMBER_LIMITS.badPerMinute || this.#misbehaved !== null) return;
    this.#misbehaved = `sent ${this.#bad} malformed messages in a minute; Collie disconnected it`;
    this.#events.log(`crew member ${this.name}: disconnected: ${this.#bad} malformed messages in a minute (last: ${why.slice(0, 120)})`);
    socket.terminate();
  }

  /** One log line per DROP_LOG_EVERY_MS at most, with how many were dropped since the last one. */
  #dropped(reason: string): void {
    this.#droppedCount++;
    const now = this.#now();
    if (now - this.#droppedLoggedAt < DROP_LOG_EVERY_MS) return;
    this.#droppedLoggedAt = now;
    this.#events.log(`crew member ${this.name}: dropped ${this.#droppedCount} malformed message(s) (last: ${reason.slice(0, 120)})`);
    this.#droppedCount = 0;
  }

  /**
   * The member's conversations with open asks (its agent's name, the pane), at most `max`, while
   * it is connected: where a lead that just connected looks for asks to push.
   */
  waitingPanes(max: number): { agent: string; pane: string }[] {
    if (this.#state !== "ready") return [];
    const out: { agent: string; pane: string }[] = [];
    for (const c of this.#keep.conversations()) {
      if (out.length >= max) break;
      if (c.openAsks > 0) out.push({ agent: c.agent, pane: c.id });
    }
    return out;
  }

  /** Counts the member's connections that reached `ready`: a run for one connection ends with it. */
  get connection(): number {
    return this.#connection;
  }

  /** The pane title the member last sent, for a push (U-2). */
  paneTitle(key: string, pane: string): string {
    const agent = this.#own(key);
    return agent === null ? "" : (this.#keep.conversation(agent, pane)?.title ?? "");
  }

  /** A member's agent row in the lead's terms: its crew key, the member's name, and the member's state. */
  #row(a: AgentSummary): AgentSummary {
    const row: AgentSummary = { ...a, name: this.key(a.name), machine: this.name };
    if (this.#state !== "ready") {
      row.state = this.#state;
      row.counts = { open: 0, waiting: 0 };
      if (this.#problem) row.problem = this.#problem;
      // The machine itself is away: its section says so, not each row alone (issue #37).
      if (this.#state === "unreachable") row.machineOffline = true;
    }
    return row;
  }

  /** Publishes every row that changed, and the removal of every row that went. */
  #publishRows(): void {
    const rows = this.summaries();
    const keys = new Set(rows.map((r) => r.name));
    for (const key of [...this.#published.keys()]) {
      if (keys.has(key)) continue;
      this.#published.delete(key);
      this.#events.live(this, { type: "agent-removed", name: key });
    }
    for (const row of rows) {
      const text = JSON.stringify(row);
      if (this.#published.get(row.name) === text) continue;
      this.#published.set(row.name, text);
      this.#events.live(this, { type: "agent", agent: row });
    }
  }

  /** Withdraws every row of this member from the lead's phones (it left sources.json). */
  withdraw(): void {
    for (const key of this.#published.keys()) this.#events.live(this, { type: "agent-removed", name: key });
    this.#published.clear();
  }

  #set(state: AgentState, problem: string | undefined): void {
    if (state === this.#state && problem === this.#problem) return;
    this.#state = state;
    this.#problem = problem;
    this.#publishRows();
  }

  #send(message: { type: "watch" | "unwatch"; agent: string; pane: string }): void {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(message));
  }
}

/**
 * One frame of a member's live socket as the lead reads it: text, then the live contract's reader
 * in the lead's reading mode (`reads`, `agentReads`).
 */
export function readMemberFrame(data: RawData, isBinary: boolean, reads: ReadOptions): LiveRead<LiveMessage> {
  const binary = "a binary frame";
  if (isBinary) return { ok: false, error: binary };
  const read = readLiveText(String(data), reads);
  // A lead sends its member no acts (its actions go over HTTP): a reply to one is out of place.
  const outOfPlace = "type: an act-reply, and this lead sent no act";
  if (read.ok && read.value.type === "act-reply") return { ok: false, error: outOfPlace };
  return read as LiveRead<LiveMessage>;
}

/**
 * A row a member passes on: its own agents only. A row with a machine, or a crew key, is an agent
 * of the member's own crew: crews do not chain.
 */
function ownRow(row: AgentSummary): boolean {
  return row.machine === null && !row.name.includes("@");
}

/** What a version-mismatched member's agent answers (C-1; the phone knows these words). */
const VERSION_WORDS = "This machine runs an older Collie and answers can't be taken here.";

/** The member's own phone-API path for a lead route: the agent's own name, every parameter encoded, the query kept. */
export function memberRoutePath(route: PhoneRouteName, agent: string, params: Record<string, string>, query: string): string {
  return `${phonePath(route as "pane", { ...params, agent } as { agent: string; pane: string })}${query}`;
}
