/**
 * The crew figure (C-1, issue 31): an ask raised on a crew member reaches the lead's phone through
 * two daemons. The member is a daemon with the timed agent; the lead is a second daemon with no
 * agents of its own that leads it (cluster.ts `startLead`: a crew credential the member issued, the
 * member's phone API and live WebSocket over loopback, as `collie crew join` sets up).
 *
 * The single-machine figure is measured in the same part first, on the member alone with a phone
 * of its own, and then the same asks reach the lead's phone instead: `ask → lead's phone` is the
 * agent raising the ask to the lead's phone parsing it, `tap → agent` the lead's phone posting
 * the answer (the lead forwards it to the member, the member to its agent) to `ask()` resolving.
 */
import { Cluster } from "./cluster.ts";
import { hopSummary } from "./load.ts";
import { runAsks } from "./latency.ts";
import { roundSummary, summarize, type Summary } from "./lib.ts";
import { Phone } from "./phone.ts";

/** The member's name on the lead's phone: its agent is `latency@<MEMBER>` there. */
const MEMBER = "member";
const WARMUP_ASKS = 50;

export interface CrewResult {
  /** The member alone, its own phone: the single-machine figure of this part. */
  single: { askToPhone: Summary; tapToAgent: Summary };
  /** Through the lead: the ask to the lead's phone, and the lead's phone's tap to the agent. */
  askToLeadPhone: Summary;
  tapToAgent: Summary;
  hops: Record<string, { p50: number; p99: number }>;
  parkedShare: number;
  failures: number;
}

export async function runCrew(cfg: { asks: number }): Promise<CrewResult> {
  const cluster = new Cluster("crew");
  try {
    await cluster.startLatencyAgent();
    await cluster.startDaemon({ panes: 1 });
    const own = await Phone.connect(cluster.url, cluster.token);
    const single = await runAsks({ phone: own, agent: cluster.latency!, daemon: cluster.daemon!, agentName: "latency", count: cfg.asks, warmup: WARMUP_ASKS, gapMs: 2 });
    own.close();

    const lead = await cluster.startLead({ member: MEMBER, panes: 1 });
    const phone = await Phone.connect(cluster.leadUrl, cluster.leadToken);
    const r = await runAsks({ phone, agent: cluster.latency!, daemon: lead, relay: cluster.daemon!, agentName: `latency@${MEMBER}`, count: cfg.asks, warmup: WARMUP_ASKS, gapMs: 2 });
    phone.close();
    return {
      single: { askToPhone: roundSummary(summarize(single.askToPhone)), tapToAgent: roundSummary(summarize(single.tapToAgent)) },
      askToLeadPhone: roundSummary(summarize(r.askToPhone)),
      tapToAgent: roundSummary(summarize(r.tapToAgent)),
      hops: hopSummary(r.hops),
      parkedShare: r.parkedShare,
      failures: single.failures + r.failures,
    };
  } finally {
    await cluster.stop();
  }
}
