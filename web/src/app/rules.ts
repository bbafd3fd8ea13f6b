/**
 * The phone's display rules as pure functions (P-2…P-5, P-21), tested without a browser.
 */
import { compareConversations, isWaiting, STRINGS } from "@colliepwa/shared";
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

/** True while any agent has a conversation waiting on you: the section floats to the top (P-3). */
export function sectionFloats(agents: Iterable<AgentSummary>): boolean {
  for (const a of agents) if (a.state === "ready" && a.counts.waiting > 0) return true;
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

/** One Durable agents section of the dashboard: this machine's (`machine` null) or a crew member's (C-1). */
export interface AgentSection {
  machine: string | null;
  /** The rows it lists (all, or only those waiting on you, P-4). */
  rows: AgentSummary[];
  /** An agent of this section waits on you: it rises above the others and the Spaces (P-3, C-1). */
  floats: boolean;
}

/**
 * The dashboard's sections (C-1): this machine's first, naming no machine, then one per crew
 * member in the order they arrive. A machine without agents has no section; with "Show only what
 * needs you" on, a member's section with nothing waiting is not drawn (this machine's keeps P-4's
 * behaviour).
 */
export function agentSections(agents: Iterable<AgentSummary>, onlyNeedsYou: boolean): AgentSection[] {
  const byMachine = new Map<string | null, AgentSummary[]>([[null, []]]);
  for (const a of agents) {
    const list = byMachine.get(a.machine) ?? [];
    list.push(a);
    byMachine.set(a.machine, list);
  }
  const out: AgentSection[] = [];
  for (const [machine, list] of byMachine) {
    if (list.length === 0) continue;
    const rows = visibleAgents(list, onlyNeedsYou);
    if (machine !== null && rows.length === 0) continue;
    out.push({ machine, rows, floats: sectionFloats(list) });
  }
  return out;
}

/** The rows the section lists (P-4): all, or only agents waiting on you. */
export function visibleAgents(agents: Iterable<AgentSummary>, onlyNeedsYou: boolean): AgentSummary[] {
  const list = [...agents];
  return onlyNeedsYou ? list.filter((a) => a.state === "ready" && a.counts.waiting > 0) : list;
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
