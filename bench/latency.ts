/**
 * Ask → phone and tap → agent (N-1).
 *
 * The agent process raises an ask and notes the monotonic time t0 in it. The phone (a WebSocket
 * client of the daemon) notes t1 when the `ask` message has arrived and been parsed: ask → phone =
 * t1 − t0. The phone then taps the answer a few ms later (t2, just before its POST); the agent notes t3
 * when `ask()` resolves: tap → agent = t3 − t2. Both clocks are the machine's CLOCK_MONOTONIC.
 */
import type { Child } from "./lib.ts";
import { nowMs } from "./lib.ts";
import type { Phone } from "./phone.ts";

export interface AskSamples {
  askToPhone: number[];
  tapToAgent: number[];
  /** The same, split per hop (ms each, per ask). */
  hops: Record<string, number[]>;
  failures: number;
  /**
   * Share of the asks raised while Collie's events long-poll was parked at the agent: the others
   * waited for Collie to ask again after its previous page (warm-up included).
   */
  parkedShare: number;
}

export type HopName =
  | "ask: agent → daemon publishes"
  | "  of it: agent raises → page written"
  | "  of it: page written → daemon has it parsed"
  | "ask: daemon publishes → phone"
  | "tap: phone → daemon receives"
  | "tap: daemon → agent receives"
  | "  of it: daemon receives → asks the agent"
  | "tap: agent receives → ask() resolves";

export const HOP_NAMES: HopName[] = [
  "ask: agent → daemon publishes",
  "  of it: agent raises → page written",
  "  of it: page written → daemon has it parsed",
  "ask: daemon publishes → phone",
  "tap: phone → daemon receives",
  "tap: daemon → agent receives",
  "  of it: daemon receives → asks the agent",
  "tap: agent receives → ask() resolves",
];

/** The extra split when the asks reach the phone through a crew lead (`relay` is the member's daemon). */
export const CREW_HOP_NAMES = [
  "  of it: member publishes → lead publishes",
  "  of it: lead → member receives",
] as const;

/** How long the phone "reads" a card before tapping, ms (uniform in this range). */
const TAP_DELAY_MS = [3, 8] as const;

/**
 * Times `count` asks (after `warmup` untimed ones). `daemon` is the Collie the phone is connected
 * to; `relay`, when given, is the crew member's Collie between the agent and that lead (C-1).
 */
export async function runAsks(opts: { phone: Phone; agent: Child; daemon: Child; relay?: Child; agentName: string; count: number; warmup: number; gapMs: number }): Promise<AskSamples> {
  const { phone, agent, agentName } = opts;
  const card = new Map<string, number>();
  const raised = new Map<string, number>();
  const askIds = new Map<string, string>();
  const tapped = new Map<string, number>();
  const resolved = new Map<string, number>();
  const arrived = new Map<string, number>();
  const written = new Map<string, number>();
  let failures = 0;
  const offPhone = phone.on((m, at) => {
    if (m.type !== "ask" || m.agent !== agentName) return;
    const t0 = Number(/t0=([\d.]+)/.exec(m.ask.reason ?? "")?.[1]);
    card.set(m.ask.toolCallId, at - t0);
    raised.set(m.ask.toolCallId, t0);
    askIds.set(m.ask.toolCallId, m.ask.id);
    // A person reads the card before tapping: the tap comes a few ms later (a real one comes
    // seconds later), not while Collie is still finishing the page that carried the card.
    const ask = m.ask;
    setTimeout(() => {
      tapped.set(ask.toolCallId, nowMs());
      phone.answer(agentName, m.paneId, ask.id, ask.revision, { kind: "permission", optionId: "allow" }).then(
        (r) => {
          if (r.status !== 200) failures++;
        },
        () => failures++,
      );
    }, TAP_DELAY_MS[0] + Math.random() * (TAP_DELAY_MS[1] - TAP_DELAY_MS[0]));
  });
  const offAgent = agent.on((m) => {
    if (m.type !== "resolved") return;
    resolved.set(m.toolCallId as string, m.t3 as number);
    if (typeof m.arrived === "number") arrived.set(m.toolCallId as string, m.arrived);
    if (typeof m.written === "number") written.set(m.toolCallId as string, m.written);
  });
  try {
    await agent.call("run", { count: opts.warmup + opts.count, gapMs: opts.gapMs }, 600_000);
  } finally {
    offPhone();
    offAgent();
  }
  const marks = await opts.daemon.call<Record<string, number>>("marks");
  const relayMarks = opts.relay ? await opts.relay.call<Record<string, number>>("marks") : null;
  const parked = await agent.call<{ parked: number; unparked: number }>("parked");
  const askToPhone: number[] = [];
  const tapToAgent: number[] = [];
  // Each crew split goes under the hop it splits.
  const names: string[] = relayMarks
    ? HOP_NAMES.flatMap((h) => (h === "  of it: agent raises → page written" ? [h, CREW_HOP_NAMES[0]] : h === "tap: daemon → agent receives" ? [h, CREW_HOP_NAMES[1]] : [h]))
    : [...HOP_NAMES];
  const hops: Record<string, number[]> = Object.fromEntries(names.map((h) => [h, [] as number[]]));
  let i = 0;
  for (const [id, ms] of card) {
    if (i++ < opts.warmup) continue;
    askToPhone.push(ms);
    const t0 = raised.get(id)!;
    const t2 = tapped.get(id);
    const t3 = resolved.get(id);
    if (t2 !== undefined && t3 !== undefined) tapToAgent.push(t3 - t2);
    const published = marks[`publish:${id}`];
    if (published !== undefined) {
      hops["ask: agent → daemon publishes"]!.push(published - t0);
      hops["ask: daemon publishes → phone"]!.push(t0 + ms - published);
    }
    const memberPublished = relayMarks?.[`publish:${id}`];
    if (memberPublished !== undefined && published !== undefined) hops["  of it: member publishes → lead publishes"]!.push(published - memberPublished);
    const pageWritten = written.get(id);
    if (pageWritten !== undefined) hops["  of it: agent raises → page written"]!.push(pageWritten - t0);
    const replied = marks[`reply:${id}`];
    if (pageWritten !== undefined && replied !== undefined && replied >= pageWritten) hops["  of it: page written → daemon has it parsed"]!.push(replied - pageWritten);
    const daemonGot = marks[`answer:${askIds.get(id)}`];
    const agentGot = arrived.get(id);
    if (t2 !== undefined && t3 !== undefined && daemonGot !== undefined && agentGot !== undefined) {
      hops["tap: phone → daemon receives"]!.push(daemonGot - t2);
      hops["tap: daemon → agent receives"]!.push(agentGot - daemonGot);
      const forwarded = marks[`forward:${askIds.get(id)}`];
      if (forwarded !== undefined) hops["  of it: daemon receives → asks the agent"]!.push(forwarded - daemonGot);
      hops["tap: agent receives → ask() resolves"]!.push(t3 - agentGot);
      const memberGot = relayMarks?.[`answer:${askIds.get(id)}`];
      if (memberGot !== undefined) hops["  of it: lead → member receives"]!.push(memberGot - daemonGot);
    }
  }
  return { askToPhone, tapToAgent, hops, failures, parkedShare: parked.parked / Math.max(1, parked.parked + parked.unparked) };
}
