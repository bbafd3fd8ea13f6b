/**
 * Push limits (U-1) at every boundary, on an injected clock: 3 a minute per pane, 10 a minute per
 * agent, 30 an hour per agent followed by exactly one many-asks push and an hour of silence; per
 * machine and agent; only pushes that went out count; and a restart resets none of it.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { judge, PUSH_LIMITS, PushLimits, type LimitKey, type LimitVerdict } from "../../src/push/limits.ts";
import { openStateDb } from "../../src/store/db.ts";
import { removeTempDirs, tempDir } from "../helpers/wait.ts";

after(() => removeTempDirs());

const T0 = Date.parse("2026-12-02T14:00:00.000Z");
const MIN = 60_000;
const HOUR = 60 * MIN;

class Clock {
  t = T0;
  now = () => this.t;
  set(ms: number) {
    this.t = T0 + ms;
  }
}

function setup(stateDir: string | ":memory:" = ":memory:") {
  const clock = new Clock();
  const state = openStateDb(stateDir);
  const limits = new PushLimits(state.db, clock.now);
  return { clock, state, limits };
}

const key = (pane: string, agent = "desk", machine = "box"): LimitKey => ({ machine, agent, pane });
const kinds = (vs: LimitVerdict[]) => vs.map((v) => (v.kind === "skip" ? `skip:${v.reason}` : v.kind));

describe("judge (the pure rule)", () => {
  const none = { paneMinute: 0, agentMinute: 0, agentHour: 0, quietUntil: null };
  test("pushes under every limit", () => {
    assert.deepEqual(judge(none, T0), { kind: "push" });
    assert.deepEqual(judge({ ...none, paneMinute: 2, agentMinute: 9, agentHour: 29 }, T0), { kind: "push" });
  });
  test("skips at 3 from the pane and at 10 from the agent in a minute", () => {
    assert.deepEqual(judge({ ...none, paneMinute: 3, agentMinute: 3, agentHour: 3 }, T0), { kind: "skip", reason: "pane-minute" });
    assert.deepEqual(judge({ ...none, paneMinute: 1, agentMinute: 10, agentHour: 10 }, T0), { kind: "skip", reason: "agent-minute" });
  });
  test("turns the 31st in an hour into the many-asks push, ahead of the minute limits", () => {
    assert.deepEqual(judge({ ...none, paneMinute: 3, agentMinute: 10, agentHour: 30 }, T0), { kind: "many-asks" });
  });
  test("stays silent until the silence ends, then judges the counts again", () => {
    assert.deepEqual(judge({ ...none, agentHour: 40, quietUntil: T0 + 1 }, T0), { kind: "skip", reason: "quiet" });
    assert.deepEqual(judge({ ...none, quietUntil: T0 }, T0), { kind: "push" });
  });
});

describe("one pane: 3 pushes a minute", () => {
  test("the 3rd in a minute pushes, the 4th does not, and the window slides", () => {
    const { clock, limits } = setup();
    const got: LimitVerdict[] = [];
    for (const at of [0, 1000, 2000, 3000]) {
      clock.set(at);
      got.push(limits.admit(key("p1")));
    }
    assert.deepEqual(kinds(got), ["push", "push", "push", "skip:pane-minute"]);
    // The first push (at 0) still counts at 59.999 s, and no longer at 60 s.
    clock.set(MIN - 1);
    assert.deepEqual(limits.admit(key("p1")), { kind: "skip", reason: "pane-minute" });
    clock.set(MIN);
    assert.deepEqual(limits.admit(key("p1")), { kind: "push" });
    // Now 1 s, 2 s and 60 s are in the window: full again.
    clock.set(MIN + 500);
    assert.deepEqual(limits.admit(key("p1")), { kind: "skip", reason: "pane-minute" });
  });

  test("another pane of the same agent has its own 3", () => {
    const { limits } = setup();
    for (let i = 0; i < 3; i++) assert.equal(limits.admit(key("p1")).kind, "push");
    assert.equal(limits.admit(key("p1")).kind, "skip");
    for (let i = 0; i < 3; i++) assert.equal(limits.admit(key("p2")).kind, "push");
    assert.equal(limits.admit(key("p2")).kind, "skip");
  });

  test("a skipped ask does not count: it does not hold the window open", () => {
    const { clock, limits } = setup();
    for (let i = 0; i < 3; i++) limits.admit(key("p1"));
    for (let i = 0; i < 20; i++) {
      clock.set(30_000 + i);
      assert.equal(limits.admit(key("p1")).kind, "skip");
    }
    clock.set(MIN);
    assert.equal(limits.admit(key("p1")).kind, "push");
    assert.equal(limits.counts(key("p1")).agentHour, 4, "only the 4 pushes count toward the hour");
  });
});

describe("one durable agent on a machine: 10 pushes a minute", () => {
  test("the 10th in a minute pushes, the 11th does not (panes under their own limit)", () => {
    const { clock, limits } = setup();
    const got: LimitVerdict[] = [];
    for (let i = 0; i < 11; i++) {
      clock.set(i * 100);
      got.push(limits.admit(key(`p${i}`)));
    }
    assert.deepEqual(kinds(got), [...Array(10).fill("push"), "skip:agent-minute"]);
    // A fresh pane is refused too: the limit is the agent's.
    assert.deepEqual(limits.admit(key("fresh")), { kind: "skip", reason: "agent-minute" });
    clock.set(MIN - 1);
    assert.equal(limits.admit(key("fresh")).kind, "skip");
    clock.set(MIN); // the push at 0 left the window
    assert.equal(limits.admit(key("fresh")).kind, "push");
  });

  test("is per agent and per machine", () => {
    const { limits } = setup();
    for (let i = 0; i < 10; i++) assert.equal(limits.admit(key(`p${i}`, "desk", "box")).kind, "push");
    assert.equal(limits.admit(key("p99", "desk", "box")).kind, "skip");
    assert.equal(limits.admit(key("p99", "billing", "box")).kind, "push", "another agent on the machine");
    assert.equal(limits.admit(key("p99", "desk", "workshop")).kind, "push", "the same agent name on another machine");
  });
});

describe("one durable agent on a machine: 30 pushes an hour", () => {
  /** 30 pushes, 7 s apart from 30 panes: at most 9 in any minute, so no minute limit interferes. */
  function thirty(limits: PushLimits, clock: Clock, agent = "desk"): LimitVerdict[] {
    const got: LimitVerdict[] = [];
    for (let i = 0; i < 30; i++) {
      clock.set(i * 7000);
      got.push(limits.admit(key(`p${i}`, agent)));
    }
    return got;
  }

  test("the 30th pushes, the 31st is the one many-asks push, then nothing for an hour", () => {
    const { clock, limits } = setup();
    assert.deepEqual(kinds(thirty(limits, clock)), Array(30).fill("push"));
    const stormAt = 30 * 7000;
    clock.set(stormAt);
    assert.deepEqual(limits.admit(key("p30")), { kind: "many-asks" }, "the 31st");
    // Exactly one many-asks push: every later ask in the hour is silent, whatever its pane.
    const later: LimitVerdict[] = [];
    for (let i = 1; i <= 100; i++) {
      clock.set(stormAt + i * 30_000);
      if (clock.t - T0 - stormAt >= HOUR) break;
      later.push(limits.admit(key(`q${i}`)));
    }
    assert.ok(later.length > 50);
    assert.ok(later.every((v) => v.kind === "skip" && v.reason === "quiet"), "silent for the hour");
    // The hour of silence: the last silent moment and the first one that pushes again.
    clock.set(stormAt + HOUR - 1);
    assert.deepEqual(limits.admit(key("p1")), { kind: "skip", reason: "quiet" });
    clock.set(stormAt + HOUR);
    assert.deepEqual(limits.admit(key("p1")), { kind: "push" });
    // And the next many-asks push only after 30 more.
    assert.equal(limits.counts(key("p1")).agentHour, 1);
  });

  test("30 spread over just under an hour still trigger it; spread over more than an hour they do not", () => {
    const { clock, limits } = setup();
    // 30 pushes at 0, 2 min, 4 min … 58 min: all within the hour at 59 min.
    for (let i = 0; i < 30; i++) {
      clock.set(i * 2 * MIN);
      assert.equal(limits.admit(key("p1")).kind, "push");
    }
    clock.set(59 * MIN);
    assert.equal(limits.admit(key("p1")).kind, "many-asks");

    const other = setup();
    for (let i = 0; i < 30; i++) {
      other.clock.set(i * 2 * MIN);
      other.limits.admit(key("p1"));
    }
    other.clock.set(HOUR); // the push at 0 just left the hour: 29 remain
    assert.equal(other.limits.admit(key("p1")).kind, "push");
  });

  test("the silence is the agent's alone", () => {
    const { clock, limits } = setup();
    thirty(limits, clock);
    clock.set(30 * 7000);
    assert.equal(limits.admit(key("p30")).kind, "many-asks");
    assert.equal(limits.admit(key("p30")).kind, "skip");
    assert.equal(limits.admit(key("p30", "billing")).kind, "push");
    assert.equal(limits.admit(key("p30", "desk", "workshop")).kind, "push");
  });
});

describe("a restart does not reset the limits", () => {
  test("the pane's minute, the agent's hour and its silence survive reopening the state database", () => {
    const dir = tempDir();
    let s = setup(dir);
    for (let i = 0; i < 3; i++) assert.equal(s.limits.admit(key("p1")).kind, "push");
    s.state.close();

    // Restart 10 s later: the pane is still full.
    s = setup(dir);
    s.clock.set(10_000);
    assert.deepEqual(s.limits.admit(key("p1")), { kind: "skip", reason: "pane-minute" });
    // Fill the hour (27 more, 7 s apart, other panes), restart, and the 31st is the many-asks push.
    for (let i = 0; i < 27; i++) {
      s.clock.set(20_000 + i * 7000);
      assert.equal(s.limits.admit(key(`p${i + 10}`)).kind, "push");
    }
    s.state.close();
    s = setup(dir);
    s.clock.set(20_000 + 27 * 7000);
    assert.equal(s.limits.admit(key("p99")).kind, "many-asks");
    const stormAt = s.clock.t - T0;
    s.state.close();

    // Restart in the silence: still silent; no second many-asks push.
    s = setup(dir);
    s.clock.set(stormAt + 30 * MIN);
    assert.deepEqual(s.limits.admit(key("p99")), { kind: "skip", reason: "quiet" });
    s.clock.set(stormAt + HOUR);
    assert.deepEqual(s.limits.admit(key("p99")), { kind: "push" });
    s.state.close();
  });
});

test("the limits are the specification's numbers (U-1)", () => {
  assert.equal(PUSH_LIMITS.paneMinute, 3);
  assert.equal(PUSH_LIMITS.agentMinute, 10);
  assert.equal(PUSH_LIMITS.agentHour, 30);
  assert.equal(PUSH_LIMITS.minuteMs, MIN);
  assert.equal(PUSH_LIMITS.hourMs, HOUR);
  assert.equal(PUSH_LIMITS.quietMs, HOUR);
});

describe("a crew member machine as a whole (C-1, the security issue 38.5)", () => {
  const burst = (limits: PushLimits, member: boolean, agents = 60, asks = 3) => {
    const vs: LimitVerdict[] = [];
    for (let a = 0; a < agents; a++) for (let i = 0; i < asks; i++) vs.push(limits.admit({ ...key(`p${i}`, `agent-${a}`), member }));
    return vs;
  };

  test("60 agents × 3 asks on a member push 10 times in a minute, not 180", () => {
    const s = setup();
    const vs = burst(s.limits, true);
    assert.equal(vs.filter((v) => v.kind === "push").length, PUSH_LIMITS.memberMinute);
    assert.ok(vs.slice(PUSH_LIMITS.memberMinute).every((v) => v.kind === "skip" && v.reason === "member-minute"));
    s.state.close();
  });

  test("30 an hour, minute after minute; then none until the oldest is an hour old", () => {
    const s = setup();
    let pushed = 0;
    for (let m = 0; m < 10; m++) {
      s.clock.set(m * MIN);
      pushed += burst(s.limits, true).filter((v) => v.kind === "push").length;
    }
    assert.equal(pushed, PUSH_LIMITS.memberHour);
    s.clock.set(10 * MIN);
    assert.deepEqual(s.limits.admit({ ...key("x", "agent-new"), member: true }), { kind: "skip", reason: "member-hour" });
    s.clock.set(HOUR + 1);
    assert.deepEqual(s.limits.admit({ ...key("x", "agent-new"), member: true }), { kind: "push" });
    s.state.close();
  });

  test("the lead's own machine is limited per agent only, as before", () => {
    const s = setup();
    assert.equal(burst(s.limits, false).filter((v) => v.kind === "push").length, 180);
    s.state.close();
  });

  test("judge: a member's hour and minute come after the silence and before the agent's own limits", () => {
    const none = { paneMinute: 0, agentMinute: 0, agentHour: 0, quietUntil: null };
    assert.deepEqual(judge({ ...none, memberMinute: 9, memberHour: 29 }, T0), { kind: "push" });
    assert.deepEqual(judge({ ...none, memberMinute: 10, memberHour: 10 }, T0), { kind: "skip", reason: "member-minute" });
    assert.deepEqual(judge({ ...none, memberMinute: 0, memberHour: 30, agentHour: 30 }, T0), { kind: "skip", reason: "member-hour" });
    assert.deepEqual(judge({ ...none, memberHour: 40, quietUntil: T0 + 1 }, T0), { kind: "skip", reason: "quiet" });
  });
});
