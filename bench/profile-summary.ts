/**
 * Reads a V8 `.cpuprofile` (from `BENCH_PROFILE=1 npm run bench`, or `node --cpu-prof`) and prints
 * where the time went: self time and inclusive time per function, the top `N` of each. A
 * `.heapprofile` (`BENCH_ALLOC_PROFILE=1`: sampled allocations, garbage included) is read the same
 * way, in bytes allocated instead of time.
 *
 *   node bench/profile-summary.ts bench/results/profiles/<file>.cpuprofile [N]
 *   node bench/profile-summary.ts bench/results/profiles/load-daemon.heapprofile [N]
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { ROOT } from "./lib.ts";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error("usage: node bench/profile-summary.ts <file.cpuprofile> [N]");
  process.exit(2);
}
const top = Number(topArg ?? 40);

const label = (n: Node) => {
  const f = n.callFrame;
  const where = f.url ? `${relative(ROOT, f.url.replace(/^file:\/\//, ""))}:${f.lineNumber + 1}` : "";
  return `${f.functionName || "(anonymous)"} ${where}`.trim();
};

interface HeapNode {
  callFrame: Node["callFrame"];
  selfSize: number;
  children: HeapNode[];
}
if (file.endsWith(".heapprofile")) {
  const { head } = JSON.parse(readFileSync(file, "utf8")) as { head: HeapNode };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let all = 0;
  const walk = (n: HeapNode, stack: string[]): number => {
    const l = label({ id: 0, callFrame: n.callFrame });
    self.set(l, (self.get(l) ?? 0) + n.selfSize);
    all += n.selfSize;
    let sum = n.selfSize;
    for (const c of n.children) sum += walk(c, [...stack, l]);
    if (!stack.includes(l)) total.set(l, (total.get(l) ?? 0) + sum);
    return sum;
  };
  walk(head, []);
  console.log(`allocations: ${(all / 2 ** 20).toFixed(1)} MB sampled`);
  for (const [title, m] of [["self", self], ["inclusive", total]] as const) {
    console.log(`\n${title} (% of bytes allocated)`);
    for (const [k, v] of [...m].filter(([k]) => k !== "(root)").sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`${((100 * v) / all).toFixed(1).padStart(6)}%  ${(v / 2 ** 20).toFixed(1).padStart(7)} MB  ${k}`);
    }
  }
  process.exit(0);
}

const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);


const self = new Map<string, number>();
const total = new Map<string, number>();
let all = 0;
profile.samples.forEach((id, i) => {
  const dt = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000;
  all += dt;
  const node = byId.get(id)!;
  const l = label(node);
  self.set(l, (self.get(l) ?? 0) + dt);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const name = label(byId.get(cur)!);
    if (seen.has(name)) continue;
    seen.add(name);
    total.set(name, (total.get(name) ?? 0) + dt);
  }
});

const idle = ["(idle)", "(program)", "(garbage collector)"].map((k) => [k, self.get(k) ?? 0] as const);
console.log(`profile: ${(all / 1000).toFixed(1)} s sampled; ${idle.map(([k, v]) => `${k} ${((100 * v) / all).toFixed(1)}%`).join(", ")}`);
const busy = all - (self.get("(idle)") ?? 0);
const print = (title: string, m: Map<string, number>) => {
  console.log(`\n${title} (% of busy time)`);
  for (const [k, v] of [...m].filter(([k]) => k !== "(idle)" && k !== "(root)").sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * v) / busy).toFixed(1).padStart(6)}%  ${k}`);
  }
};
print("self", self);
print("inclusive", total);
