/**
 * The lead's crew (C-1): one CrewMember per `crew` entry of sources.json, reconciled like the
 * durable agents (an edit applies live); each is the Upstream of the agent keys `<agent>@<member>`
 * (`UpstreamSource`). Every action for a member's agent is forwarded here to the member's own phone
 * API with the phone's request id unchanged (a retry anywhere on the path is a replay at the agent,
 * never a second run); an action for a member that cannot be reached is held here and delivered
 * once when the member is back (D-5's rules). After each connect, the asks already open on the
 * member push (U-3).
 */
import type { PaneDetail } from "@colliepwa/shared";
import { AgentUnreachable } from "../agents/client.ts";
import { ACTION_TIMEOUT_MS, type Outcome } from "../agents/gateway.ts";
import type { UpstreamEvents, UpstreamSource } from "../agents/upstream.ts";
import type { CrewSource } from "../sources/sources.ts";
import { conversationOf, holdWrite, type HeldWrite, type HeldWrites } from "../store/held.ts";
import { HeldDrain } from "../agents/held-drain.ts";
import { CrewMember, type MemberOptions } from "./member.ts";
import { memberWrite } from "./replies.ts";
import { phoneNameHeader } from "./phone-name.ts";

/**
 * Chats a lead reads, one at a time, for the asks already open on a member when it connects (U-3):
 * enough for every push the limits would let through, never a read per conversation of a flood.
 */
const OPEN_ASK_READS = 100;

export class Crew implements UpstreamSource {
  readonly #members = new Map<string, CrewMember>();
  readonly #events: UpstreamEvents;
  readonly #held: HeldWrites;
  /** Delivers the actions held for members, by crew key, oldest first (agents/held-drain.ts). */
  readonly #drain: HeldDrain;
  readonly #now: () => number;
  readonly #retryDelaysMs: readonly number[] | undefined;
  readonly #memberOpts: MemberOptions;
  readonly #timers = new Set<NodeJS.Timeout>();
  /** Set by stopAll: nothing touches the state database after the daemon closed it. */
  #stopped = false;

  /**
   * `held` is Collie's one store of held writes (store/held.ts): a member's actions count against
   * the same bounds as the lead's own agents'. `present` and `mask` shape what members pass on as
   * the lead's own agents'.
   */
  constructor(events: UpstreamEvents, held: HeldWrites, opts: MemberOptions = {}) {
    this.#events = events;
    this.#held = held;
    this.#now = opts.now ?? Date.now;
    this.#retryDelaysMs = opts.retryDelaysMs;
    this.#memberOpts = opts;
    this.#drain = new HeldDrain(held, {
      ready: (key) => this.find(key)?.state === "ready",
      deliver: (write) => this.#deliver(write),
      // A member that held it again for its own agent (202) says how it ended in its own
      // held-outcome, which reaches the phone through its live stream (fanout.ts).
      delivered: (write, outcome) => {
        const member = this.find(write.target);
        if (member) this.#events.delivered(member, write.target, write.requestId, outcome, { action: write.action, ...(write.conversation ? { pane: write.conversation } : {}) });
      },
      log: (line) => this.#events.log(line),
    });
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
      const events = this.#events;
      const member = new CrewMember(source, {
        live: (up, m) => events.live(up, m),
        closedAsks: (up, agent, paneId, askIds) => events.closedAsks(up, agent, paneId, askIds),
        openAsk: (up, agent, paneId, ask, title) => events.openAsk(up, agent, paneId, ask, title),
        delivered: (up, agent, requestId, outcome, held) => events.delivered(up, agent, requestId, outcome, held),
        log: (line) => events.log(line),
        write: (mb, agent, action, path, body, phone) => this.#action(mb, agent, action, path, body, phone),
        connected: (mb) => {
          this.#deliverHeld(mb);
          this.#pushOpenAsks(mb);
        },
      }, this.#memberOpts);
      this.#members.set(source.name, member);
      member.start();
    }
  }

  /** The member that answers for a crew key `<agent>@<member>`; none for a key of this machine. */
  find(key: string): CrewMember | undefined {
    const at = key.lastIndexOf("@");
    const member = at > 0 ? this.#members.get(key.slice(at + 1)) : undefined;
    return member?.answers(key) ? member : undefined;
  }

  all(): IterableIterator<CrewMember> {
    return this.#members.values();
  }

  member(name: string): CrewMember | undefined {
    return this.#members.get(name);
  }

  members(): CrewMember[] {
    return [...this.#members.values()];
  }

  /**
   * Forwards one phone action to the member with the phone's body (request id included) as it
   * came. A member that cannot be reached, or does not answer in time, gets it held: the same
   * request id makes a second delivery a replay at the agent if the first did arrive.
   */
  async #action(member: CrewMember, agent: string, action: string, path: string, body: { requestId: string } & Record<string, unknown>, phone?: string): Promise<Outcome> {
    const key = member.key(agent);
    const conversation = conversationOf(path, body);
    const hold = (): Outcome => {
      const outcome = holdWrite(this.#held, { target: key, requestId: body.requestId, action, conversation, path, body, ask: null, heldAt: this.#now(), ...(phone ? { phone } : {}) }, (line) => this.#events.log(line));
      if (outcome.status === 202) {
        member.retryNow();
        this.#drain.kick(key);
      }
      return outcome;
    };
    // An action held earlier with this request id (a phone retry) stays one hold, delivered once.
    if (this.#held.get(key, body.requestId)) return { status: 202, body: { held: true } };
    // While the conversation has actions held, a new one joins the back of its queue (issue 35).
    if (member.state !== "ready" || this.#held.queued(key, conversation) > 0) return hold();
    try {
      // The phone's name goes along, so what the member records names the phone (issue #37).
      const r = await member.post(path, body, ACTION_TIMEOUT_MS, phoneNameHeader(phone));
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

  /** Delivers the member's held actions, each agent's oldest first, once each (after its snapshot is in). */
  #deliverHeld(member: CrewMember): void {
    if (this.#stopped) return;
    for (const key of this.#held.targets()) {
      if (this.find(key) === member) this.#drain.kick(key);
    }
  }

  /** Hands one held action to its member (a member that cannot be reached throws: it stays held). */
  async #deliver(write: HeldWrite): Promise<Outcome> {
    const member = this.find(write.target);
    if (!member || member.state !== "ready") throw new AgentUnreachable("the crew member is not connected");
    // The phone's name goes along as it would have at once (issue #37).
    const r = await member.post(write.path, write.body, ACTION_TIMEOUT_MS, phoneNameHeader(write.phone));
    return memberWrite(member.name, r.status, r.body);
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
        const r = await member.pane(key, pane);
        if (r.status !== 200 || this.#stopped || member.connection !== connection) continue;
        const detail = r.body as unknown as PaneDetail;
        for (const ask of detail.asks) this.#events.openAsk(member, key, pane, ask, detail.conversation.title);
      }
    })().catch((err: unknown) => this.#events.log(`crew member ${member.name}: reading its open asks: ${(err as Error).message}`));
  }

  async stopAll(): Promise<void> {
    this.#stopped = true;
    this.#drain.stop();
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    const all = [...this.#members.values()];
    this.#members.clear();
    await Promise.all(all.map((m) => m.stop()));
  }
}
