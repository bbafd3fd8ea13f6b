/**
 * A Phone for chat tests, on the shared rig (../support/phone-rig.tsx): the chat's data, and a
 * clock the test moves.
 */
import type { AgentSummary, Conversation, PaneDetail } from "@colliepwa/shared";
import type { Caps, Item } from "@colliepwa/durable-sdk/wire";
import type { DraftStorage } from "../../src/app/drafts.ts";
import type { OutboxStorage } from "../../src/app/outbox.ts";
import type { ViewCacheStorage } from "../../src/app/view-cache.ts";
import type { NotificationAnswerStorage } from "../../src/app/notification-answers.ts";
import { CAPS, startRig, type Rig, type Route } from "../support/phone-rig.tsx";

export { CAPS, deferred, FakeSocket, on, renderWith, seq, type Call, type FakeReply, type Route } from "../support/phone-rig.tsx";

export const T0 = new Date(2026, 11, 2, 15, 0, 0).getTime();


export function agentSummary(caps: Partial<Caps> | null = {}): AgentSummary {
  return {
    name: "desk", state: "ready", reach: "local", runtime: "node 22.23.5", selfName: "desk-agent", machine: null,
    caps: caps === null ? null : { ...CAPS, ...caps }, wire: { agent: 1, collie: 1 }, counts: { open: 1, waiting: 0 },
  };
}

export function conversation(over: Partial<Conversation> = {}): Conversation {
  return {
    id: "p1", tabId: "support:main", title: "Refund for order 5521", harness: "support-bot", sessionId: "p1", state: "idle",
    actions: [], openAsks: 0, turnId: "turn-7", activeAt: new Date(T0 - 60_000).toISOString(), agent: "desk",
    workspaceTitle: "Support", ...over,
  };
}

export function detail(items: Item[], over: Partial<PaneDetail> = {}, conv: Conversation = conversation()): PaneDetail {
  return { conversation: conv, items, itemsCut: false, asks: [], ...over };
}

export interface Harness extends Rig {
  clock: { t: number };
}

export async function startPhone(opts: {
  agents?: AgentSummary[];
  conversations?: Conversation[];
  routes?: Route[];
  storage?: OutboxStorage;
  snapshot?: boolean;
  viewCache?: ViewCacheStorage;
  notificationAnswers?: NotificationAnswerStorage;
  draftStorage?: DraftStorage;
  online?: boolean;
} = {}): Promise<Harness> {
  const clock = { t: T0 };
  const rig = await startRig({
    ...opts,
    agents: opts.agents ?? [agentSummary()],
    conversations: opts.conversations ?? [conversation()],
    now: () => clock.t,
  });
  return { ...rig, clock };
}

