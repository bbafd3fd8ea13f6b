/**
 * The phone's display rules (P-2…P-5, P-21).
 */
import { describe, expect, it } from "vitest";
import type { AgentSummary, Conversation } from "@colliepwa/shared";
import {
  agentLine2, agentName, agentRowRight, agentSections, agentsWithWaiting, agentTitle, agentWithMachine, conversationLine2, conversationTitle, headerLine2,
  sectionFloats, sectionHeading, sortConversations, visibleAgents,
} from "../../src/app/rules.ts";

const agent = (over: Partial<AgentSummary> = {}): AgentSummary => ({
  name: "desk", state: "ready", reach: "local", runtime: "node 22.23.5", selfName: "pi-durable", machine: null,
  caps: null, wire: { agent: 1, collie: 1 }, counts: { open: 3, waiting: 0 }, ...over,
});
const conv = (over: Partial<Conversation> = {}): Conversation => ({
  id: "p", tabId: "w:t", title: "T", harness: "", sessionId: null, state: "idle", actions: [], openAsks: 0,
  turnId: null, activeAt: "2026-12-02T10:00:00.000Z", agent: "desk", workspaceTitle: "Support", ...over,
});

describe("an agent's dashboard row (P-2)", () => {
  it("reads the self-given name and reach on line 2, without the runtime version", () => {
    expect(agentLine2(agent())).toBe("pi-durable, local");
  });
  it("says durable when the agent gives itself no name", () => {
    expect(agentLine2(agent({ selfName: null, reach: "remote" }))).toBe("durable, remote");
  });
  it("adds the crew member's machine after the reach (C-1)", () => {
    expect(agentLine2(agent({ machine: "workshop" }))).toBe("pi-durable, local, workshop");
  });
  it("shows counts when ready and the state's word otherwise", () => {
    expect(agentRowRight(agent({ counts: { open: 4, waiting: 2 } }))).toEqual({ kind: "counts", open: 4, waiting: 2 });
    expect(agentRowRight(agent({ state: "starting" }))).toEqual({ kind: "state", text: "Starting" });
    expect(agentRowRight(agent({ state: "unreachable" }))).toEqual({ kind: "state", text: "Unreachable" });
    expect(agentRowRight(agent({ state: "version-mismatch" }))).toEqual({ kind: "state", text: "Version mismatch" });
  });
});

describe("the Durable agents section (P-3, P-4)", () => {
  it("floats while an agent has a conversation waiting on you", () => {
    expect(sectionFloats([agent(), agent({ name: "b", counts: { open: 1, waiting: 1 } })])).toBe(true);
    expect(sectionFloats([agent()])).toBe(false);
  });
  it("does not float for a waiting count of an agent that is not ready", () => {
    expect(sectionFloats([agent({ state: "unreachable", counts: { open: 1, waiting: 1 } })])).toBe(false);
  });
  it("lists only agents waiting on you with Show only what needs you", () => {
    const list = [agent({ name: "a" }), agent({ name: "b", counts: { open: 2, waiting: 1 } })];
    expect(visibleAgents(list, true).map((a) => a.name)).toEqual(["b"]);
    expect(visibleAgents(list, false).map((a) => a.name)).toEqual(["a", "b"]);
  });
});

describe("the agent's home (P-5)", () => {
  it("puts waiting conversations first, then the others newest first", () => {
    const list = [
      conv({ id: "old", activeAt: "2026-12-02T09:00:00Z" }),
      conv({ id: "new", activeAt: "2026-12-02T11:00:00Z" }),
      conv({ id: "waiting", activeAt: "2026-12-01T08:00:00Z", state: "waiting", openAsks: 1 }),
    ];
    expect(sortConversations(list).map((c) => c.id)).toEqual(["waiting", "new", "old"]);
  });
  it("titles an untitled conversation", () => {
    expect(conversationTitle(conv({ title: "" }))).toBe("Untitled conversation");
  });
  it("shows the pending question, else the subtitle", () => {
    expect(conversationLine2(conv({ subtitle: "Parcel lost", pendingQuestion: "refund wants to run" }))).toBe("refund wants to run");
    expect(conversationLine2(conv({ subtitle: "Parcel lost" }))).toBe("Parcel lost");
  });
});

describe("the chat header's line 2 (P-21)", () => {
  it("shows steps while working", () => {
    expect(headerLine2(conv({ state: "working", progress: { kind: "steps", current: 2, total: 3, label: "Save note" } }))).toBe("Step 2 of 3: Save note");
  });
  it("shows a percentage with its label while waiting", () => {
    expect(headerLine2(conv({ state: "waiting", progress: { kind: "percent", value: 42, label: "Uploading" } }))).toBe("42%: Uploading");
  });
  it("shows the subtitle when idle, even with progress", () => {
    expect(headerLine2(conv({ state: "idle", subtitle: "Shipped", progress: { kind: "percent", value: 42, label: "Uploading" } }))).toBe("Shipped");
  });
  it("falls back to the workspace", () => {
    expect(headerLine2(conv())).toBe("Support");
  });
});

describe("the dashboard's sections per machine (C-1)", () => {
  const member = (name: string, machine: string, over: Partial<AgentSummary> = {}) => agent({ name: `${name}@${machine}`, machine, ...over });

  it("draws this machine's section first, then one per member, and names each agent without its member", () => {
    const sections = agentSections([member("pi", "workshop"), agent({ name: "desk" }), member("pi", "build")], false);
    expect(sections.map((s) => s.machine)).toEqual([null, "workshop", "build"]);
    expect(sections[1]!.rows.map(agentTitle)).toEqual(["pi"]);
    expect(agentTitle(agent({ name: "desk" }))).toBe("desk");
  });

  it("floats only the section with an agent waiting on you, until the last ask is answered", () => {
    const waiting = agentSections([agent(), member("pi", "workshop", { counts: { open: 1, waiting: 1 } })], false);
    expect(waiting.map((s) => [s.machine, s.floats])).toEqual([[null, false], ["workshop", true]]);
    const answered = agentSections([agent(), member("pi", "workshop", { counts: { open: 1, waiting: 0 } })], false);
    expect(answered.every((s) => !s.floats)).toBe(true);
  });

  it("applies Show only what needs you across machines, with no heading over nothing; an unreachable member floats nothing", () => {
    const list = [agent(), member("pi", "workshop", { counts: { open: 1, waiting: 1 } }), member("pi", "build", { state: "unreachable", counts: { open: 0, waiting: 0 } })];
    expect(agentSections(list, true).map((s) => [s.machine, s.rows.length])).toEqual([["workshop", 1]]);
    expect(agentSections([agent()], true)).toEqual([]);
  });

  it("names every section a Durable agents section: this machine's plainly, a member's with the machine (C-1)", () => {
    expect(sectionHeading(null)).toBe("Durable agents");
    expect(sectionHeading("workshop")).toBe("Durable agents on workshop");
  });

  it("a member that went away: its section says so, and stays up with the conversation that waited on you (issue #37)", () => {
    const away = member("desk", "workshop", { state: "unreachable", counts: { open: 0, waiting: 0 }, machineOffline: true });
    const waiting = agentsWithWaiting([conv({ agent: "desk@workshop", state: "waiting", openAsks: 1 }), conv({ agent: "desk", state: "idle" })]);
    expect([...waiting]).toEqual(["desk@workshop"]);
    // With "Show only what needs you" on: this machine's section is not drawn, the member's stays and floats.
    const sections = agentSections([agent(), away], true, waiting);
    expect(sections).toHaveLength(1);
    expect(sections[0]).toMatchObject({ machine: "workshop", offline: true, floats: true });
    expect(sections[0]!.rows).toHaveLength(1);
    // Nothing of it waited on you: down it goes, and the filter hides it.
    expect(agentSections([agent(), away], false).map((s) => [s.machine, s.floats, s.offline])).toEqual([[null, false, false], ["workshop", false, true]]);
    expect(agentSections([agent(), away], true)).toEqual([]);
    // One agent of the member unreachable on its own: the machine is not offline.
    expect(agentSections([member("desk", "workshop", { state: "unreachable" }), member("pi", "workshop")], false)[0]!.offline).toBe(false);
  });
});

describe("naming an agent where one word names it (C-1)", () => {
  it("as the dashboard does, never the crew key", () => {
    expect(agentName("desk@workshop")).toBe("desk");
    expect(agentName("desk@workshop", agent({ name: "desk@workshop", machine: "workshop" }))).toBe("desk");
    expect(agentName("desk")).toBe("desk");
    expect(agentWithMachine("desk@workshop", agent({ name: "desk@workshop", machine: "workshop" }))).toBe("desk, workshop");
    expect(agentWithMachine("desk", agent())).toBe("desk");
  });
});
