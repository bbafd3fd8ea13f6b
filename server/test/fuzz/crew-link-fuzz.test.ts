/**
 * The crew link fuzzed (C-1, L-2; the security issues 28 and 38): a hostile member feeds a real lead
 * daemon, in its own process, frames made to hurt: malformed JSON and damaged bytes, binary frames,
 * messages of the live contract with wrong types, missing fields and hostile text (mutated golden
 * fixtures), unknown types, deep nesting, frames over the size bound, and floods of distinct
 * agents and conversations. The lead disconnects it again and again for what it sends; it
 * connects again each time.
 *
 * Oracle: the lead's process never dies; its health answers throughout; every message its phone
 * gets fits the live contract (helpers/live.ts); what it keeps of the member stays within
 * MEMBER_LIMITS and its resume buffer within RESUME_BUFFER_BYTES; after the run its snapshot
 * answers, and a good message from the member still lands.
 *
 * Cases: FUZZ_CASES frames (default 1 500 in `npm test`; a flood counts as one), seed FUZZ_SEED. CREW_FUZZ_SECONDS runs
 * for that long instead (`npm run test:soak`: 60 s) and then asks for flat memory: the lead's heap
 * after a GC at the end is within CREW_FUZZ_HEAP_MB (48) of the heap after the first tenth of the
 * run. Figures: a RELIABILITY line.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import type { WebSocket } from "ws";
import { clone, damageBytes, deepJson, envInt, fuzzCases, hostileString, mutate, report, Rng, SEED } from "../../../sdk/test/helpers/fuzz.ts";
import { loadLiveFixtures } from "../../../shared/test/fixtures/live.ts";
import { ChildAgent, killAllAgents } from "../helpers/child-agent.ts";
import { writeSources } from "../helpers/daemon.ts";
import { FakeMember, memberConversation, memberRow, memberSnapshot } from "../helpers/fake-member.ts";
import { closeAllLive, LiveClient } from "../helpers/live.ts";
import { DEVICE_TOKENS } from "../helpers/tokens.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";
import { MEMBER_LIMITS } from "../../src/crew/kept.ts";
import { RESUME_BUFFER_BYTES } from "../../src/agents/live.ts";

const SECONDS = envInt("CREW_FUZZ_SECONDS", 0);
const CASES = SECONDS > 0 ? Number.MAX_SAFE_INTEGER : fuzzCases(1_500);
const HEAP_MB = envInt("CREW_FUZZ_HEAP_MB", 48);
const AGENTS = ["a0", "a1", "a2", "a3"];

let member: FakeMember | undefined;
after(async () => {
  await closeAllLive();
  await member?.close();
  await killAllAgents();
  removeTempDirs();
});

/** The golden fixtures' accepted messages, their agents renamed to the fuzzing member's. */
const SEEDS = loadLiveFixtures().filter((f) => f.expect === "accept").map((f) => JSON.parse(JSON.stringify(f.message).replace(/"(desk|ledger)(@workshop)?"/g, '"a0"')) as unknown);

/** One frame of the fuzz: text, bytes (a binary frame when `binary`), or a burst of frames. */
type Frame = { text: string } | { bytes: Buffer; binary: boolean } | { burst: string[] };

function frame(rng: Rng, n: number): Frame {
  const valid = () => JSON.stringify(clone(rng.pick(SEEDS)));
  switch (rng.weighted<string>([[200, "valid"], [250, "mutated"], [80, "damaged"], [60, "binary"], [60, "unknown"], [60, "deep"], [50, "garbage"], [15, "flood"], [2, "huge"]])) {
    case "valid": return { text: valid() };
    case "mutated": {
      const m = clone(rng.pick(SEEDS));
      for (let i = rng.range(1, 3); i > 0; i--) mutate(rng, m);
      return { text: JSON.stringify(m) };
    }
    case "damaged": return { bytes: damageBytes(rng, valid()), binary: false };
    case "binary": return { bytes: Buffer.from(Array.from({ length: rng.range(0, 512) }, () => rng.int(256))), binary: true };
    case "unknown": return { text: JSON.stringify({ type: rng.chance(0.5) ? hostileString(rng, 64) : rng.pick([null, 1, [], {}]), seq: n }) };
    case "deep": {
      const depth = rng.pick([33, 64, 1000, 10_000, 100_000]);
      return { text: `{"type":"conversation","seq":${n},"conversation":${JSON.stringify(memberConversation("a0", `deep${n}`)).replace(/}$/, `,"later":${deepJson(depth, rng.chance(0.5) ? "array" : "object")}}`)}` };
    }
    case "garbage": return { text: rng.pick(["null", "[]", "42", "\"x\"", "", "{", "}", "{\"type\":\"view\"}", "{\"type\":\"snapshot\",\"snapshot\":null}"]) };
    case "flood": {
      // Distinct agents and conversations: the bounds per member, not the count of frames, decide what is kept.
      const agent = rng.pick(AGENTS);
      const burst = Array.from({ length: rng.range(50, 600) }, (_, i) => rng.chance(0.05)
        ? JSON.stringify({ type: "agent", seq: n, agent: memberRow(`f${n}x${i}`) })
        : JSON.stringify({ type: "conversation", seq: n, conversation: memberConversation(agent, `c${n}x${i}`, { title: hostileString(rng, 300) }) }));
      return { burst };
    }
    default: return { text: JSON.stringify({ type: "conversation", seq: n, conversation: memberConversation("a0", `huge${n}`, { title: "x".repeat(MEMBER_LIMITS.frameBytes) }) }) };
  }
}

test(`a hostile member: ${SECONDS > 0 ? `${SECONDS} s` : `${CASES} frames`} of hostile frames leave the lead up, within its bounds, reading the member still`, { timeout: 180_000 + SECONDS * 3_000 }, async () => {
  const rng = new Rng(SEED ^ 0xc3e1);
  const totals = { frames: 0, connections: 0, bursts: 0, huge: 0, deep: 0, binary: 0 };
  let sent = 0;
  /** Sends frames on one connection of the lead until it is closed or the run is over. */
  const feed = (socket: WebSocket) => {
    socket.send(memberSnapshot(AGENTS.map((a) => memberRow(a)), AGENTS.map((a) => memberConversation(a, "home"))));
    const pump = () => {
      // A few frames per turn of the event loop, so the lead's reads and health stay in the race.
      for (let k = 0; k < 20 && socket.readyState === socket.OPEN && !done(); k++) {
        const f = frame(rng, ++sent);
        totals.frames++;
        if ("burst" in f) {
          totals.bursts++;
          for (const t of f.burst) socket.send(t);
        } else if ("bytes" in f) {
          if (f.binary) totals.binary++;
          socket.send(f.bytes, { binary: f.binary });
        } else {
          if (f.text.length > MEMBER_LIMITS.frameBytes) totals.huge++;
          if (f.text.includes("\"later\":[[") || f.text.includes("\"later\":{\"a\":{")) totals.deep++;
          socket.send(f.text);
        }
      }
      if (socket.readyState === socket.OPEN && !done()) setTimeout(pump, 1);
    };
    pump();
  };
  const started = Date.now();
  const done = () => (SECONDS > 0 ? Date.now() - started > SECONDS * 1000 : sent >= CASES);
  member = await FakeMember.start({ onLive: (socket) => feed(socket) });

  const dir = tempDir();
  const sources = join(dir, "sources.json");
  writeSources(sources, { crew: [{ name: "box", url: member.url, token: "crew-credential-0123456789" }] });
  const lead = new ChildAgent("../daemon-child.ts", ["--state", join(dir, "lead"), "--sources", sources, "--pair", "--retry", "5,10,20"], {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --expose-gc`,
  });
  const ready = await lead.waitFor((m) => typeof m.listening === "string");
  const url = ready.listening as string;
  const auth = { authorization: `Bearer ${ready.token as string}` };
  let died: string | null = null;
  void lead.exited.then(({ code, signal }) => (died = `exited ${code ?? signal}: ${lead.stderr.slice(-2000)}`));
  const stats = async () => {
    const from = lead.messages.length;
    lead.send({ cmd: "stats" });
    const m = await lead.waitFor((x) => "stats" in x && lead.messages.indexOf(x) >= from);
    return m.stats as { memory: NodeJS.MemoryUsage; crew: Record<string, { agents: number; conversations: number; bytes: number }>; buffered: { messages: number; bytes: number } };
  };
  DEVICE_TOKENS.set(url.replace(/^http/, "ws"), ready.token as string);
  const phone = await LiveClient.connect(url.replace(/^http/, "ws"));
  phone.send({ type: "watch", agent: "a0@box", pane: "home" });

  let warmHeap = 0;
  let healthChecks = 0;
  const checkBounds = async () => {
    const s = await stats();
    const kept = s.crew.box!;
    assert.ok(kept.agents <= MEMBER_LIMITS.agents, `${kept.agents} agents kept`);
    assert.ok(kept.conversations <= MEMBER_LIMITS.conversations, `${kept.conversations} conversations kept`);
    assert.ok(kept.bytes <= MEMBER_LIMITS.bytes, `${kept.bytes} bytes kept`);
    assert.ok(s.buffered.bytes <= RESUME_BUFFER_BYTES + MEMBER_LIMITS.frameBytes, `${s.buffered.bytes} bytes in the resume buffer`);
    return s;
  };
  while (!done()) {
    await new Promise((r) => setTimeout(r, 250));
    assert.equal(died, null, died ?? "");
    // A deadline on every read: a lead stuck on what it was sent fails the run instead of hanging it.
    const health = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(15_000) });
    assert.equal(health.status, 200);
    healthChecks++;
    if (SECONDS > 0 && warmHeap === 0 && Date.now() - started > SECONDS * 100) warmHeap = (await checkBounds()).memory.heapUsed;
  }
  totals.connections = member.connections;
  assert.equal(died, null, died ?? "");

  // After the run: a well-behaved connection of the same member lands, and the lead answers.
  member.set({ onLive: (socket) => socket.send(memberSnapshot([memberRow("calm")], [memberConversation("calm", "after")])) });
  for (const s of member.sockets) s.terminate();
  await until(async () => {
    const r = await fetch(`${url}/api/snapshot`, { headers: auth, signal: AbortSignal.timeout(15_000) });
    assert.equal(r.status, 200);
    const body = (await r.json()) as { conversations: { agent: string; id: string }[] };
    return body.conversations.some((c) => c.agent === "calm@box" && c.id === "after");
  }, "the member's good snapshot after the fuzz");
  const end = await checkBounds();
  const figures: Record<string, number> = {
    ...totals, healthChecks, seconds: Math.round((Date.now() - started) / 1000),
    heapEndMB: Math.round(end.memory.heapUsed / 1e6), rssEndMB: Math.round(end.memory.rss / 1e6),
  };
  if (warmHeap > 0) {
    figures.heapWarmMB = Math.round(warmHeap / 1e6);
    assert.ok(end.memory.heapUsed - warmHeap < HEAP_MB * 1e6, `the lead's heap grew from ${figures.heapWarmMB} MB to ${figures.heapEndMB} MB`);
  }
  report("crew-link-fuzz", figures);
  await phone.close();
  assert.ok(totals.connections > 1, "the lead disconnected the member at least once");
});
