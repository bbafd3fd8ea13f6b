/**
 * The phone's display rules as pure functions (P-2…P-5, P-21), tested without a browser.
 */
import { compareConversations, isWaiting, STRINGS, WORDS } from "@colliepwa/shared";
import type { AgentSummary, Conversation } from "@colliepwa/shared";

/**
 * Line 2 of an agent's row (P-2, C-1): its runtime in the specification's sense, the name it gives
 * itself in hello or `durable`, then reach, then the crew member's machine. The hello's runtime
 * version (`node 22.23.5`) is not part of the row.
 */
export function agentLine2(a: AgentSummary): string {
  return [a.selfName || STRINGS.selfNameFallback, a.reach === "local" ? STRINGS.local : STRINGS.remote, a.machine]
    .filter((p): p is string => Boolean(p))
    .join(", ");
}

/** The right edge of an agent's row (P-2): counts when ready, else the state's word. */
export type AgentRowRight = { kind: "counts"; open: number; waiting: number } | { kind: "state"; text: string };

export function agentRowRight(a: AgentSummary): AgentRowRight {
  switch (a.state) {
    case "ready": return { kind: "counts", open: a.counts.open, waiting: a.counts.waiting };
    case "starting": return { kind: "state", text: STRINGS.starting };
    case "unreachable": return { kind: "state", text: STRINGS.unreachable };
    case "version-mismatch": return { kind: "state", text: STRINGS.versionMismatch };
  }
}

/**
 * Whether an agent has a conversation waiting on you (P-3, P-4): a ready agent's count; an agent
 * Collie cannot reach shows no counts (P-2), so its conversations as last seen decide (`waiting`,
 * the agent names whose last-seen conversations wait on you). An answer given meanwhile waits in
 * Collie: the section with it stays where you can see it (issue #37), until the agent is back.
 */
export function waitsOnYou(a: AgentSummary, waiting: ReadonlySet<string> = NO_NAMES): boolean {
  if (a.state === "ready") return a.counts.waiting > 0;
  return a.state === "unreachable" && waiting.has(a.name);
}

const NO_NAMES: ReadonlySet<string> = new Set();

/** The agents with a conversation waiting on you, from the conversations the phone holds. */
export function agentsWithWaiting(conversations: Iterable<Conversation>): Set<string> {
  const out = new Set<string>();
  for (const c of conversations) if (isWaiting(c)) out.add(c.agent);
  return out;
}

/** True while any agent has a conversation waiting on you: the section floats to the top (P-3). */
export function sectionFloats(agents: Iterable<AgentSummary>, waiting: ReadonlySet<string> = NO_NAMES): boolean {
  for (const a of agents) if (waitsOnYou(a, waiting)) return true;
  return false;
}

/**
 * An agent's name as sources.json gives it on its own machine (P-2 line 1). A crew member's agent
 * reaches this phone keyed `<agent>@<member>` (names never hold `@`); the member's name is on
 * line 2 instead (C-1).
 */
export function agentTitle(a: Pick<AgentSummary, "name" | "machine">): string {
  const suffix = a.machine === null ? "" : `@${a.machine}`;
  return suffix && a.name.endsWith(suffix) ? a.name.slice(0, -suffix.length) : a.name;
}

/**
 * How the phone names the agent with this key wherever one word names it (an ask card's caption,
 * a closed conversation, a link back): as the dashboard does (C-1), never the crew key
 * `desk@workshop`. Without its row yet, the key's part before `@` (agent names never hold one).
 */
export function agentName(key: string, summary?: Pick<AgentSummary, "name" | "machine">): string {
  if (summary) return agentTitle(summary);
  const at = key.lastIndexOf("@");
  return at > 0 ? key.slice(0, at) : key;
}

/**
 * The agent's name with its machine where one line must say both (a closed conversation's line
 * 2): `desk, workshop` for a crew member's agent, as its dashboard row ends; `desk` for this
 * machine's own (C-1).
 */
export function agentWithMachine(key: string, summary?: Pick<AgentSummary, "name" | "machine">): string {
  const name = agentName(key, summary);
  return summary?.machine ? `${name}, ${summary.machine}` : name;
}

/** One Durable agents section of the dashboard: this machine's (`machine` null) or a crew member's (C-1). */
export interface AgentSection {
  machine: string | null;
  /** The rows it lists (all, or only those waiting on you, P-4). */
  rows: AgentSummary[];
  /** An agent of this section waits on you: it rises above the others and the Spaces (P-3, C-1). */
  floats: boolean;
  /** The member machine itself cannot be reached: the section says `<machine> is offline` (issue #37). */
  offline: boolean;
}

/**
 * The dashboard's sections (C-1): this machine's first, then one per crew member in the order they
 * arrive, each a Durable agents section (`sectionHeading`). A machine without agents has no
 * section, and neither has one whose every row "Show only what needs you" hides (P-4): no heading
 * stands over nothing (issue #37). `waiting` names the agents whose conversations, as the phone
 * holds them, wait on you (`agentsWithWaiting`): an unreachable agent's still count.
 */
export function agentSections(agents: Iterable<AgentSummary>, onlyNeedsYou: boolean, waiting: ReadonlySet<string> = NO_NAMES): AgentSection[] {
  const byMachine = new Map<string | null, AgentSummary[]>([[null, []]]);
  for (const a of agents) {
    const list = byMachine.get(a.machine) ?? [];
    list.push(a);
    byMachine.set(a.machine, list);
  }
  const out: AgentSection[] = [];
  for (const [machine, list] of byMachine) {
    const rows = visibleAgents(list, onlyNeedsYou, waiting);
    if (rows.length === 0) continue;
    out.push({ machine, rows, floats: sectionFloats(list, waiting), offline: machine !== null && list.every((a) => a.machineOffline === true) });
  }
  return out;
}

/** The rows the section lists (P-4): all, or only agents waiting on you. */
export function visibleAgents(agents: Iterable<AgentSummary>, onlyNeedsYou: boolean, waiting: ReadonlySet<string> = NO_NAMES): AgentSummary[] {
  const list = [...agents];
  return onlyNeedsYou ? list.filter((a) => waitsOnYou(a, waiting)) : list;
}

/**
 * A section's heading (C-1): every machine's section is a Durable agents section, as the seeds
 * name it; this machine's names no machine, a member's adds its name: `Durable agents on workshop`.
 */
export function sectionHeading(machine: string | null): string {
  return machine === null ? STRINGS.durableAgents : WORDS.screen.durableAgentsOn(machine);
}

/** Whether a conversation waits on you (the shared rule). */
export { isWaiting };

/** The agent's home (P-5): waiting first, then the other open ones newest first (the shared rule Collie pages by). */
export function sortConversations(list: Iterable<Conversation>): Conversation[] {
  return [...list].sort(compareConversations);
}

/** A row's title (P-5). */
export const conversationTitle = (c: { title: string }): string => c.title.trim() || STRINGS.untitledConversation;

/** A row's second line (P-5): the pending question, else the subtitle. */
export const conversationLine2 = (c: Conversation): string => c.pendingQuestion ?? c.subtitle ?? "";

/** The chat header's line 2 (P-21). Progress shows only while the conversation works or waits. */
export function headerLine2(c: Conversation): string {
  const busy = c.state === "working" || c.state === "waiting";
  const p = c.progress;
  if (busy && p) {
    if (p.kind === "steps" && p.current <= p.total) return `Step ${p.current} of ${p.total}: ${p.label}`;
    if (p.kind === "percent") return `${Math.round(p.value)}%: ${p.label}`;
  }
  if (c.subtitle) return c.subtitle;
  return c.workspaceTitle;
}

// Built once: a formatter per call was most of a long chat's drawing time (docs/performance.md).
let timeFormat: Intl.DateTimeFormat | undefined;
let dayFormat: Intl.DateTimeFormat | undefined;

/** Last activity as a short time: `14:05` today, else `2 Dec`. */
export function shortTime(iso: string, now: number): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const today = new Date(now);
  if (d.toDateString() === today.toDateString()) {
    timeFormat ??= new Intl.DateTimeFormat([], { hour: "2-digit", minute: "2-digit" });
    return timeFormat.format(d);
  }
  dayFormat ??= new Intl.DateTimeFormat([], { day: "numeric", month: "short" });
  return dayFormat.format(d);
}
