/**
 * Shared pieces of the benchmark: a clock every process on the machine agrees on, percentiles,
 * /proc readers for a child's CPU and memory, and a helper that forks a bench script as a child
 * with an IPC channel and kills it when the bench ends.
 */
import { fork, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { nowMs } from "./child-ipc.js";

export { nowMs, serveParent } from "./child-ipc.js";

export const BENCH_DIR = import.meta.dirname;
export const ROOT = join(BENCH_DIR, "..");

/** Node flags every child runs with: workspace packages resolve to their TypeScript sources. */
export const NODE_FLAGS = ["--conditions=collie-source", "--disable-warning=ExperimentalWarning"];

export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}=${raw} is not a non-negative number`);
  return Math.floor(n);
}

export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentiles of a sample, in the sample's unit. */
export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { n: 0, p50: NaN, p90: NaN, p99: NaN, max: NaN, mean: NaN };
  const s = [...values].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
  return { n: s.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: s[s.length - 1]!, mean: s.reduce((a, b) => a + b, 0) / s.length };
}

export const round = (n: number, digits = 3): number => (Number.isFinite(n) ? Number(n.toFixed(digits)) : n);

export function roundSummary(s: Summary, digits = 3): Summary {
  return { n: s.n, p50: round(s.p50, digits), p90: round(s.p90, digits), p99: round(s.p99, digits), max: round(s.max, digits), mean: round(s.mean, digits) };
}

const CLK_TCK = 100; // USER_HZ on Linux

/** CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After the command: state(0) ppid(1) … utime(11) stime(12)
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
}

/**
 * CPU time a process has spent on a CPU so far, in ms, with nanosecond resolution: the sum over
 * its threads of /proc/<pid>/task/<tid>/schedstat's first field. Divided by the asks of a run it
 * is each process's own work per ask, which a loaded machine moves far less than a latency.
 */
export function cpuNsMs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return ns / 1e6;
}

/** Resident set size of a process, in MB, from /proc/<pid>/status. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = /^VmRSS:\s+(\d+) kB/m.exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Tracks a process's CPU share between `start()` and `stop()`: 1.0 is one full core. */
export class CpuMeter {
  readonly #pid: number;
  #cpu0 = 0;
  #t0 = 0;
  constructor(pid: number) {
    this.#pid = pid;
  }
  start(): void {
    this.#cpu0 = cpuMs(this.#pid);
    this.#t0 = nowMs();
  }
  /** Share of one core since start. */
  read(): number {
    return (cpuMs(this.#pid) - this.#cpu0) / (nowMs() - this.#t0);
  }
}

/** A forked bench script with request/reply over IPC. */
export class Child {
  readonly proc: ChildProcess;
  readonly name: string;
  #next = 1;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly #listeners = new Set<(m: Record<string, unknown>) => void>();
  readonly exited: Promise<void>;

  /** `nodeFlags`: instead of NODE_FLAGS (the built daemon runs without the `collie-source` condition). */
  constructor(script: string, opts: { name: string; env?: Record<string, string>; execArgv?: string[]; args?: string[]; nodeFlags?: string[] }) {
    this.name = opts.name;
    this.proc = fork(join(BENCH_DIR, script), opts.args ?? [], {
      execArgv: [...(opts.nodeFlags ?? NODE_FLAGS), ...(opts.execArgv ?? [])],
      env: { ...process.env, ...opts.env },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      serialization: "advanced",
    });
    all.add(this);
    this.exited = new Promise((resolve) => {
      this.proc.once("exit", (code, signal) => {
        all.delete(this);
        for (const p of this.#pending.values()) p.reject(new Error(`${this.name} exited (${code ?? signal})`));
        this.#pending.clear();
        resolve();
      });
    });
    this.proc.on("message", (raw) => {
      const m = raw as Record<string, unknown>;
      if (typeof m.replyTo === "number") {
        const p = this.#pending.get(m.replyTo);
        this.#pending.delete(m.replyTo);
        if (m.error) p?.reject(new Error(`${this.name}: ${String(m.error)}`));
        else p?.resolve(m.value);
        return;
      }
      for (const l of this.#listeners) l(m);
    });
  }

  get pid(): number {
    return this.proc.pid!;
  }

  /** Sends a command and waits for its reply. */
  call<T = unknown>(type: string, body: Record<string, unknown> = {}, timeoutMs = 120_000): Promise<T> {
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${this.name}: ${type} got no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.proc.send({ ...body, type, id });
    });
  }

  /** Messages the child sends on its own (not replies). */
  on(listener: (m: Record<string, unknown>) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Waits for the first unsolicited message of this type. */
  once<T = Record<string, unknown>>(type: string, timeoutMs = 120_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`${this.name}: no ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.on((m) => {
        if (m.type !== type) return;
        clearTimeout(timer);
        off();
        resolve(m as T);
      });
      void this.exited.then(() => {
        clearTimeout(timer);
        off();
        reject(new Error(`${this.name} exited before ${type}`));
      });
    });
  }

  /** Asks the child to stop, then kills it if it has not gone within `ms`. */
  async stop(ms = 5000): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    try {
      this.proc.send({ type: "exit", id: 0 });
    } catch {
      // channel already closed
    }
    const timer = setTimeout(() => this.proc.kill("SIGKILL"), ms);
    await this.exited;
    clearTimeout(timer);
  }
}

const all = new Set<Child>();

/** Kills every child still running (the bench's last resort on exit or error). */
export function killAll(): void {
  for (const c of all) {
    try {
      c.proc.kill("SIGKILL");
    } catch {
      // gone
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
