/**
 * Test fixtures for the agent's home and the New page, on the shared rig (../support/phone-rig.tsx):
 * the home's data, at a fixed "now".
 */
import type { AgentSummary, Conversation } from "@colliepwa/shared";
import type { Caps, HistoryRow } from "@colliepwa/durable-sdk/wire";
import { CAPS, startRig, type Rig, type Route } from "../support/phone-rig.tsx";

export { deferred, FakeSocket, on, renderWith, type Call, type FakeReply, type Route } from "../support/phone-rig.tsx";

/** 2026-12-02 15:00 local time: "now" for every test. */
export const NOW = new Date(2026, 11, 2, 15, 0, 0).getTime();
export const minutesAgo = (m: number): string => new Date(NOW - m * 60_000).toISOString();

/** What the fake server answers: a reply, a network failure, or a promise of either. */
export const ALL_CAPS: Caps = CAPS;

export function agentSummary(over: Omit<Partial<AgentSummary>, "caps"> & { caps?: Partial<Caps> | null } = {}): AgentSummary {
  const { caps, ...rest } = over;
  return {
    name: "desk",
    state: "ready",
    reach: "local",
    runtime: "node 22.23.5",
    selfName: "desk-agent",
    machine: null,
    caps: caps === null ? null : { ...ALL_CAPS, ...caps },
    wire: { agent: 1, collie: 1 },
    counts: { open: 0, waiting: 0 },
    ...rest,
  };
}

let paneN = 0;
export function conversation(over: Partial<Conversation> = {}): Conversation {
  const id = over.id ?? `p${++paneN}`;
  return {
    id,
    tabId: "main:t1",
    title: `Conversation ${id}`,
    harness: "durable",
    sessionId: id,
    state: "idle",
    actions: [],
    openAsks: 0,
    turnId: null,
    activeAt: minutesAgo(10),
    agent: "desk",
    workspaceTitle: "Main",
    ...over,
  };
}

export function historyRow(over: Partial<HistoryRow> & { id: string }): HistoryRow {
  return {
    title: `History ${over.id}`,
    startedAt: minutesAgo(600),
    endedAt: minutesAgo(500),
    state: "closed",
    items: 3,
    ...over,
  };
}

export type Harness = Rig;

/** A started Phone whose socket is open and has delivered the snapshot. */
export async function startPhone(opts: { agents?: AgentSummary[]; conversations?: Conversation[]; routes?: Route[]; snapshot?: boolean } = {}): Promise<Harness> {
  return startRig({ ...opts, agents: opts.agents ?? [agentSummary()], conversations: opts.conversations ?? [], now: () => NOW });
}
