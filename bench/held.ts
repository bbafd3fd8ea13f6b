/**
 * Held writes (issues 35, 28 item 6, 38 item 6): a backlog held while an agent was down, then the
 * agent comes back. Measured while the backlog drains: the drain's time and rate, the daemon's CPU
 * share and RSS, `/api/health` probed every 10 ms, a snapshot every second, and a message to
 * another, idle agent every 250 ms. Then the cost of a crew action with 1 and with 1 000 actions
 * held for the member.
 *
 * Two backlogs: the **bounded** one, an agent at its bound (`HELD_LIMITS.target`: 1 000 messages of
 * 8 000 bytes over 10 conversations), which is the most a phone can make now; and the **issue's**
 * (10 000 messages of 8 000 bytes, 80 MB, and 5 000 answers for asks that are not open), held with
 * the bounds lifted so that the same backlog can be compared with the daemon before the issue
 * (`BENCH_HELD_BEFORE_ROOT`), whose drain is cut after `BENCH_HELD_BEFORE_SECONDS`.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { daemonConfig, ensureBuilt, profile, type DaemonStats } from "./cluster.ts";
import { Child, CpuMeter, nowMs, ROOT, round, roundSummary, rssMb, sleep, summarize, type Summary } from "./lib.ts";
import { Phone } from "./phone.ts";

export interface HeldConfig {
  /** The issue's backlog: messages and answers (BENCH_HELD_SENDS, BENCH_HELD_ANSWERS). */
  sends: number;
  answers: number;
  /** Bytes of text per message (BENCH_HELD_TEXT). */
  textBytes: number;
  /** A checkout whose daemon runs the same backlogs first, as "before" (BENCH_HELD_BEFORE_ROOT). */
  beforeRoot: string | null;
  /** How long the daemon before gets to drain (BENCH_HELD_BEFORE_SECONDS). */
  beforeSeconds: number;
  /** Which runs: `crew`, `bounded`, `issue` (BENCH_HELD_PARTS, all by default). */
  parts: Set<string>;
}

export interface BacklogResult {
  backlog: "bounded" | "issue";
  daemon: "before" | "now";
  sends: number;
  answers: number;
  /** MB of message text held. */
  textMb: number;
  fillSeconds: number;
  /** Writes the daemon refused to hold (`429 held-full`). */
  refused: number;
  /** From the agent seen ready to its last message; null when cut at the time limit. */
  drainSeconds: number | null;
  /** How long was measured: the drain, or the time limit. */
  windowSeconds: number;
  delivered: number;
  perSecond: number;
  /** Messages a pane got out of the phone's order (each pane's are numbered). */
  outOfOrder: number;
  /** The outcomes of the deliveries the phone was told of (`held-outcome`), by status and code. */
  outcomes: Record<string, number>;
  /** Writes still held at the end (the answers wait for asks that never open). */
  heldAtEnd: number;
  daemonCpu: number;
  rssStartMb: number;
  rssMaxMb: number;
  health: Summary;
  /** `/api/health` for 5 s before the agent comes back, the backlog held: the machine's own noise. */
  healthBefore: Summary;
  /** How late the daemon's event loop ran, ms (monitorEventLoopDelay): before the agent came back, and during the drain. */
  loopDelayBefore: { p50: number; p99: number; max: number };
  loopDelay: { p50: number; p99: number; max: number };
  /** Synchronous work in the daemon during the drain, ms, by what (the state database's writes, the audit log, GC). */
  syncWork: Record<string, { n: number; total: number; p99: number; max: number }>;
  snapshot: Summary;
  idleSend: Summary;
}

export interface CrewActionResult {
  daemon: "before" | "now";
  /** A held crew action's round trip with 1 action held for the member, and with 1 000. */
  at1: Summary;
  at1000: Summary;
  /** `/api/health` while the 1 000-held actions ran. */
  health: Summary;
}

export interface HeldResult {
  backlogs: BacklogResult[];
  crew: CrewActionResult[];
}

/** What the bench's phone does over keep-alive HTTP with the paired device's token. */
class Http {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 32 });
  readonly url: string;
  readonly token: string;
  constructor(url: string, token: string) {
    this.url = url;
    this.token = token;
  }

  call(method: "GET" | "POST", path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string | number> = { authorization: `Bearer ${this.token}` };
    if (payload !== undefined) Object.assign(headers, { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
    return new Promise((resolve, reject) => {
      const req = request(`${this.url}${path}`, { method, agent: this.#agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown> });
          } catch (err) {
            reject(err as Error);
          }
        });
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(payload);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

const UNBOUNDED = { conversation: { count: 1e9, bytes: 1e12 }, target: { count: 1e9, bytes: 1e12 }, all: { count: 1e9, bytes: 1e12 } };
/** The bounds of store/held.ts, as the bounded backlog fills them: an agent's writes over its conversations. */
const AGENT_BOUND = 1000;
const CONVERSATION_BOUND = 100;

/** Starts the daemon (daemon-entry.js) of `daemonConfig` with these agents or this sources.json; waits until it listens. */
async function startDaemon(phase: string, env: Record<string, string>): Promise<{ child: Child; http: Http }> {
  ensureBuilt();
  const { from, flags, root } = daemonConfig;
  const child = new Child("daemon-entry.js", {
    name: "daemon",
    env: { BENCH_DAEMON_FROM: from, BENCH_DAEMON_ROOT: root, ...env },
    execArgv: ["--expose-gc", ...profile(phase, "daemon"), ...flags.split(" ").filter(Boolean)],
    ...(from === "built" ? { nodeFlags: ["--disable-warning=ExperimentalWarning"] } : {}),
  });
  const listening = await child.once<{ url: string; token: string }>("listening", 180_000);
  return { child, http: new Http(listening.url, listening.token) };
}

async function until(what: string, fn: () => Promise<boolean>, ms = 180_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`held bench: gave up waiting for ${what}`);
    await sleep(50);
  }
}

/** Runs `task` over `items` with `width` workers; each worker takes the items whose index ≡ its number. */
async function inLanes<T>(items: T[], width: number, lane: (item: T, i: number) => number, task: (item: T) => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: width }, async (_, w) => {
    for (let i = 0; i < items.length; i++) if (lane(items[i]!, i) % width === w) await task(items[i]!);
  }));
}

/** A loop that times one call every `everyMs` until stopped. */
function sampler(everyMs: number, call: () => Promise<unknown>): { stop: () => Promise<number[]> } {
  const times: number[] = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const t0 = nowMs();
      await call();
      times.push(nowMs() - t0);
      await sleep(everyMs);
    }
  })();
  return { stop: async () => ((stopped = true), await done, times) };
}

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

async function backlogRun(backlog: "bounded" | "issue", daemon: "before" | "now", shape: { sends: number; answers: number; panes: number; textBytes: number; maxSeconds: number }, log: (l: string) => void): Promise<BacklogResult> {
  const dir = mkdtempSync(join(tmpdir(), "collie-bench-held-"));
  const children: Child[] = [];
  try {
    const heldSocket = join(dir, "held.sock");
    const idleSocket = join(dir, "idle.sock");
    const idle = new Child("held-agent.ts", { name: "idle-agent", env: { BENCH_SOCKET: idleSocket, BENCH_NAME: "idle", BENCH_PANES: "1" } });
    children.push(idle);
    await idle.once("ready");
    const { child, http } = await startDaemon(`held-${backlog}-${daemon}`, {
      BENCH_DAEMON_SOURCES: JSON.stringify([{ name: "held", socket: heldSocket }, { name: "idle", socket: idleSocket }]),
      ...(backlog === "issue" ? { BENCH_HELD_LIMITS: JSON.stringify(UNBOUNDED) } : {}),
    });
    children.push(child);
    const stats = () => child.call<DaemonStats>("stats");
    await until("the idle agent ready", async () => (await stats()).ready >= 1);

    // Fill: each pane's messages one after another (their order is the phone's), panes side by side.
    const t0 = nowMs();
    let refused = 0;
    const filler = "x".repeat(shape.textBytes);
    const sends = Array.from({ length: shape.sends }, (_, i) => ({ pane: i % shape.panes, n: Math.floor(i / shape.panes) }));
    await inLanes(sends, 16, (s) => s.pane, async (s) => {
      const r = await http.call("POST", `/api/agents/held/panes/pane-${s.pane}/send`, { requestId: randomUUID(), text: `${filler} #${s.n}` });
      if (r.status === 429) refused++;
      else if (r.status !== 202) throw new Error(`held bench: a send answered ${r.status} ${JSON.stringify(r.body)}`);
    });
    const answers = Array.from({ length: shape.answers }, (_, i) => i);
    await inLanes(answers, 16, (_, i) => i, async (i) => {
      const r = await http.call("POST", `/api/agents/held/panes/pane-${i % shape.panes}/asks/${hex(16)}/answer`, { requestId: randomUUID(), revision: hex(8), answer: { kind: "permission", optionId: "allow" } });
      if (r.status === 429) refused++;
      else if (r.status !== 202) throw new Error(`held bench: an answer answered ${r.status} ${JSON.stringify(r.body)}`);
    });
    const fillSeconds = (nowMs() - t0) / 1000;
    log(`held ${backlog} (${daemon}): ${shape.sends} messages and ${shape.answers} answers held in ${fillSeconds.toFixed(1)} s (${refused} refused)`);

    // The machine's noise: health with the backlog held and nothing moving.
    await child.call("loop-delay");
    const quiet = sampler(10, () => http.call("GET", "/api/health"));
    await sleep(5000);
    const healthBeforeMs = await quiet.stop();
    const loopDelayBefore = await child.call<BacklogResult["loopDelay"]>("loop-delay");
    // A phone that learns how each held write ended.
    const phone = await Phone.connect(http.url, http.token);
    const outcomes: Record<string, number> = {};
    phone.on((m) => {
      if (m.type !== "held-outcome") return;
      const k = `${m.status}${typeof m.body.error === "string" ? ` ${m.body.error}` : ""}`;
      outcomes[k] = (outcomes[k] ?? 0) + 1;
    });
    // The agent comes back; a phone's tap wakes the connection from its retry delay (as any action does).
    const agent = new Child("held-agent.ts", { name: "held-agent", env: { BENCH_SOCKET: heldSocket, BENCH_NAME: "held", BENCH_PANES: String(shape.panes) } });
    children.push(agent);
    await agent.once("ready");
    const rssStartMb = rssMb(child.pid);
    await http.call("POST", "/api/agents/idle/panes/pane-0/send", { requestId: randomUUID(), text: "wake" });
    const woke = await http.call("POST", "/api/agents/held/panes/pane-wake/send", { requestId: randomUUID(), text: "wake" });
    if (woke.status !== 202) throw new Error(`held bench: the wake answered ${woke.status} ${JSON.stringify(woke.body)}`);
    await until("the held agent ready", async () => (await stats()).ready >= 2, 60_000);

    const cpu = new CpuMeter(child.pid);
    cpu.start();
    await child.call("loop-delay");
    await child.call("sync-times");
    const d0 = nowMs();
    let rssMaxMb = rssStartMb;
    const rss = sampler(500, async () => (rssMaxMb = Math.max(rssMaxMb, rssMb(child.pid))));
    const health = sampler(10, () => http.call("GET", "/api/health"));
    const snapshot = sampler(1000, () => http.call("GET", "/api/snapshot"));
    const idleSend = sampler(250, async () => {
      const r = await http.call("POST", "/api/agents/idle/panes/pane-0/send", { requestId: randomUUID(), text: "meanwhile" });
      if (r.status !== 200) throw new Error(`held bench: the idle agent's send answered ${r.status}`);
    });
    const expected = shape.sends - refused;
    let got = { sends: 0, outOfOrder: 0 };
    let drainSeconds: number | null = null;
    for (;;) {
      got = await agent.call<{ sends: number; outOfOrder: number }>("counts");
      const elapsed = (nowMs() - d0) / 1000;
      if (got.sends >= expected) {
        drainSeconds = elapsed;
        break;
      }
      if (elapsed > shape.maxSeconds) break;
      await sleep(50);
    }
    const windowSeconds = (nowMs() - d0) / 1000;
    const daemonCpu = cpu.read();
    const loopDelay = await child.call<BacklogResult["loopDelay"]>("loop-delay");
    const syncWork = await child.call<BacklogResult["syncWork"]>("sync-times");
    log(`held ${backlog} (${daemon}): synchronous work in the daemon during the drain ${JSON.stringify(syncWork)}`);
    const [healthMs, snapshotMs, idleMs] = await Promise.all([health.stop(), snapshot.stop(), idleSend.stop(), rss.stop()]);
    const heldAtEnd = (await stats()).held;
    if (process.env.BENCH_HELD_DEBUG) log(`daemon log: ${(await stats()).log.join(" | ")}`);
    http.close();
    phone.close();
    log(`held ${backlog} (${daemon}): outcomes ${JSON.stringify(outcomes)}`);
    log(`held ${backlog} (${daemon}): ${got.sends} of ${expected} delivered in ${windowSeconds.toFixed(1)} s${drainSeconds === null ? " (cut)" : ""}; health p99 ${roundSummary(summarize(healthMs)).p99} ms`);
    return {
      backlog, daemon, sends: shape.sends, answers: shape.answers, textMb: round((shape.sends * shape.textBytes) / 1e6, 1), fillSeconds: round(fillSeconds, 1), refused,
      drainSeconds: drainSeconds === null ? null : round(drainSeconds, 2), windowSeconds: round(windowSeconds, 1), delivered: got.sends,
      perSecond: round(got.sends / windowSeconds, 1), outOfOrder: got.outOfOrder, outcomes, heldAtEnd, daemonCpu: round(daemonCpu, 3),
      rssStartMb: round(rssStartMb, 0), rssMaxMb: round(rssMaxMb, 0),
      health: roundSummary(summarize(healthMs)), healthBefore: roundSummary(summarize(healthBeforeMs)), loopDelayBefore, loopDelay, syncWork, snapshot: roundSummary(summarize(snapshotMs)), idleSend: roundSummary(summarize(idleMs)),
    };
  } finally {
    for (const c of children.reverse()) await c.stop(10_000);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A crew action's cost with the member's queue at 1 and at 1 000 (issue 38, item 6): the lead holds
 * every action for a member it cannot reach; each action used to read every held row.
 */
async function crewRun(daemon: "before" | "now", textBytes: number, log: (l: string) => void): Promise<CrewActionResult> {
  const dir = mkdtempSync(join(tmpdir(), "collie-bench-held-crew-"));
  const sources = join(dir, "sources.json");
  // Nothing listens on port 9 (discard) here: the member is away for the whole run.
  writeFileSync(sources, JSON.stringify({ crew: [{ name: "attic", url: "http://127.0.0.1:9", token: "crew-credential-0123456789" }] }));
  const { child, http } = await startDaemon(`held-crew-${daemon}`, { BENCH_DAEMON_SOURCES_FILE: sources });
  try {
    const filler = "x".repeat(textBytes);
    const send = (key: string, pane: string) => http.call("POST", `/api/agents/${key}/panes/${pane}/send`, { requestId: randomUUID(), text: filler });
    await until("the lead holds for the member", async () => (await send("first@attic", "p")).status === 202, 60_000);
    const probe = async (key: string) => {
      const times: number[] = [];
      for (let i = 0; i < 50; i++) {
        const t0 = nowMs();
        const r = await send(key, `p${i % 5}`);
        times.push(nowMs() - t0);
        if (r.status !== 202) throw new Error(`held bench: a crew action answered ${r.status}`);
      }
      return times;
    };
    const at1 = await probe("probe@attic");
    // The member's agent at its bound: 1 000 actions over 10 conversations.
    await inLanes(Array.from({ length: AGENT_BOUND }, (_, i) => i), 10, (_, i) => i, async (i) => {
      const r = await send("ghost@attic", `p${i % (AGENT_BOUND / CONVERSATION_BOUND)}`);
      if (r.status !== 202) throw new Error(`held bench: a crew hold answered ${r.status}`);
    });
    const health = sampler(10, () => http.call("GET", "/api/health"));
    const at1000 = await probe("probe2@attic");
    const healthMs = await health.stop();
    log(`held crew (${daemon}): an action at 1 held p50 ${roundSummary(summarize(at1)).p50} ms, at 1 000 held p50 ${roundSummary(summarize(at1000)).p50} ms`);
    return { daemon, at1: roundSummary(summarize(at1)), at1000: roundSummary(summarize(at1000)), health: roundSummary(summarize(healthMs)) };
  } finally {
    http.close();
    await child.stop(10_000);
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runHeld(cfg: HeldConfig, log: (l: string) => void): Promise<HeldResult> {
  const out: HeldResult = { backlogs: [], crew: [] };
  const runs: ["before" | "now", string][] = cfg.beforeRoot ? [["before", cfg.beforeRoot], ["now", ROOT]] : [["now", ROOT]];
  for (const [daemon, root] of runs) {
    const saved = { ...daemonConfig };
    daemonConfig.root = root;
    try {
      const maxSeconds = daemon === "before" ? cfg.beforeSeconds : 600;
      if (cfg.parts.has("crew")) out.crew.push(await crewRun(daemon, cfg.textBytes, log));
      // One place of the agent's bound is the phone's tap that wakes the connection once the agent is back.
      if (cfg.parts.has("bounded")) out.backlogs.push(await backlogRun("bounded", daemon, { sends: AGENT_BOUND - 1, answers: 0, panes: AGENT_BOUND / CONVERSATION_BOUND, textBytes: cfg.textBytes, maxSeconds }, log));
      if (cfg.parts.has("issue")) out.backlogs.push(await backlogRun("issue", daemon, { sends: cfg.sends, answers: cfg.answers, panes: 100, textBytes: cfg.textBytes, maxSeconds }, log));
    } finally {
      Object.assign(daemonConfig, saved);
    }
  }
  return out;
}
