/**
 * The lead's crew (C-1): one CrewMember per `crew` entry of sources.json, reconciled like the
 * durable agents (an edit applies live). It answers for every agent key `<agent>@<member>`: its
 * rows and conversations for the snapshot, its reads (pane, history, starters) and its actions,
 * forwarded to the member's own phone API with the phone's request id unchanged (a retry anywhere
 * on the path is a replay at the agent, never a second run). An action for a member that cannot
 * be reached is held here and delivered once when the member is back (D-5's rules).
 */
import { phonePath, type AgentSummary, type Conversation, type PaneDetail } from "@colliepwa/shared";
import type { Ask } from "@colliepwa/durable-sdk/wire";
import { AgentUnreachable } from "../agents/client.ts";
import type { Unnumbered } from "../agents/live.ts";
import { ACTION_TIMEOUT_MS, agentReads, type Outcome } from "../agents/gateway.ts";
import type { CrewSource } from "../sources/sources.ts";
import type { HeldCrewActions } from "./held.ts";
import { CrewMember, type MemberOptions } from "./member.ts";
import { memberRead, memberWrite, type MemberReadRoute } from "./replies.ts";
import { apiError } from "../errors.ts";

const READ_TIMEOUT_MS = 10_000;
/**
 * Chats a lead reads, one at a time, for the asks already open on a member when it connects (U-3):
 * enough for every push the limits would let through, never a read per conversation of a flood.
 */
const OPEN_ASK_READS = 100;

export interface CrewEvents {
  publish(message: Unnumbered): void;
  /** A member's ask opened or closed, in the lead's names (`agent` is the crew key). */
  ask(agent: string, machine: string, paneId: string, paneTitle: string, ask: Ask): void;
  askClosed(agent: string, machine: string, paneId: string, askId: string): void;
  /** A held action was delivered (or refused) at the member: the audit line of its delivery. */
  delivered(agent: string, action: string, requestId: string, outcome: Outcome): void;
  log(line: string): void;
}


export class Crew {
  readonly #members = new Map<string, CrewMember>();
  readonly #events: CrewEvents;
  readonly #held: HeldCrewActions;
  readonly #now: () => number;
  readonly #retryDelaysMs: readonly number[] | undefined;
  readonly #memberOpts: MemberOptions;
  readonly #delivering = new Set<string>();
  readonly #timers = new Set<NodeJS.Timeout>();
  /** Set by stopAll: nothing touches the state database after the daemon closed it. */
  #stopped = false;

  /** `present` and `mask` shape what members pass on as the lead's own agents' (R-1). */
  constructor(events: CrewEvents, held: HeldCrewActions, opts: MemberOptions = {}) {
    this.#events = events;
    this.#held = held;
    this.#now = opts.now ?? Date.now;
    this.#retryDelaysMs = opts.retryDelaysMs;
    this.#memberOpts = opts;
  }

  /** Makes the members match sources.json: new ones connect, gone ones go, changed ones reconnect. */
  async reconcile(wanted: CrewSource[]): Promise<void> {
    const byName = new Map(wanted.map((s) => [s.name, s]));
    const stopping: Promise<void>[] = [];
    for (const [name, member] of this.#members) {
      const want = byName.get(name);
      if (want && want.key === member.source.key) continue;
      this.#members.delete(name);
      member.withdraw();
      stopping.push(member.stop());
    }
    await Promise.all(stopping);
    for (const source of wanted) {
      if (this.#members.has(source.name)) continue;
      const member = new CrewMember(source, {
        publish: (m) => this.#events.publish(m),
        ask: (mb, agent, paneId, ask) => this.#events.ask(mb.key(agent), mb.name, paneId, mb.paneTitle(agent, paneId), ask),
        askClosed: (mb, agent, paneId, askId) => this.#events.askClosed(mb.key(agent), mb.name, paneId, askId),
        connected: (mb) => {
          this.#deliverHeld(mb);
          this.#pushOpenAsks(mb);
        },
        log: (line) => this.#events.log(line),
      }, this.#memberOpts);
      this.#members.set(source.name, member);
      member.start();
    }
  }

  /** The member and its agent's own name for a crew key, or null for a key of this machine. */
  owner(key: string): { member: CrewMember; agent: string } | null {
    const at = key.lastIndexOf("@");
    if (at <= 0) return null;
    const member = this.#members.get(key.slice(at + 1));
    return member ? { member, agent: key.slice(0, at) } : null;
  }

  member(name: string): CrewMember | undefined {
    return this.#members.get(name);
  }

  members(): CrewMember[] {
    return [...this.#members.values()];
  }

  summaries(): AgentSummary[] {
    return [...this.#members.values()].flatMap((m) => m.summaries());
  }

  conversations(): Conversation[] {
    return [...this.#members.values()].flatMap((m) => m.conversations());
  }

  /**
   * Reads through to the member (a page of conversations, a pane, history, starters): `path` is
   * the member's own API path; its reply is read as the lead reads its own agents (replies.ts).
   */
  async read(key: string, route: MemberReadRoute, path: string): Promise<Outcome> {
    const own = this.owner(key);
    if (!own) return apiError("unknown-agent", "No such durable agent.");
    const refused = this.#refusal(own.member);
    if (refused) return refused;
    try {
      const r = await own.member.get(path, READ_TIMEOUT_MS);
      const opts = this.#memberOpts;
      return memberRead(route, r.status, r.body, {
        member: own.member.name, key, reads: agentReads(opts.mask), present: opts.present ?? ((c) => c), mask: opts.mask,
      });
    } catch (err) {
      if (err instanceof AgentUnreachable) return apiError("agent-unreachable", "The crew member did not answer.");
      throw err;
    }
  }

  /**
   * Forwards one phone action to the member with the phone's body (request id included) as it
   * came. A member that cannot be reached, or does not answer in time, gets it held: the same
   * request id makes a second delivery a replay at the agent if the first did arrive.
   */
  async action(key: string, action: string, path: string, body: { requestId: string } & Record<string, unknown>): Promise<Outcome> {
    const own = this.owner(key);
    if (!own) return apiError("unknown-agent", `No durable agent named ${key}.`);
    const { member, agent } = own;
    if (member.state === "version-mismatch") {
      return apiError("agent-version-mismatch", "This machine runs an older Collie and answers can't be taken here.");
    }
    const hold = (): Outcome => {
      this.#held.hold({ machine: member.name, requestId: body.requestId, agent, action, path, body, heldAt: this.#now() });
      member.retryNow();
      return { status: 202, body: { held: true } };
    };
    // An action held earlier with this request id (a phone retry) stays one hold, delivered once.
    if (this.#held.forMachine(member.name).some((h) => h.requestId === body.requestId)) return { status: 202, body: { held: true } };
    if (member.state !== "ready") return hold();
    try {
      const r = await member.post(path, body, ACTION_TIMEOUT_MS);
      return memberWrite(member.name, r.status, r.body);
    } catch (err) {
      if (!(err instanceof AgentUnreachable)) throw err;
      // The live connection may still look fine (a stall, a lost reply): try again shortly rather
      // than wait for the next reconnect.
      const retry = setTimeout(() => {
        this.#timers.delete(retry);
        this.#deliverHeld(member);
      }, this.#retryDelaysMs?.[0] ?? 1000);
      retry.unref();
      this.#timers.add(retry);
      return hold();
    }
  }

  /** Delivers the member's held actions, oldest first, once each (after its snapshot is in). */
  #deliverHeld(member: CrewMember): void {
    if (this.#stopped) return;
    void (async () => {
      for (const h of this.#held.forMachine(member.name)) {
        if (this.#stopped) return;
        const id = `${member.name}\n${h.requestId}`;
        if (this.#delivering.has(id)) continue;
        this.#delivering.add(id);
        try {
          const r = await member.post(h.path, h.body, ACTION_TIMEOUT_MS);
          // Closing: the member may have taken it; the same request id makes the next delivery a replay.
          if (this.#stopped) return;
          this.#held.release(member.name, h.requestId);
          const outcome = memberWrite(member.name, r.status, r.body);
          this.#events.delivered(member.key(h.agent), h.action, h.requestId, outcome);
          // A member that held the answer for its own agent says how it ended in its own
          // held-outcome, which reaches the phone through its live stream.
          if (outcome.status !== 202) this.#events.publish({ type: "held-outcome", agent: member.key(h.agent), requestId: h.requestId, status: outcome.status, body: outcome.body });
        } catch {
          return; // unreachable again: keep holding; the next connect retries
        } finally {
          this.#delivering.delete(id);
        }
      }
    })();
  }

  /**
   * The asks already open on a member when the lead connects push like new ones (U-3, C-1): its
   * snapshot carries conversations, not asks, so the lead reads the chats waiting on the phone (at
   * most OPEN_ASK_READS, one at a time) and hands each open ask to push, whose dedupe makes it once
   * per tool call however often the lead connects, and whose limits bound how many push. Ends with
   * the connection it began on.
   */
  #pushOpenAsks(member: CrewMember): void {
    const connection = member.connection;
    const panes = member.waitingPanes(OPEN_ASK_READS);
    if (panes.length === 0) return;
    void (async () => {
      for (const { agent, pane } of panes) {
        if (this.#stopped || member.connection !== connection || member.state !== "ready") return;
        const key = member.key(agent);
        const r = await this.read(key, "pane", phonePath("pane", { agent, pane }));
        if (r.status !== 200 || this.#stopped || member.connection !== connection) continue;
        const detail = r.body as unknown as PaneDetail;
        for (const ask of detail.asks) this.#events.ask(key, member.name, pane, detail.conversation.title, ask);
      }
    })().catch((err: unknown) => this.#events.log(`crew member ${member.name}: reading its open asks: ${(err as Error).message}`));
  }

  /** Why a member takes no request now, or null when it does. */
  #refusal(member: CrewMember): Outcome | null {
    if (member.state === "version-mismatch") return apiError("agent-version-mismatch", "This machine runs an older Collie and answers can't be taken here.");
    if (member.state !== "ready") return apiError("agent-unreachable", "The crew member cannot be reached right now.");
    return null;
  }

  async stopAll(): Promise<void> {
    this.#stopped = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    const all = [...this.#members.values()];
    this.#members.clear();
    await Promise.all(all.map((m) => m.stop()));
  }
}

/**
 * The member's phone-API path for a lead route: the route's pattern with its parameters filled in,
 * the crew key replaced by the agent's name on the member, and the query string kept.
 */
export function memberPath(pattern: string, params: Record<string, string>, agent: string, rawUrl: string): string {
  const path = pattern.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(name === "agent" ? agent : params[name] ?? ""));
  const q = rawUrl.indexOf("?");
  return q >= 0 ? `${path}${rawUrl.slice(q)}` : path;
}
