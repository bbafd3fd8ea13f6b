/**
 * One crew member as the lead sees it (C-1): the member's own phone API and live WebSocket, read
 * over its front door with the crew credential, never its agents directly (the member keeps its
 * connection state, limits and masking). On connect the crew protocol version is checked
 * (`/api/crew/hello`); then the WebSocket's snapshot and deltas are kept here and passed on to the
 * lead's phones with each agent renamed to its crew key and `machine` set. A member that cannot be
 * reached keeps its last agent list, drawn Unreachable without counts; one that speaks another
 * crew protocol is drawn Version mismatch. The loop retries on a fixed delay table (STYLE 6).
 */
import WebSocket from "ws";
import type { AgentState, AgentSummary, Conversation, LiveMessage, Snapshot } from "@colliepwa/shared";
import { PHONE_ROUTES } from "@colliepwa/shared";
import type { Ask, Caps } from "@colliepwa/durable-sdk/wire";
import { AgentClient, AgentUnreachable, type AgentReply } from "../agents/client.ts";
import type { Unnumbered } from "../agents/live.ts";
import { RETRY_DELAYS_MS } from "../agents/connection.ts";
import type { CrewSource } from "../sources/sources.ts";
import { COLLIE_WIRE_VERSIONS } from "../version.ts";
import { CREW_HELLO_PATH, CREW_PROTOCOL_VERSION } from "./protocol.ts";
import { checkDecision } from "./check-decision.ts";

/** The crew key of a member's agent on the lead: `<agent>@<member>` (agent names never hold `@`). */
export function crewKey(agent: string, member: string): string {
  return `${agent}@${member}`;
}

const AGENT_STATES: readonly AgentState[] = ["starting", "ready", "unreachable", "version-mismatch"];
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;
/** A member's conversation is passed on whole; it needs at least its agent and id to be kept. */
const isConversation = (c: unknown): c is Conversation => isRecord(c) && typeof c.agent === "string" && typeof c.id === "string";

const HELLO_TIMEOUT_MS = 5_000;
/** Malformed messages from a member are logged at most this often (a flood must not flood the log). */
const DROP_LOG_EVERY_MS = 10_000;
/** A member that answers no ping within this long is taken as gone (a half-open connection). */
const PING_EVERY_MS = 10_000;

export interface MemberEvents {
  /** A live message for the lead's phones, already in the lead's names. */
  publish(message: Unnumbered): void;
  /** An ask opened or closed on the member (the lead pushes it, U-3). */
  ask(member: CrewMember, agent: string, paneId: string, ask: Ask): void;
  askClosed(member: CrewMember, agent: string, paneId: string, askId: string): void;
  /** The member is connected again and its snapshot applied: held actions go now. */
  connected(member: CrewMember): void;
  log(line: string): void;
}

export class CrewMember {
  readonly name: string;
  readonly source: CrewSource;
  readonly client: AgentClient;
  #state: AgentState = "starting";
  #problem: string | undefined;
  /** The member's agents and open conversations, in the member's names. */
  readonly #agents = new Map<string, AgentSummary>();
  readonly #conversations = new Map<string, Conversation>();
  /** The rows last published to the lead's phones, by crew key. */
  readonly #published = new Map<string, string>();
  /** Panes a lead phone shows (`<agent>\n<pane>`, member names): watched again after a reconnect. */
  readonly #watching = new Set<string>();
  readonly #events: MemberEvents;
  readonly #delays: readonly number[];
  #socket: WebSocket | null = null;
  #droppedCount = 0;
  #droppedLoggedAt = -Infinity;
  #stopped = false;
  #sleeping: (() => void) | null = null;
  #loop: Promise<void> | null = null;

  constructor(source: CrewSource, events: MemberEvents, retryDelaysMs: readonly number[] = RETRY_DELAYS_MS) {
    this.name = source.name;
    this.source = source;
    this.#events = events;
    this.#delays = retryDelaysMs;
    this.client = new AgentClient({ kind: "url", url: source.url, token: source.token, ...(source.ca ? { ca: source.ca } : {}) }, COLLIE_WIRE_VERSIONS);
  }

  get state(): AgentState {
    return this.#state;
  }

  key(agent: string): string {
    return crewKey(agent, this.name);
  }

  has(agent: string): boolean {
    return this.#agents.has(agent);
  }

  /** The member's agents as the lead's phone draws them (C-1, P-2). */
  summaries(): AgentSummary[] {
    const rows = [...this.#agents.values()].map((a) => this.#row(a));
    // A member never seen (no list yet) still gets a row when it is away or too old, so the phone
    // shows why its agents are missing.
    if (rows.length === 0 && (this.#state === "unreachable" || this.#state === "version-mismatch")) {
      rows.push(this.#row({ name: this.name, state: this.#state, reach: this.client.reach, runtime: null, selfName: null, machine: null, caps: null, wire: { agent: null, collie: 0 }, counts: { open: 0, waiting: 0 } }));
    }
    return rows;
  }

  /**
   * The member's open conversations, in the lead's names. While it cannot be reached they stay as
   * it last sent them (like an unreachable agent's, docs/crew.md), so a phone that reloads still
   * finds the chat with its pending answer; none from a member on another crew version.
   */
  conversations(): Conversation[] {
    if (this.#state === "version-mismatch") return [];
    return [...this.#conversations.values()].map((c) => ({ ...c, agent: this.key(c.agent) }));
  }

  /** A lead phone shows this pane: its items flow from the member, starting with its view. */
  watch(agent: string, pane: string): void {
    const k = `${agent}\n${pane}`;
    this.#watching.delete(k);
    this.#watching.add(k);
    // The member keeps at most 64 watched panes per connection; so does this list.
    if (this.#watching.size > 64) this.#watching.delete(this.#watching.values().next().value as string);
    this.#send({ type: "watch", agent, pane });
  }

  get(path: string, timeoutMs: number): Promise<AgentReply> {
    return this.client.get(path, timeoutMs);
  }

  post(path: string, body: unknown, timeoutMs: number, headers?: Record<string, string>): Promise<AgentReply> {
    return this.client.post(path, body, timeoutMs, headers);
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#sleeping?.();
    this.#socket?.terminate();
    this.client.close();
    await this.#loop;
  }

  /** Wakes a member that waits to retry (an action for it came in). */
  retryNow(): void {
    this.#sleeping?.();
  }

  async #run(): Promise<void> {
    let attempt = 0;
    while (!this.#stopped) {
      try {
        if (await this.#hello()) {
          await this.#follow(() => (attempt = 0));
        }
      } catch (err) {
        if (this.#stopped) break;
        const why = err instanceof AgentUnreachable ? err.message : String(err);
        if (this.#state !== "unreachable" || this.#problem !== why) this.#events.log(`crew member ${this.name}: unreachable: ${why}`);
        this.#set("unreachable", why);
      }
      if (this.#stopped) break;
      if (this.#state === "ready") this.#set("unreachable", "the connection closed");
      await this.#sleep(this.#delays[Math.min(attempt++, this.#delays.length - 1)]!);
    }
  }

  /** The crew protocol check; false (and Version mismatch) when the member speaks another one. */
  async #hello(): Promise<boolean> {
    const r = await this.client.get(CREW_HELLO_PATH, HELLO_TIMEOUT_MS);
    if (r.status === 401) throw new AgentUnreachable("the member refused the crew credential (revoked? run collie crew join again)");
    // An older Collie has no crew hello at all (404): it cannot take answers from a lead.
    const crew = (r.body as { crew?: unknown } | null)?.crew;
    if (r.status === 404 || (r.status === 200 && crew !== CREW_PROTOCOL_VERSION)) {
      const problem = `the member speaks crew protocol ${typeof crew === "number" ? crew : "none"}, this Collie speaks ${CREW_PROTOCOL_VERSION}`;
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
      headers: { authorization: `Bearer ${this.source.token}` },
      ...(this.source.ca ? { ca: this.source.ca } : {}),
      handshakeTimeout: HELLO_TIMEOUT_MS,
      maxPayload: 64 * 1024 * 1024,
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
      socket.on("message", (data, isBinary) => {
        alive = true;
        // Nothing a member sends may throw out of this handler: an exception here ends the lead
        // (and every phone, agent and held answer with it), again at each restart.
        try {
          if (isBinary) throw new TypeError("a binary frame");
          const m: unknown = JSON.parse(String(data));
          if (!isRecord(m) || typeof m.type !== "string") throw new TypeError("not a live message");
          if (m.type === "snapshot") onProgress();
          this.#apply(m as unknown as LiveMessage);
        } catch (err) {
          this.#dropped(err);
        }
      });
      socket.on("error", (err) => {
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

  #apply(m: LiveMessage): void {
    const publish = this.#events.publish;
    switch (m.type) {
      case "snapshot": {
        const snap = m.snapshot as Partial<Snapshot> | null;
        // A snapshot without its lists is malformed, not "no agents": applying it would withdraw them all.
        if (!isRecord(snap) || !Array.isArray(snap.agents) || !Array.isArray(snap.conversations)) throw new TypeError("a snapshot without its agents and conversations");
        const agents = snap.agents.map((a) => this.#checkRow(a)).filter((a) => a !== null);
        const names = new Set(agents.map((a) => a.name));
        this.#agents.clear();
        for (const a of agents) this.#agents.set(a.name, a);
        const seen = new Set<string>();
        for (const c of snap.conversations) {
          if (!isConversation(c) || !names.has(c.agent)) continue;
          const k = `${c.agent}\n${c.id}`;
          seen.add(k);
          this.#conversations.set(k, c);
        }
        for (const [k, c] of [...this.#conversations]) {
          if (seen.has(k)) continue;
          this.#conversations.delete(k);
          publish({ type: "conversation-removed", agent: this.key(c.agent), id: c.id });
        }
        this.#state = "ready";
        this.#problem = undefined;
        this.#publishRows();
        for (const c of this.conversations()) publish({ type: "conversation", conversation: c });
        for (const k of this.#watching) {
          const [agent, pane] = k.split("\n") as [string, string];
          this.#send({ type: "watch", agent, pane });
        }
        this.#events.connected(this);
        return;
      }
      case "agent": {
        const row = this.#checkRow(m.agent);
        if (!row) return;
        this.#agents.set(row.name, row);
        this.#publishRows();
        return;
      }
      case "agent-removed":
        this.#agents.delete(m.name);
        for (const [k, c] of [...this.#conversations]) if (c.agent === m.name) this.#conversations.delete(k);
        this.#publishRows();
        return;
      case "conversation":
        if (!isConversation(m.conversation) || !this.#agents.has(m.conversation.agent)) return;
        this.#conversations.set(`${m.conversation.agent}\n${m.conversation.id}`, m.conversation);
        publish({ type: "conversation", conversation: { ...m.conversation, agent: this.key(m.conversation.agent) } });
        return;
      case "conversation-removed":
        if (!this.#agents.has(m.agent)) return;
        this.#conversations.delete(`${m.agent}\n${m.id}`);
        publish({ type: "conversation-removed", agent: this.key(m.agent), id: m.id });
        return;
      case "item":
        if (this.#agents.has(m.agent)) publish({ type: "item", agent: this.key(m.agent), paneId: m.paneId, item: m.item });
        return;
      case "ask":
        if (!this.#agents.has(m.agent)) return;
        publish({ type: "ask", agent: this.key(m.agent), paneId: m.paneId, ask: m.ask });
        this.#events.ask(this, m.agent, m.paneId, m.ask);
        return;
      case "ask-closed":
        if (!this.#agents.has(m.agent)) return;
        publish({ type: "ask-closed", agent: this.key(m.agent), paneId: m.paneId, askId: m.askId, decidedBy: m.decidedBy, title: m.title });
        this.#events.askClosed(this, m.agent, m.paneId, m.askId);
        return;
      case "view":
        if (!this.#agents.has(m.agent)) return;
        publish({ type: "view", agent: this.key(m.agent), paneId: m.paneId, detail: { ...m.detail, conversation: { ...m.detail.conversation, agent: this.key(m.agent) } } });
        return;
      case "held-outcome":
        // An answer the member held for its agent, delivered now: the lead's phone made it.
        publish({ type: "held-outcome", agent: this.key(m.agent), requestId: m.requestId, status: m.status, body: m.body });
        return;
      case "decision": {
        // An answer held (or taken) on the member: the lead's phones see it at once (issue #37).
        const decision = checkDecision(m.decision);
        if (decision && this.#agents.has(m.agent)) publish({ type: "decision", agent: this.key(m.agent), decision });
        return;
      }
      case "resumed":
        return;
    }
  }

  /** One log line per DROP_LOG_EVERY_MS at most, with how many were dropped since the last one. */
  #dropped(err: unknown): void {
    this.#droppedCount++;
    const now = Date.now();
    if (now - this.#droppedLoggedAt < DROP_LOG_EVERY_MS) return;
    this.#droppedLoggedAt = now;
    const why = err instanceof Error ? err.message.slice(0, 120) : "error";
    this.#events.log(`crew member ${this.name}: dropped ${this.#droppedCount} malformed message(s) (last: ${why})`);
    this.#droppedCount = 0;
  }

  /** The pane title the member last sent, for a push (U-2). */
  paneTitle(agent: string, pane: string): string {
    return this.#conversations.get(`${agent}\n${pane}`)?.title ?? "";
  }

  /**
   * A row from the member's WebSocket, rebuilt field by field: the member's JSON is not checked
   * anywhere else, and the lead's own replies (`/api/snapshot`, `/api/agents`) are serialized
   * with the agent row's schema, so one odd row (a field missing, a count that is text) would
   * make the lead's snapshot fail. A row without a name is dropped; any other field that is not
   * what it should be gets its "unknown" value. A row with a machine is dropped too: a member
   * that is itself a lead passes on only its own agents (crews do not chain).
   */
  #checkRow(a: unknown): AgentSummary | null {
    if (!isRecord(a) || typeof a.name !== "string" || a.name === "" || a.machine !== null) return null;
    const wire = isRecord(a.wire) ? a.wire : {};
    const counts = isRecord(a.counts) ? a.counts : {};
    const row: AgentSummary = {
      name: a.name,
      state: AGENT_STATES.includes(a.state as AgentState) ? (a.state as AgentState) : "unreachable",
      reach: a.reach === "local" || a.reach === "remote" ? a.reach : this.client.reach,
      runtime: typeof a.runtime === "string" ? a.runtime : null,
      selfName: typeof a.selfName === "string" ? a.selfName : null,
      machine: null,
      caps: isRecord(a.caps) ? (a.caps as unknown as Caps) : null,
      wire: { agent: isCount(wire.agent) ? wire.agent : null, collie: isCount(wire.collie) ? wire.collie : 0 },
      counts: { open: isCount(counts.open) ? counts.open : 0, waiting: isCount(counts.waiting) ? counts.waiting : 0 },
    };
    if (isCount(a.notShown)) row.notShown = a.notShown;
    if (typeof a.problem === "string") row.problem = a.problem;
    return row;
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
      this.#events.publish({ type: "agent-removed", name: key });
    }
    for (const row of rows) {
      const text = JSON.stringify(row);
      if (this.#published.get(row.name) === text) continue;
      this.#published.set(row.name, text);
      this.#events.publish({ type: "agent", agent: row });
    }
  }

  /** Withdraws every row of this member from the lead's phones (it left sources.json). */
  withdraw(): void {
    for (const key of this.#published.keys()) this.#events.publish({ type: "agent-removed", name: key });
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

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#sleeping = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#sleeping = done;
    });
  }
}
